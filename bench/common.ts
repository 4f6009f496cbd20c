/** Shared bits of the benchmarks: medians, a side-by-side table, the Playwright launch options. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StepResult } from '../src/engine/run-step.js';
import { findChrome } from '../src/drivers/cdp/chrome.js';

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function p25p75(xs: number[]): [number, number] {
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor((s.length - 1) * 0.25)]!, s[Math.ceil((s.length - 1) * 0.75)]!];
}

/** The same binary and the flags this machine needs, for a fair comparison. */
export function playwrightLaunchOptions(): { executablePath: string; args: string[]; headless: boolean } {
  const path = findChrome().path;
  return {
    executablePath: path === '/usr/bin/chromium' ? '/usr/lib/chromium/chromium' : path,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    headless: true,
  };
}

export interface Row {
  what: string;
  ours: number[];
  peer: number[] | undefined;
  peerName: string;
  target?: number;
}

export function printTable(title: string, rows: Row[]): void {
  const fmt = (n: number): string => n.toFixed(1).padStart(8);
  console.log(`\n${title}`);
  console.log(
    `${'measure'.padEnd(44)} ${'rehearse'.padStart(8)} ${'p25-p75'.padStart(13)}  ${'peer'.padStart(8)} ${'p25-p75'.padStart(13)}  ${'ratio'.padStart(6)}  target`,
  );
  for (const r of rows) {
    const [a1, a3] = p25p75(r.ours);
    const ours = median(r.ours);
    const peer = r.peer ? median(r.peer) : undefined;
    const [b1, b3] = r.peer ? p25p75(r.peer) : [0, 0];
    const ratio = peer ? ours / peer : undefined;
    console.log(
      `${r.what.padEnd(44)} ${fmt(ours)} ${`${a1.toFixed(0)}-${a3.toFixed(0)}`.padStart(13)}  ${peer === undefined ? '       -' : fmt(peer)} ${r.peer ? `${b1.toFixed(0)}-${b3.toFixed(0)}`.padStart(13) : ''.padStart(13)}  ${ratio === undefined ? '     -' : ratio.toFixed(2).padStart(6)}  ${r.target !== undefined ? `<= ${r.target}x ${ratio !== undefined && ratio <= r.target ? 'met' : 'NOT met'}` : ''}`,
    );
  }
  console.log(`(medians in ms over ${rows[0]?.ours.length ?? 0} rounds, interleaved with the peer; peer = ${rows[0]?.peerName ?? ''})`);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Wall time of one awaited call, ms. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** A step's data, or throw: a benchmark round must not time a failure. */
export function okData(r: StepResult): Record<string, unknown> {
  if (r.status !== 'ok') throw new Error(`${r.step} failed: ${JSON.stringify(r.error)}`);
  return r.data ?? {};
}

/** An MCP server over stdio, as an agent sees it: a call's reply is the text of its content. */
export interface Mcp {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  listBytes(): Promise<{ bytes: number; count: number }>;
}

/** Starts `command args` in `cwd` and connects the SDK's client; `timeoutMs` bounds each call (the SDK's default is 60 s). */
export async function connectMcp(command: string, args: string[], cwd: string, timeoutMs?: number): Promise<Mcp> {
  const client = new Client({ name: 'rehearse-bench', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({ command, args, cwd, stderr: 'ignore', env: { ...(process.env as Record<string, string>) } }),
  );
  return {
    client,
    async call(name, a = {}) {
      const r = (await client.callTool({ name, arguments: a }, undefined, timeoutMs ? { timeout: timeoutMs } : undefined)) as {
        isError?: boolean;
        content: { type: string; text?: string }[];
      };
      return {
        text: r.content
          .filter((c) => c.type === 'text')
          .map((c) => c.text ?? '')
          .join('\n'),
        isError: r.isError === true,
      };
    },
    async listBytes() {
      const r = await client.listTools();
      return { bytes: JSON.stringify(r).length, count: r.tools.length };
    },
  };
}
