/**
 * A small static file server for `app: { serve: DIR }`. It behaves like the servers apps are
 * deployed behind (folder → index.html, /dir → /dir/ redirect, optional SPA fallback) so a scenario
 * measures the app, not quirks of the harness, and it never caches, so every repeat loads cold.
 * Bound to 127.0.0.1 only: it exposes a folder of the user's disk and must not be reachable from outside
 * (unless `host` asks otherwise: `--serve-host`, for Grid nodes on other machines).
 */
import { hostname, networkInterfaces } from 'node:os';
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PerfError } from '../errors.js';
import { printable } from '../printable.js';

export interface StaticServerOptions {
  root: string;
  /** 0 or undefined = a free port chosen by the OS. */
  port?: number;
  /** true = index.html, or a file path relative to root, served for unknown extension-less HTML requests. */
  spaFallback?: boolean | string;
  /** Called once per finished response with `METHOD /path STATUS`, for `perf logs`. */
  onRequest?: (line: string) => void;
  /**
   * Listen here instead of 127.0.0.1 (`--serve-host`, for Grid nodes on other machines): the folder is
   * then exposed there. Answered Hosts: loopback and this address with the port; for a wildcard
   * (0.0.0.0, ::) also this machine's host name and each of its interface addresses (acceptedHosts).
   */
  host?: string;
}

export interface StaticServer {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  port: number;
  /** The real (symlink-resolved) root folder being served. */
  root: string;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

export function contentTypeFor(filePath: string): string {
  return CONTENT_TYPES[path.extname(filePath).toLowerCase()] ?? 'application/octet-stream';
}

/** Where a request path leads, decided before any byte is sent. */
type Resolution =
  | { kind: 'file'; filePath: string; size: number }
  | { kind: 'redirect'; location: string }
  | { kind: 'not_found' }
  | { kind: 'forbidden' }
  | { kind: 'bad_request'; reason: string };

function isInside(realRoot: string, candidate: string): boolean {
  return candidate === realRoot || candidate.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
}

/** realpath + stat, or undefined when it does not exist or resolves outside the root. */
async function realEntry(
  realRoot: string,
  candidate: string,
): Promise<{ real: string; isDir: boolean; isFile: boolean; size: number } | 'outside' | undefined> {
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return undefined;
  }
  // A symlink pointing out of the root would otherwise publish any file on the disk.
  if (!isInside(realRoot, real)) return 'outside';
  try {
    const s = await stat(real);
    return { real, isDir: s.isDirectory(), isFile: s.isFile(), size: s.size };
  } catch {
    return undefined;
  }
}

/** The raw path and query of a request target (origin form, or absolute form as proxies send). */
function splitTarget(target: string): { rawPath: string; query: string } {
  let rest = target;
  if (!rest.startsWith('/')) {
    try {
      const u = new URL(rest);
      rest = u.pathname + u.search;
    } catch {
      rest = '/' + rest;
    }
  }
  const q = rest.indexOf('?');
  return q === -1 ? { rawPath: rest, query: '' } : { rawPath: rest.slice(0, q), query: rest.slice(q) };
}

async function resolveRequest(realRoot: string, target: string): Promise<Resolution> {
  const { rawPath, query } = splitTarget(target);
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return { kind: 'bad_request', reason: 'malformed percent-encoding in the path' };
  }
  if (decoded.includes('\0')) return { kind: 'bad_request', reason: 'NUL byte in the path' };
  // Backslashes are separators on Windows and some servers treat them so: reject `..` across both.
  const segments = decoded.split(/[/\\]+/).filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..')) return { kind: 'forbidden' };
  // Dotfiles (.env, .git/config, .npmrc) are secrets or tooling, never the app: answered as absent.
  if (segments.some((s) => s.startsWith('.') && s !== '.well-known')) return { kind: 'not_found' };

  const candidate = path.join(realRoot, ...segments);
  if (!isInside(realRoot, candidate)) return { kind: 'forbidden' };

  const entry = await realEntry(realRoot, candidate);
  if (entry === 'outside') return { kind: 'not_found' };
  if (!entry) return { kind: 'not_found' };
  if (entry.isFile) return { kind: 'file', filePath: entry.real, size: entry.size };
  if (!entry.isDir) return { kind: 'not_found' };
  // Relative URLs in dir/index.html resolve against dir/, so a real server redirects /dir → /dir/.
  // The location is rebuilt from the clean segments: echoing `//host` back would be an open redirect.
  if (!rawPath.endsWith('/')) {
    const location = '/' + segments.map((s) => encodeURIComponent(s) + '/').join('');
    return { kind: 'redirect', location: location + query };
  }
  const index = await realEntry(realRoot, path.join(entry.real, 'index.html'));
  if (index && index !== 'outside' && index.isFile) return { kind: 'file', filePath: index.real, size: index.size };
  return { kind: 'not_found' };
}

