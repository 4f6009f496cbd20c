/**
 * Compare at the run-file level on hand-made run files: which metrics are gated and from which
 * repeats, the verdicts (regression, improvement, unchanged, noise), refused repeats, refusals of
 * incomparable or invalid files, env warnings, and `perf compare` exit codes and output formats.
 * No browser: every run file is built here.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compareExitCode,
  compareRuns,
  metricSamples,
  MAX_RUN_FILE_BYTES,
  readRunFile,
  validateComparison,
  validateRunFile,
  type RunsComparison,
} from '../src/perf/compare-runs.js';
import { tooDeepAt } from '../src/json-input.js';
import type { RepeatMode, RepeatRecord, RunFile, SequentialRecord } from '../src/perf/run-file.js';
import { lookVerdictWords, SequentialJudge, type LookEvent } from '../src/runner/sequential.js';
import { abbaOrder, againstLabels } from '../src/runner/against.js';
import { isPerfError } from '../src/errors.js';
import { ROOT } from './helpers.js';
import { mulberry32 as rng } from './gate-sim.js';
import { ENV } from './run-inputs.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-compare-runs-'));
after(() => rmSync(work, { recursive: true, force: true }));
const PERF = join(ROOT, 'bin/perf');

function perf(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [PERF, ...args], { cwd: work, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** n values around `center` with relative noise ±cv·√3 (uniform, CV = cv). */
function noisy(rand: () => number, center: number, cv: number, n: number): number[] {
  return Array.from({ length: n }, () => center * (1 + cv * Math.sqrt(3) * (2 * rand() - 1)));
}

type MetricsPerRepeat = Record<string, number>[];

interface RunSpec {
  scenario?: string;
  variant?: string | null;
  label?: string;
  metrics: MetricsPerRepeat;
  modes?: RepeatMode[];
  /** Extra repeats with other statuses, appended. */
  extra?: RepeatRecord[];
  env?: Partial<RunFile['env']>;
  thresholds?: RunFile['thresholds'];
}

function makeRun(spec: RunSpec): RunFile {
  const repeats: RepeatRecord[] = spec.metrics.map((m, i) => ({
    index: i,
    mode: spec.modes?.[i] ?? 'attribution',
    warmup: false,
    wallMs: 1000,
    steps: [],
    status: 'measured',
    report: { metrics: m },
  }));
  repeats.push(...(spec.extra ?? []).map((r, i) => ({ ...r, index: repeats.length + i })));
  return {
    schemaVersion: 1,
    scenario: spec.scenario ?? 'list-scroll',
    variant: spec.variant === undefined ? 'desktop' : spec.variant,
    label: spec.label ?? 'run',
    scenarioFile: 'scenarios/list-scroll.yaml',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    interrupted: false,
    env: { ...ENV, ...(spec.env ?? {}) },
    thresholds: spec.thresholds ?? { warnPct: 10, errorPct: 25, metrics: {} },
    summary: { repeats: repeats.length, measured: spec.metrics.length, refused: 0, failed: 0, warmup: 0, metrics: {}, timingOnly: false },
    budgets: [],
    insights: [],
    repeats,
  };
}

/** Per-repeat metric maps from columns: { metric: values[] } → [{ metric: v0 }, …]. */
function columns(cols: Record<string, number[]>): MetricsPerRepeat {
  const n = Math.max(...Object.values(cols).map((v) => v.length));
  return Array.from({ length: n }, (_, i) => Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, v[i]!])));
}

/** A plausible repeat set: painted frames, per-frame counts, timings. */
function typicalRun(seed: number, n: number, opts: { layoutsPerFrame?: number; durationMs?: number; cv?: number } = {}): MetricsPerRepeat {
  const rand = rng(seed);
  const cv = opts.cv ?? 0.05;
  const painted = Array.from({ length: n }, () => 50 + Math.floor(rand() * 3));
  const lpf = noisy(rand, opts.layoutsPerFrame ?? 1, cv, n);
  return columns({
    durationMs: noisy(rand, opts.durationMs ?? 800, cv, n),
    'frames.painted': painted,
    'frames.count': painted.map((p) => p + 2),
    'counters.layouts': painted.map((p, i) => Math.round(p * lpf[i]!)),
    'counters.layouts.perFrame': lpf,
    'counters.styleRecalcs': painted.map((p) => p),
    'counters.styleRecalcs.perFrame': painted.map(() => 1),
    'frames.frameMs.p90': noisy(rand, 16.7, cv, n),
    'counters.heapDeltaBytes': noisy(rand, 300_000, 0.3, n),
  });
}

function write(name: string, run: unknown): string {
  const file = join(work, name);
  writeFileSync(file, typeof run === 'string' ? run : JSON.stringify(run));
  return file;
}

function row(c: RunsComparison, metric: string) {
  const r = c.rows.find((x) => x.metric === metric);
  assert.ok(r, `row ${metric}`);
  return r;
}

// ─── what is gated ──────────────────────────────────────────────────────────────────────────────────

test('roles: per-frame counts and CPU are primary where enough frames were painted; bytes, denominators and scenario counts are shown', () => {
  const run = makeRun({
    metrics: typicalRun(40, 5).map((m) => ({ ...m, 'interactions.count': 3, 'interactions.count.perFrame': 0.06, 'layoutShift.score': 0 })),
  });
  const { samples, context } = metricSamples(run, run);
  const role = (m: string): string | undefined => samples.find((s) => s.metric === m)?.role;
  assert.equal(role('counters.layouts.perFrame'), 'primary');
  assert.equal(role('counters.layouts'), 'secondary');
  assert.equal(role('durationMs'), 'secondary', 'attribution-mode ms never decide');
  assert.equal(role('frames.frameMs.p90'), 'secondary');
  assert.equal(role('counters.heapDeltaBytes'), 'shown');
  assert.equal(role('interactions.count'), 'shown');
  assert.equal(role('interactions.count.perFrame'), 'shown');
  assert.equal(role('frames.painted'), 'shown');
  assert.equal(role('layoutShift.score'), 'secondary');
  assert.deepEqual(context.primary, ['counters.layouts.perFrame', 'counters.styleRecalcs.perFrame']);
});

