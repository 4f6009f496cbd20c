/**
 * The samples stage (perf/compare/samples.ts) on hand-made repeats: which repeats count, the finite values of a
 * metric, painted frames, event counts with their exposure, lost metrics, machine-paced counts, sizes at earlier looks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  counted,
  driverOf,
  eventCounts,
  interleaved,
  lostIn,
  measuredRepeats,
  pacedCount,
  paintedMedian,
  sequenced,
  sequentialSizes,
  values,
  type Measured,
} from '../src/perf/compare/samples.js';
import { resolveMetric, type ResolvedMetric } from '../src/perf/metrics.js';
import type { RepeatRecord } from '../src/perf/run-file.js';
import { ENV, measured, runOf, sequentialOf } from './run-inputs.js';

const metric = (name: string): ResolvedMetric => resolveMetric(name)!;
const asMeasured = (rs: RepeatRecord[]): Measured[] => measuredRepeats(rs);
const refused: RepeatRecord = { index: 0, mode: 'timing', warmup: false, wallMs: 1, steps: [], status: 'refused', reason: 'blank' };

test('counted drops warmups; measuredRepeats keeps measured, counted ones', { timeout: 10_000 }, () => {
  const run = runOf([measured({ x: 1 }, { warmup: true }), measured({ x: 2 }), refused, measured({ x: 3 })]);
  assert.equal(counted(run).length, 3);
  assert.deepEqual(
    measuredRepeats(counted(run)).map((r) => r.report.metrics.x),
    [2, 3],
  );
});

test('values and sequenced skip missing and non-finite values; sequenced keeps positions', { timeout: 10_000 }, () => {
  const reps = asMeasured([measured({ x: 1 }, { sequence: 0 }), measured({ x: NaN }, { sequence: 1 }), measured({}, { sequence: 2 })]);
  reps.push(...asMeasured([measured({ x: 4 }, { sequence: 5 })]));
  assert.deepEqual(values(reps, 'x'), [1, 4]);
  assert.deepEqual(sequenced(reps, 'x'), [
    { sequence: 0, value: 1 },
    { sequence: 5, value: 4 },
  ]);
});

test('paintedMedian is the median of frames.painted, null without any', { timeout: 10_000 }, () => {
  assert.equal(paintedMedian(asMeasured([measured({ 'frames.painted': 10 }), measured({ 'frames.painted': 40 }), measured({})])), 25);
  assert.equal(paintedMedian(asMeasured([measured({ x: 1 })])), null);
});

test('interleaved: only a baseline and a candidate of one --against run', { timeout: 10_000 }, () => {
  const arm = (role: 'baseline' | 'candidate') => runOf([], { against: { role, other: 'x.json', order: 'ABBA' } });
  assert.equal(interleaved(arm('baseline'), arm('candidate')), true);
  assert.equal(interleaved(arm('candidate'), arm('baseline')), false);
  assert.equal(interleaved(runOf([]), arm('candidate')), false);
});

test('lostIn names the run without a value of the metric nor of its base count', { timeout: 10_000 }, () => {
  const withIt = asMeasured([measured({ 'frames.overBudget': 2 })]);
  const without = asMeasured([measured({ other: 1 })]);
  const perFrame = metric('frames.overBudget.perFrame');
  assert.equal(lostIn(perFrame, without, withIt), 'a');
  assert.equal(lostIn(perFrame, withIt, without), 'b');
  // The base count stands for its per-frame form: nothing is lost.
  assert.equal(lostIn(perFrame, withIt, withIt), undefined);
  assert.equal(lostIn(perFrame, without, without), undefined);
});

test('pacedCount: a count that varies within the baseline, never a per-frame form or a time', { timeout: 10_000 }, () => {
  const varying = asMeasured([measured({ 'counters.styleRecalcs': 23 }), measured({ 'counters.styleRecalcs': 28 })]);
  const steady = asMeasured([measured({ 'counters.styleRecalcs': 23 }), measured({ 'counters.styleRecalcs': 23 })]);
  assert.equal(pacedCount(metric('counters.styleRecalcs'), varying), true);
  assert.equal(pacedCount(metric('counters.styleRecalcs'), steady), false);
  assert.equal(pacedCount(metric('counters.styleRecalcs.perFrame'), varying), false);
  const ms = asMeasured([measured({ 'counters.threadCpuMs': 1 }), measured({ 'counters.threadCpuMs': 2 })]);
  assert.equal(pacedCount(metric('counters.threadCpuMs'), ms), false);
});

test('eventCounts: exposure 1 per repeat for a count, painted frames for a per-frame form', { timeout: 10_000 }, () => {
  const a = asMeasured([
    measured({ 'frames.overBudget': 2, 'frames.painted': 40 }),
    measured({ 'frames.overBudget': 3, 'frames.painted': 0 }),
    measured({ 'frames.painted': 50 }),
  ]);
  const b = asMeasured([measured({ 'frames.overBudget': 5, 'frames.painted': 60 })]);
  assert.deepEqual(eventCounts(metric('frames.overBudget'), a, b), { a: [2, 3], b: [5], exposureA: [1, 1], exposureB: [1] });
  // Per frame, a repeat that painted nothing has no exposure and is left out.
  assert.deepEqual(eventCounts(metric('frames.overBudget.perFrame'), a, b), { a: [2], b: [5], exposureA: [40], exposureB: [60] });
});

test('sequentialSizes: the values each arm had at each earlier look, and the last look possible', { timeout: 10_000 }, () => {
  const recA = [measured({ x: 1 }, { mode: 'attribution' }), measured({ x: 2 }), measured({ x: 3 }), measured({ x: 4 })];
  const recB = [measured({ x: 1 }), measured({}), measured({ x: 3 })];
  const seq = sequentialOf(
    [
      { a: 2, b: 2 },
      { a: 4, b: 3 },
    ],
    20,
  );
  const all = sequentialSizes('x', false, recA, recB, seq);
  assert.deepEqual(all, {
    looks: [
      { a: 2, b: 1 },
      { a: 4, b: 2 },
    ],
    maxN: { a: 20, b: 20 },
  });
  const timing = sequentialSizes('x', true, recA, recB, seq);
  assert.deepEqual(timing.looks, [
    { a: 1, b: 1 },
    { a: 3, b: 2 },
  ]);
  assert.deepEqual(timing.maxN, { a: 10, b: 10 });
  assert.deepEqual(sequentialSizes('x', false, recA, recB, undefined), {});
});

test('driverOf names the registry driver of a run', { timeout: 10_000 }, () => {
  assert.equal(driverOf(ENV), 'cdp');
  assert.equal(driverOf({ ...ENV, browser: { ...ENV.browser!, driver: 'webdriver', engine: 'webkit' } }), 'webdriver-webkit');
  assert.equal(driverOf({ ...ENV, browser: { ...ENV.browser!, driver: 'pty' } }), 'pty');
});
