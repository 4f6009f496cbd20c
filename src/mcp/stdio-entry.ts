/**
 * `node dist/src/mcp/stdio-entry.js [perf mcp flags]`: the MCP server without the CLI
 * dispatcher, for MCP clients configured with a plain node command and for tests.
 */
import { runMcp } from './server.js';

const code = await runMcp(process.argv.slice(2));
// Exit explicitly: the CDP socket or a paused stdin must not keep a finished server alive.
process.exit(code);
