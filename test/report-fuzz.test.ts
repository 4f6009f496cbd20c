/**
 * `perf report` never crashes on a file that passed validation. From real run files (the committed
 * baselines, written by `perf run`), hundreds of mutated-but-valid run files and compare results are
 * generated with a seeded generator (dropped optional fields, empty arrays, zero repeats, all failed,
 * all refused, strings at their maximum length, a run of spaces, odd metric names with < " & and
 * unicode, numbers at the limits), each checked valid by the schema, then rendered by every reporter
 * (html with the context the CLI finds beside the run file, markdown, junit, table, json): none throws,
 * and the HTML keeps exactly its three script elements. Also: perf's own compare of any two of them
 * passes the compare schema (or is a typed usage error), and a number field holding a string (past
 * validation, in memory) prints as a dash.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, validateComparison, validateRunFile, type RunsComparison } from '../src/perf/compare-runs.js';
import { MAX_NAME_CHARS, MAX_TEXT_CHARS, type RepeatRecord, type RunFile } from '../src/perf/run-file.js';
import { resolveMetric } from '../src/perf/metrics.js';
import { isPerfError } from '../src/errors.js';
import { htmlRunContext } from '../src/cli/html-report.js';
import { REPORTERS, type HtmlContext } from '../reporters/index.js';
import { htmlReporter } from '../reporters/html.js';
import { markdownReporter } from '../reporters/markdown.js';
import { mulberry32 } from './gate-sim.js';
import { ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-fuzz-'));
after(() => rmSync(work, { recursive: true, force: true }));

const baseline = (name: string): RunFile => validateRunFile(JSON.parse(readFileSync(join(ROOT, 'baselines', name), 'utf8')), name);
const REAL = [baseline('dialog.json'), baseline('list-scroll-phone.json'), baseline('filter-typing.json')];
// How many files of each kind: enough that every mutation meets every other a few times (~40 s here).
// The inner loop (npm run test:unit) sets fewer through the environment; npm test runs these full counts.
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const COMPARES = Number(process.env.FUZZ_COMPARES ?? 200);

type Rand = () => number;
const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const maybe = <T extends object>(rand: Rand, x: T): T | Record<string, never> => (rand() < 0.5 ? x : {});

const ODD_NAMES = [
  '<script>alert(1)</script>',
  'a"b\'c&d',
  'steps.<b>tap</b>.ms',
  'ünïcødé.名前.ms',
  'emoji.🙂.count',
  'rtl.\u202eevil',
  'nul.\u0000.x',
  'esc.\u001b[31m.red',
  'lone.\ud800.surrogate',
  'new\nline',
  '__proto__',
  'constructor',
  '',
];
const NUMBERS = [0, -0, 1, -1, 0.5, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 1e21, 123456789.123];
// Counts of events (frames dropped…) are whole and ≥ 0 by the schema: compare tests them as Poisson counts.
const EVENT_COUNTS = [0, 1, 7, Number.MAX_SAFE_INTEGER];
const isEventCount = (name: string): boolean => {
  const m = resolveMetric(name);
  return m !== undefined && m.def.kind === 'count' && m.def.hostDependent && !m.perFrame;
};

function longText(rand: Rand, max: number): string {
  const kinds = [() => 'x', () => ' ', () => ' \n', () => '<&"'];
  const unit = pick(rand, kinds)();
  return unit.repeat(Math.floor(max / unit.length));
}

function renameMetrics(run: RunFile, rename: (m: string) => string): void {
  const re = <T>(o: Record<string, T>): Record<string, T> =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [rename(k).slice(0, MAX_NAME_CHARS), v]));
  run.summary.metrics = re(run.summary.metrics);
  for (const r of run.repeats) {
    if (r.status === 'measured' || (r.status === 'refused' && r.report)) r.report!.metrics = re(r.report!.metrics);
  }
}

function failedRecord(r: RepeatRecord, rand: Rand): RepeatRecord {
  const error = { kind: pick(rand, ['failed', 'usage', 'internal', 'odd']), code: pick(rand, ODD_NAMES), message: pick(rand, ODD_NAMES) };
  const screenshot = pick(rand, ['shot.png', '../x.png', '/etc/passwd', 'javascript:alert(1)', '']);
  const failure = {
    phase: pick(rand, ['restart', 'setup', 'steps', 'measure'] as const),
    error,
    ...maybe(rand, { step: 'tap', label: pick(rand, ODD_NAMES) }),
    ...maybe(rand, { screenshot }),
  };
  return { index: r.index, mode: r.mode, warmup: r.warmup, wallMs: r.wallMs, steps: r.steps, status: 'failed', failure };
}

function refusedRecord(r: RepeatRecord, rand: Rand): RepeatRecord {
  const report = r.status === 'measured' ? maybe(rand, { report: r.report }) : {};
  const base = { index: r.index, mode: r.mode, warmup: r.warmup, wallMs: r.wallMs, steps: r.steps };
  return { ...base, status: 'refused', reason: pick(rand, ODD_NAMES), ...report };
}

function extremeNumbers(run: RunFile, rand: Rand): void {
  for (const s of Object.values(run.summary.metrics)) {
    const [median, min, max, p25, p75] = Array.from({ length: 5 }, () => pick(rand, NUMBERS));
    Object.assign(s, { median, min, max, p25, p75, n: pick(rand, [0, 1, 99_999]) });
  }
  for (const r of run.repeats) {
    r.wallMs = pick(rand, NUMBERS);
    if (r.status !== 'measured') continue;
    for (const k of Object.keys(r.report.metrics)) {
      Object.assign(r.report.metrics, { [k]: rand() < 0.2 ? null : pick(rand, isEventCount(k) ? EVENT_COUNTS : NUMBERS) });
    }
  }
  Object.assign(run.env.host, { memoryBytes: Number.MAX_VALUE, loadAverage: [] });
  Object.assign(run.env.viewport, { width: 0, dpr: Number.MAX_VALUE });
  run.env.cpuThrottle = Number.MAX_VALUE;
}

function oddInsights(run: RunFile, rand: Rand): void {
  const evidence = { metric: [1, [2, { x: '<b>' }]], value: null, perFrame: {}, threshold: 'x' };
  run.insights = [
    {},
    {
      id: pick(rand, ODD_NAMES),
      severity: pick(rand, ODD_NAMES),
      title: pick(rand, ODD_NAMES),
      evidence,
      rows: [{}, { a: '<i>', b: [1, 2], c: { d: null } }],
      rowsTotal: 0,
    },
    { rows: Array.from({ length: 50 }, (_, i) => ({ [`k${i}`]: i })), rowsTotal: 99_999, estimatedSavingsMs: Number.MAX_VALUE },
  ];
}

function sequential(run: RunFile, rand: Rand): void {
  run.sequential = {
    alpha: 0.05,
    spending: 'obrien-fleming',
    looks: [
      { a: 0, b: 0 },
      { a: 99_999, b: 3 },
    ],
    max: { a: 0, b: 99_999, timingA: 0, timingB: 0 },
    stopped: 'budget',
    storedBaseline: rand() < 0.5,
    rejected: { [pick(rand, ODD_NAMES)]: 'worse', durationMs: 'better' },
  };
  run.against = { role: 'candidate', other: pick(rand, ODD_NAMES), order: 'ABBA' };
  run.complete = false;
  run.interrupted = true;
}

/** Each keeps the file valid; the test checks that it does. */
const RUN_MUTATIONS: Record<string, (run: RunFile, rand: Rand) => void> = {
  dropOptional(run) {
    for (const k of ['traces', 'against', 'gate', 'sequential', 'complete'] as const) delete run[k];
    delete run.env.network;
    for (const r of run.repeats) {
      delete r.phasesMs;
      if (r.status !== 'measured') continue;
      delete r.report.summary;
      delete r.report.coverage;
    }
  },
  emptyArrays(run) {
    run.budgets = [];
    run.insights = [];
    for (const r of run.repeats) r.steps = [];
  },
  zeroRepeats(run) {
    run.repeats = [];
    run.summary = { repeats: 0, measured: 0, refused: 0, failed: 0, warmup: 0, metrics: {}, timingOnly: false };
  },
  allFailed(run, rand) {
    run.repeats = run.repeats.map((r) => failedRecord(r, rand));
  },
  allRefused(run, rand) {
    run.repeats = run.repeats.map((r) => refusedRecord(r, rand));
  },
  allWarmup(run) {
    for (const r of run.repeats) r.warmup = true;
  },
  longNames(run, rand) {
    const long = (): string => longText(rand, MAX_NAME_CHARS);
    Object.assign(run, { scenario: long() || 'x', label: long(), variant: long(), scenarioFile: long() });
    renameMetrics(run, (m) => (rand() < 0.1 ? `${m}${'y'.repeat(MAX_NAME_CHARS)}` : m));
  },
  longTexts(run, rand) {
    const r = run.repeats[0];
    const error = { kind: 'usage', code: 'x', message: longText(rand, MAX_TEXT_CHARS), suggestion: longText(rand, MAX_TEXT_CHARS) };
    if (r) run.repeats[0] = { ...failedRecord(r, rand), status: 'failed', failure: { phase: 'steps', error } };
    run.budgets.push({ expr: longText(rand, MAX_TEXT_CHARS), metric: 'durationMs', op: '<', limit: 1, value: null, pass: false });
  },
  oddMetricNames(run, rand) {
    renameMetrics(run, (m) => (rand() < 0.3 ? `${m}${pick(rand, ODD_NAMES)}` : m));
    for (const r of run.repeats) for (const s of r.steps) s.label = pick(rand, ODD_NAMES);
    run.gate = { metrics: [pick(rand, ODD_NAMES), ...Object.keys(run.summary.metrics).slice(0, 3)] };
  },
  extremeNumbers,
  shuffledIndexes(run, rand) {
    for (const r of run.repeats) r.index = pick(rand, [0, 1, r.index, 99_999]);
    run.traces = { median: { repeat: 99_999, path: 'nope.json' }, slowest: { repeat: 0, path: '../../etc/passwd' } };
  },
  oddInsights,
  sequential,
};

