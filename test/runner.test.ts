import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser } from '../src/drivers/cdp/browser.js';
import { loadScenario } from '../src/scenario/load.js';
import { runScenario } from '../src/runner/run.js';
import { runAndJudge } from '../src/runner/judge.js';
import { launchChrome } from '../src/drivers/cdp/chrome.js';
import { writeJsonAtomic } from '../src/session/state.js';
import type { RunFile } from '../src/perf/run-file.js';
import { FIXTURES_DIR, ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-runner-'));
after(() => rmSync(work, { recursive: true, force: true }));
// The app beside the scenarios, as in a project: `serve` stays inside the scenario's folder.
cpSync(join(FIXTURES_DIR, 'runner-app'), join(work, 'runner-app'), { recursive: true });
const PERF = join(ROOT, 'bin/perf');
let n = 0;
// Keeps the measured window long enough (the fixture paints every frame) that it is never refused.
const PAINT = '  - evaluate: { expression: "new Promise((r) => setTimeout(r, 300))" }\n';

function scenarioFile(body: string): string {
  const file = join(work, `sc${n++}.yaml`);
  writeFileSync(file, body.replaceAll('FIXTURE', join(work, 'runner-app')));
  return file;
}

/** `perf run FILE --out OUT` in the background, resolved once its stderr matches `until`. */
async function runUntil(file: string, out: string, until: RegExp): Promise<{ child: ReturnType<typeof spawn>; stderr: () => string }> {
  const child = spawn(process.execPath, [PERF, 'run', file, '--out', out], { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  await new Promise<void>((resolve) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (until.test(err)) resolve();
    });
  });
  return { child, stderr: () => err };
}