test('roles: below 30 painted frames the absolute count is primary and its per-frame form only shown', () => {
  const few = typicalRun(41, 5).map((m) => ({ ...m, 'frames.painted': 12 }));
  const run = makeRun({ metrics: few });
  const { samples } = metricSamples(run, run);
  const s = (m: string) => samples.find((x) => x.metric === m)!;
  assert.equal(s('counters.layouts').role, 'primary');
  assert.equal(s('counters.layouts').exact, true, "the app's own work: zero spread counts");
  assert.equal(s('counters.layouts.perFrame').role, 'shown');
  assert.match(s('counters.layouts.perFrame').note ?? '', /fewer than 30 painted frames/);
});

test("roles: a baseline from another host shows host-dependent metrics and still judges the app's own counts", () => {
  const a = makeRun({ metrics: typicalRun(42, 5), env: { host: { ...ENV.host, cpuModel: 'Other CPU' } } });
  const b = makeRun({ metrics: typicalRun(43, 5) });
  const { samples, context } = metricSamples(a, b);
  const s = (m: string) => samples.find((x) => x.metric === m)!;
  assert.equal(context.sameHost, false);
  assert.equal(s('frames.frameMs.p90').role, 'shown');
  assert.match(s('frames.frameMs.p90').note ?? '', /another host/);
  assert.equal(s('counters.layouts.perFrame').role, 'primary');
  const c = compareRuns(a, b);
  assert.equal(c.host.same, false);
  assert.match(c.host.note ?? '', /perf gate --update.*perf run --against/);
});

test("roles: on another host, a count of the app's own work that varies within the baseline is paced by frames: shown, not gated; a constant one is gated", () => {
  const few = (seed: number, recalcs: (i: number) => number) =>
    typicalRun(seed, 5).map((m, i) => ({ ...m, 'frames.painted': 8, 'counters.layouts': 4, 'counters.styleRecalcs': recalcs(i) }));
  const a = makeRun({ metrics: few(44, (i) => 23 + i), env: { host: { ...ENV.host, cpuModel: 'Other CPU' } } });
  const b = makeRun({ metrics: few(45, (i) => 30 + i) });
  const { samples, context } = metricSamples(a, b);
  const s = (m: string) => samples.find((x) => x.metric === m)!;
  assert.equal(s('counters.layouts').role, 'primary');
  assert.equal(s('counters.styleRecalcs').role, 'shown');
  assert.match(s('counters.styleRecalcs').note ?? '', /varies from repeat to repeat in the baseline/);
  assert.ok(context.notJudged.some((x) => x.metric === 'counters.styleRecalcs'));
  assert.equal(compareRuns(a, b).verdict, 'pass', '+30% style recalcs paced by frames on another machine is not a failure');
  // The same pair on one host: judged, and that +30% is an error.
  const same = makeRun({ metrics: few(44, (i) => 23 + i) });
  assert.equal(compareRuns(same, b).verdict, 'fail');
});

// ─── verdicts ───────────────────────────────────────────────────────────────────────────────────────

test('regression: +50% layouts per frame over 10 repeats fails the compare, that row an error', () => {
  const a = makeRun({ metrics: typicalRun(1, 10) });
  const b = makeRun({ metrics: typicalRun(2, 10, { layoutsPerFrame: 1.5 }) });
  const c = compareRuns(a, b);
  assert.equal(c.verdict, 'fail');
  const r = row(c, 'counters.layouts.perFrame');
  assert.equal(r.verdict, 'regressed');
  assert.equal(r.severity, 'error');
  assert.ok(r.deltaPct! > 40 && r.deltaPct! < 60, `delta ${r.deltaPct}`);
  assert.equal(c.rows[0]!.metric, 'counters.layouts.perFrame', 'worst first');
  assert.equal(compareExitCode(c), 1);
});

test('improvement: −40% layouts per frame is improved, and the compare passes', () => {
  const c = compareRuns(makeRun({ metrics: typicalRun(3, 10) }), makeRun({ metrics: typicalRun(4, 10, { layoutsPerFrame: 0.6 }) }));
  assert.equal(c.verdict, 'pass');
  assert.equal(row(c, 'counters.layouts.perFrame').verdict, 'improved');
  assert.equal(compareExitCode(c), 0);
});

test('unchanged: two runs of the same distribution pass with every gated row unchanged', () => {
  const c = compareRuns(makeRun({ metrics: typicalRun(5, 10) }), makeRun({ metrics: typicalRun(6, 10) }));
  assert.equal(c.verdict, 'pass');
  assert.ok(c.unchanged.includes('counters.layouts.perFrame'));
  assert.deepEqual(
    c.rows.filter((r) => r.gated && r.verdict !== 'unchanged'),
    [],
  );
});

test('noise explains it: +15% layouts per frame at CV 40% over 5 repeats is unchanged, "within noise"', () => {
  const c = compareRuns(
    makeRun({ metrics: typicalRun(7, 5, { cv: 0.4 }) }),
    makeRun({ metrics: typicalRun(8, 5, { cv: 0.4, layoutsPerFrame: 1.15 }) }),
  );
  const r = row(c, 'counters.layouts.perFrame');
  assert.equal(r.verdict, 'unchanged');
  assert.match(r.reason, /within noise|too few repeats/);
  assert.equal(c.verdict, 'pass');
});

