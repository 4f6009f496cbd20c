/**
 * Port helpers. A free port is found by letting the OS pick one (listen on 0), which avoids guessing
 * and racing other test processes; the small window between closing and reuse is accepted.
 */
import { createServer } from 'node:net';
import { PerfError } from '../errors.js';

/** A port the OS considers free on `host` right now. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (e) =>
      reject(
        new PerfError({
          code: 'no_free_port',
          kind: 'environment',
          message: `could not get a free port on ${host}: ${(e as Error).message}`,
          suggestion: `check that ${host} is a local address this machine can bind`,
          cause: e,
        }),
      ),
    );
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something already listens on `port` (binding fails with EADDRINUSE/EACCES). */
function tryBind(port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', (e: NodeJS.ErrnoException) => resolve(e));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** Throws PerfError `port_taken` (environment) when `port` cannot be bound on `host`. */
export async function assertPortFree(port: number, host = '127.0.0.1'): Promise<void> {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new PerfError({
      code: 'invalid_port',
      kind: 'usage',
      message: `port ${port} is not a valid TCP port (1-65535)`,
      suggestion: 'pass a port between 1 and 65535, or omit it to use a free one',
    });
  }
  const error = await tryBind(port, host);
  if (!error) return;
  throw new PerfError({
    code: 'port_taken',
    kind: 'environment',
    message:
      error.code === 'EADDRINUSE'
        ? `port ${port} on ${host} is already in use`
        : `port ${port} on ${host} cannot be bound: ${error.message}`,
    suggestion: `stop whatever listens on ${port} (e.g. \`lsof -i :${port}\`) or omit the port to use a free one`,
    cause: error,
  });
}
