/**
 * The CI gate end to end on the demo app, through the real CLI (`./bin/perf`) and the MCP server:
 * `perf run --against` (A/A passes, A/B with the jank switch fails naming the metric, the A B B A order
 * is recorded), `perf gate` without baselines (missing → exit 1), `--update`, with baselines (pass, and
 * fail on jank; a baseline from another CPU still catches jank by counts), `perf selftest`, and perf_run / perf_compare over MCP with progress per repeat and look.
 * Small runs (3–4 repeats, no warmup) keep the file around two minutes on 2 cores. The committed baselines'
 * gate asserts counts only: it is test/gate-baselines.test.ts, in the browser lane.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RunFile } from '../src/perf/run-file.js';
import { gateExitCode, renderGateJunit, type GateEntry } from '../src/cli/gate.js';
import { PerfError } from '../src/errors.js';
import { analyseSelftest, detectableShift, minOneSidedP } from '../src/cli/selftest.js';
import { compareRuns, metricSamples } from '../src/perf/compare-runs.js';
import { ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-gate-'));
after(() => rmSync(work, { recursive: true, force: true }));
const PERF = join(ROOT, 'bin/perf');
const LIST = join(ROOT, 'scenarios/list-scroll.yaml');
const SMALL = ['--repeat', '3', '--warmup', '0'];

function perf(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 180_000): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_STEP_SUMMARY: '', ...env },
    timeout: timeoutMs,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const readRun = (file: string): RunFile => JSON.parse(readFileSync(join(work, file), 'utf8')) as RunFile;

// ─── perf run --against ─────────────────────────────────────────────────────────────────────────────

test('--against --fixed A/A: same build twice → no error verdict; both run files record the A B B A order', () => {
  const r = perf([
    'run',
    LIST,
    '--variant',
    'desktop',
    '--against',
    LIST,
    '--repeat',
    '4',
    '--warmup',
    '0',
    '--fixed',
    // Profiled repeats only: one repeat per unit, so the recorded order is the plain A B B A of the slots.
    '--no-timing',
    '--out',
    'aa',
    '--json',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.notEqual(j.compare.verdict, 'fail');
  assert.equal(j.baseline.label, 'baseline');
  assert.equal(j.candidate.label, 'candidate');

  const a = readRun('aa/list-scroll-desktop-baseline.json');
  const b = readRun('aa/list-scroll-desktop-candidate.json');
  assert.deepEqual(a.against, { role: 'baseline', other: 'list-scroll-desktop-candidate.json', order: 'ABBA' });
  assert.equal(b.against?.role, 'candidate');
  const all = [...a.repeats.map((r) => ({ arm: 'A', ...r })), ...b.repeats.map((r) => ({ arm: 'B', ...r }))].sort(
    (x, y) => x.sequence! - y.sequence!,
  );
  assert.deepEqual(
    all.map((r) => r.sequence),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  assert.equal(all.map((r) => r.arm).join(''), 'ABBAABBA');
  // Wall-clock start times agree with the recorded order.
  const starts = all.map((r) => Date.parse(r.startedAt!));
  assert.deepEqual(
    starts,
    [...starts].sort((x, y) => x - y),
  );
  assert.deepEqual(
    a.repeats.map((r) => r.status),
    ['measured', 'measured', 'measured', 'measured'],
  );
});

test('--against A/B with the jank switch on the candidate → exit 1 naming the regressed metric', () => {
  const r = perf([
    'run',
    LIST,
    '--variant',
    'desktop',
    '--against',
    LIST,
    '--var',
    'jank=1',
    '--baseline-var',
    'jank=0',
    ...SMALL,
    '--out',
    'ab',
    '--label',
    'pr',
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^FAIL {2}list-scroll \(desktop\): pr-baseline → pr-candidate/);
  // The candidate column is the baseline plus the shift; a 0 baseline is scaled by the metric's floor, and says so.
  assert.match(r.stdout, /│ ★ counters\.layouts +│ +0 │ +11 │ +\+1100% of floor │ +\+1100…\+1100% │ error/);
  const cand = readRun('ab/list-scroll-desktop-pr-candidate.json');
  assert.match(cand.env.app.url, /jank=1$/);
  assert.match(readRun('ab/list-scroll-desktop-pr-baseline.json').env.app.url, /jank=0$/);
  // The rows behind each insight travel in the run file, at most ten (the HTML report shows them).
  const fired = cand.insights as { id: string; rows?: unknown[] }[];
  assert.ok(
    fired.some((i) => (i.rows?.length ?? 0) > 0) && fired.every((i) => (i.rows?.length ?? 0) <= 10),
    JSON.stringify(fired.map((i) => [i.id, i.rows?.length])),
  );
  // The same two files through perf compare: the same verdict.
  const c = perf(['compare', 'ab/list-scroll-desktop-pr-baseline.json', 'ab/list-scroll-desktop-pr-candidate.json', '--json']);
  assert.equal(c.code, 1);
  const j = JSON.parse(c.stdout);
  assert.equal(j.verdict, 'fail');
  const errors = j.rows.filter((x: { severity: string }) => x.severity === 'error').map((x: { metric: string }) => x.metric);
  assert.ok(errors.includes('counters.layouts'), errors.join(', '));
});

// ─── perf gate ──────────────────────────────────────────────────────────────────────────────────────

test('gate without baselines: every variant runs, each "missing baseline", exit 1; Markdown summary and JUnit written', () => {
  const summary = join(work, 'step-summary.md');
  const r = perf(['gate', LIST, '--baselines', 'baselines', '--repeat', '1', '--warmup', '0', '--junit', 'reports/gate.xml', '--json'], {
    GITHUB_STEP_SUMMARY: summary,
  });
  assert.equal(r.code, 1, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.verdict, 'fail');
  assert.deepEqual(
    j.runs.map((x: { id: string; status: string }) => `${x.id}:${x.status}`),
    ['list-scroll-desktop:missing-baseline', 'list-scroll-phone:missing-baseline', 'list-scroll-slow-4g:missing-baseline'],
  );
  const md = readFileSync(summary, 'utf8');
  assert.match(md, /^### ❌ perf gate: FAIL — 3 runs: 3 missing baseline/);
  assert.match(md, /\| `list-scroll-phone` \| ❌ MISSING \| missing baseline baselines\/list-scroll-phone\.json/);
  const xml = readFileSync(join(work, 'reports/gate.xml'), 'utf8');
  // Each run: its budget suite (one kept budget, measured: the run ran) and its gate suite (the missing baseline).
  assert.match(xml, /<testsuites name="rehearse gate" tests="6" failures="3"/);
  assert.match(xml, /<failure message="missing baseline baselines\/list-scroll-desktop\.json[^"]*" type="missing-baseline">/);
});

test('gate --update writes the baseline; the next gate passes against it; jank then fails it naming the metric', () => {
  const up = perf(['gate', LIST, '--variant', 'desktop', '--baselines', 'baselines', ...SMALL, '--update']);
  assert.equal(up.code, 0, up.stderr);
  assert.match(up.stdout, /UPDATED list-scroll-desktop +baseline written: baselines\/list-scroll-desktop\.json/);
  assert.ok(!existsSync(join(work, 'baselines/list-scroll-phone.json')), 'only the named variant');
  const base = readRun('baselines/list-scroll-desktop.json');
  assert.equal(base.label, 'baseline');
  assert.equal(base.variant, 'desktop');
  // --repeat 3 timing repeats decide; a profiled one follows every other (T,A,T,T,A): 5 measured.
  assert.equal(base.summary.measured, 5);
  assert.equal(base.repeats.filter((r) => r.mode === 'timing').length, 3);
  assert.equal(base.traces, undefined, 'traces stay in --out: a committed baseline must not point at them');

  const same = perf(['gate', LIST, '--variant', 'desktop', '--baselines', 'baselines', ...SMALL]);
  assert.equal(same.code, 0, same.stdout + same.stderr);
  // Unchanged code never fails; on a loaded runner (busy during some repeats, saturated through both recordings, or
  // slower during one) the milliseconds that followed the host are not judged, and the gate names the host instead;
  // or a CPU total held past warn stays undecided, naming the stored baseline as another moment of the machine.
  assert.match(
    same.stdout,
    /^perf gate: (PASS — 1 run: 1 passed|INCONCLUSIVE — 1 run: 1 inconclusive[^]*\n {2}INCONCLUSIVE .*(?:host|machine) )/,
  );
  // A pass says what it was decided on, under its line.
  if (/^perf gate: PASS/.test(same.stdout)) assert.match(same.stdout, /\n {2}PASS .*\n +★ decided on [^\n]*counters\.layouts/);

  const summary = join(work, 'jank-summary.md');
  const jank = perf(
    ['gate', LIST, '--variant', 'desktop', '--baselines', 'baselines', ...SMALL, '--var', 'jank=1', '--junit', 'reports/jank.xml'],
    { GITHUB_STEP_SUMMARY: summary },
  );
  assert.equal(jank.code, 1, jank.stderr);
  assert.match(
    jank.stdout,
    // The budget line second, whichever way it went (layouts per frame under jank depend on how many frames the host drew).
    /^perf gate: FAIL — 1 run: 1 failed.*\nBudgets: .*\n(?: {2}(?:FAIL|PASS) {2}.*\n)*? {2}FAIL {4}list-scroll-desktop .*counters\.layouts \+1100% of floor \(error\)/,
  );
  assert.match(readFileSync(summary, 'utf8'), /### ❌ FAIL perf compare list-scroll \(desktop\): baseline → gate/);
  assert.match(readFileSync(join(work, 'reports/jank.xml'), 'utf8'), /<testcase name="counters\.layouts"[^>]*>\s*<failure/);
});

test("a baseline recorded on another CPU: unchanged code passes, jank still fails on the app's own work (counts), ms are shown not gated", () => {
  const base = readRun('baselines/list-scroll-desktop.json');
  base.env.host.cpuModel = 'Another CPU @ 3.1GHz';
  mkdirSync(join(work, 'other'), { recursive: true });
  writeFileSync(join(work, 'other/list-scroll-desktop.json'), JSON.stringify(base));

  const same = perf(['gate', LIST, '--variant', 'desktop', '--baselines', 'other', ...SMALL, '--json']);
  assert.equal(same.code, 0, same.stdout + same.stderr);
  const j = JSON.parse(same.stdout);
  const cmp = j.runs[0].compare;
  assert.equal(cmp.host.same, false);
  assert.match(cmp.host.note, /another host/);
  assert.ok(
    !cmp.gate.primary.includes('counters.threadCpuMs') && !cmp.gate.primary.includes('counters.threadCpuMs.perFrame'),
    cmp.gate.primary.join(', '),
  );
  assert.ok(
    cmp.gate.primary.some((m: string) => m.startsWith('counters.layouts')),
    cmp.gate.primary.join(', '),
  );

  const jank = perf(['gate', LIST, '--variant', 'desktop', '--baselines', 'other', ...SMALL, '--var', 'jank=1']);
  assert.equal(jank.code, 1, jank.stdout + jank.stderr);
  assert.match(jank.stdout, /FAIL {4}list-scroll-desktop .*counters\.layouts/);
});

test('gate exit codes: a regression or a missing baseline is 1 before an unusable baseline (2) or an environment problem (3)', () => {
  const entry = (outcome: GateEntry['outcome']): GateEntry => ({
    id: 'x',
    scenario: 'x',
    variant: null,
    scenarioFile: 'x.yaml',
    baselineFile: 'b/x.json',
    runFile: null,
    run: null,
    outcome,
  });
  const env = entry({
    status: 'error',
    error: new PerfError({ code: 'app_start_timeout', kind: 'environment', message: 'app did not start' }),
  });
  const bad = entry({ status: 'invalid-baseline', error: new PerfError({ code: 'run_file_schema', message: 'b/x.json: schema' }) });
  assert.equal(gateExitCode([env]), 3);
  assert.equal(gateExitCode([env, bad]), 2);
  assert.equal(gateExitCode([env, bad, entry({ status: 'missing-baseline' })]), 1);
  assert.equal(gateExitCode([entry({ status: 'updated', previous: null })]), 0);
  assert.match(renderGateJunit([env]), /<failure message="app did not start" type="error">/);
});

// ─── perf selftest ──────────────────────────────────────────────────────────────────────────────────

test('selftest: detectable shift shrinks with repeats and is infinite where the rank test cannot reach α', () => {
  assert.ok(Math.abs(minOneSidedP(3) - 0.05) < 1e-12);
  assert.equal(detectableShift(5, 3, 0.05, 2), Infinity, '3 vs 3 cannot reach 0.025 one-sided');
  const at10 = detectableShift(5, 10, 0.05, 1);
  assert.ok(at10 > 7 && at10 < 10, `CV 5%, 10 repeats: ${at10}`);
  assert.ok(detectableShift(5, 20, 0.05, 1) < at10);
  assert.ok(detectableShift(5, 10, 0.05, 10) > at10, 'Holm over more metrics needs a bigger shift');
});

test('selftest analysis: a noisy ms metric is blind at 10% thresholds, a deterministic count catches any change, an A/A regression is a false alarm', () => {
  const run = (label: string, rows: Record<string, number>[]): RunFile =>
    ({
      schemaVersion: 1,
      scenario: 's',
      variant: null,
      label,
      scenarioFile: 's.yaml',
      startedAt: '',
      finishedAt: '',
      interrupted: false,
      env: {
        browser: { product: 'c' },
        host: { cpuModel: 'x', cpus: 2 },
        viewport: { width: 1, height: 1, dpr: 1, mobile: false, touch: false },
        cpuThrottle: 1,
        restartMode: 'context',
      },
      thresholds: { warnPct: 10, errorPct: 25, metrics: {} },
      summary: { repeats: rows.length, measured: rows.length, refused: 0, failed: 0, warmup: 0, metrics: {}, timingOnly: false },
      budgets: [],
      insights: [],
      repeats: rows.map((metrics, index) => ({
        index,
        mode: 'timing',
        warmup: false,
        wallMs: 1,
        steps: [],
        status: 'measured',
        report: { metrics },
      })),
    }) as unknown as RunFile;
  const noisy = [100, 160, 80, 130, 70, 120, 95, 150, 60, 110];
  const mk = (label: string, shift: number, layouts: number): RunFile =>
    run(
      label,
      noisy.map((d, i) => ({
        durationMs: d * shift,
        'frames.painted': 40,
        'counters.layouts': layouts,
        'counters.layouts.perFrame': layouts / 40,
        'counters.styleRecalcs.perFrame': 1 + (i % 2) * 0.01,
      })),
    );
  // durationMs is secondary by default: made primary here, as a scenario's gate.metrics can.
  const primary = { primary: ['durationMs', 'counters.layouts', 'counters.styleRecalcs'] };
  const a = mk('a', 1, 20);
  const b = mk('b', 1, 20);
  const res = analyseSelftest(compareRuns(a, b, primary), metricSamples(a, b, primary).samples);
  const by = (m: string) => res.metrics.find((x) => x.metric === m)!;
  assert.equal(by('durationMs').safety, 'blind');
  assert.ok(by('durationMs').cv! > 0.2, `cv ${by('durationMs').cv}`);
  assert.equal(by('counters.layouts.perFrame').safety, 'deterministic');
  assert.equal(by('counters.styleRecalcs.perFrame').safety, 'ok');
  assert.equal(res.aa.verdict, 'pass');
  assert.match(res.recommendation.join('\n'), /durationMs/);
  // The same machinery flags a false alarm when the "A/A" runs differ.
  const drift = analyseSelftest(compareRuns(a, mk('b', 1, 30), primary), metricSamples(a, mk('b', 1, 30), primary).samples);
  assert.deepEqual(drift.aa.falseAlarms, ['counters.layouts.perFrame (error)']);
  assert.match(drift.recommendation[0]!, /^FALSE ALARM/);
});

test('perf selftest: an A/A on this machine reports per gated metric the noise, the A/A verdict and a status', () => {
  const r = perf(['selftest', LIST, '--variant', 'desktop', ...SMALL, '--out', 'self', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.aa.verdict === 'fail', false);
  // 3 timing repeats and 2 profiled ones (T,A,T,T,A).
  assert.equal(j.repeatsPerArm, 5);
  // Per painted frame where the runs paint ≥ 30 frames, else the absolute count (headless list-scroll here paints few).
  const m = j.metrics.find((x: { metric: string }) => x.metric === 'counters.layouts.perFrame' || x.metric === 'counters.layouts');
  assert.ok(m, `counters.layouts is gated: ${j.metrics.map((x: { metric: string }) => x.metric).join(', ')}`);
  assert.ok(['deterministic', 'ok', 'error-only', 'blind'].includes(m.safety));
  assert.equal(m.aa.verdict, 'unchanged');
  assert.ok(j.recommendation.length >= 1);
  assert.ok(existsSync(join(work, 'self/list-scroll-desktop-selftest-a.json')));
});

// ─── MCP ────────────────────────────────────────────────────────────────────────────────────────────

test('MCP perf_run with against samples sequentially, sends progress per repeat and per look, replies with the comparison; perf_compare judges the files', async () => {
  // MCP file arguments stay inside the working folder: the scenario and its app are copied into the project.
  cpSync(join(ROOT, 'scenarios/list-scroll.yaml'), join(work, 'project/list-scroll.yaml'));
  cpSync(join(ROOT, 'scenarios/app'), join(work, 'project/app'), { recursive: true });
  const list = 'project/list-scroll.yaml';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PERF, 'mcp'],
    cwd: work,
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'rehearse-gate-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes('perf_run') && tools.includes('perf_compare'));
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const res = (await client.callTool(
      {
        name: 'perf_run',
        arguments: {
          scenario: list,
          variant: 'desktop',
          repeat: 2,
          maxRepeat: 4,
          warmup: 0,
          // Profiled repeats only: one repeat per unit, so the progress count below is the units'.
          timing: false,
          against: list,
          vars: { jank: '1' },
          baselineVars: { jank: '0' },
          label: 'mcp',
          out: 'mcp',
        },
      },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 180_000, resetTimeoutOnProgress: true },
    )) as { isError?: boolean; content: { type: string; text: string }[] };
    assert.notEqual(res.isError, true, res.content[0]?.text);
    const j = JSON.parse(res.content[0]!.text);
    assert.equal(j.tool, 'perf_run');
    assert.equal(j.baseline.path, join(work, 'mcp/list-scroll-desktop-mcp-baseline.json'));
    assert.ok(['pass', 'warn', 'fail', 'inconclusive'].includes(j.compare.verdict));
    // The jank A/B at 2 vs 2 cannot reach significance (smallest one-sided p 1/6), so it looks, adds a round, and looks again.
    const n = j.candidate.repeats.measured as number;
    assert.ok(n === 4, `sampled to maxRepeat: ${n}`);
    // One notification at the start, one per repeat of either arm, one per look; MCP needs progress to increase.
    const values = progress.map((p) => p.progress);
    assert.deepEqual(
      values,
      [...values].sort((x, y) => x - y),
    );
    assert.equal(new Set(values).size, values.length);
    assert.match(progress[1]!.message ?? '', /^baseline repeat 1 measured/);
    const looks = progress.filter((p) => /^look \d/.test(p.message ?? ''));
    assert.equal(looks.length, 2, progress.map((p) => p.message).join('\n'));
    assert.match(looks[0]!.message!, /^look 1 \(2 vs 2\): /);
    assert.equal(progress.filter((p) => / repeat \d+ /.test(p.message ?? '')).length, 8);

    const cmp = (await client.callTool({
      name: 'perf_compare',
      arguments: { a: 'ab/list-scroll-desktop-pr-baseline.json', b: 'ab/list-scroll-desktop-pr-candidate.json' },
    })) as { isError?: boolean; content: { text: string }[] };
    assert.notEqual(cmp.isError, true, cmp.content[0]?.text);
    const c = JSON.parse(cmp.content[0]!.text);
    assert.equal(c.verdict, 'fail');
    assert.equal(c.exitCode, 1);
    assert.ok(c.changed.some((r: { metric: string; severity: string }) => r.metric === 'counters.layouts' && r.severity === 'error'));
    const bad = (await client.callTool({
      name: 'perf_compare',
      arguments: { a: 'nope.json', b: 'ab/list-scroll-desktop-pr-candidate.json' },
    })) as { isError?: boolean; content: { text: string }[] };
    assert.equal(bad.isError, true);
    assert.match(bad.content[0]!.text, /run_file_unreadable/);
  } finally {
    await client.close();
  }
});
