/**
 * The rows stage (perf/compare/rows.ts): the per-metric thresholds and options compareMetrics judges with, and the
 * bound on what it may be asked to judge, on hand-made inputs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkCompareSize, MAX_COMPARED_REPEATS, perMetricThresholds, rowOptions } from '../src/perf/compare/rows.js';
import { compareMetrics, DEFAULT_SPENDING, type MetricSamples } from '../src/perf/compare.js';
import { isPerfError } from '../src/errors.js';
import { sequentialOf } from './run-inputs.js';

test("perMetricThresholds keeps each pair ordered and covers a count's per-frame form", { timeout: 10_000 }, () => {
  const t = perMetricThresholds({ 'frames.overBudget': { errorPct: 5 }, 'counters.layouts': { warnPct: 40 }, 'made.up': { warnPct: 1 } });
  assert.deepEqual(t['frames.overBudget'], { errorPct: 5, warnPct: 5 });
  assert.deepEqual(t['frames.overBudget.perFrame'], { errorPct: 5, warnPct: 5 });
  assert.deepEqual(t['counters.layouts'], { warnPct: 40, errorPct: 40 });
  assert.deepEqual(t['made.up'], { warnPct: 1 });
  assert.equal('made.up.perFrame' in t, false);
  // An explicit per-frame override is not replaced by its count's.
  const own = perMetricThresholds({ 'frames.overBudget': { warnPct: 5 }, 'frames.overBudget.perFrame': { warnPct: 7 } });
  assert.deepEqual(own['frames.overBudget.perFrame'], { warnPct: 7 });
});

test('rowOptions: thresholds, α, the design, and the rejections of earlier looks', { timeout: 10_000 }, () => {
  const thresholds = { warnPct: 10, errorPct: 25, metrics: { 'frames.overBudget': { errorPct: 5 } } };
  const fixed = rowOptions(thresholds, 0.05, undefined, {});
  assert.deepEqual(fixed, {
    thresholds: { warnPct: 10, errorPct: 25 },
    perMetric: perMetricThresholds(thresholds.metrics, thresholds),
    alpha: 0.05,
    spending: DEFAULT_SPENDING,
    fixedBaseline: false,
  });
  const seq = sequentialOf([], 20, { spending: 'pocock', storedBaseline: true, rejected: { x: 'worse' } });
  const looked = rowOptions(thresholds, 0.01, seq, { holdSetAside: true });
  assert.deepEqual([looked.spending, looked.fixedBaseline, looked.rejected, looked.holdSetAside], ['pocock', true, { x: 'worse' }, true]);
  // The caller's rejections (a look in progress) win over the file's.
  assert.deepEqual(rowOptions(thresholds, 0.05, seq, { rejected: { y: 'better' } }).rejected, { y: 'better' });
});

test('rowOptions feeds compareMetrics: a per-metric error threshold fails what the default only warns', { timeout: 10_000 }, () => {
  const s: MetricSamples = {
    metric: 'counters.layouts',
    a: [10, 10, 10, 10, 10, 10],
    b: [11, 11, 11, 11, 11, 11],
    role: 'primary',
    better: 'lower',
    floor: 1,
    exact: true,
  };
  const plain = compareMetrics([s], rowOptions({ warnPct: 5, errorPct: 25, metrics: {} }, 0.05, undefined, {}));
  const strict = compareMetrics(
    [s],
    rowOptions({ warnPct: 5, errorPct: 25, metrics: { 'counters.layouts': { errorPct: 8 } } }, 0.05, undefined, {}),
  );
  assert.deepEqual([plain.verdict, strict.verdict], ['warn', 'fail']);
});

test('checkCompareSize refuses runs too large to judge, naming the larger run', { timeout: 10_000 }, () => {
  const of = (n: number): number[] => Array.from({ length: n }, () => 1);
  const ok: MetricSamples = { metric: 'x', a: of(10), b: of(10), role: 'primary', better: 'lower', floor: 0 };
  assert.doesNotThrow(() => checkCompareSize([ok], 'A.json', 'B.json'));
  const big = { ...ok, b: of(MAX_COMPARED_REPEATS + 1) };
  assert.throws(
    () => checkCompareSize([big], 'A.json', 'B.json'),
    (e: unknown) => isPerfError(e) && e.code === 'runs_too_large' && e.message.startsWith('compare: B.json has 2001 measured repeats of x'),
  );
  // Many metrics of many repeats: bounded by the pairs of repeats over all metrics.
  const wide = Array.from({ length: 30 }, (_, i) => ({ ...ok, metric: `m${i}`, a: of(2000), b: of(2000) }));
  assert.throws(
    () => checkCompareSize(wide, 'A.json', 'B.json'),
    (e: unknown) => isPerfError(e) && /pairs of repeats/.test(e.message),
  );
});