test('deterministic count: 0 → 11 layouts in every one of 3 repeats is an error although the per-frame form is noisy', () => {
  const mk = (layouts: number, painted: number[]): MetricsPerRepeat =>
    columns({
      'frames.painted': painted,
      'counters.layouts': painted.map(() => layouts),
      'counters.layouts.perFrame': painted.map((p) => layouts / p),
    });
  const c = compareRuns(makeRun({ metrics: mk(0, [6, 7, 6]) }), makeRun({ metrics: mk(11, [5, 7, 4]) }));
  assert.equal(c.verdict, 'fail');
  const raw = row(c, 'counters.layouts');
  assert.equal(raw.gated, true);
  assert.equal(raw.severity, 'error');
  assert.match(raw.reason, /zero spread/);
});

test('a raw count that varies between repeats is info only: its per-frame form carries the gate', () => {
  const mk = (seed: number): MetricsPerRepeat => {
    const rand = rng(seed);
    const painted = Array.from({ length: 10 }, () => 40 + Math.floor(rand() * 20));
    return columns({
      'frames.painted': painted,
      'counters.layouts': painted.map((p) => p * 2),
      'counters.layouts.perFrame': painted.map(() => 2),
    });
  };
  const c = compareRuns(
    makeRun({ metrics: mk(9) }),
    makeRun({ metrics: mk(10).map((m) => ({ ...m, 'counters.layouts': m['counters.layouts']! * 1.5 })) }),
  );
  assert.equal(row(c, 'counters.layouts').gated, false);
  assert.equal(row(c, 'counters.layouts.perFrame').verdict, 'unchanged');
  assert.equal(c.verdict, 'pass');
});

// ─── timing vs attribution ms ───────────────────────────────────────────────────────────────────────

test('attribution-mode ms are info only: durationMs doubled without timing repeats does not fail, timing.gated is false', () => {
  const c = compareRuns(makeRun({ metrics: typicalRun(11, 10) }), makeRun({ metrics: typicalRun(12, 10, { durationMs: 1600 }) }));
  const r = row(c, 'durationMs');
  assert.equal(r.gated, false);
  assert.equal(r.verdict, 'regressed');
  assert.equal(r.severity, 'info');
  assert.equal(c.verdict, 'pass');
  assert.equal(c.timing.gated, false);
  assert.match(c.timing.note, /drop timing: false/);
});

test("timing-mode ms are judged and read from timing repeats only (attribution repeats' ms ignored); secondary unless the scenario gates on them", () => {
  const modes: RepeatMode[] = [
    'timing',
    'attribution',
    'timing',
    'timing',
    'attribution',
    'timing',
    'timing',
    'attribution',
    'timing',
    'timing',
    'attribution',
    'timing',
  ];
  const timingIdx = modes.flatMap((m, i) => (m === 'timing' ? [i] : []));
  const build = (seed: number, timingMs: number): MetricsPerRepeat =>
    typicalRun(seed, modes.length, { durationMs: timingMs }).map((m, i) => (modes[i] === 'attribution' ? { ...m, durationMs: 5000 } : m));
  const a = makeRun({ metrics: build(13, 800), modes });
  const b = makeRun({ metrics: build(14, 1200), modes });
  const c = compareRuns(a, b);
  assert.equal(c.timing.gated, true);
  const r = row(c, 'durationMs');
  assert.equal(r.role, 'secondary');
  assert.equal(r.a.n, timingIdx.length, 'only timing repeats sampled');
  assert.ok(r.a.median < 1000, `attribution 5000 ms left out: ${r.a.median}`);
  assert.equal(r.verdict, 'regressed');
  assert.equal(r.severity, 'info', 'a secondary regression is reported, never an error');
  assert.equal(c.verdict, 'pass', 'a secondary metric never fails the gate');
  const gated = compareRuns(a, b, { primary: ['durationMs'] });
  assert.equal(row(gated, 'durationMs').gated, true);
  assert.deepEqual(gated.gate.primary, ['durationMs']);
  assert.equal(gated.verdict, 'fail');
});

// ─── repeats, files, refusals ───────────────────────────────────────────────────────────────────────

test('refused and failed repeats are left out (with a warning), warmups too', () => {
  const refused: RepeatRecord = {
    index: 0,
    mode: 'attribution',
    warmup: false,
    wallMs: 1,
    steps: [],
    status: 'refused',
    reason: 'nothing rendered',
    report: { metrics: { 'counters.layouts.perFrame': 99 } },
  };
  const warm: RepeatRecord = {
    index: 0,
    mode: 'attribution',
    warmup: true,
    wallMs: 1,
    steps: [],
    status: 'measured',
    report: { metrics: { 'counters.layouts.perFrame': 99 } },
  };
  const failed: RepeatRecord = {
    index: 0,
    mode: 'attribution',
    warmup: false,
    wallMs: 1,
    steps: [],
    status: 'failed',
    failure: { phase: 'steps', error: { kind: 'failed', code: 'x', message: 'boom' } },
  };
  const a = makeRun({ metrics: typicalRun(15, 8) });
  const b = makeRun({ metrics: typicalRun(16, 8), extra: [refused, refused, warm, failed] });
  const c = compareRuns(a, b);
  assert.equal(c.candidate.measured, 8);
  assert.equal(c.candidate.refused, 2);
  assert.equal(c.candidate.failed, 1);
  assert.equal(row(c, 'counters.layouts.perFrame').b.n, 8);
  assert.equal(row(c, 'counters.layouts.perFrame').verdict, 'unchanged');
  assert.ok(
    c.warnings.some((w) => /2 refused and 1 failed/.test(w)),
    c.warnings.join('\n'),
  );
});

test('a run with no measured repeat is refused (usage, names the file)', () => {
  const failed: RepeatRecord = {
    index: 0,
    mode: 'attribution',
    warmup: false,
    wallMs: 1,
    steps: [],
    status: 'failed',
    failure: { phase: 'steps', error: { kind: 'failed', code: 'x', message: 'boom' } },
  };
  assert.throws(
    () =>
      compareRuns(makeRun({ metrics: typicalRun(17, 3) }), makeRun({ metrics: [], extra: [failed, failed] }), {
        files: { a: 'a.json', b: 'b.json' },
      }),
    (e: unknown) =>
      isPerfError(e) && e.kind === 'usage' && e.code === 'run_file_unmeasured' && /^b\.json: no measured repeat/.test(e.message),
  );
});

