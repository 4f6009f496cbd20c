/**
 * `perf start` and MCP `app_start` on the WebDriver driver, against real servers: WebKitWebDriver
 * driving the WebKitGTK MiniBrowser (under an Xvfb it starts), chromedriver driving Chromium, and
 * tauri-driver with the MiniBrowser standing in for a desktop app. Step verbs run in separate
 * processes and reattach to the daemon's one WebDriver session by its id; stopping (or killing the
 * daemon) leaves no server, Xvfb or browser process behind.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findServerBinary, miniBrowserPath } from '../src/drivers/webdriver/server.js';
import { isAlive, sleep } from '../src/processes.js';
import type { WebDriverSessionState } from '../src/session/state.js';
import { DEMO_DIR, FIXTURES_DIR, refOf, ROOT } from './helpers.js';

const PERF = path.join(ROOT, 'bin', 'perf');
const MINI = miniBrowserPath();
const NO_WEBKIT =
  findServerBinary('webkit') && MINI ? false : 'WebKitWebDriver or the MiniBrowser not installed (apt-get install webkit2gtk-driver xvfb)';
const NO_CHROMEDRIVER = findServerBinary('chromedriver') ? false : 'chromedriver not installed (apt-get install chromium-driver)';
const NO_TAURI =
  NO_WEBKIT ||
  (findServerBinary('tauri') ? false : 'tauri-driver not installed (npm ci installs @crabnebula/tauri-driver-linux-x64-gnu on Linux x64)');

const dirs: string[] = [];
/** A working folder holding the demo app and the desktop fixture, as a project holds its app. */
function workDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-wd-life-'));
  dirs.push(d);
  fs.cpSync(DEMO_DIR, path.join(d, 'app'), { recursive: true });
  fs.cpSync(path.join(FIXTURES_DIR, 'tauri-app'), path.join(d, 'tauri-app'), { recursive: true });
  return d;
}
after(() => {
  for (const d of dirs) {
    spawnSync(process.execPath, [PERF, 'stop'], { timeout: 120_000, cwd: d });
    fs.rmSync(d, { recursive: true, force: true });
  }
});

/** The session's own commands print text unless given --json; a step verb is read here as its JSON. */
const SESSION_COMMANDS = new Set(['start', 'stop', 'status', 'logs', 'restart']);

function perf(cwd: string, args: string[]): { code: number; stdout: string; stderr: string; json: any } {
  const argv = SESSION_COMMANDS.has(args[0]!) || args.includes('--json') ? args : [...args, '--json'];
  const r = spawnSync(process.execPath, [PERF, ...argv], { cwd, encoding: 'utf8', timeout: 90_000 });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

function started(cwd: string, args: string[]): WebDriverSessionState {
  const r = perf(cwd, ['start', ...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const state = r.json as WebDriverSessionState;
  assert.equal(state.driver, 'webdriver');
  return state;
}

/**
 * Every process of the session's WebDriver side: the recorded pids, their process groups and all
 * their descendants (the browser, its web processes, Xvfb), read from /proc.
 */
function sessionProcesses(state: WebDriverSessionState): number[] {
  const procs = new Map<number, { ppid: number; pgid: number }>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(d), { ppid: Number(f[1]), pgid: Number(f[2]) });
    } catch {
      /* gone */
    }
  }
  const roots = new Set(state.webdriver.pids);
  const under = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = procs.get(p)?.ppid) if (roots.has(p)) return true;
    return false;
  };
  return [...procs]
    .filter(([pid, p]) => roots.has(p.pgid) || under(pid))
    .map(([pid]) => pid)
    .filter((pid) => isAlive(pid));
}

async function allGone(pids: number[], timeoutMs = 8000): Promise<number[]> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end && pids.some((pid) => isAlive(pid))) await sleep(50);
  return pids.filter((pid) => isAlive(pid));
}

