/**
 * A real MCP client on a `perf mcp` server over stdio, for the tests that drive tools as an agent would:
 * each reply's text, its JSON when it is JSON, and whether it was an error result.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
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
  return stdioOf(client, () => stderr, o.callTimeoutMs);
}

function stdioOf(client: Client, stderr: () => string, callTimeoutMs: number | undefined): Stdio {
  return {
    client,
    stderr,
    async call(name, a = {}) {
      const options = callTimeoutMs !== undefined ? { timeout: callTimeoutMs } : undefined;
      return replyOf(await client.callTool({ name, arguments: a }, undefined, options));
    },
    names: async () => (await client.listTools()).tools.map((t) => t.name),
    close: () => client.close(),
  };
}

/**
 * The SDK's stdio transport spawns the server itself and, on close, signals it after a grace: a test that must see
 * the server end by itself when its stdin closes (and everything it started with it) spawns the child its own way
 * (its own process group, to sweep) and speaks MCP over it with this. close() only ends stdin.
 */
class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly child: ChildProcessWithoutNullStreams) {}

  async start(): Promise<void> {
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      try {
        for (let m = this.buffer.readMessage(); m !== null; m = this.buffer.readMessage()) this.onmessage?.(m);
      } catch (e) {
        this.onerror?.(e as Error);
      }
    });
    this.child.on('error', (e) => this.onerror?.(e));
    this.child.on('close', () => this.onclose?.());
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) =>
      this.child.stdin.write(serializeMessage(message)) ? resolve() : this.child.stdin.once('drain', resolve),
    );
  }

  async close(): Promise<void> {
    this.child.stdin.end();
  }
}

/**
 * An MCP client on a server the caller spawned (any command: `npx -y NAME mcp`), its stdio piped; `connectTimeoutMs`
 * bounds the first reply (initialize), which for a command that installs first is more than the SDK's 60 s default.
 */
export async function childStdio(
  child: ChildProcessWithoutNullStreams,
  o: { name: string; connectTimeoutMs: number; callTimeoutMs?: number },
): Promise<Stdio> {
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: o.name, version: '0.0.0' });
  await client.connect(new ChildTransport(child), { timeout: o.connectTimeoutMs });
  return stdioOf(client, () => stderr, o.callTimeoutMs);
}
