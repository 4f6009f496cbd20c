/**
 * The step socket of a terminal session: a pseudo-terminal belongs to the process that opened it, so
 * `perf start --terminal` keeps the program in its daemon and step verbs (and an MCP server that did
 * not start it) send each step there. One connection per step: a JSON line in, a JSON line out.
 * The socket lives in the session's state folder, mode 0600: only its user can connect.
 */
import { createConnection, createServer, type Server } from 'node:net';
import { chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCodeOf, isPerfError, PerfError, perfErrorKind, type ErrorInfo } from '../errors.js';

export interface StepRequest {
  step: string;
  args: unknown;
  /** The caller's working folder: where the step resolves relative paths (a screenshot's). */
  cwd: string;
  /** The caller validated the arguments against the step's schema already (MCP and verbs do). */
  validated: boolean;
}

type StepReply = { ok: true; result: unknown } | { ok: false; error: ErrorInfo };

// sun_path holds 108 bytes on Linux; a deep state folder falls back to the temp folder.
const MAX_SOCKET_PATH_BYTES = 100;

export function stepSocketPath(stateDir: string): string {
  const inState = join(stateDir, 'terminal.sock');
  return Buffer.byteLength(inState) <= MAX_SOCKET_PATH_BYTES ? inState : join(tmpdir(), `rehearse-${process.pid}.sock`);
}

/** Serve steps one at a time, in arrival order (two verbs at once must not interleave keystrokes). */
export async function serveSteps(socketPath: string, run: (req: StepRequest) => Promise<unknown>): Promise<Server> {
  rmSync(socketPath, { force: true });
  let queue: Promise<unknown> = Promise.resolve();
  const server = createServer((conn) => {
    let buf = '';
    conn.setEncoding('utf8');
    conn.on('error', () => undefined);
    conn.on('data', (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      const line = buf.slice(0, nl);
      buf = '';
      const answer = async (): Promise<StepReply> => {
        try {
          return { ok: true, result: await run(JSON.parse(line) as StepRequest) };
        } catch (e) {
          return {
            ok: false,
            error: isPerfError(e)
              ? e.toJSON()
              : { kind: 'internal', code: 'internal_error', message: e instanceof Error ? e.message : String(e) },
          };
        }
      };
      const reply = queue.then(answer);
      queue = reply;
      void reply.then((r) => conn.end(JSON.stringify(r) + '\n'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  // Connecting to a socket needs write permission on it: 0600 keeps other local users from sending keystrokes,
  // whatever the umask made of it (0777 under umask 0) and whoever may enter the folder.
  chmodSync(socketPath, 0o600);
  return server;
}

/** Send one step to a session's daemon and wait for its result (a wait_for may take its whole timeout). */
export function sendStep(socketPath: string, req: StepRequest): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const conn = createConnection(socketPath);
    let buf = '';
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(JSON.stringify(req) + '\n'));
    conn.on('data', (chunk: string) => {
      buf += chunk;
    });
    conn.on('error', (e) =>
      reject(
        new PerfError({
          code: 'session_gone',
          kind: 'environment',
          message: `the terminal session does not answer on ${socketPath}: ${e.message}`,
          cause: e,
        }),
      ),
    );
    conn.on('close', () => {
      const line = buf.split('\n')[0] ?? '';
      if (line === '') {
        reject(
          new PerfError({
            code: 'session_gone',
            kind: 'environment',
            message: 'the terminal session closed the connection without an answer (its daemon ended?)',
          }),
        );
        return;
      }
      const reply = JSON.parse(line) as StepReply;
      if (reply.ok) resolve(reply.result);
      else
        reject(
          new PerfError({
            code: errorCodeOf(reply.error.code),
            kind: perfErrorKind(reply.error.kind),
            message: reply.error.message,
            ...(reply.error.suggestion ? { suggestion: reply.error.suggestion } : {}),
            ...(reply.error.candidates ? { candidates: reply.error.candidates } : {}),
          }),
        );
    });
  });
}