function mutatedRun(seed: number): { run: RunFile; applied: string[] } {
  const rand = mulberry32(seed);
  const run = structuredClone(pick(rand, REAL));
  const names = Object.keys(RUN_MUTATIONS);
  const applied = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(rand, names));
  for (const m of applied) RUN_MUTATIONS[m]!(run, rand);
  return { run, applied };
}

/** Every reporter, run and compare; the HTML with what the CLI would find beside the run file. */
function renderAll(what: string, render: (r: (typeof REPORTERS)[number]) => string): void {
  for (const reporter of REPORTERS) {
    let out: string;
    try {
      out = render(reporter);
    } catch (e) {
      assert.fail(`${what}: the ${reporter.name} reporter threw: ${(e as Error).stack}`);
    }
    assert.equal(typeof out, 'string');
    if (reporter.name !== 'html') continue;
    assert.equal(out.match(/<script[\s>]/g)?.length, 3, `${what}: exactly the data, uPlot and the client script`);
  }
}

test(`${RUNS} mutated-but-valid run files render with every reporter; none throws`, { timeout: 300_000 }, () => {
  for (let seed = 1; seed <= RUNS; seed++) {
    const { run, applied } = mutatedRun(seed);
    const what = `seed ${seed} (${applied.join(', ')})`;
    const valid = validateRunFile(JSON.parse(JSON.stringify(run)), what);
    const runFile = join(work, 'runs', `r${seed}.json`);
    const html: HtmlContext = { run: htmlRunContext(valid, runFile, runFile.replace(/json$/, 'html'), work) };
    renderAll(what, (r) => r.renderRun(valid, { html, color: seed % 2 === 0 }));
  }
});

