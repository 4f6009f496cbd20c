/**
 * `perf mcp [--http PORT] [--config FILE]`: the MCP front door. stdio by default (the client spawns
 * us); Streamable HTTP on 127.0.0.1 with --http. Starts without an app; stops the app it started
 * itself when it exits.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { closest, exitCodeOf, isPerfError, PerfError } from '../errors.js';
import * as manager from '../session/manager.js';
import { installSignalHandlers, onShutdown } from '../session/processes.js';
import { CAPS, DEFAULT_CAPS } from './caps.js';
import { loadConfig } from './config.js';
import { McpCore, type SessionManager } from './core.js';
import { startMcpHttp } from './http.js';
import { createMcpServer } from './protocol.js';
import { allTools } from './tools.js';

export { createMcpServer } from './protocol.js';
export { McpCore } from './core.js';
export { allTools } from './tools.js';

export const MCP_USAGE = `Usage: perf mcp [--caps NAME,…] [--http PORT] [--config FILE] [--allow-outside]

Serve the rehearse steps as MCP tools (snap, tap, fill, …) plus app_start, app_stop, app_status,
run and the perf tools, in groups (caps); ${DEFAULT_CAPS.join(' and ')} are on by default.

  --caps NAME,…   The groups of tools to offer ("all" for every tool); replaces tools.caps:
${CAPS.map((c) => `                  ${c.name.padEnd(17)}${c.byDefault ? '(default) ' : ''}${c.tools.join(', ')}`).join('\n')}
  --http PORT     Streamable HTTP on http://127.0.0.1:PORT/mcp instead of stdio (0 = a free port).
                  Only local clients: requests with a non-local Origin or Host are refused.
  --config FILE   Tool policy file (default .perf/mcp.json if present):
                  { "tools": { "caps": ["core", "perf"], "allow": ["*"], "deny": ["evaluate"] } }
                  allow / deny are globs with * and ?, applied on top of the caps.
                  evaluate (devtools cap) is denied by default; allow it with
                  "caps": ["core", "perf", "devtools"], "allow": ["*", "evaluate"].
  --allow-outside app_start and run may serve a folder outside the working folder (/ included).

Register with Claude Code:  claude mcp add rehearse -- npx perf mcp
`;

export interface McpArgs {
  /** --caps, split on commas (checked when the config is loaded). */
  caps?: string[];
  httpPort?: number;
  config?: string;
  allowOutside: boolean;
  help: boolean;
}

const MCP_FLAGS = ['--caps', '--http', '--config', '--allow-outside', '--help'];

export function parseMcpArgs(argv: readonly string[]): McpArgs {
  const out: McpArgs = { help: false, allowOutside: false };
  const rest = argv[0] === 'mcp' ? argv.slice(1) : [...argv];
  for (let i = 0; i < rest.length; i++) {
    const tok = rest[i]!;
    const eq = tok.indexOf('=');
    const flag = eq > 0 ? tok.slice(0, eq) : tok;
    const inline = eq > 0 ? tok.slice(eq + 1) : undefined;
    const value = (): string => {
      const v = inline ?? rest[++i];
      if (v === undefined || (inline === undefined && v.startsWith('--'))) {
        throw new PerfError({ code: 'invalid_flag', message: `perf mcp: ${flag} needs a value`, suggestion: MCP_USAGE.split('\n')[0] });
      }
      return v;
    };
    switch (flag) {
      case '--help':
      case '-h':
        out.help = true;
        break;
      case '--http': {
        const v = value();
        const port = Number(v);
        if (!/^\d+$/.test(v) || port > 65535) {
          throw new PerfError({ code: 'invalid_flag', message: `perf mcp: --http takes a port number 0-65535, got "${v}"` });
        }
        out.httpPort = port;
        break;
      }
      case '--config':
        out.config = value();
        break;
      case '--caps':
        out.caps = [...(out.caps ?? []), ...value().split(',')];
        break;
      case '--allow-outside':
        out.allowOutside = true;
        break;
      default: {
        const near = closest(flag, MCP_FLAGS);
        throw new PerfError({
          code: 'invalid_flag',
          message: `perf mcp: unknown ${flag.startsWith('-') ? 'flag' : 'argument'} "${tok}"${near.length ? `; did you mean ${near.join(' or ')}?` : ''}`,
          suggestion: 'perf mcp [--caps NAME,…] [--http PORT] [--config FILE] [--allow-outside]',
          candidates: near,
        });
      }
    }
  }
  return out;
}

/** Run the server until the client goes away (stdio) or a signal arrives. Returns the exit code. */
export async function runMcp(argv: string[], deps: { manager?: SessionManager; cwd?: string } = {}): Promise<number> {
  let args: McpArgs;
  let core: McpCore;
  const cwd = deps.cwd ?? process.cwd();
  try {
    args = parseMcpArgs(argv);
    if (args.help) {
      process.stdout.write(MCP_USAGE);
      return 0;
    }
    const tools = allTools();
    const { config, warnings } = loadConfig({ cwd, ...(args.config !== undefined ? { explicit: args.config } : {}), ...(args.caps ? { caps: args.caps } : {}), knownTools: tools.map((t) => t.name) });
    for (const w of warnings) process.stderr.write(`perf mcp: warning: ${w}\n`);
    core = new McpCore({ manager: deps.manager ?? manager, config, tools, cwd, allowOutside: args.allowOutside });
  } catch (e) {
    return reportStartupError(e);
  }

  // A long-running server must survive a stray rejection in a page callback: log it, keep serving.
  process.on('unhandledRejection', (reason) => process.stderr.write(`perf mcp: unhandled rejection: ${String((reason as Error)?.message ?? reason)}\n`));
  installSignalHandlers();
  onShutdown(() => core.shutdown());

  if (args.httpPort !== undefined) {
    let http;
    try {
      http = await startMcpHttp(core, args.httpPort);
    } catch (e) {
      return reportStartupError(e);
    }
    process.stderr.write(`perf mcp: listening on ${http.url}\n`);
    onShutdown(() => http.close());
    // Runs until SIGINT/SIGTERM, whose handler stops the owned app and exits the process.
    return new Promise<number>(() => undefined);
  }

  const server = createMcpServer(core);
  const transport = new StdioServerTransport();
  const done = new Promise<number>((resolve) => {
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      void core.shutdown().then(() => resolve(0));
    };
    // The SDK transport does not watch for end of input: a client that closed stdin has gone.
    process.stdin.once('end', end);
    process.stdin.once('close', end);
    server.onclose = end;
  });
  await server.connect(transport);
  return done;
}

function reportStartupError(e: unknown): number {
  if (isPerfError(e)) {
    process.stderr.write(`perf mcp: ${e.message.replace(/^perf mcp: /, '')}\n${e.suggestion ? `  ${e.suggestion}\n` : ''}`);
    return exitCodeOf(e.kind);
  }
  // Anything but a PerfError is a bug in perf: exit 4, never 1.
  process.stderr.write(`perf mcp: internal error: ${(e as Error)?.message ?? String(e)}\n  this is a bug in perf; please report it\n`);
  return exitCodeOf('internal');
}