function wantsHtml(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').toLowerCase().includes('text/html');
}

function hasExtension(target: string): boolean {
  const { rawPath } = splitTarget(target);
  const last = rawPath.split('/').pop() ?? '';
  return path.extname(last) !== '';
}

function sendText(res: ServerResponse, status: number, body: string, head: boolean, extra: Record<string, string> = {}): void {
  const buf = Buffer.from(body, 'utf8');
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(buf.length),
    'Cache-Control': 'no-store',
    ...extra,
  });
  res.end(head ? undefined : buf);
}

function sendFile(res: ServerResponse, filePath: string, size: number, head: boolean): void {
  res.writeHead(200, {
    'Content-Type': contentTypeFor(filePath),
    'Content-Length': String(size),
    'Cache-Control': 'no-store',
  });
  if (head) {
    res.end();
    return;
  }
  const stream = createReadStream(filePath);
  // Headers are already out: the only honest signal left for a read error is a cut connection.
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

async function resolveFallback(realRoot: string, spaFallback: boolean | string | undefined): Promise<string | undefined> {
  if (spaFallback === undefined || spaFallback === false) return undefined;
  const rel = spaFallback === true ? 'index.html' : spaFallback;
  const candidate = path.resolve(realRoot, rel);
  const entry = await realEntry(realRoot, candidate);
  if (!entry || entry === 'outside' || !entry.isFile) {
    throw new PerfError({
      code: 'serve_fallback_missing',
      kind: 'usage',
      message: `SPA fallback file ${candidate} does not exist inside the served folder ${realRoot}`,
      suggestion: 'build the app first, or point the fallback at a file inside the served folder',
    });
  }
  return entry.real;
}

async function resolveRoot(root: string): Promise<string> {
  const absolute = path.resolve(root);
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (e) {
    throw new PerfError({
      code: 'serve_root_missing',
      kind: 'usage',
      message: `folder to serve does not exist: ${absolute}`,
      suggestion: 'check the `serve` path (relative paths resolve against the scenario file) or build the app first',
      cause: e,
    });
  }
  const s = await stat(real);
  if (!s.isDirectory()) {
    throw new PerfError({
      code: 'serve_root_missing',
      kind: 'usage',
      message: `path to serve is not a folder: ${absolute}`,
      suggestion: 'point `serve` at the folder that contains index.html, not at a file',
    });
  }
  return real;
}

function listen(server: Server, port: number, host = HOST): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      reject(
        e.code === 'EADDRINUSE' || e.code === 'EACCES'
          ? new PerfError({
              code: 'port_taken',
              kind: 'environment',
              message: `cannot serve on ${host}:${port}: ${e.code === 'EADDRINUSE' ? 'port already in use' : e.message}`,
              suggestion: `stop whatever listens on ${port} or omit the port to use a free one`,
              cause: e,
            })
          : e,
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/** An address as a Host header writes it: IPv6 in brackets, lowercase. */
function hostName(address: string): string {
  const name = address.toLowerCase();
  return name.includes(':') ? `[${name}]` : name;
}

/**
 * The host names (without the port) a request may name: loopback, the address listened on, and for a
 * wildcard the machine's host name (the one urlHost gives Grid nodes) and every interface address,
 * read once at start. The FQDN is left out: finding it takes a (reverse) DNS lookup, which can hang
 * for seconds on a machine without network, and the URL the harness hands out uses hostname().
 */
function acceptedHosts(listenHost: string | undefined): string[] {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]']);
  if (listenHost !== undefined && !isWildcard(listenHost)) names.add(hostName(listenHost));
  if (listenHost !== undefined && isWildcard(listenHost)) {
    names.add(hostName(hostname()));
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(hostName(a.address));
  }
  return [...names];
}

/** A Host header's name and port (80 when it names none, as a browser omits it then); undefined when malformed. */
function parseHost(header: string): { name: string; port: number } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(header.toLowerCase());
  return m ? { name: m[1]!, port: m[2] === undefined ? 80 : Number(m[2]) } : undefined;
}