test('runs of different scenarios or variants are refused; force compares them with a warning', () => {
  const a = makeRun({ metrics: typicalRun(18, 5) });
  const b = makeRun({ metrics: typicalRun(19, 5), variant: 'phone' });
  assert.throws(
    () => compareRuns(a, b),
    (e: unknown) => isPerfError(e) && e.code === 'runs_not_comparable' && e.kind === 'usage' && /desktop.*phone/.test(e.message),
  );
  const forced = compareRuns(a, b, { force: true });
  assert.ok(forced.warnings.some((w) => w.startsWith('forced:') && w.includes('list-scroll (phone)')));
  assert.throws(() => compareRuns(a, makeRun({ metrics: typicalRun(20, 5), scenario: 'dialog', variant: null })), /different scenarios/);
});

test('env differences (browser version, CPU, throttling, viewport, restart mode) are warnings, not refusals', () => {
  const a = makeRun({ metrics: typicalRun(21, 5) });
  const b = makeRun({
    metrics: typicalRun(22, 5),
    env: {
      browser: { ...ENV.browser, product: 'HeadlessChrome/141.0.0.0' },
      host: { ...ENV.host, cpuModel: 'Other CPU' },
      cpuThrottle: 4,
      viewport: { ...ENV.viewport, width: 375 },
      restartMode: 'browser',
    },
  });
  const w = compareRuns(a, b).warnings.join('\n');
  for (const what of [
    'browser version differs: HeadlessChrome/140.0.0.0 (baseline) vs HeadlessChrome/141.0.0.0',
    'host CPU differs',
    'CPU throttling differs: 1 (baseline) vs 4',
    'viewport differs: 1440×900@1 (baseline) vs 375×900@1',
    'restart mode differs',
  ]) {
    assert.ok(w.includes(what), `missing "${what}" in:\n${w}`);
  }
});

test('a per-metric threshold on a count applies to its per-frame form; error-only overrides keep warn ≤ error', () => {
  // +8 %: under the default warn 10 %, past a per-metric error of 5 %.
  const base = (seed: number, lpf: number): MetricsPerRepeat => typicalRun(seed, 10, { layoutsPerFrame: lpf, cv: 0.005 });
  const t = { warnPct: 10, errorPct: 25, metrics: { 'counters.layouts': { errorPct: 5 } } };
  const c = compareRuns(makeRun({ metrics: base(23, 1) }), makeRun({ metrics: base(24, 1.08), thresholds: t }));
  const r = row(c, 'counters.layouts.perFrame');
  assert.equal(r.severity, 'error', r.reason);
  assert.deepEqual(c.thresholds, t);
  const plain = compareRuns(makeRun({ metrics: base(23, 1) }), makeRun({ metrics: base(24, 1.08) }));
  assert.equal(row(plain, 'counters.layouts.perFrame').verdict, 'unchanged');
});

test('readRunFile: unreadable, invalid JSON, wrong schemaVersion and bad repeats are usage errors naming the file', () => {
  const cases: [string, string | object, RegExp, string][] = [
    // Never the file's own text (V8's message quotes it): where it stops being JSON.
    ['bad.json', '{ not json', /bad\.json: not a rehearse run file: not JSON \(at byte 2\)$/, 'run_file_invalid'],
    [
      'v2.json',
      { ...makeRun({ metrics: [] }), schemaVersion: 2 },
      /v2\.json: run file schemaVersion 2; this perf reads schemaVersion 1/,
      'run_file_schema',
    ],
    [
      'norepeats.json',
      { ...makeRun({ metrics: [] }), repeats: 'x' },
      /norepeats\.json: .*repeats must be a list, got a string/,
      'run_file_invalid',
    ],
    [
      'badmode.json',
      {
        ...makeRun({ metrics: [{ a: 1 }] }),
        repeats: [{ index: 0, mode: 'fast', warmup: false, wallMs: 1, steps: [], status: 'measured', report: { metrics: {} } }],
      },
      /repeats\[0\]\.mode must be one of "timing", "attribution", got a string/,
      'run_file_invalid',
    ],
    [
      'badseq.json',
      {
        ...makeRun({ metrics: [] }),
        sequential: {
          alpha: 0.05,
          spending: 'pocock',
          looks: [{ a: 5 }],
          max: { a: 20, b: 20, timingA: 0, timingB: 0 },
          stopped: 'decided',
          storedBaseline: false,
        },
      },
      /badseq\.json: .*sequential\.looks\[0\]\.b is missing/,
      'run_file_invalid',
    ],
    [
      'badgate.json',
      { ...makeRun({ metrics: [] }), gate: { metrics: 'frames.dropped' } },
      /gate\.metrics must be a list, got a string/,
      'run_file_invalid',
    ],
  ];
  for (const [name, content, re, code] of cases) {
    const file = write(name, content);
    assert.throws(
      () => readRunFile(file),
      (e: unknown) => isPerfError(e) && e.kind === 'usage' && e.code === code && re.test(e.message),
      name,
    );
  }
  assert.throws(
    () => readRunFile(join(work, 'missing.json')),
    (e: unknown) =>
      isPerfError(e) && e.code === 'run_file_unreadable' && /missing\.json: cannot read the run file: no such file/.test(e.message),
  );
});