describe('perf start --engine webkit', { skip: NO_WEBKIT }, () => {
  test('verbs reattach to the one MiniBrowser session: snap refs, fill read back, tap by ref; status says webkit over webdriver; stop leaves no process', async () => {
    const cwd = workDir();
    const state = started(cwd, ['--serve', 'app', '--path', '/form.html', '--engine', 'webkit']);
    assert.equal(state.engine, 'webkit');
    assert.equal(state.webdriver.kind, 'webkit');
    assert.equal(state.webdriver.browserName, 'MiniBrowser');
    assert.ok(state.webdriver.pids.length >= 1 && state.webdriver.pids.every((pid) => isAlive(pid)));

    const snap = perf(cwd, ['snap']);
    assert.equal(snap.code, 0, snap.stderr);
    const name = refOf(snap.json.data.snapshot, 'textbox', 'Name');
    const subscribe = refOf(snap.json.data.snapshot, 'checkbox', 'Subscribe to newsletter');

    const fill = perf(cwd, ['fill', '--target.label', 'Name', '--text', 'Ada']);
    assert.equal(fill.code, 0, fill.stderr + fill.stdout);
    // A ref handed out by one process is used by the next: the refs live in the one page.
    const tap = perf(cwd, ['tap', '--ref', subscribe]);
    assert.equal(tap.code, 0, tap.stderr + tap.stdout);
    const again = perf(cwd, ['snap', '--grep', 'Name|Subscribe']);
    assert.match(again.json.data.snapshot, new RegExp(`textbox "Name" \\[required\\] \\[ref=${name}\\].*value: "Ada"`));
    assert.match(again.json.data.snapshot, /checkbox "Subscribe to newsletter" \[checked\]/);
    const expect = perf(cwd, ['expect', '--target.label', 'Name', '--value', 'Ada']);
    assert.equal(expect.code, 0, expect.stderr + expect.stdout);

    const status = perf(cwd, ['status']);
    assert.match(status.stdout, /^running/);
    assert.match(status.stdout, /driver {3}webdriver, engine webkit/);
    assert.match(status.stdout, /over WebKitWebDriver/);
    const st = perf(cwd, ['status', '--json']).json;
    assert.deepEqual([st.running, st.alive.daemon, st.alive.webdriver, st.alive.browser], [true, true, true, true]);
    const logs = perf(cwd, ['logs', '--json']).json;
    assert.ok(Array.isArray(logs.webdriver), 'logs show the WebDriver server');
    assert.ok(fs.existsSync(path.join(cwd, '.perf', 'webdriver.log')));

    const processes = sessionProcesses(state);
    assert.ok(processes.length > state.webdriver.pids.length, `the browser runs under the server: ${processes.join(', ')}`);
    const stop = perf(cwd, ['stop', '--json']);
    assert.equal(stop.code, 0, stop.stderr);
    assert.deepEqual(stop.json.pids.sort(), [state.daemonPid, ...state.webdriver.pids, state.watchdogPid].sort());
    assert.deepEqual(await allGone([state.daemonPid, state.watchdogPid!, ...processes], 3000), []);
    assert.equal(fs.existsSync(path.join(cwd, '.perf', 'state.json')), false);
  });

  test('restart opens a new session on a new server; a browser that died is session_gone (exit 3) naming perf restart', async () => {
    const cwd = workDir();
    const s1 = started(cwd, ['--serve', 'app', '--engine', 'webkit']);
    const first = sessionProcesses(s1);
    const r = perf(cwd, ['restart', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const s2 = r.json as WebDriverSessionState;
    assert.equal(s2.engine, 'webkit');
    assert.notEqual(s2.webdriver.sessionId, s1.webdriver.sessionId);
    assert.deepEqual(await allGone(first), []);

    const browser = sessionProcesses(s2).filter((pid) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes('(MiniBrowser)'));
    assert.equal(browser.length, 1);
    process.kill(browser[0]!, 'SIGKILL');
    await allGone(browser);
    const snap = perf(cwd, ['snap']);
    assert.equal(snap.code, 3, snap.stdout + snap.stderr);
    assert.match(snap.stderr, /is gone/);
    assert.match(snap.stderr, /perf restart/);
    const st = perf(cwd, ['status', '--json']).json;
    assert.deepEqual([st.running, st.alive.browser], [false, false]);
    perf(cwd, ['stop']);
    assert.deepEqual(await allGone(sessionProcesses(s2)), []);
  });
});

describe('app_start over MCP with engine webkit', { skip: NO_WEBKIT }, () => {
  test('app_start {serve, path, engine: webkit}, snap, tap by ref, app_status, app_stop: nothing left', async () => {
    const cwd = workDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [PERF, 'mcp'],
      cwd,
      env: { ...(process.env as Record<string, string>) },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'rehearse-test', version: '0.0.0' });
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; json: any }> => {
      const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[] };
      const text = res.content.find((c) => c.type === 'text')?.text ?? '';
      return { isError: res.isError === true, json: JSON.parse(text) };
    };
    try {
      const start = await call('app_start', { serve: 'app', path: '/form.html', engine: 'webkit' });
      assert.equal(start.isError, false, JSON.stringify(start.json));
      assert.deepEqual([start.json.data.driver, start.json.data.engine, start.json.data.webdriver.kind], ['webdriver', 'webkit', 'webkit']);
      const state = JSON.parse(fs.readFileSync(path.join(cwd, '.perf', 'state.json'), 'utf8')) as WebDriverSessionState;

      const snap = await call('snap');
      assert.equal(snap.isError, false, JSON.stringify(snap.json));
      const ref = refOf(snap.json.data.snapshot, 'checkbox', 'Subscribe to newsletter');
      const tap = await call('tap', { ref });
      assert.equal(tap.isError, false, JSON.stringify(tap.json));
      const after = await call('snap', { grep: 'Subscribe' });
      assert.match(after.json.data.snapshot, /checkbox "Subscribe to newsletter" \[checked\]/);

      const st = await call('app_status');
      assert.deepEqual(
        [st.json.data.running, st.json.data.session.driver, st.json.data.session.engine, st.json.data.ownedByThisServer],
        [true, 'webdriver', 'webkit', true],
      );

      const processes = sessionProcesses(state);
      const stop = await call('app_stop');
      assert.equal(stop.isError, false);
      assert.deepEqual(await allGone([state.daemonPid, ...processes], 3000), []);
      const none = await call('snap');
      assert.equal(none.json.code, 'no_app');
    } finally {
      await client.close();
    }
  });

  test('app_start refuses engine webkit with driver cdp, and unknown desktop keys, before anything starts', async () => {
    const cwd = workDir();
    const transport = new StdioClientTransport({ command: process.execPath, args: [PERF, 'mcp'], cwd, stderr: 'pipe' });
    const client = new Client({ name: 'rehearse-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const bad = (await client.callTool({ name: 'app_start', arguments: { serve: 'app', engine: 'webkit', driver: 'cdp' } })) as {
        isError?: boolean;
        content: { text?: string }[];
      };
      assert.equal(bad.isError, true);
      assert.match(bad.content[0]!.text!, /--engine webkit is driven over WebDriver, not --driver cdp/);
      const keys = (await client.callTool({ name: 'app_start', arguments: { desktop: { binary: MINI!, arg: ['x'] } } })) as {
        isError?: boolean;
        content: { text?: string }[];
      };
      assert.equal(keys.isError, true);
      assert.match(keys.content[0]!.text!, /unknown: arg/);
      assert.equal(fs.existsSync(path.join(cwd, '.perf', 'state.json')), false);
    } finally {
      await client.close();
    }
  });
});

