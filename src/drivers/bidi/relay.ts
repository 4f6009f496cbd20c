/**
 * Firefox serves a BiDi session to the one connection that created it (a second WebSocket to
 * /session/<id> is answered 404), so a `perf start` daemon, which holds that connection, relays it:
 * a WebSocket server on a unix socket in the session's state folder (mode 0600, not a TCP port any
 * local user could reach). Each client's commands go to Firefox under the daemon's ids and come back
 * under the client's; every event goes to every client (a client ignores what it did not subscribe to).
 */
import { createServer } from 'node:http';
import { chmodSync, rmSync } from 'node:fs';
import { TargetClosedError, WebDriverError } from '../errors.js';
import type { BidiSocket } from '../bidi-socket.js';

// 10 minutes: the client's own deadline (a waiting runtime call, at most 120 s) ends a command first; this only
// keeps a command Firefox never answers from pinning the relay's memory for ever.
const RELAY_COMMAND_TIMEOUT_MS = 600_000;

export interface BidiRelay {
  /** ws+unix URL of the relay's session, for BidiSocket.connect. */
  url: string;
  close(): Promise<void>;
}

export async function startBidiRelay(upstream: BidiSocket, socketPath: string): Promise<BidiRelay> {
  const ws = await import('ws');
  // ws 7 (the version installed) hangs it on its CommonJS export as Server; ws 8 exports WebSocketServer too.
  const WebSocketServer = ws.WebSocketServer ?? (ws.default as typeof ws.default & { Server: typeof ws.WebSocketServer }).Server;
  rmSync(socketPath, { force: true });
  const http = createServer((_, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (client) => {
    const off = upstream.onEvent((e) => client.send(JSON.stringify({ type: 'event', ...e })));
    client.on('close', off);
    client.on('message', (data) => {
      let msg: { id?: number; method?: string; params?: Record<string, unknown> };
      try {
        msg = JSON.parse(String(data)) as typeof msg;
      } catch {
        return;
      }
      const { id, method } = msg;
      if (typeof id !== 'number' || typeof method !== 'string') return;
      upstream.send(method, msg.params ?? {}, RELAY_COMMAND_TIMEOUT_MS).then(
        (result) => client.send(JSON.stringify({ type: 'success', id, result })),
        (e: unknown) => {
          const [error, message] =
            e instanceof WebDriverError
              ? [e.error, e.detail]
              : e instanceof TargetClosedError
                ? ['invalid session id', e.message]
                : ['unknown error', String(e)];
          client.send(JSON.stringify({ type: 'error', id, error, message }));
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  return {
    url: `ws+unix://${socketPath}:/session`,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      await new Promise<void>((r) => http.close(() => r()));
      rmSync(socketPath, { force: true });
    },
  };
}