function perf(args: string[], env: NodeJS.ProcessEnv = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 180_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const ISOLATION = (mode: string): string => `
name: iso-${mode}
app: { serve: FIXTURE }
browser: { restart: ${mode} }
repeat: 2
warmup: 0
steps:
  - expect: { target: { testId: visits }, text: "Visits: 1", timeoutMs: 1500 }
  - tap: Go
${PAINT}`;

for (const mode of ['context', 'browser'] as const) {
  test(`restart ${mode}: every repeat starts with empty storage (each sees its first visit)`, async () => {
    const sc = loadScenario(scenarioFile(ISOLATION(mode)));
    const { run } = await runScenario(sc, { label: 'run', outDir: join(work, 'out') });
    assert.deepEqual(
      run.repeats.map((r) => r.status),
      ['measured', 'measured'],
    );
    assert.equal(run.env.restartMode, mode);
  });
}

test('restart reload: storage carries over (the second repeat sees visit 2), so its expect fails', async () => {
  const sc = loadScenario(scenarioFile(ISOLATION('reload')));
  const { run } = await runScenario(sc, { label: 'run', outDir: join(work, 'out') });
  assert.equal(run.repeats[0]!.status, 'measured');
  const second = run.repeats[1]!;
  assert.equal(second.status, 'failed');
  assert.equal(second.status === 'failed' && second.failure.error.code, 'expect_failed');
});

test("timing 'only' (a bisect's midpoints): both arms measure timing repeats alone, the warm-up too", { timeout: 120_000 }, async () => {
  const sc = loadScenario(scenarioFile(`name: only\napp: { serve: FIXTURE, path: / }\nsteps:\n  - tap: Go\n${PAINT}`), { cwd: work });
  const { res, comparison } = await runAndJudge({
    kind: 'against',
    baseline: sc,
    candidate: sc,
    options: { outDir: join(work, 'only'), repeat: 2, warmup: 1, timing: 'only', fixed: true },
  });
  assert.ok(comparison, 'both arms measured');
  for (const arm of [res.baseline.run, res.candidate.run]) {
    const modes = arm.repeats.map((r) => `${r.mode}${r.warmup ? ' (warm-up)' : ''}:${r.status}`);
    assert.deepEqual(modes, ['timing (warm-up):measured', 'timing:measured', 'timing:measured'], arm.label);
  }
});

test('a step failing in one repeat fails only that repeat, with its step, error and a screenshot', async () => {
  const file = scenarioFile(`
name: flaky
app: { command: "node FIXTURE/flaky-server.mjs" }
repeat: 3
warmup: 0
steps:
  - tap: { target: { text: Go }, timeoutMs: 1000, label: press-go }
  - expect: { target: { testId: out }, text: "clicked 1" }
${PAINT}`);
  const sc = loadScenario(file, { env: { ...process.env } });
  // Load 1 is the harness checking that the app answers; the repeats load from 2 on, so the
  // second repeat gets load 3 (or the one after, if a restart discarded a page).
  process.env.FAIL_ON = '3';
  try {
    const { run } = await runScenario(sc, { label: 'run', outDir: join(work, 'out') });
    assert.deepEqual(
      run.repeats.map((r) => r.status),
      ['measured', 'failed', 'measured'],
    );
    const f = run.repeats[1]!;
    assert.ok(f.status === 'failed');
    assert.equal(f.failure.phase, 'steps');
    assert.equal(f.failure.step, 'tap');
    assert.equal(f.failure.label, 'press-go');
    assert.ok(f.failure.screenshot && existsSync(f.failure.screenshot));
    assert.equal(readFileSync(f.failure.screenshot).subarray(1, 4).toString(), 'PNG');
    assert.equal(run.summary.measured, 2);
    assert.equal(run.summary.failed, 1);
    assert.equal(run.summary.metrics['steps.press-go.ms']?.n, 2);
  } finally {
    delete process.env.FAIL_ON;
  }
});

test('a renderer killed mid-run fails that repeat; the next repeat is measured on a new page', async () => {
  const chrome = await launchChrome({ devtools: 'port' });
  try {
    const sc = loadScenario(
      scenarioFile(`
name: crash
app: { serve: FIXTURE }
browser: { endpoint: "http://127.0.0.1:${chrome.devtools.port}" }
repeat: 3
warmup: 0
steps:
  - evaluate: { expression: "new Promise((r) => setTimeout(r, 1500))" }
  - tap: Go
`),
    );
    const killer = await Browser.connect(chrome.devtools.wsEndpoint);
    let killed = false;
    const { run } = await runScenario(sc, {
      label: 'run',
      outDir: join(work, 'out'),
      onProgress: (e) => {
        if (e.kind === 'step' && e.index === 1 && e.phase === 'steps' && !killed) {
          killed = true;
          // From outside the harness, as a real renderer crash would come.
          void (async () => {
            await new Promise((r) => setTimeout(r, 300));
            const targets = await killer.pageTargets();
            const t = targets.find((x) => x.url.startsWith('http://127.0.0.1'));
            const page = await killer.attach(t!.targetId);
            await page.send('Page.crash').catch(() => undefined);
          })();
        }
      },
    });
    await killer.disconnect();
    assert.equal(killed, true);
    assert.deepEqual(
      run.repeats.map((r) => r.status),
      ['measured', 'failed', 'measured'],
    );
    const f = run.repeats[1]!;
    assert.ok(f.status === 'failed');
    assert.match(f.failure.error.message, /crash|closed|renderer/i);
  } finally {
    await chrome.close();
  }
});

test('a start page answering HTTP 404 fails each repeat at restart with the status, instead of measuring the error page', async () => {
  const sc = loadScenario(
    scenarioFile(`name: http404\napp: { serve: FIXTURE, path: /no-such-page.html }\nrepeat: 2\nwarmup: 0\nsteps:\n  - tap: Go\n`),
  );
  const { run } = await runScenario(sc, { label: 'run', outDir: join(work, 'http404') });
  assert.deepEqual(
    run.repeats.map((r) => r.status),
    ['failed', 'failed'],
  );
  const r = run.repeats[0]!;
  assert.ok(r.status === 'failed');
  assert.deepEqual([r.failure.phase, r.failure.error.code], ['restart', 'app_http_error']);
  assert.match(r.failure.error.message, /^the app answered HTTP 404 for http:\/\/127\.0\.0\.1:\d+\/no-such-page\.html$/);
});

test('a wait_for in setup that times out fails the repeat (phase setup, wait_timeout): a page that never reached its state is not measured', async () => {
  const sc = loadScenario(
    scenarioFile(
      `name: setupwait\napp: { serve: FIXTURE }\nrepeat: 1\nwarmup: 0\nsetup:\n  - wait_for: { text: "never shown", timeoutMs: 300 }\nsteps:\n  - tap: Go\n`,
    ),
  );
  const { run } = await runScenario(sc, { label: 'run', outDir: join(work, 'setupwait') });
  const r = run.repeats[0]!;
  assert.equal(r.status, 'failed');
  assert.ok(r.status === 'failed');
  assert.deepEqual([r.failure.phase, r.failure.step, r.failure.error.code], ['setup', 'wait_for', 'wait_timeout']);
});

test('the run file is written atomically: no temp file is left, and a failed write keeps the old file', () => {
  const file = join(work, 'atomic.json');
  writeJsonAtomic(file, { v: 1 });
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  assert.throws(() => writeJsonAtomic(file, circular));
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { v: 1 });
  assert.deepEqual(
    readdirSync(work).filter((f) => f.startsWith('atomic')),
    ['atomic.json'],
  );
});

