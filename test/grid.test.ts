/**
 * Selenium Grid end to end, against a real Grid 4 on 127.0.0.1 (npm's selenium-server jar, Java 17,
 * Debian's chromedriver): `perf run --grid` and `perf gate --grid` on a standalone server, a scenario
 * naming the Grid in `browser.endpoint` with browser restarts (a new session per repeat), no session
 * left on the Grid afterwards (also after Ctrl-C), and MCP `app_start {grid}` driving a Grid session
 * that `app_stop` deletes; a Grid that is not there is exit 3 naming it;
 * `--parallel` without a Grid is refused. Then a hub with two nodes: `perf gate --parallel 2` gives the
 * serial gate's verdicts, and a node killed mid-gate gives exit 3 for its run and no orphaned session.
 * Every Java process tree is killed at the end of its test.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RunFile } from '../src/perf/run-file.js';
import { ROOT } from './helpers.js';
import { freePort, gridLog, gridSessions, javaAvailable, startHubAndNodes, startStandalone, type GridProcess } from './grid-server.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-grid-test-'));
after(() => rmSync(work, { recursive: true, force: true }));
const PERF = join(ROOT, 'bin/perf');
const LIST = join(ROOT, 'scenarios/list-scroll.yaml');
const DIALOG = join(ROOT, 'scenarios/dialog.yaml');
const SMALL = ['--repeat', '3', '--warmup', '0', '--fixed'];
const skip = javaAvailable() ? false : 'needs java and /usr/bin/chromedriver (.ci/run installs them)';

function perf(args: string[], timeoutMs = 300_000): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd: work, encoding: 'utf8', env: { ...process.env, GITHUB_STEP_SUMMARY: '' }, timeout: timeoutMs });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `perf ARGS` in the background. `done` fails (and the process is killed) when it has not exited within
 * `timeoutMs`: a hung harness fails its test, it never holds the suite. `stderrAt` tells when a line
 * matching a pattern was first printed (ms since the epoch).
 */
