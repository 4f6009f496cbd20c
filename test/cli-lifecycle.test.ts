import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser } from '../src/drivers/cdp/browser.js';
import { findServerBinary } from '../src/drivers/webdriver/server.js';
import { isAlive, sleep } from '../src/processes.js';
import type { SessionState } from '../src/session/state.js';
import { ROOT } from './helpers.js';

const PERF = join(ROOT, 'bin/perf');
const work = mkdtempSync(join(tmpdir(), 'rehearse-cli-'));
const stateDir = join(work, '.perf');
after(() => {
  perf(['stop', '--state-dir', stateDir]);
  rmSync(work, { recursive: true, force: true });
});

function perf(args: string[], env: NodeJS.ProcessEnv = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 90_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

async function waitGone(pid: number, timeoutMs = 8000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end && isAlive(pid)) await sleep(50);
  return !isAlive(pid);
}

test('start --serve opens the page in Chromium; status sees every pid alive; stop leaves no process', async () => {
  const r = perf(['start', '--serve', 'scenarios/app', '--path', '/list.html', '--state-dir', stateDir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const state = JSON.parse(r.stdout) as SessionState;
  assert.match(state.pageUrl, /^http:\/\/127\.0\.0\.1:\d+\/list\.html$/);

  const browser = await Browser.connect(state.chrome.wsEndpoint);
  const page = await browser.attach(state.targetId);
  assert.equal(await page.evaluate<number>("document.querySelectorAll('[role=listitem]').length"), 2000);
  await browser.disconnect();

  const st = JSON.parse(perf(['status', '--state-dir', stateDir, '--json']).stdout) as {
    running: boolean;
    alive: { daemon: boolean; chrome: boolean };
  };
  assert.deepEqual([st.running, st.alive.daemon, st.alive.chrome], [true, true, true]);

  assert.ok(state.watchdogPid && isAlive(state.watchdogPid), 'the session records its watchdog');
  const stop = perf(['stop', '--state-dir', stateDir, '--json']);
  assert.equal(stop.code, 0);
  // Stopped means stopped: every process of the session is gone the moment stop returns, no waiting.
  const left = [state.daemonPid, state.chrome.pid, state.watchdogPid].filter((pid) => isAlive(pid));
  assert.deepEqual(left, []);
  assert.deepEqual(
    (JSON.parse(stop.stdout) as { pids: number[] }).pids.sort(),
    [state.daemonPid, state.chrome.pid, state.watchdogPid].sort(),
  );
  const after = JSON.parse(perf(['status', '--state-dir', stateDir, '--json']).stdout) as { running: boolean };
  assert.equal(after.running, false);
});

test('start --command runs the app on ${PORT}, logs keep its output, restart replaces every process', async () => {
  const cmd = `node -e "console.log('app says hi on '+process.env.PORT); require('http').createServer((q,r)=>r.end('<h1>cmd app</h1>')).listen(process.env.PORT,'127.0.0.1')"`;
  const r = perf(['start', '--command', cmd, '--state-dir', stateDir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const s1 = JSON.parse(r.stdout) as SessionState;
  assert.equal(s1.app.kind, 'command');
  assert.ok(s1.app.pid && isAlive(s1.app.pid));

  const logs = JSON.parse(perf(['logs', '--state-dir', stateDir, '--json']).stdout) as { app: string[] };
  assert.ok(
    logs.app.some((l) => l === `app says hi on ${s1.app.port}`),
    logs.app.join('\n'),
  );

  const r2 = perf(['restart', '--state-dir', stateDir, '--json']);
  assert.equal(r2.code, 0, r2.stderr);
  const s2 = JSON.parse(r2.stdout) as SessionState;
  assert.notEqual(s2.chrome.pid, s1.chrome.pid);
  assert.equal(await waitGone(s1.chrome.pid), true);
  assert.equal(await waitGone(s1.app.pid!), true);

  perf(['stop', '--state-dir', stateDir]);
  assert.equal(await waitGone(s2.app.pid!), true);
  assert.equal(await waitGone(s2.chrome.pid), true);
});

test('a session whose daemon is SIGKILLed leaves no Chromium behind', async () => {
  const r = perf(['start', '--serve', 'scenarios/app', '--state-dir', stateDir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout) as SessionState;
  process.kill(s.daemonPid, 'SIGKILL');
  assert.equal(await waitGone(s.chrome.pid), true);
  perf(['stop', '--state-dir', stateDir]);
});

test('start with no app source is a usage error (exit 2) saying what is expected', () => {
  const r = perf(['start', '--state-dir', stateDir]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--serve DIR, --url URL, or --command CMD/);
  assert.doesNotMatch(r.stderr, /at .*\.js:\d+/);
});

test('start --serve of a missing folder exits 2 naming it', () => {
  const r = perf(['start', '--serve', 'no/such/dir', '--state-dir', stateDir]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no\/such\/dir/);
});

test('start --serve / (or a parent of the working folder) exits 2 before anything starts, naming --allow-outside', () => {
  for (const dir of ['/', '..']) {
    const r = perf(['start', '--serve', dir, '--state-dir', stateDir]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /refusing to serve it/);
    assert.match(r.stderr, /--allow-outside/);
  }
});

test('an app command that exits early fails fast with exit 3 and its last output', () => {
  const r = perf(['start', '--command', 'echo boom-from-app; exit 4', '--state-dir', stateDir]);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /boom-from-app/);
});

test('doctor passes here: every check ok, exit 0', () => {
  const r = perf(['doctor', '--json', '--out', join(work, 'out')]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const report = JSON.parse(r.stdout) as { ok: boolean; checks: { name: string; ok: boolean; detail: string; optional?: boolean }[] };
  assert.deepEqual(
    report.checks.filter((c) => !c.optional).map((c) => [c.name, c.ok]),
    [
      ['node', true],
      ['chromium found', true],
      ['chromium launches', true],
      ['loopback port', true],
      ['out folder', true],
    ],
  );
  assert.match(report.checks[2]!.detail, /Chrome\/\d+/);
  // The WebDriver servers: reported found or not, never failing the doctor (only some scenarios need them).
  const servers = report.checks.filter((c) => c.optional);
  assert.deepEqual(
    servers.map((c) => [c.name, c.ok]),
    [
      ['chromedriver', findServerBinary('chromedriver') !== undefined],
      ['WebKitWebDriver', findServerBinary('webkit') !== undefined],
      ['tauri-driver', findServerBinary('tauri', ROOT) !== undefined],
      ['firefox', firefoxBinary() !== undefined],
      ['display', true],
    ],
  );
});

test('doctor names a missing WebDriver server with how to install it, and still passes', () => {
  const r = perf(['doctor', '--out', join(work, 'out')], { TAURI_DRIVER: '/nonexistent/tauri-driver' });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /^miss\s+tauri-driver\s+not found: needed for app\.desktop with driver tauri\n\s+fix: cargo install tauri-driver/m,
  );
});

test('doctor fails with exit 3 when CHROME_PATH points nowhere, and says how to fix it', () => {
  const r = perf(['doctor', '--out', join(work, 'out')], { CHROME_PATH: '/nonexistent/chrome' });
  assert.equal(r.code, 3);
  assert.match(r.stdout, /FAIL\s+chromium found\s+CHROME_PATH=\/nonexistent\/chrome does not exist/);
});

test('an unknown command exits 2 with the closest valid name', () => {
  const r = perf(['statsu']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command "statsu"; did you mean (".*" or )?"status"/);
});

test('an unknown flag exits 2 with the closest valid flag', () => {
  const r = perf(['start', '--paht', '/x']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown flag --paht; did you mean --path/);
});

test('perf --help lists the commands; perf start --help lists its flags', () => {
  const h = perf(['--help']);
  assert.equal(h.code, 0);
  for (const c of ['start', 'stop', 'status', 'logs', 'restart', 'doctor', 'mcp']) assert.match(h.stdout, new RegExp(`^  ${c} `, 'm'));
  const s = perf(['start', '--help']);
  assert.equal(s.code, 0);
  assert.match(s.stdout, /--serve DIR/);
  assert.match(s.stdout, /--headed/);
});