/** How a browser elsewhere names this server: an any-address bind by this machine's name, an IPv6 address in brackets. */
function urlHost(host: string): string {
  if (isWildcard(host)) return hostname();
  return host.includes(':') ? `[${host}]` : host;
}

export async function serveStatic(options: StaticServerOptions): Promise<StaticServer> {
  const realRoot = await resolveRoot(options.root);
  const fallback = await resolveFallback(realRoot, options.spaFallback);
  // Known once listening; no request is handled before that.
  let port = 0;
  let allowedHosts = new Set<string>();
  let accepted = '';
  const exposed = options.host !== undefined && options.host !== HOST;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const head = method === 'HEAD';
    if (method !== 'GET' && !head) {
      sendText(res, 405, `Method ${method} not allowed\n`, false, { Allow: 'GET, HEAD' });
      return;
    }
    // DNS rebinding: a web page whose host name resolves to this server would reach it with its own Host.
    const asked = parseHost(req.headers.host ?? '');
    if (!asked || asked.port !== port || !allowedHosts.has(asked.name)) {
      sendText(res, 403, `Forbidden: Host "${printable(req.headers.host ?? '')}" is not this server; accepted: ${accepted}\n`, head);
      return;
    }
    const target = req.url ?? '/';
    const resolution = await resolveRequest(realRoot, target);
    switch (resolution.kind) {
      case 'file':
        sendFile(res, resolution.filePath, resolution.size, head);
        return;
      case 'redirect':
        sendText(res, 301, `Moved to ${resolution.location}\n`, head, { Location: resolution.location });
        return;
      case 'forbidden':
        sendText(res, 403, 'Forbidden\n', head);
        return;
      case 'bad_request':
        sendText(res, 400, `Bad request: ${resolution.reason}\n`, head);
        return;
      case 'not_found': {
        if (fallback && !hasExtension(target) && wantsHtml(req)) {
          const s = await stat(fallback).catch(() => undefined);
          if (s?.isFile()) {
            sendFile(res, fallback, s.size, head);
            return;
          }
        }
        sendText(res, 404, `Not found: ${splitTarget(target).rawPath}\n`, head);
        return;
      }
      default: {
        const exhaustive: never = resolution;
        throw new Error(`unhandled resolution ${String(exhaustive)}`);
      }
    }
  };

  const server = createServer((req, res) => {
    if (options.onRequest) {
      const onRequest = options.onRequest;
      res.on('finish', () => onRequest(`${req.method ?? 'GET'} ${req.url ?? '/'} ${res.statusCode}`));
    }
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) res.destroy();
      else sendText(res, 500, `Internal error: ${(e as Error).message}\n`, false);
    });
  });

  port = await listen(server, options.port ?? 0, options.host);
  allowedHosts = new Set(acceptedHosts(options.host));
  accepted = [...allowedHosts].map((h) => `${h}:${port}`).join(', ');
  let closing: Promise<void> | undefined;
  return {
    url: `http://${exposed ? urlHost(options.host!) : HOST}:${port}`,
    port,
    root: realRoot,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Browsers keep connections alive; without this close() waits for their idle timeout.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