function perfAsync(args: string[], timeoutMs = 300_000): { done: Promise<{ code: number | null; stdout: string; stderr: string }>; kill(sig: NodeJS.Signals): void; stderrAt(re: RegExp): number | undefined } {
  const child = spawn(process.execPath, [PERF, ...args], { cwd: work, env: { ...process.env, GITHUB_STEP_SUMMARY: '' } });
  let stdout = '';
  let stderr = '';
  const lines: { at: number; text: string }[] = [];
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    lines.push({ at: Date.now(), text: d.toString() });
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`perf ${args.join(' ')} did not exit within ${timeoutMs} ms; stderr: ${stderr.slice(-1000)}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { done, kill: (sig) => child.kill(sig), stderrAt: (re) => lines.find((l) => re.test(l.text))?.at };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

before(() => {
  // The committed baselines, as from another CPU: only the app's own work is gated, so verdicts do not
  // depend on this machine's timing (or on which node ran).
  mkdirSync(join(work, 'baselines'));
  for (const f of readdirSync(join(ROOT, 'baselines'))) {
    const run = JSON.parse(readFileSync(join(ROOT, 'baselines', f), 'utf8')) as RunFile;
    run.env.host.cpuModel = 'Another CPU @ 3.1GHz';
    writeFileSync(join(work, 'baselines', f), JSON.stringify(run));
  }
});

test('standalone Grid: perf run and perf gate through --grid; browser.endpoint selenium+URL with a session per browser restart; no session left, also after Ctrl-C', { skip, timeout: 600_000 }, async () => {
  let grid: GridProcess | undefined;
  try {
    grid = await startStandalone();
    const run = perf(['run', DIALOG, '--grid', grid.url, '--repeat', '2', '--warmup', '0', '--out', 'run', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const j = JSON.parse(run.stdout) as RunFile;
    assert.equal(j.summary.measured, 2);
    assert.equal(j.env.browser.endpoint, `selenium+${grid.url}`);
    assert.match(j.env.browser.product, /Chrome\//);
    assert.equal(await gridSessions(grid.url), 0, 'the session was deleted');

    const gate = perf(['gate', LIST, '--variant', 'desktop', '--baselines', 'baselines', '--grid', grid.url, ...SMALL, '--json']);
    assert.equal(gate.code, 0, gate.stdout + gate.stderr);
    const g = JSON.parse(gate.stdout) as { verdict: string; runs: { id: string; status: string }[] };
    assert.deepEqual(g.runs.map((r) => `${r.id}:${r.status}`), ['list-scroll-desktop:compared']);
    assert.equal(g.verdict, 'pass');
    const jank = perf(['gate', LIST, '--variant', 'desktop', '--baselines', 'baselines', '--grid', grid.url, ...SMALL, '--var', 'jank=1']);
    assert.equal(jank.code, 1, jank.stdout + jank.stderr);
    assert.match(jank.stdout, /FAIL {4}list-scroll-desktop .*counters\.layouts/);
    assert.equal(await gridSessions(grid.url), 0);

    // The Grid named in the scenario; restart: browser makes every repeat a session of its own.
    const created = (): number => (gridLog(grid!).match(/Session created by the Node/g) ?? []).length;
    const before = created();
    const yaml = join(work, 'on-grid.yaml');
    writeFileSync(yaml, [`name: on-grid`, `app: { serve: ${join(ROOT, 'scenarios/app')}, path: /dialog.html }`, `browser: { endpoint: "selenium+${grid.url}", restart: browser }`, `steps:`, `  - tap: "Open dialog"`, ''].join('\n'));
    const own = perf(['run', yaml, '--allow-outside', '--repeat', '3', '--warmup', '0', '--out', 'own', '--json']);
    assert.equal(own.code, 0, own.stderr);
    const ownRun = JSON.parse(readFileSync(join(work, 'own/on-grid-run.json'), 'utf8')) as RunFile;
    assert.equal(ownRun.summary.repeats, 3);
    // A repeat may fail on a loaded machine (the tap's wait), or be refused when its one-tap window
    // painted a single frame; the sessions are what is under test here.
    assert.ok(ownRun.summary.measured + ownRun.summary.refused >= 2, JSON.stringify(ownRun.repeats.map((r) => (r.status === 'failed' ? r.failure.error.message : r.status))));
    assert.equal(created() - before, 3, 'one session per repeat');
    assert.equal(await gridSessions(grid.url), 0);

    // perf run --against --grid: both arms in one Grid session (one node), deleted at the end.
    const sessionsBefore = created();
    const ab = perf(['run', DIALOG, '--against', DIALOG, '--grid', grid.url, '--label', 'ab', ...SMALL, '--out', 'ab', '--json']);
    assert.ok(ab.code === 0 || ab.code === 1, ab.stderr);
    const abj = JSON.parse(ab.stdout) as { baseline: RunFile; candidate: RunFile };
    assert.equal(abj.candidate.env.browser.endpoint, `selenium+${grid.url}`);
    assert.equal(created() - sessionsBefore, 1, 'one session for both arms');
    assert.equal(await gridSessions(grid.url), 0);

    // perf start --grid: a session that outlives the command, driven by step verbs, deleted on stop.
    const started = perf(['start', '--serve', join(ROOT, 'scenarios/app'), '--allow-outside', '--path', '/dialog.html', '--grid', grid.url, '--json']);
    assert.equal(started.code, 0, started.stderr);
    assert.equal((JSON.parse(started.stdout) as { grid?: { url: string } }).grid?.url, grid.url);
    assert.equal(await gridSessions(grid.url), 1);
    const snap = perf(['snap']);
    assert.equal(snap.code, 0, snap.stderr);
    assert.match(snap.stdout, /Open dialog/);
    const tapped = perf(['tap', 'Open dialog']);
    assert.equal(tapped.code, 0, tapped.stderr);
    const status = JSON.parse(perf(['status', '--json']).stdout) as { running: boolean; alive: { chrome: boolean } };
    assert.deepEqual([status.running, status.alive.chrome], [true, true]);
    assert.equal(perf(['stop']).code, 0);
    assert.equal(await gridSessions(grid.url), 0, 'perf stop deleted the session');

    // MCP app_start {grid}: the agent's session is a Grid session too, deleted by app_stop.
    const transport = new StdioClientTransport({ command: process.execPath, args: [PERF, 'mcp', '--allow-outside'], cwd: work, env: { ...(process.env as Record<string, string>), GITHUB_STEP_SUMMARY: '' }, stderr: 'pipe' });
    const client = new Client({ name: 'rehearse-grid-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; json: { data?: Record<string, unknown>; code?: string } }> => {
        const res = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[] };
        return { isError: res.isError === true, json: JSON.parse(res.content.find((c) => c.type === 'text')?.text ?? '{}') as { data?: Record<string, unknown>; code?: string } };
      };
      const mcpStart = await call('app_start', { serve: join(ROOT, 'scenarios/app'), path: '/dialog.html', grid: grid.url });
      assert.equal(mcpStart.isError, false, JSON.stringify(mcpStart.json));
      assert.equal((mcpStart.json.data?.grid as { url?: string } | undefined)?.url, grid.url);
      assert.equal(await gridSessions(grid.url), 1);
      const mcpTap = await call('tap', { target: { role: 'button', name: 'Open dialog' } });
      assert.equal(mcpTap.isError, false, JSON.stringify(mcpTap.json));
      const dialog = await call('snap', { grep: 'Confirm' });
      assert.match(String(dialog.json.data?.snapshot), /dialog "Confirm"/);
      assert.equal((await call('app_stop')).isError, false);
      assert.equal(await gridSessions(grid.url), 0, 'app_stop deleted the session');
    } finally {
      await client.close();
    }

    // Ctrl-C mid-run: the run file is written (interrupted) and the session deleted.
    const p = perfAsync(['run', DIALOG, '--grid', grid.url, '--repeat', '30', '--warmup', '0', '--out', 'int']);
    await until('a Grid session', async () => (await gridSessions(grid!.url)) === 1);
    await new Promise((r) => setTimeout(r, 3000));
    p.kill('SIGINT');
    const r = await p.done;
    assert.equal(r.code, 130, r.stderr);
    // Deleted by the Ctrl-C cleanup, or (when the Grid takes longer than its 5 s) by the watchdog just after.
    await until('the session deleted after Ctrl-C', async () => (await gridSessions(grid!.url)) === 0, 40_000);
  } finally {
    await grid?.stop();
  }
});

test('a Grid that is not there → exit 3 naming it, never a pass; --parallel without a Grid → exit 2 with the reason', { skip, timeout: 300_000 }, async () => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const run = perf(['run', DIALOG, '--grid', url, '--repeat', '1', '--warmup', '0', '--out', 'none']);
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.stderr, new RegExp(`perf: Selenium Grid at ${url}: could not create a Chromium session: .*unreachable`));
  const gate = perf(['gate', DIALOG, '--baselines', 'baselines', '--grid', url, '--repeat', '1', '--warmup', '0']);
  assert.equal(gate.code, 3, gate.stdout + gate.stderr);
  assert.match(gate.stdout, /ERROR {3}dialog +Selenium Grid at/);

  const par = perf(['gate', DIALOG, '--baselines', 'baselines', '--parallel', '2']);
  assert.equal(par.code, 2);
  assert.match(par.stderr, /--parallel 2 needs a Selenium Grid \(--grid URL\): runs in parallel on this one machine would share its CPU/);
  const bad = perf(['gate', DIALOG, '--grid', 'localhost:4444']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--grid must be a Selenium Grid URL/);
});

test('hub + two nodes: perf gate --parallel 2 gives the serial verdicts; a node that hangs mid-gate (frozen: no connection closes) → exit 3 for its run, no session left', { skip, timeout: 600_000 }, async (t) => {
  const grid = await startHubAndNodes(2);
  try {
    const args = ['gate', LIST, '--variant', 'desktop', DIALOG, '--baselines', 'baselines', '--grid', grid.url, ...SMALL, '--var', 'jank=1', '--json'];
    const serial = perf([...args, '--out', 'serial']);
    const parallel = perf([...args, '--out', 'parallel', '--parallel', '2']);
    assert.equal(parallel.code, serial.code, parallel.stderr);
    const v = (out: string): string[] => (JSON.parse(out) as { runs: { id: string; status: string; verdict: string }[] }).runs.map((r) => `${r.id}:${r.status}:${r.verdict}`);
    assert.deepEqual(v(parallel.stdout), v(serial.stdout));
    // In the gate's order (arguments, then variants), whichever finished first.
    assert.deepEqual(v(serial.stdout), ['list-scroll-desktop:compared:fail', 'dialog:compared:pass']);
    assert.equal(await gridSessions(grid.url), 0);

    // Freeze one node while both run (a hung node or a dropped network: its connections stay open and
    // silent, the case a crash does not show): the run on it ends with exit 3 (environment), not a pass,
    // found by the session watch rather than by each command's own 30 s deadline.
    const p = perfAsync(['gate', LIST, '--variant', 'desktop', DIALOG, '--baselines', 'baselines', '--grid', grid.url, '--repeat', '20', '--warmup', '0', '--fixed', '--parallel', '2', '--out', 'killed', '--json']);
    await until('two Grid sessions', async () => (await gridSessions(grid.url)) === 2, 120_000);
    await new Promise((r) => setTimeout(r, 2000));
    grid.nodes[0]!.freeze();
    const frozenAt = Date.now();
    const r = await p.done;
    const reported = p.stderrAt(/Selenium Grid/);
    t.diagnostic(`frozen node reported after ${reported ? ((reported - frozenAt) / 1000).toFixed(1) : '?'} s; gate exited after ${((Date.now() - frozenAt) / 1000).toFixed(1)} s`);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    const runs = (JSON.parse(r.stdout) as { runs: { id: string; status: string; error?: { code: string; kind: string } }[] }).runs;
    const lost = runs.filter((x) => x.status === 'error');
    assert.equal(lost.length, 1, r.stdout);
    assert.equal(lost[0]!.error!.kind, 'environment');
    assert.match(lost[0]!.error!.code, /^grid_/);
    // The killed node's slot may be listed (even as UP) until the hub's health check finds it gone;
    // the node left running holds nothing.
    await until('no session on the live node', async () => (await gridSessions(grid.url, { node: grid.nodes[1]!.url })) === 0, 30_000);
  } finally {
    await grid.stop();
  }
});

test('a Grid that asks for credentials (user:key@ in the URL, as cloud Grids do): sent as Basic auth, shown as user:***@ everywhere', { skip, timeout: 300_000 }, async () => {
  const KEY = 'k3y-9f2c41';
  const grid = await startStandalone({ auth: { user: 'ada', password: KEY } });
  try {
    const shown = grid.url.replace(`ada:${KEY}@`, 'ada:***@');
    const run = perf(['run', DIALOG, '--grid', grid.url, '--repeat', '1', '--warmup', '0', '--out', 'auth', '--json']);
    assert.equal(run.code, 0, run.stderr.replaceAll(KEY, '<key>'));
    const j = JSON.parse(run.stdout) as RunFile;
    assert.equal(j.summary.measured + j.summary.refused, 1);
    assert.equal(j.env.browser.endpoint, `selenium+${shown}`);
    const file = readFileSync(join(work, 'auth/dialog-run.json'), 'utf8');
    for (const text of [run.stdout, run.stderr, file]) assert.ok(!text.includes(KEY), 'the key is never shown');
    assert.equal(await gridSessions(grid.url), 0, 'the session was deleted (with the credentials)');

    // A wrong key: the Grid refuses, exit 3, and the message shows neither key.
    const wrong = perf(['run', DIALOG, '--grid', grid.url.replace(KEY, 'wrong-key-77'), '--repeat', '1', '--warmup', '0', '--out', 'auth-wrong']);
    assert.equal(wrong.code, 3, wrong.stderr);
    assert.match(wrong.stderr, /Selenium Grid at http:\/\/ada:\*\*\*@127\.0\.0\.1:\d+/);
    assert.ok(!wrong.stderr.includes('wrong-key-77') && !wrong.stderr.includes(KEY), wrong.stderr);
  } finally {
    await grid.stop();
  }
});