/** Each keeps the compare result valid; the test checks that it does. */
const COMPARE_MUTATIONS: Record<string, (c: RunsComparison, rand: Rand) => void> = {
  noRows(c) {
    c.rows = [];
    c.unchanged = [];
  },
  nullsEverywhere(c) {
    const empty = { median: null, n: 0 };
    const nulls = { a: empty, b: empty, deltaPct: null, scale: null, ci: null, pValue: null, pNeeded: null, shift: null };
    for (const row of c.rows) Object.assign(row, nulls, { needRepeats: null });
    c.frames.painted = { a: null, b: null };
  },
  oddRows(c, rand) {
    for (const row of c.rows) {
      row.metric = rand() < 0.5 ? pick(rand, ODD_NAMES) : row.metric;
      row.verdict = pick(rand, ['regressed', 'improved', 'unchanged', 'inconclusive', 'changed'] as const);
      row.severity = pick(rand, ['error', 'warn', 'info', 'none'] as const);
      row.gated = rand() < 0.5;
      row.needRepeats = pick(rand, [0, 99_999, null]);
      row.reason = pick(rand, ODD_NAMES);
    }
    if (c.rows[0]) c.rows[0].reason = longText(rand, MAX_TEXT_CHARS);
    c.unchanged = [pick(rand, ODD_NAMES), 'not-a-row'];
    c.verdict = pick(rand, ['pass', 'warn', 'fail', 'inconclusive'] as const);
  },
  notes(c, rand) {
    const odd = (): string => pick(rand, ODD_NAMES);
    const host = { same: false, note: longText(rand, MAX_TEXT_CHARS) };
    Object.assign(c, { blind: odd(), host, timing: { gated: false, note: odd() } });
    c.warnings = ODD_NAMES.slice();
    c.gate.notJudged = [{ metric: odd(), why: odd() }];
    const max = { a: 1, b: 1, timingA: 0, timingB: 0 };
    c.gate.sequential = { alpha: 0.05, spending: 'pocock', looks: [], max, stopped: 'decided', storedBaseline: true, note: odd() };
    c.gate.look = 99_999;
  },
  dropOptional(c) {
    delete c.blind;
    delete c.host.note;
    for (const row of c.rows) delete row.needRepeats;
  },
};