test('perf run replaces a symlink planted at its run file or report path instead of writing through it', () => {
  const victimDir = mkdtempSync(join(tmpdir(), 'rehearse-victim-'));
  const victim = join(victimDir, 'victim.txt');
  writeFileSync(victim, 'keep me');
  const out = join(work, 'linked');
  mkdirSync(out, { recursive: true });
  symlinkSync(victim, join(out, 'lnk-run.json'));
  symlinkSync(victim, join(out, 'lnk-run.junit.xml'));
  const file = scenarioFile(`name: lnk\napp: { serve: FIXTURE }\nrepeat: 1\nwarmup: 0\nsteps:\n  - tap: Go\n${PAINT}`);
  const r = perf(['run', file, '--out', out, '--reporter', 'junit', '--quiet']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(victim, 'utf8'), 'keep me');
  for (const f of ['lnk-run.json', 'lnk-run.junit.xml']) assert.equal(lstatSync(join(out, f)).isFile(), true, f);
  assert.equal((JSON.parse(readFileSync(join(out, 'lnk-run.json'), 'utf8')) as RunFile).scenario, 'lnk');
  rmSync(victimDir, { recursive: true, force: true });
});

test('values read through ${env.NAME} are written as ${env.NAME}: not in the run file, its metric names, reports or traces', () => {
  const token = 'rh-Secret-7f3a91';
  const file = scenarioFile(
    `name: secret\napp: { serve: FIXTURE, path: "/?token=\${env.RH_TOKEN}" }\nrepeat: 1\nwarmup: 0\nsteps:\n  - tap: { target: { text: Go }, label: "go-\${env.RH_TOKEN}" }\n${PAINT}`,
  );
  const out = join(work, 'secret');
  const r = perf(['run', file, '--out', out, '--reporter', 'junit,markdown', '--quiet'], { RH_TOKEN: token });
  assert.equal(r.code, 0, r.stderr);
  const files = readdirSync(out);
  assert.ok(files.includes('secret-run.json') && files.some((f) => f.endsWith('.trace.json')), files.join(', '));
  for (const f of files) assert.ok(!readFileSync(join(out, f), 'utf8').includes(token), `${f} holds the secret`);
  const run = JSON.parse(readFileSync(join(out, 'secret-run.json'), 'utf8')) as RunFile;
  assert.match(run.env.app.url, /\?token=\$\{env\.RH_TOKEN\}$/);
  assert.ok('steps.go-${env.RH_TOKEN}.ms' in run.summary.metrics, Object.keys(run.summary.metrics).join(', '));
});