describe('perf start --driver webdriver (chromedriver)', { skip: NO_CHROMEDRIVER }, () => {
  test('Chromium through chromedriver: a verb works, status says chromium over webdriver, stop leaves no process', async () => {
    const cwd = workDir();
    const state = started(cwd, ['--serve', 'app', '--path', '/form.html', '--driver', 'webdriver']);
    assert.deepEqual([state.engine, state.webdriver.kind, state.webdriver.headless], ['chromium', 'chromedriver', true]);
    const fill = perf(cwd, ['fill', '--target.label', 'Email', '--text', 'ada@example.com']);
    assert.equal(fill.code, 0, fill.stderr + fill.stdout);
    assert.equal(fill.json.data.value, 'ada@example.com');
    assert.match(perf(cwd, ['status']).stdout, /driver {3}webdriver, engine chromium/);
    const processes = sessionProcesses(state);
    assert.ok(processes.length > 1, 'Chromium runs under chromedriver');
    perf(cwd, ['stop']);
    assert.deepEqual(await allGone([state.daemonPid, ...processes], 3000), []);
  });
});

describe('a daemon killed outright', () => {
  for (const [engine, flags, skip] of [
    ['webkit', ['--engine', 'webkit'], NO_WEBKIT],
    ['chromium', ['--driver', 'webdriver'], NO_CHROMEDRIVER],
  ] as const) {
    test(`${engine}: SIGKILL of the daemon leaves no WebDriver server, Xvfb or browser behind`, { skip }, async () => {
      const cwd = workDir();
      const state = started(cwd, ['--serve', 'app', ...flags]);
      const processes = sessionProcesses(state);
      assert.ok(processes.length > 1);
      process.kill(state.daemonPid, 'SIGKILL');
      assert.deepEqual(await allGone(processes), []);
      perf(cwd, ['stop']);
    });
  }
});

