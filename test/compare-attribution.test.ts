/**
 * The attribution stage (perf/compare/attribution.ts) on hand-made repeats with attribution records: which run has
 * a profile and why not, step times by label, and which rows get an attribution (gated, regressed or undecided) from
 * which repeats (timing-mode ones for a gated ms row).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attributeRows, attributionSide, stepSeries } from '../src/perf/compare/attribution.js';
import type { CompareRow } from '../src/perf/compare.js';
import type { RepeatAttribution } from '../src/perf/attribution.js';
import type { RepeatRecord, RunFile } from '../src/perf/run-file.js';
import { ENV, measured, rowOf, runOf } from './run-inputs.js';

/** An attribution repeat whose function `slow` took `selfMs`, with a step `open` of `stepMs`. */
function profiled(selfMs: number, stepMs: number): RepeatRecord {
  const attribution: RepeatAttribution = {
    functions: [{ name: 'slow', url: 'app.js:1:1', selfMs }],
    forced: [],
    longTasks: [],
    stacks: [{ frames: ['slow app.js:1:1'], selfMs }],
  };
  const r = measured({ 'steps.open.ms': stepMs }, { mode: 'attribution' });
  return r.status === 'measured' ? { ...r, report: { ...r.report, attribution } } : r;
}

/** Four attribution repeats, then four timing ones whose step took `timingStepMs`. */
const runWith = (selfMs: number, stepMs: number, timingStepMs: number, more: Partial<RunFile> = {}): RunFile =>
  runOf(
    [
      ...[0, 1, 2, 3].map((i) => profiled(selfMs + i, stepMs + i)),
      ...[0, 1, 2, 3].map((i) => measured({ 'steps.open.ms': timingStepMs + i })),
    ],
    more,
  );

/** A row of `verdict`, gated (primary) or not (secondary). */
const row = (metric: string, verdict: CompareRow['verdict'], gated = true): CompareRow =>
  rowOf(metric, { verdict, severity: verdict === 'regressed' ? 'error' : 'none', gated, role: gated ? 'primary' : 'secondary' });

test('attributionSide: the records of the measured attribution repeats, or why there are none', { timeout: 10_000 }, () => {
  const side = attributionSide(runWith(10, 100, 100), 'baseline');
  assert.deepEqual(
    side.records.map((r) => r.repeat),
    [0, 1, 2, 3],
  );
  assert.equal(side.missing, undefined);
  const timingOnly = runOf([measured({ x: 1 })]);
  assert.match(attributionSide(timingOnly, 'candidate').missing ?? '', /^no CPU profile in the candidate: none of its attribution-mode/);
  const unread = runOf([measured({ x: 1 }, { mode: 'attribution' })]);
  assert.match(attributionSide(unread, 'baseline').missing ?? '', /its attribution repeats hold no attribution record/);
  const bidi = runOf([measured({ x: 1 })], { env: { ...ENV, browser: { ...ENV.browser!, driver: 'bidi' } } });
  assert.equal(attributionSide(bidi, 'baseline').missing, 'no CPU profile: the bidi driver records none; step windows only');
});

test('stepSeries: step times by label, of the timing-mode repeats only when asked', { timeout: 10_000 }, () => {
  const run = runWith(10, 100, 200);
  assert.deepEqual(stepSeries(run, false), { open: [100, 101, 102, 103, 200, 201, 202, 203] });
  assert.deepEqual(stepSeries(run, true), { open: [200, 201, 202, 203] });
});

test('attributeRows: gated regressed and undecided rows get where the change is; others are untouched', { timeout: 10_000 }, () => {
  const a = runWith(10, 100, 100);
  const b = runWith(40, 130, 500);
  const rows = [
    row('counters.threadCpuMs', 'regressed'),
    row('counters.taskMs', 'inconclusive'),
    row('counters.layouts', 'unchanged'),
    row('counters.scriptMs', 'regressed', false),
  ];
  const out = attributeRows(a, b, rows, { timingGated: true, level: 0.9, wantPlaces: false });
  assert.deepEqual(
    out.rows.map((r) => r.attribution !== undefined),
    [true, true, false, false],
  );
  assert.equal(out.rows[2], rows[2]);
  const first = out.rows[0]!.attribution!;
  assert.deepEqual(first.repeats, { a: 4, b: 4 });
  assert.deepEqual([first.lines[0]!.kind, first.lines[0]!.name], ['function', 'slow']);
  // A gated ms row reads its step times from the timing-mode repeats: 100… against 500….
  const step = first.lines.find((l) => l.kind === 'step')!;
  assert.deepEqual([step.a, step.b], [101.5, 501.5]);
  assert.deepEqual(out.flame.b?.stacks, [{ frames: ['slow app.js:1:1'], selfMs: 41 }]);
  // Without timing repeats judged, every measured repeat counts.
  const untimed = attributeRows(a, b, rows, { timingGated: false, level: 0.9, wantPlaces: false }).rows[0]!.attribution!;
  assert.equal(untimed.lines.find((l) => l.kind === 'step')!.a, 101.5);
  assert.equal(untimed.lines.find((l) => l.kind === 'step')!.b, 316.5);
  // Nothing to explain: the same rows.
  const quiet = attributeRows(a, b, [rows[2]!], { timingGated: true, level: 0.9, wantPlaces: false });
  assert.equal(quiet.rows[0], rows[2]);
  assert.deepEqual(quiet.places, []);
  // The stored path's hold asks for the places even then: diffed once, the same lines the rows would read.
  const held = attributeRows(a, b, [rows[2]!], { timingGated: true, level: 0.9, wantPlaces: true });
  assert.equal(held.rows[0], rows[2]);
  assert.deepEqual(
    held.places.map((l) => l.name),
    out.places.map((l) => l.name),
  );
  assert.ok(held.places.some((l) => l.kind === 'function' && l.name === 'slow'));
});