test(`perf's own compare passes its schema; ${COMPARES} mutated-but-valid compares render everywhere`, { timeout: 300_000 }, () => {
  for (let seed = 1; seed <= COMPARES; seed++) {
    const rand = mulberry32(10_000 + seed);
    const a = validateRunFile(mutatedRun(seed).run, `seed ${seed}`);
    const b = validateRunFile(mutatedRun(seed + 7).run, `seed ${seed + 7}`);
    let comparison: RunsComparison;
    try {
      comparison = compareRuns(a, b, { force: true });
    } catch (e) {
      // Runs that cannot be compared (nothing measured) are a typed usage error, never a crash.
      assert.ok(isPerfError(e) && e.kind === 'usage', `seed ${seed}: ${(e as Error).stack}`);
      comparison = compareRuns(REAL[0]!, REAL[0]!);
    }
    const json = JSON.parse(JSON.stringify(comparison)) as RunsComparison;
    validateComparison(json, `seed ${seed}: perf's own compare`);
    const applied = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(rand, Object.keys(COMPARE_MUTATIONS)));
    for (const m of applied) COMPARE_MUTATIONS[m]!(json, rand);
    const what = `compare seed ${seed} (${applied.join(', ')})`;
    const valid = validateComparison(JSON.parse(JSON.stringify(json)), what);
    const html: HtmlContext = { a: {}, b: { screenshots: { 0: { status: 'not-shown', why: '<b>' } } } };
    renderAll(what, (r) => r.renderCompare(valid, { a, b }, { html }));
  }
});

test('past validation, a string where a number belongs still prints as a dash, never as markup', () => {
  const run = structuredClone(REAL[0]!);
  const evil = '<img src=x onerror=alert(1)>';
  Object.assign(Object.values(run.summary.metrics)[0]!, { n: evil });
  Object.assign(run.repeats[0]!, { index: evil });
  for (const out of [htmlReporter.renderRun(run), markdownReporter.renderRun(run)]) {
    assert.ok(!out.includes('<img src=x'), out.slice(0, 200));
  }
  assert.match(htmlReporter.renderRun(run), / · n –/);
});
