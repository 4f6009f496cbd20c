/**
 * `perf mcp --http PORT`: the Streamable HTTP transport on 127.0.0.1 only. A browser tab on another
 * site must not drive the app (DNS rebinding, CSRF), so requests carrying a foreign Origin or Host
 * are refused; any other local process must not either, so every request carries the bearer token
 * (token.ts). Each MCP client session gets its own SDK Server; all share one core (one queue, one app).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { PerfError } from '../errors.js';
import type { McpCore } from './core.js';
import { createMcpServer } from './protocol.js';
import { bearerMatches } from './token.js';

export const MCP_HTTP_PATH = '/mcp';
// 4 MiB: the SDK's own default body bound; a tool call is a few KB, so this only stops abuse.
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const LOCAL_HOSTNAME = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

/** No Origin (a non-browser client) or a local http origin on any port. */
export function isAllowedOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  const m = /^http:\/\/([^/]+)$/i.exec(origin);
  return m !== null && LOCAL_HOSTNAME.test(m[1]!);
}

export function isAllowedHost(host: string | undefined): boolean {
  return host !== undefined && LOCAL_HOSTNAME.test(host);
}

// 32 sessions: an agent holds one or two; a few clients at once stay far below. Each costs an SDK
// Server and its transport: without a cap, 7,400 initializes took RSS from 69 to 325 MB (issue 11).
const MAX_SESSIONS = 32;
// 30 min: an agent may think for minutes between tool calls; a session unused for half an hour is abandoned.
const IDLE_MS = 30 * 60_000;

export interface McpHttpServer {
  url: string;
  port: number;
  /** Live client sessions (bounded by maxSessions). */
  sessionCount(): number;
  close(): Promise<void>;
}

export interface McpHttpOptions {
  /** The bearer token every request must carry, and where a client finds it (for the 401 message). */
  auth: { token: string; where: string };
  /** Most live sessions; initializing one more closes the least recently used. */
  maxSessions?: number;
  /** A session unused this long is closed (its client must initialize again). */
  idleMs?: number;
}

export async function startMcpHttp(core: McpCore, port: number, opts: McpHttpOptions): Promise<McpHttpServer> {
  const maxSessions = opts.maxSessions ?? MAX_SESSIONS;
  const idleMs = opts.idleMs ?? IDLE_MS;
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; lastUsed: number }>();
  const closeSession = (id: string): void => {
    const s = sessions.get(id);
    sessions.delete(id);
    void s?.transport.close().catch(() => undefined);
  };
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions) if (now - s.lastUsed > idleMs) closeSession(id);
    },
    Math.max(10, Math.min(60_000, idleMs / 2)),
  );
  sweep.unref();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!isAllowedOrigin(req.headers.origin) || !isAllowedHost(req.headers.host)) {
      return reject(res, 403, `forbidden: only local clients (no Origin, or http://127.0.0.1:* / http://localhost:*) may use this server`);
    }
    if (!bearerMatches(req.headers.authorization, opts.auth.token)) {
      const message = `unauthorized: send the header "Authorization: Bearer <token>"; the token is in ${opts.auth.where}`;
      return reject(res, 401, message, { 'www-authenticate': 'Bearer' });
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== MCP_HTTP_PATH) return reject(res, 404, `not found: the MCP endpoint is ${MCP_HTTP_PATH}`);

    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) {
      existing.lastUsed = Date.now();
      return existing.transport.handleRequest(req, res);
    }
    if (sessionId !== undefined) return reject(res, 404, 'unknown MCP session: initialize again');
    if (req.method !== 'POST') return reject(res, 400, 'no MCP session: send an initialize request first');

    const body = await readJson(req);
    if (!isInitializeRequest(body)) return reject(res, 400, 'no MCP session: the first request must be initialize');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, lastUsed: Date.now() });
        // Over the cap: close the least recently used (Map order is insertion; lastUsed decides).
        while (sessions.size > maxSessions) {
          const oldest = [...sessions].reduce((a, b) => (b[1].lastUsed < a[1].lastUsed ? b : a));
          closeSession(oldest[0]);
        }
      },
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await createMcpServer(core).connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const server: HttpServer = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) reject(res, e instanceof PerfError ? 400 : 500, (e as Error).message);
      else res.end();
    });
  });
  await new Promise<void>((resolve, rejectListen) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      rejectListen(
        new PerfError({
          code: e.code === 'EADDRINUSE' ? 'port_taken' : 'listen_failed',
          kind: 'environment',
          message: `perf mcp --http ${port}: cannot listen on 127.0.0.1:${port}: ${e.message}`,
          suggestion: e.code === 'EADDRINUSE' ? 'pick another port, or 0 for a free one' : undefined,
          cause: e,
        }),
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}${MCP_HTTP_PATH}`,
    port: actual,
    sessionCount: () => sessions.size,
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function reject(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new PerfError({ code: 'body_too_large', message: `request body over ${MAX_BODY_BYTES} bytes` });
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (e) {
    throw new PerfError({ code: 'invalid_json', message: `request body is not JSON: ${(e as Error).message}`, cause: e });
  }
}
