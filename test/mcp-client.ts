/**
 * A real MCP client on a `perf mcp` server over stdio, for the tests that drive tools as an agent would:
 * each reply's text, its JSON when it is JSON, and whether it was an error result.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

export interface ToolReply {
  isError: boolean;
  text: string;
  // The tests read replies of many shapes; each asserts on the fields it names.
  json: any;
}

type Content = { type: string; text?: string; data?: string; mimeType?: string };

/** A tool result as the tests read it: the text, its JSON when it is JSON, and whether it was an error result. */
export function replyOf(result: unknown): ToolReply & { images: { data: string; mimeType: string }[] } {
  const res = result as { isError?: boolean; content: Content[] };
  const text = res.content.find((c) => c.type === 'text')?.text ?? '';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const images = res.content.filter((c) => c.type === 'image').map((c) => ({ data: c.data!, mimeType: c.mimeType! }));
  return { isError: res.isError === true, text, json, images };
}

export interface Stdio {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr: () => string;
  call(name: string, args?: Record<string, unknown>): Promise<ToolReply>;
  names(): Promise<string[]>;
  close(): Promise<void>;
}

/** `perf mcp ARGS` in `cwd` (with `env` added to this process's); `callTimeoutMs` bounds each tool call (the SDK's default is 60 s). */
export async function stdioServer(
  cwd: string,
  o: { args?: string[]; name: string; callTimeoutMs?: number; env?: Record<string, string> },
): Promise<Stdio> {
  let stderr = '';
  const env = { ...(process.env as Record<string, string>), ...o.env };
  const args = [join(ROOT, 'bin', 'perf'), 'mcp', ...(o.args ?? [])];
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd, env, stderr: 'pipe' });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: o.name, version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    async call(name, a = {}) {
      const options = o.callTimeoutMs !== undefined ? { timeout: o.callTimeoutMs } : undefined;
      return replyOf(await client.callTool({ name, arguments: a }, undefined, options));
    },
    names: async () => (await client.listTools()).tools.map((t) => t.name),
    close: () => client.close(),
  };
}
