/**
 * The static server of the page-load benchmark (bench/load.ts): three third-party pages from npm packages
 * (Swagger UI, a Tabulator data grid, a vanilla TodoMVC), served on 127.0.0.1 with exact Content-Type and
 * Content-Length and no compression, so the bytes both tools count are the files' own sizes plus headers.
 * Two knobs make the gate's targets demonstrable on a real page: `delay` holds one path's response back
 * (a slow render-blocking stylesheet) and `pad` appends bytes of script to one path (a larger bundle).
 *
 * Standalone: node dist/bench/load-server.js [--port N] [--delay /grid.css=300] [--pad /grid.js=204800]
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../src/perf/prng.js';
import { BENCH_MODULES } from './modules.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PAGES_DIR = path.join(ROOT, 'bench/load-pages');
const MODULES = path.join(ROOT, 'node_modules');

/** URL prefix → folder: the pages' own sources and the packages' distributed builds, as a static host would serve them. */
const MOUNTS: { prefix: string; dir: string }[] = [
  { prefix: '/swagger-ui/', dir: path.join(MODULES, 'swagger-ui-dist') },
  { prefix: '/tabulator/', dir: path.join(BENCH_MODULES, 'tabulator-tables/dist') },
  { prefix: '/', dir: PAGES_DIR },
];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

// 2000 rows: the "data grid with ~2000 rows"; enough that the grid virtualises and the JSON is a real fetch (~300 KB).
export const GRID_ROWS = 2000;

export interface LoadServerOptions {
  /** Path → ms to hold the response back before its headers (e.g. { '/grid.css': 300 }). */
  delay?: Record<string, number>;
  /** Path → bytes of script appended to that file (e.g. { '/grid.js': 204800 }: a 200 KB larger bundle). */
  pad?: Record<string, number>;
  /** 0 (default): a free port. */
  port?: number;
}

export interface LoadServer {
  url: string;
  port: number;
  /** Requests answered so far, by path (a check that both tools fetched the same files). */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** Deterministic rows (mulberry32, seed 29): the same bytes on every run and for both tools. */
export function gridRows(count = GRID_ROWS): string {
  const rand = mulberry32(29);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const first = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Radia', 'Tim', 'Frances', 'John'];
  const last = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Hamilton', 'Thompson', 'Perlman', 'Lee', 'Allen'];
  const cities = ['Lisbon', 'Oslo', 'Nairobi', 'Lima', 'Osaka', 'Tunis', 'Quito', 'Perth', 'Riga', 'Dakar', 'Hanoi', 'Porto'];
  const statuses = ['open', 'paid', 'shipped', 'returned', 'cancelled'];
  const rows = Array.from({ length: count }, (_, i) => {
    const name = `${pick(first)} ${pick(last)}`;
    return {
      id: i + 1,
      name,
      email: `${name.toLowerCase().replace(' ', '.')}${i}@example.test`,
      city: pick(cities),
      amount: Math.round(rand() * 1_000_000) / 100,
      date: `2026-${String(1 + Math.floor(rand() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`,
      status: pick(statuses),
      progress: Math.floor(rand() * 101),
    };
  });
  return JSON.stringify(rows);
}

/** `bytes` of valid script (a string it keeps alive, as dead code in a bundle would be): exact length, no compression here. */
export function scriptPadding(bytes: number): Buffer {
  const head = '\n;window.__loadBenchPad="';
  const tail = '";\n';
  const body = Math.max(0, bytes - head.length - tail.length);
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let x = 7;
  let s = '';
  for (let i = 0; i < body; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    s += alphabet[x % alphabet.length];
  }
  return Buffer.from(head + s + tail);
}

/** The file a URL path names, or undefined (never outside its mount). */
function resolveFile(urlPath: string): string | undefined {
  for (const m of MOUNTS) {
    if (!urlPath.startsWith(m.prefix)) continue;
    const file = path.resolve(m.dir, `.${urlPath.slice(m.prefix.length - 1)}`);
    if (!file.startsWith(m.dir + path.sep)) return undefined;
    try {
      if (!statSync(file).isFile()) return undefined;
      return realpathSync(file);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function body(urlPath: string, pad: Record<string, number>): Buffer | undefined {
  let data: Buffer | undefined;
  if (urlPath === '/grid-data.json') data = Buffer.from(gridRows());
  else {
    const file = resolveFile(urlPath);
    if (file !== undefined) data = readFileSync(file);
  }
  const extra = pad[urlPath];
  return data !== undefined && extra ? Buffer.concat([data, scriptPadding(extra)]) : data;
}

export async function startLoadServer(opts: LoadServerOptions = {}): Promise<LoadServer> {
  const delay = opts.delay ?? {};
  const pad = opts.pad ?? {};
  const hits = new Map<string, number>();
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    hits.set(urlPath, (hits.get(urlPath) ?? 0) + 1);
    const data = req.method === 'GET' || req.method === 'HEAD' ? body(urlPath, pad) : undefined;
    const send = (): void => {
      if (data === undefined) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 9 }).end('not found');
        return;
      }
      const type = TYPES[path.extname(urlPath)] ?? 'application/octet-stream';
      // no-store: every navigation fetches every byte, so a restart's cache state cannot change what is counted.
      res.writeHead(200, { 'Content-Type': type, 'Content-Length': data.length, 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : data);
    };
    const ms = delay[urlPath];
    if (ms) setTimeout(send, ms);
    else send();
  };
  const server = createServer(handle);
  // A browser keeps connections open: close() must not wait for their idle timeout.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** --delay /a=300 --pad /b=204800 → { '/a': 300 } etc. */
function pairs(args: string[], flag: string): Record<string, number> {
  const out: Record<string, number> = {};
  args.forEach((a, i) => {
    if (a !== flag) return;
    const [p, n] = (args[i + 1] ?? '').split('=');
    if (!p || !Number.isFinite(Number(n))) throw new Error(`${flag} expects PATH=NUMBER, e.g. ${flag} /grid.css=300`);
    out[p] = Number(n);
  });
  return out;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const portAt = args.indexOf('--port');
  const server = await startLoadServer({
    delay: pairs(args, '--delay'),
    pad: pairs(args, '--pad'),
    port: portAt >= 0 ? Number(args[portAt + 1]) : 0,
  });
  console.log(`${server.url}/swagger.html ${server.url}/grid.html ${server.url}/todo.html`);
  process.on('SIGINT', () => void server.close().then(() => process.exit(0)));
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}