describe('bad combinations are usage errors (exit 2) naming the flag, before anything starts', () => {
  const cases: [string[], RegExp][] = [
    [['--engine', 'webkit', '--driver', 'cdp'], /--engine webkit is driven over WebDriver, not --driver cdp/],
    [['--engine', 'safari'], /--engine must be chromium or webkit or firefox, got "safari"/],
    [['--driver', 'marionette'], /--driver must be bidi or cdp or webdriver, got "marionette"/],
    [['--driver', 'bidi', '--engine', 'webkit'], /--driver bidi drives Firefox: --engine must be firefox, got webkit/],
    [['--webdriver', 'ftp://x'], /--webdriver must be the http:\/\/ URL/],
    [['--webdriver', 'http://127.0.0.1:4444', '--driver', 'cdp'], /--webdriver .* needs --driver webdriver/],
    [['--desktop-arg=--automation'], /--desktop-arg needs --desktop/],
    [['--desktop', 'no-such-app-binary'], /--desktop no-such-app-binary is not on PATH/],
  ];
  for (const [flags, message] of cases) {
    test(flags.join(' '), () => {
      const cwd = workDir();
      const r = perf(cwd, ['start', '--serve', 'app', ...flags]);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, message);
      assert.equal(fs.existsSync(path.join(cwd, '.perf', 'state.json')), false);
    });
  }
  test('--desktop with --engine chromium, or --driver cdp', { skip: MINI ? false : 'no MiniBrowser to stand in for an app binary' }, () => {
    const cwd = workDir();
    for (const [flags, message] of [
      [['--engine', 'chromium'], /--desktop runs on WebKitGTK.*--engine must be webkit/],
      [['--driver', 'cdp'], /--desktop is driven over WebDriver, not --driver cdp/],
      [['--desktop-driver', 'electron'], /--desktop-driver must be tauri or webkit/],
    ] as const) {
      const r = perf(cwd, ['start', '--desktop', MINI!, ...flags]);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, message);
    }
  });
});

describe('perf start --desktop through tauri-driver', { skip: NO_TAURI }, () => {
  test('the MiniBrowser as the app binary, sent to the served frontend: tauri_invoke and snap reach it; stop leaves no process', async () => {
    const cwd = workDir();
    // A WebKitGTK browser started for automation ignores URL arguments: the session sends it to the app URL.
    const state = started(cwd, ['--desktop', MINI!, '--desktop-arg=--automation', '--desktop-driver', 'tauri', '--serve', 'tauri-app']);
    assert.deepEqual([state.engine, state.webdriver.kind, state.options.desktop?.binary], ['webkit', 'tauri', MINI]);
    assert.equal(state.pageUrl, `${state.appUrl}/`);
    const invoke = perf(cwd, ['tauri_invoke', '--command', 'greet', '--args', '{"name":"Ada"}']);
    assert.equal(invoke.code, 0, invoke.stderr + invoke.stdout);
    assert.equal(invoke.json.data.value, 'Hello, Ada!');
    assert.match(perf(cwd, ['snap']).json.data.snapshot, /status: Hello, Ada!/);
    assert.match(perf(cwd, ['status']).stdout, /over tauri-driver/);
    const processes = sessionProcesses(state);
    perf(cwd, ['stop']);
    assert.deepEqual(await allGone([state.daemonPid, ...processes], 3000), []);
  });
});