test('readRunFile: a file over 64 MiB, a deeply nested one and a non-file are refused before parsing, naming the limit', () => {
  const big = join(work, 'big.json');
  writeFileSync(big, '');
  truncateSync(big, MAX_RUN_FILE_BYTES + 1);
  assert.throws(
    () => readRunFile(big),
    (e: unknown) =>
      isPerfError(e) &&
      e.kind === 'usage' &&
      e.code === 'run_file_too_large' &&
      /big\.json: 64\.0 MiB; a run file may be at most 64 MiB/.test(e.message),
  );
  const deep = write('deep.json', '['.repeat(4 * 2 ** 20));
  assert.throws(
    () => readRunFile(deep),
    (e: unknown) => isPerfError(e) && e.code === 'run_file_invalid' && /nested more than 64 levels deep at byte 64/.test(e.message),
  );
  assert.throws(
    () => readRunFile(work),
    (e: unknown) => isPerfError(e) && e.code === 'run_file_invalid' && /not a regular file/.test(e.message),
  );
});

test('tooDeepAt skips brackets inside strings, escaped quotes included', () => {
  assert.equal(tooDeepAt(JSON.stringify({ a: '[[[[\\"[[[[', b: [[1]] }), 3), -1);
  assert.equal(tooDeepAt('[[[[', 3), 3);
});

// ─── perf compare (CLI) ─────────────────────────────────────────────────────────────────────────────

test('perf compare: regression → exit 1, table worst first, the metric named on stderr', () => {
  const a = write('cli-a.json', makeRun({ metrics: typicalRun(31, 10), label: 'main' }));
  const b = write('cli-b.json', makeRun({ metrics: typicalRun(32, 10, { layoutsPerFrame: 1.6 }), label: 'pr' }));
  const r = perf(['compare', a, b]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^FAIL {2}list-scroll \(desktop\): main → pr/);
  const tableLines = r.stdout.split('\n').filter((l) => l.startsWith('│'));
  assert.match(tableLines[1] ?? '', /counters\.layouts\.perFrame .*error/);
  assert.match(r.stderr, /regression: counters\.layouts\.perFrame/);
});

