/**
 * A private PostgreSQL server for the history tests and bench/history.ts: Debian's binaries
 * (/usr/lib/postgresql/N/bin, installed by .ci/run), a cluster initdb'd into a temp folder (as the
 * `postgres` user when running as root: the server refuses root), on 127.0.0.1 and a free port, its unix
 * socket in that folder, fsync off (a test's data is thrown away). It runs in its own process group; stop()
 * ends it, and a guardian outside this process ends it when this process dies without stop().
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './grid-server.js';

// 60 s to accept connections: initdb is done by then; a cold start on a loaded 2-core box takes ~2 s.
const READY_TIMEOUT_MS = 60_000;
// 60 s for initdb: it writes a few MB of catalogs (with --no-sync).
const INITDB_TIMEOUT_MS = 60_000;

/** The newest /usr/lib/postgresql/N/bin that has initdb and postgres, or undefined. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, 'bin')).find((b) => existsSync(join(b, 'initdb')) && existsSync(join(b, 'postgres')));
}

export const POSTGRES_MISSING =
  "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin: install Debian's postgresql package (.ci/run does) " +
  'to run the history tests against a real server';

export interface PgServer {
  /** postgres://postgres@127.0.0.1:PORT/postgres (trust authentication: any password is accepted). */
  url: string;
  port: number;
  log(): string;
  stop(): Promise<void>;
}

/** As root: the command run as `postgres`, which owns the cluster. */
function asOwner(cmd: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

export async function startPostgres(): Promise<PgServer> {
  const bin = postgresBin();
  if (!bin) throw new Error(POSTGRES_MISSING);
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const [initCmd, initArgs] = asOwner(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8', timeout: INITDB_TIMEOUT_MS });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status ?? init.signal}): ${init.stderr.slice(-2000)}`);
  }
  const port = await freePort();
  const logFile = join(dir, 'postgres.log');
  const fd = openSync(logFile, 'w');
  const settings = ['listen_addresses=127.0.0.1', 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=50'];
  const [cmd, args] = asOwner(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, ...settings.flatMap((s) => ['-c', s])]);
  const child = spawn(cmd, args, { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const group = `-${child.pid!}`;
  const guard = `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${group} 2>/dev/null; do sleep 1; done; kill -KILL ${group}`;
  spawn('sh', ['-c', `${guard} 2>/dev/null`], { detached: true, stdio: 'ignore' }).unref();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const log = (): string => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const server: PgServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    log,
    async stop() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitAccepting(server.url);
  } catch (e) {
    const text = log();
    await server.stop();
    throw new Error(`${(e as Error).message}\n${text.slice(-2000)}`);
  }
  return server;
}

async function waitAccepting(url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
      await c.end();
      return;
    } catch (e) {
      last = (e as Error).message;
      await c.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`PostgreSQL at ${url} did not accept connections within ${READY_TIMEOUT_MS} ms (last: ${last})`);
}