test('an unusable --out stops before any browser starts: under /proc exit 2 (no endless mkdir), a file or a path through one exit 3', () => {
  const file = scenarioFile(`name: badout\napp: { serve: FIXTURE }\nrepeat: 1\nwarmup: 0\nsteps:\n  - tap: Go\n`);
  const aFile = join(work, 'not-a-folder.txt');
  writeFileSync(aFile, 'x');
  // /proc: a folder that can hold no file is bad input (issue 57); a file in the way is the environment's.
  const cases: [string, RegExp, number][] = [
    ['/proc/nonexistent', /cannot use \/proc\/nonexistent as an output folder: it is inside a kernel file system/, 2],
    [aFile, /not-a-folder\.txt is a file, not a folder/, 3],
    [join(aFile, 'sub'), /not-a-folder\.txt is a file, not a folder/, 3],
  ];
  for (const [out, message, code] of cases) {
    const r = perf(['run', file, '--out', out]);
    assert.equal(r.code, code, `${out}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
  }
  const d = perf(['doctor', '--out', '/proc/nonexistent', '--json']);
  assert.equal(d.code, 3);
  assert.match(d.stdout, /kernel file system/);
});

test('perf run: exit 0, a run file with the contract fields, --json prints it minus repeats plus its path', () => {
  const file = scenarioFile(
    `name: ok\napp: { serve: FIXTURE }\nrepeat: 2\nwarmup: 1\nsteps:\n  - tap: Go\n${PAINT}budgets:\n  - "durationMs < 60000"\n`,
  );
  const r = perf(['run', file, '--json', '--out', join(work, 'cli'), '--label', 'base', '--reporter', 'junit,markdown']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as RunFile & { path: string; reports: string[] };
  assert.equal(out.path, join(work, 'cli', 'ok-base.json'));
  assert.equal('repeats' in out, false);
  const run = JSON.parse(readFileSync(out.path, 'utf8')) as RunFile;
  assert.equal(run.schemaVersion, 1);
  assert.equal(run.label, 'base');
  assert.equal(run.repeats.length, 3);
  assert.equal(run.repeats[0]!.warmup, true);
  assert.equal(run.summary.repeats, 2);
  assert.equal(run.summary.metrics.durationMs?.n, 2);
  assert.match(run.env.browser.product, /Chrome\/\d+/);
  assert.ok(run.env.host.cpus >= 1 && run.env.tool.version);
  assert.deepEqual(run.env.viewport, { width: 1280, height: 800, dpr: 1, mobile: false, touch: false });
  assert.deepEqual(
    run.budgets.map((b) => b.pass),
    [true],
  );
  assert.deepEqual(
    out.reports.map((p) => p.slice(p.lastIndexOf('/') + 1)),
    ['ok-base.junit.xml', 'ok-base.md'],
  );
  assert.deepEqual(
    readdirSync(join(work, 'cli')).filter((f) => f.endsWith('.tmp')),
    [],
  );
  // The Chrome traces of the median and slowest repeats sit beside the run file and parse.
  for (const which of ['median', 'slowest'] as const) {
    const t = run.traces?.[which];
    assert.ok(t, `no ${which} trace`);
    assert.equal(t.path, join(work, 'cli', `ok-base-${which}.trace.json`));
    const trace = JSON.parse(readFileSync(t.path, 'utf8')) as { traceEvents: unknown[] };
    assert.ok(trace.traceEvents.length > 0);
  }
  assert.equal(existsSync(join(work, 'cli', '.ok-base-traces')), false);
});

test('perf run: a failed budget exits 1 and names the budget', () => {
  const file = scenarioFile(
    `name: over\napp: { serve: FIXTURE }\nrepeat: 1\nwarmup: 0\nsteps:\n  - tap: Go\n${PAINT}budgets:\n  - "durationMs < 0.001"\n`,
  );
  const r = perf(['run', file, '--out', join(work, 'cli')]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /FAIL\s+durationMs < 0\.001/);
});

test('perf run: every repeat failing exits 1', () => {
  const file = scenarioFile(
    'name: allfail\napp: { serve: FIXTURE }\nrepeat: 2\nwarmup: 0\nsteps:\n  - tap: { target: { text: "No such button" }, timeoutMs: 500 }\n',
  );
  const r = perf(['run', file, '--out', join(work, 'cli'), '--quiet']);
  assert.equal(r.code, 1);
});

test('perf run: a bad scenario exits 2 before any browser, a missing Chromium exits 3', () => {
  const bad = scenarioFile('app: { serve: FIXTURE }\nsteps:\n  - tapp: Go\n');
  assert.equal(perf(['run', bad]).code, 2);
  const good = scenarioFile('app: { serve: FIXTURE }\nsteps:\n  - tap: Go\n');
  const r = perf(['run', good, '--repeat', '1'], { CHROME_PATH: '/nonexistent/chrome' });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /CHROME_PATH/);
  assert.equal(perf(['run', good, '--label', 'Bad Label']).code, 2);
  assert.equal(perf(['run', good, '--restart', 'tab']).code, 2);
});

test('killed outright (SIGKILL) after two repeats, the run file on disk holds them, marked complete: false, and compare warns', async () => {
  const file = scenarioFile(`name: killed\napp: { serve: FIXTURE }\nrepeat: 30\nwarmup: 0\nsteps:\n  - tap: Go\n${PAINT}`);
  // "repeat 2/30 …: measured" is printed after the second repeat ended and was written.
  const { child } = await runUntil(file, join(work, 'killed'), /repeat 2\/30 [a-z]+: measured/);
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  const path = join(work, 'killed', 'killed-run.json');
  const run = JSON.parse(readFileSync(path, 'utf8')) as RunFile;
  assert.equal(run.complete, false);
  assert.ok(run.repeats.length >= 2 && run.repeats.length < 30, String(run.repeats.length));
  assert.deepEqual(
    run.repeats.map((r) => r.status),
    run.repeats.map(() => 'measured'),
  );
  assert.equal(run.summary.measured, run.repeats.length);
  assert.deepEqual(
    readdirSync(join(work, 'killed')).filter((f) => f.endsWith('.tmp')),
    [],
  );
  const c = perf(['compare', path, path, '--json']);
  assert.equal(c.code, 0, c.stderr);
  assert.ok((JSON.parse(c.stdout) as { warnings: string[] }).warnings.some((w) => /did not finish \(killed after \d+ repeat/.test(w)));
});

/**
 * A real full disk: a 1 MiB tmpfs with an empty output folder, then filled, so the output folder is
 * usable at the start and the first write after a repeat fails. Needs root, as on CI; undefined (the
 * test skipped) where mounting is not allowed.
 */
function fullDisk(t: { skip: (why: string) => void }, name: string): { out: string; release: () => void } | undefined {
  const disk = join(work, name);
  mkdirSync(disk);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk], { timeout: 120_000 }).status !== 0) {
    t.skip('cannot mount a tmpfs here');
    return undefined;
  }
  const out = join(disk, 'out');
  mkdirSync(out);
  try {
    for (let i = 0; ; i++) writeFileSync(join(disk, `filler${i}`), Buffer.alloc(64 * 1024));
  } catch (e) {
    assert.equal((e as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  return { out, release: () => void spawnSync('umount', [disk], { timeout: 120_000 }) };
}

/** The JSON line the CLI prints last on stderr when a run could not be saved. */
function salvagedFrom(stderr: string): unknown {
  const lines = stderr.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as unknown;
}

test('the disk fills up mid-run: exit 3 naming ENOSPC, the run stops at once, what was measured is on stderr as JSON, no partial or temporary file is left', (t) => {
  const disk = fullDisk(t, 'full');
  if (!disk) return;
  try {
    const file = scenarioFile(`name: full\napp: { serve: FIXTURE }\nrepeat: 5\nwarmup: 0\nsteps:\n  - tap: Go\n${PAINT}`);
    const r = perf(['run', file, '--out', disk.out]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /no space left on device \(ENOSPC\)/);
    assert.match(r.stderr, /stopped after 1 of 5 repeats/);
    const salvaged = salvagedFrom(r.stderr) as RunFile;
    assert.equal(salvaged.scenario, 'full');
    assert.deepEqual(
      salvaged.repeats.map((x) => x.status),
      ['measured'],
    );
    assert.ok((salvaged.repeats[0] as Extract<RunFile['repeats'][number], { status: 'measured' }>).report.metrics.durationMs! > 0);
    assert.deepEqual(readdirSync(disk.out), []);
  } finally {
    disk.release();
  }
});

test('the disk fills up during --against: exit 3, the compare stops at once, both arms on stderr as JSON, no partial file', (t) => {
  const disk = fullDisk(t, 'full-against');
  if (!disk) return;
  try {
    const file = scenarioFile(`name: fullab\napp: { serve: FIXTURE }\nrepeat: 4\nwarmup: 0\nsteps:\n  - tap: Go\n${PAINT}`);
    const r = perf(['run', file, '--against', file, '--fixed', '--out', disk.out]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /no space left on device \(ENOSPC\)/);
    assert.match(r.stderr, /the compare stopped after 1 repeat\./);
    const salvaged = salvagedFrom(r.stderr) as { baseline: RunFile; candidate: RunFile };
    assert.deepEqual(
      salvaged.baseline.repeats.map((x) => x.status),
      ['measured'],
    );
    assert.deepEqual(salvaged.candidate.repeats, []);
    assert.deepEqual(readdirSync(disk.out), []);
  } finally {
    disk.release();
  }
});

test('Ctrl-C writes what was measured so far, marked interrupted, exit 130', async () => {
  const file = scenarioFile(`name: long\napp: { serve: FIXTURE }\nrepeat: 30\nwarmup: 0\nsteps:\n  - tap: Go\n${PAINT}`);
  const { child, stderr } = await runUntil(file, join(work, 'int'), /repeat 2\/30/);
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  assert.equal(code, 130, stderr());
  const run = JSON.parse(readFileSync(join(work, 'int', 'long-run.json'), 'utf8')) as RunFile;
  assert.equal(run.interrupted, true);
  assert.ok(run.summary.measured >= 2 && run.summary.measured < 30, String(run.summary.measured));
  assert.deepEqual(
    run.repeats.filter((r) => r.status !== 'measured').map((r) => (r.status === 'failed' ? r.failure.error.message : r.status)),
    [],
  );
});