test('perf compare --json: the DESIGN.md shape', () => {
  const a = write('json-a.json', makeRun({ metrics: typicalRun(33, 6) }));
  const b = write('json-b.json', makeRun({ metrics: typicalRun(34, 6) }));
  const r = perf(['compare', a, b, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.verdict, 'pass');
  assert.deepEqual(Object.keys(j).slice(0, 7), ['verdict', 'thresholds', 'frames', 'rows', 'unchanged', 'timing', 'warnings']);
  assert.deepEqual(j.thresholds, { warnPct: 10, errorPct: 25, metrics: {} });
  assert.equal(typeof j.frames.painted.a, 'number');
  assert.equal(typeof j.timing.gated, 'boolean');
  assert.deepEqual(
    Object.keys(j.rows[0]).filter((k) => ['metric', 'a', 'b', 'deltaPct', 'ci', 'verdict', 'severity'].includes(k)).length,
    7,
  );
  assert.ok(j.unchanged.includes('counters.layouts.perFrame'));
});

test('perf compare --reporter markdown and junit render the regression', () => {
  const a = write('rep-a.json', makeRun({ metrics: typicalRun(35, 10) }));
  const b = write('rep-b.json', makeRun({ metrics: typicalRun(36, 10, { layoutsPerFrame: 1.6 }) }));
  const md = perf(['compare', a, b, '--reporter', 'markdown']);
  assert.equal(md.code, 1);
  assert.match(md.stdout, /^### ❌ FAIL perf compare/);
  assert.match(md.stdout, /\| `counters\.layouts\.perFrame` \|.*🔴 error/);
  const junit = perf(['compare', a, b, '--reporter', 'junit']);
  assert.equal(junit.code, 1);
  assert.match(
    junit.stdout,
    /<testcase name="counters\.layouts\.perFrame"[^>]*>\s*<failure message="counters\.layouts\.perFrame regressed/,
  );
});

test('perf compare: exit 2 for an unreadable file, a schema mismatch, different scenarios (unless --force), a bad reporter', () => {
  const a = write('x-a.json', makeRun({ metrics: typicalRun(37, 4) }));
  const v2 = write('x-v2.json', { ...makeRun({ metrics: typicalRun(38, 4) }), schemaVersion: 2 });
  const other = write('x-other.json', makeRun({ metrics: typicalRun(39, 4), scenario: 'dialog', variant: null }));
  const missing = perf(['compare', a, join(work, 'nope.json')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope\.json: cannot read the run file/);
  const schema = perf(['compare', a, v2]);
  assert.equal(schema.code, 2);
  assert.match(schema.stderr, /x-v2\.json: run file schemaVersion 2/);
  const diff = perf(['compare', a, other]);
  assert.equal(diff.code, 2);
  assert.match(diff.stderr, /different scenarios or variants/);
  assert.match(diff.stderr, /--force/);
  const forced = perf(['compare', a, other, '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /warning: forced:/);
  assert.equal(perf(['compare', a]).code, 2);
  assert.equal(perf(['compare', a, a, '--reporter', 'json']).code, 2);
  assert.equal(perf(['compare', a, a, '--reporter', 'pdf']).code, 2);
});

// ─── --against ordering (pure part) ─────────────────────────────────────────────────────────────────

test('abbaOrder: A B B A A B …; every arm runs each schedule slot once; the arm opening each look alternates', () => {
  const order = abbaOrder(5)
    .map((x) => (x.arm === 'baseline' ? 'A' : 'B'))
    .join('');
  assert.equal(order, 'ABBAABBAAB');
  assert.deepEqual(
    abbaOrder(3).map((x) => x.slot),
    [0, 0, 1, 1, 2, 2],
  );
  // Each look's round is a block of its own, opened by the arm that did not open the last one: three slots, then
  // two looks of two slots each (A B B A A B | B A A B | A B B A).
  const looks = abbaOrder(7, [0, 3, 5])
    .map((x) => (x.arm === 'baseline' ? 'A' : 'B'))
    .join('');
  assert.equal(looks, 'ABBAAB' + 'BAAB' + 'ABBA');
  assert.deepEqual(againstLabels(), { baseline: 'baseline', candidate: 'candidate' });
  assert.deepEqual(againstLabels('pr'), { baseline: 'pr-baseline', candidate: 'pr-candidate' });
});

// ─── a lost measurement ─────────────────────────────────────────────────────────────────────────────

/** A copy of `run` whose measured repeats lack `names` (and their per-frame forms): deleted, or null. */
function withoutMetrics(run: RunFile, names: string[], how: 'deleted' | 'null'): RunFile {
  const copy = JSON.parse(JSON.stringify(run)) as RunFile;
  for (const r of copy.repeats) {
    if (r.status !== 'measured') continue;
    for (const name of names) {
      for (const key of [name, `${name}.perFrame`]) {
        if (!(key in r.report.metrics)) continue;
        if (how === 'deleted') delete r.report.metrics[key];
        else (r.report.metrics as Record<string, number | null>)[key] = null;
      }
    }
  }
  return copy;
}

test('a primary metric measured in one run and gone (or all null) in the other is a missing row and fails the compare', () => {
  const a = makeRun({ metrics: typicalRun(61, 6) });
  for (const how of ['deleted', 'null'] as const) {
    const b = withoutMetrics(makeRun({ metrics: typicalRun(62, 6) }), ['counters.layouts'], how);
    const c = compareRuns(a, b);
    const r = row(c, 'counters.layouts.perFrame');
    assert.deepEqual([r.verdict, r.severity, r.gated], ['missing', 'error', true], how);
    assert.match(r.reason, /lost: the candidate has no value of this primary metric/);
    assert.equal(c.verdict, 'fail', how);
    assert.equal(compareExitCode(c), 1);
    assert.match(c.gate.summary, /counters\.layouts\.perFrame missing/);
    // The baseline losing it is as bad: nothing was compared.
    const back = compareRuns(b, a);
    assert.deepEqual([row(back, 'counters.layouts.perFrame').verdict, back.verdict], ['missing', 'fail'], how);
  }
});

test("a primary metric the candidate's driver cannot produce is missing but excused: the row says why and the compare is not failed", () => {
  const a = makeRun({ metrics: typicalRun(63, 6) });
  const webkit = withoutMetrics(
    makeRun({
      metrics: typicalRun(64, 6),
      env: { browser: { product: 'WebKit', userAgent: 'ua', headless: true, driver: 'webdriver', engine: 'webkit' } },
    }),
    ['counters.layouts', 'counters.styleRecalcs'],
    'deleted',
  );
  const c = compareRuns(a, webkit);
  const r = row(c, 'counters.layouts.perFrame');
  assert.deepEqual([r.verdict, r.severity], ['missing', 'none']);
  assert.match(r.reason, /not measured in the candidate: the webdriver-webkit driver does not produce it/);
  assert.notEqual(c.verdict, 'fail');
  // The same loss on a CDP run (which does produce it) fails.
  const cdp = compareRuns(a, withoutMetrics(makeRun({ metrics: typicalRun(64, 6) }), ['counters.layouts'], 'deleted'));
  assert.equal(cdp.verdict, 'fail');
});

test('a secondary metric only one run has is a missing row that does not fail', () => {
  const a = makeRun({ metrics: typicalRun(65, 6) });
  const b = withoutMetrics(makeRun({ metrics: typicalRun(66, 6) }), ['frames.frameMs.p90'], 'deleted');
  const c = compareRuns(a, b);
  assert.deepEqual([row(c, 'frames.frameMs.p90').verdict, row(c, 'frames.frameMs.p90').severity], ['missing', 'none']);
  assert.equal(c.verdict, 'pass');
});

test('perf compare on a real run file whose candidate lost its primary metrics: exit 1, the rows say missing', () => {
  const base = readRunFile(join(ROOT, 'baselines/list-scroll-desktop.json'));
  const primaries = [
    'counters.layouts',
    'counters.styleRecalcs',
    'frames.overBudget',
    'frames.dropped',
    'longFrames.blockingMs',
    'counters.threadCpuMs',
  ];
  const a = write('lost-a.json', base);
  const b = write('lost-b.json', withoutMetrics(base, primaries, 'deleted'));
  const r = perf(['compare', a, b]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^FAIL/);
  assert.match(r.stdout, /counters\.layouts(\.perFrame)? .*missing/);
  assert.match(r.stderr, /regression: .*\(missing\)/);
  const j = JSON.parse(perf(['compare', a, b, '--json']).stdout) as RunsComparison;
  assert.ok(
    j.rows.filter((x) => x.verdict === 'missing' && x.severity === 'error').length >= 3,
    JSON.stringify(j.rows.map((x) => [x.metric, x.verdict])),
  );
  const md = perf(['compare', a, b, '--reporter', 'markdown']);
  assert.match(md.stdout, /missing \(not measured\)/);
  const junit = perf(['compare', a, b, '--reporter', 'junit']);
  assert.match(junit.stdout, /<failure message="counters\.layouts[^"]* not measured/);
  // Its compare JSON is a valid input to perf report (the row verdict "missing" is in the schema).
  const cmp = write('lost-compare.json', JSON.stringify(j));
  const report = perf(['report', cmp, '--out', join(work, 'lost.html')]);
  assert.equal(report.code, 0, report.stderr);
});

// ─── primaries by noise (metrics.ts PRIMARY_BY_NOISE) ───────────────────────────────────────────────

/**
 * A data-grid scroll measured in timing mode (issue 27): layouts constant, CPU time quiet (CV 5%), script
 * time very quiet (3%), task time noisy (30%), long-frame blocking very noisy (50%); 12 painted frames, so
 * the absolute forms are the judged ones.
 */
function gridRun(seed: number, n: number, opts: { script?: number; cpu?: number; task?: number } = {}): RunFile {
  const rand = rng(seed);
  const metrics = columns({
    'frames.painted': Array.from({ length: n }, () => 12),
    'counters.layouts': Array.from({ length: n }, () => 40),
    'counters.threadCpuMs': noisy(rand, opts.cpu ?? 200, 0.05, n),
    'counters.scriptMs': noisy(rand, opts.script ?? 100, 0.03, n),
    'counters.taskMs': noisy(rand, opts.task ?? 250, 0.3, n),
    'longFrames.blockingMs': noisy(rand, 300, 0.5, n),
  });
  return makeRun({ metrics, modes: metrics.map(() => 'timing') });
}

test('noise rule: a CV-50% primary is demoted with the reason in its row, the gate block and the summary; quiet script time is promoted and decides', () => {
  const a = gridRun(70, 5);
  const b = gridRun(71, 5, { script: 143, cpu: 229 });
  const c = compareRuns(a, b);
  const blocking = row(c, 'longFrames.blockingMs');
  // Set aside, not dropped: still gated at a quarter weight, and it says why.
  assert.equal(blocking.role, 'primary');
  assert.equal(blocking.gated, true);
  assert.match(blocking.setAside ?? '', /^too noisy here/);
  assert.match(
    blocking.reason,
    /too noisy here to judge ±10%: CV \d+% \(needs ~\d+ repeats per arm, at most 20 here\); set aside: decides at a quarter weight, holds the gate while past warn/,
  );
  assert.equal(c.gate.chosen?.by, 'noise');
  // The noisy promotable task time is set aside too (on either path: it holds the gate while past warn).
  assert.deepEqual(
    c.gate.chosen?.demoted.map((x) => x.metric),
    ['counters.taskMs', 'longFrames.blockingMs'],
  );
  assert.deepEqual(
    c.gate.chosen?.promoted.map((x) => x.metric),
    ['counters.scriptMs'],
  );
  assert.ok(c.gate.setAside?.some((x) => x.metric === 'longFrames.blockingMs' && /too noisy/.test(x.why) && x.deltaPct !== null));
  assert.ok(c.gate.setAside?.some((x) => x.metric === 'counters.taskMs' && /set aside, it holds the gate/.test(x.why)));
  assert.ok(!c.gate.notJudged.some((x) => x.metric === 'longFrames.blockingMs'));
  assert.ok(!c.gate.primary.includes('longFrames.blockingMs'), 'gate.primary lists the primaries kept');
  assert.ok(!c.gate.primary.includes('counters.taskMs'), 'a noisy promotable metric is not a full primary');
  const script = row(c, 'counters.scriptMs');
  assert.equal(script.gated, true);
  assert.match(script.reason, /quiet here: judges ±10% at CV/);
  assert.deepEqual([script.verdict, script.severity], ['regressed', 'error']);
  assert.equal(c.verdict, 'fail');
  assert.match(
    c.gate.summary,
    /; set aside as too noisy: counters\.taskMs, longFrames\.blockingMs; promoted as quiet: counters\.scriptMs$/,
  );
  assert.deepEqual(c.gate.chosen?.metrics, [
    'frames.dropped',
    'frames.overBudget',
    'interactions.latencyMs.p90',
    'interactions.processingMs',
    'counters.layouts',
    'counters.styleRecalcs',
    'counters.threadCpuMs',
    'terminal.latencyMs.p50',
    'terminal.bytesOut',
    'counters.scriptMs',
  ]);
  // What `perf compare --json` prints is valid against the compare-file schema, the new gate fields too.
  assert.equal(validateComparison(JSON.parse(JSON.stringify(c)), 'c.json').gate.chosen?.by, 'noise');
});

test("noise rule: the scenario's gate.metrics (or CompareRunsOptions.primary) override it: no demotion, no promotion", () => {
  const a = gridRun(72, 5);
  const b = { ...gridRun(73, 5, { script: 143 }), gate: { metrics: ['longFrames.blockingMs', 'counters.threadCpuMs'] } };
  for (const c of [
    compareRuns(a, b),
    compareRuns(a, gridRun(73, 5, { script: 143 }), { primary: ['longFrames.blockingMs', 'counters.threadCpuMs'] }),
  ]) {
    assert.deepEqual(c.gate.primary, ['counters.threadCpuMs', 'longFrames.blockingMs']);
    assert.equal(c.gate.chosen?.by, 'scenario');
    assert.deepEqual([c.gate.chosen?.demoted, c.gate.chosen?.promoted], [[], []]);
    assert.doesNotMatch(row(c, 'longFrames.blockingMs').reason, /too noisy/);
    assert.deepEqual(
      [row(c, 'counters.scriptMs').gated, row(c, 'counters.scriptMs').severity],
      [false, 'info'],
      'script time is secondary here: its +43% is info',
    );
    assert.notEqual(c.verdict, 'fail');
  }
});

test("noise rule: with fewer than 3 baseline repeats the registry's default stands, and the gate says so", () => {
  const c = compareRuns(gridRun(74, 2), gridRun(75, 2));
  assert.equal(c.gate.chosen?.by, 'registry');
  assert.match(c.gate.chosen?.note ?? '', /fewer than 3 baseline repeats of .*longFrames\.blockingMs.*: the registry's default stands/);
  assert.match(c.gate.summary, /; fewer than 3 baseline repeats of .*: the registry's default stands for them$/);
  assert.equal(row(c, 'longFrames.blockingMs').gated, true);
  assert.equal(row(c, 'counters.scriptMs').gated, false);
});

test("noise rule: a sequential record's choice is reused at later looks and by `perf compare` of the saved files, whatever the data says now", () => {
  const seq: SequentialRecord = {
    alpha: 0.05,
    spending: 'pocock',
    looks: [{ a: 5, b: 5 }],
    max: { a: 30, b: 30, timingA: 20, timingB: 20 },
    stopped: 'max-repeat',
    storedBaseline: false,
    primaries: {
      by: 'noise',
      look: 1,
      metrics: ['counters.layouts', 'counters.threadCpuMs'],
      demoted: [{ metric: 'longFrames.blockingMs', why: 'too noisy here to judge ±10%: CV 61% (recorded)' }],
      promoted: [],
    },
  };
  const a = gridRun(76, 7);
  const b = { ...gridRun(77, 7, { script: 143 }), sequential: seq };
  const file = validateRunFile(JSON.parse(JSON.stringify(b)), 'b.json');
  assert.deepEqual(file.sequential?.primaries, seq.primaries, 'the run-file schema keeps the recorded choice');
  const c = compareRuns(a, file);
  assert.deepEqual(c.gate.primary, ['counters.layouts', 'counters.threadCpuMs']);
  assert.equal(row(c, 'counters.scriptMs').gated, false, 'not promoted: the recorded family did not have it');
  assert.match(row(c, 'longFrames.blockingMs').reason, /too noisy here to judge ±10%: CV 61% \(recorded\)/);
  assert.equal(c.gate.chosen?.look, 1);
  assert.match(c.gate.chosen?.note ?? '', /chosen at look 1 and kept for every later look/);
});

test('noise rule: SequentialJudge fixes the family at its first look and records it; a noisier baseline at a later look does not move it', () => {
  const judge = new SequentialJudge({ repeat: 5, maxRepeat: 20, timing: true, storedBaseline: false, compare: { force: true } });
  judge.look(gridRun(78, 5), gridRun(79, 5));
  const first = judge.record(gridRun(78, 5)).primaries;
  assert.equal(first?.by, 'noise');
  assert.deepEqual(
    first?.promoted.map((x) => x.metric),
    ['counters.scriptMs'],
  );
  // Script time now varies wildly in the baseline: the rule would not promote it, the recorded choice stands.
  const wild = gridRun(78, 7);
  wild.repeats.forEach((r, i) => {
    if (r.status === 'measured') r.report.metrics['counters.scriptMs'] = i % 2 ? 40 : 160;
  });
  judge.look(wild, gridRun(79, 7));
  assert.deepEqual(judge.record(wild).primaries, first);
  assert.ok(judge.last?.gate.primary.includes('counters.scriptMs'));
  assert.equal(judge.last?.gate.chosen?.look, 1);
});

test("SequentialJudge: the caller's stop ends an undecided look (perf bisect's side test); a decided look never asks it", () => {
  const asked: string[] = [];
  const events: string[] = [];
  const judge = (answer: string | undefined): SequentialJudge =>
    new SequentialJudge(
      {
        ...{ repeat: 5, maxRepeat: 20, timing: true, storedBaseline: false, compare: { force: true, primary: ['counters.taskMs'] } },
        stop: (c) => {
          asked.push(c.verdict);
          return answer;
        },
      },
      (e) => events.push(e.why),
    );
  // +20% on a 30%-CV metric at 5 + 5 repeats: past warn, not yet significant: the compare alone would add a round.
  const [a, b] = [gridRun(90, 5), gridRun(91, 5, { task: 300 })];
  const on = judge(undefined);
  assert.equal(on.look(a, b), 2, events.join('\n'));
  assert.equal(on.last?.decided, false);
  const stopped = judge('like no change: SPRT log LR -3.1, bound ±2.9');
  assert.equal(stopped.look(a, b), 0);
  assert.equal(stopped.stopped, 'decided');
  assert.match(events.at(-1) ?? '', /^decided: like no change: SPRT/);
  assert.equal(asked.length, 2);
  // A decided compare (tripled, certain) stops on its own; the caller is not asked.
  const decided = judge('never shown');
  assert.equal(decided.look(gridRun(92, 5), gridRun(93, 5, { task: 750 })), 0);
  assert.equal(asked.length, 2);
  assert.doesNotMatch(events.at(-1) ?? '', /never shown/);
});

test('progress never prints a verdict a later look can reverse: it leans until sampling stops', () => {
  const events: LookEvent[] = [];
  const judge = new SequentialJudge(
    { repeat: 5, maxRepeat: 20, timing: true, storedBaseline: false, compare: { force: true, primary: ['counters.taskMs'] } },
    (e) => events.push(e),
  );
  // +20% on a 30%-CV metric at 5 + 5 repeats: past warn, not yet significant: the look adds a round.
  assert.equal(judge.look(gridRun(90, 5), gridRun(91, 5, { task: 300 })), 2);
  const open = events.at(-1)!;
  assert.ok(open.adding > 0);
  const word = lookVerdictWords(open);
  assert.ok(word === 'undecided' || word.startsWith('leaning '), `an open look says "${word}"`);
  assert.notEqual(word, open.comparison.verdict);
  // A decided look (tripled, certain) stops, and only then says the verdict.
  const decided = new SequentialJudge(
    { repeat: 5, maxRepeat: 20, timing: true, storedBaseline: false, compare: { force: true, primary: ['counters.taskMs'] } },
    (e) => events.push(e),
  );
  assert.equal(decided.look(gridRun(92, 5), gridRun(93, 5, { task: 750 })), 0);
  assert.equal(lookVerdictWords(events.at(-1)!), 'fail');
  // Every pair of (open, verdict) words.
  const words = (adding: number, verdict: LookEvent['comparison']['verdict']): string =>
    lookVerdictWords({ adding, comparison: { verdict } });
  assert.deepEqual(
    (['fail', 'warn', 'pass', 'inconclusive'] as const).map((v) => [words(2, v), words(0, v)]),
    [
      ['leaning fail', 'fail'],
      ['leaning warn', 'warn'],
      ['leaning pass', 'pass'],
      ['undecided', 'inconclusive'],
    ],
  );
});
