/**
 * Property tests for the compare judgement, in the spirit of tachometer: simulate many A/A and A/B
 * comparisons with a seeded PRNG and check the rates a CI gate promises (false alarms, power), plus the
 * edge cases of the contract. Deterministic: same seeds, same numbers on every run.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareMetrics, DEFAULT_THRESHOLDS, thresholdsFor } from '../src/perf/compare.js';
import type { CompareResult, MetricSamples } from '../src/perf/compare.js';
import { zeroSpreadNullBound } from '../src/perf/stats.js';
import { isPerfError } from '../src/errors.js';

/** mulberry32 (Tommy Ettinger, public domain): tiny, fast, seedable. */
function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal by Box–Muller (1958). */
function gaussian(rand: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

type Noise = 'normal' | 'lognormal';

/** n repeats around `medianMs` with coefficient of variation `cvFrac`. */
function sampler(noise: Noise, z: () => number): (medianMs: number, cvFrac: number, n: number) => number[] {
  return (medianMs, cvFrac, n) => {
    // Lognormal with CV c has σ_log = √ln(1 + c²); exp(σ·Z) keeps the median at medianMs.
    const sigmaLog = Math.sqrt(Math.log(1 + cvFrac * cvFrac));
    return Array.from({ length: n }, () =>
      noise === 'normal' ? medianMs * (1 + cvFrac * z()) : medianMs * Math.exp(sigmaLog * z()),
    );
  };
}

const opts = { thresholds: DEFAULT_THRESHOLDS };
const pct = (k: number, n: number): string => `${((k / n) * 100).toFixed(2)}%`;

function rowOf(r: CompareResult, metric: string) {
  const row = r.rows.find((x) => x.metric === metric);
  assert.ok(row, `row ${metric}`);
  return row;
}

test('A/A: false-alarm rate per gated metric ≤ 5% (10 vs 10, CV 5% and 15%, normal and lognormal)', () => {
  const trials = 10000;
  let seed = 1;
  for (const noise of ['normal', 'lognormal'] as const) {
    for (const cvFrac of [0.05, 0.15]) {
      const draw = sampler(noise, gaussian(mulberry32(seed++)));
      let regressed = 0;
      let anyChange = 0;
      let significant = 0;
      for (let t = 0; t < trials; t++) {
        const r = compareMetrics([{ metric: 'durationMs', a: draw(100, cvFrac, 10), b: draw(100, cvFrac, 10), gated: true }], opts);
        const row = r.rows[0]!;
        if (row.verdict === 'regressed') regressed++;
        if (row.verdict !== 'unchanged') anyChange++;
        if (row.pAdjusted !== null && row.pAdjusted < 0.05) significant++;
      }
      console.log(
        `A/A ${noise} CV ${cvFrac * 100}%: regressed ${pct(regressed, trials)}, regressed-or-improved ${pct(anyChange, trials)}, p<0.05 ${pct(significant, trials)}`,
      );
      assert.ok(regressed / trials <= 0.05, `false alarms ${regressed}`);
      assert.ok(anyChange / trials <= 0.05, `changes ${anyChange}`);
    }
  }
});

test('power: +25% at CV 5% with 10 vs 10 is caught as an error-level regression ≥ 95% of the time', () => {
  const trials = 10000;
  const results: string[] = [];
  let seed = 100;
  for (const noise of ['lognormal', 'normal'] as const) {
    for (const cvFrac of [0.05, 0.15]) {
      const draw = sampler(noise, gaussian(mulberry32(seed++)));
      let caughtError = 0;
      let caughtAny = 0;
      let pointPastError = 0;
      for (let t = 0; t < trials; t++) {
        const r = compareMetrics([{ metric: 'durationMs', a: draw(100, cvFrac, 10), b: draw(125, cvFrac, 10), gated: true }], opts);
        const row = r.rows[0]!;
        if (row.verdict === 'regressed') caughtAny++;
        if (row.verdict === 'regressed' && row.severity === 'error' && r.verdict === 'fail') caughtError++;
        if ((row.deltaPct ?? 0) >= 25) pointPastError++;
      }
      results.push(
        `+25% ${noise} CV ${cvFrac * 100}%: error ${pct(caughtError, trials)}, regressed ${pct(caughtAny, trials)} (point estimate ≥ 25%: ${pct(pointPastError, trials)})`,
      );
      if (cvFrac === 0.05) assert.ok(caughtError / trials >= 0.95, `${noise}: caught ${caughtError}`);
    }
  }
  for (const line of results) console.log(line);
});

test('Holm: family-wise false alarms over 5 independent null gated metrics ≤ 5%', () => {
  const trials = 10000;
  for (const cvFrac of [0.05, 0.15]) {
    const draw = sampler('lognormal', gaussian(mulberry32(500 + cvFrac * 100)));
    let anyAlarm = 0;
    let anySignificant = 0;
    for (let t = 0; t < trials; t++) {
      const samples: MetricSamples[] = Array.from({ length: 5 }, (_, i) => ({
        metric: `m${i}`,
        a: draw(100, cvFrac, 10),
        b: draw(100, cvFrac, 10),
        gated: true,
      }));
      const r = compareMetrics(samples, opts);
      if (r.verdict !== 'pass' || r.rows.some((x) => x.verdict !== 'unchanged')) anyAlarm++;
      if (r.rows.some((x) => x.pAdjusted !== null && x.pAdjusted < 0.05)) anySignificant++;
    }
    console.log(`FWER 5 null gated metrics, CV ${cvFrac * 100}%: any alarm ${pct(anyAlarm, trials)}, any Holm-significant ${pct(anySignificant, trials)}`);
    assert.ok(anyAlarm / trials <= 0.05);
    assert.ok(anySignificant / trials <= 0.05);
  }
});

test('deterministic count: +1 layout per frame with 3 repeats is caught, alongside noisy metrics', () => {
  const draw = sampler('lognormal', gaussian(mulberry32(42)));
  const r = compareMetrics(
    [
      { metric: 'counters.layouts.perFrame', a: [2, 2, 2], b: [3, 3, 3], gated: true },
      { metric: 'counters.styleRecalcs.perFrame', a: [1, 1, 1], b: [1, 1, 1], gated: true },
      { metric: 'durationMs', a: draw(100, 0.05, 3), b: draw(100, 0.05, 3), gated: true },
      { metric: 'frames.frameMs.p90', a: draw(16, 0.1, 3), b: draw(16, 0.1, 3), gated: true },
    ],
    opts,
  );
  const row = rowOf(r, 'counters.layouts.perFrame');
  assert.equal(row.verdict, 'regressed');
  assert.equal(row.severity, 'error');
  assert.equal(row.deltaPct, 50);
  assert.deepEqual(row.ci && [row.ci.lowPct, row.ci.highPct], [50, 50]);
  assert.equal(r.verdict, 'fail');
  assert.equal(r.rows[0]!.metric, 'counters.layouts.perFrame', 'worst first');
  assert.equal(rowOf(r, 'counters.styleRecalcs.perFrame').reason, 'identical in both runs');
  assert.match(rowOf(r, 'durationMs').reason, /too few repeats/);
  console.log(`deterministic count row: ${row.reason}`);

  // Two deterministic counts changing at once are both caught (the rule is not diluted by Holm).
  const two = compareMetrics(
    [
      { metric: 'counters.layouts', a: [20, 20, 20], b: [30, 30, 30], gated: true },
      { metric: 'counters.styleRecalcs', a: [10, 10, 10], b: [12, 12, 12], gated: true },
    ],
    opts,
  );
  assert.deepEqual(two.rows.map((x) => [x.metric, x.severity]), [
    ['counters.layouts', 'error'],
    ['counters.styleRecalcs', 'warn'],
  ]);
  // Below the warn threshold a zero-spread change is noted but unchanged.
  assert.equal(compareMetrics([{ metric: 'c', a: [100, 100, 100], b: [105, 105, 105], gated: true }], opts).rows[0]!.verdict, 'unchanged');
  // With 2 repeats the pattern is too likely by chance (bound 0.148): not caught.
  assert.equal(compareMetrics([{ metric: 'c', a: [2, 2], b: [3, 3], gated: true }], opts).verdict, 'pass');
});

test('A/A on a count that flips between two values: zero-spread alarms stay within the bound', () => {
  // The worst case for the zero-spread rule: layouts per frame is 2 or 3 with equal odds in both runs.
  const rand = mulberry32(2024);
  const flip = (n: number): number[] => Array.from({ length: n }, () => (rand() < 0.5 ? 2 : 3));
  const trials = 10000;
  let alarms = 0;
  for (let t = 0; t < trials; t++) {
    const r = compareMetrics([{ metric: 'counters.layouts.perFrame', a: flip(3), b: flip(3), gated: true }], opts);
    if (r.rows[0]!.verdict !== 'unchanged') alarms++;
  }
  // Exact: P(all 2 then all 3, or the reverse) = 2 · (1/8)² = 1/32; the general bound is 0.0346.
  console.log(`A/A coin-flip count 3 vs 3: alarms ${pct(alarms, trials)} (exact 3.13%, bound ${(zeroSpreadNullBound(3, 3) * 100).toFixed(2)}%)`);
  assert.ok(alarms / trials <= zeroSpreadNullBound(3, 3) + 0.005);
});

test('baseline median 0: deltaPct null, judged by absolute shift per unit', () => {
  const r = compareMetrics(
    [
      { metric: 'frames.overBudget', a: [0, 0, 0, 0, 0], b: [1, 1, 1, 1, 1], gated: true },
      { metric: 'frames.dropped', a: [0, 0, 0], b: [0, 0, 0], gated: true },
      { metric: 'longFrames.count.perFrame', a: [0, 0, 0, 0, 0], b: [0.12, 0.12, 0.12, 0.12, 0.12], gated: true },
      { metric: 'counters.layouts.perFrame', a: [0, 0, 0, 0, 0], b: [0.05, 0.05, 0.05, 0.05, 0.05], gated: true },
    ],
    opts,
  );
  const over = rowOf(r, 'frames.overBudget');
  assert.equal(over.deltaPct, null);
  assert.equal(over.ci, null);
  assert.equal(over.shift, 1);
  assert.equal(over.severity, 'error');
  assert.match(over.reason, /baseline median 0/);
  const dropped = rowOf(r, 'frames.dropped');
  assert.equal(dropped.deltaPct, 0);
  assert.equal(dropped.verdict, 'unchanged');
  assert.equal(rowOf(r, 'longFrames.count.perFrame').severity, 'warn'); // 0.12 ≥ 0.10 units
  assert.equal(rowOf(r, 'counters.layouts.perFrame').verdict, 'unchanged'); // 0.05 < 0.10 units
  assert.equal(r.verdict, 'fail');
});

test('empty arms, non-gated metrics, higherIsBetter, improvements, per-metric thresholds, ordering', () => {
  const draw = sampler('lognormal', gaussian(mulberry32(77)));
  const r = compareMetrics(
    [
      { metric: 'steps.open.ms', a: [], b: [1, 2, 3], gated: true },
      { metric: 'counters.scriptMs', a: draw(50, 0.03, 10), b: draw(80, 0.03, 10), gated: false },
      { metric: 'frames.painted', a: draw(60, 0.02, 10), b: draw(40, 0.02, 10), gated: true, higherIsBetter: true },
      { metric: 'interactions.latencyMs.p90', a: draw(100, 0.03, 10), b: draw(70, 0.03, 10), gated: true },
      { metric: 'frames.overBudget.perFrame', a: draw(1, 0.01, 10), b: draw(1.08, 0.01, 10), gated: true },
      { metric: 'durationMs', a: draw(100, 0.03, 10), b: draw(115, 0.03, 10), gated: true },
    ],
    { ...opts, perMetric: { 'frames.overBudget.perFrame': { errorPct: 5, warnPct: 2 } } },
  );
  const empty = rowOf(r, 'steps.open.ms');
  assert.equal(empty.verdict, 'unchanged');
  assert.equal(empty.reason, 'no samples');
  assert.ok(Number.isNaN(empty.a.median) && empty.a.n === 0 && empty.b.median === 2);
  const script = rowOf(r, 'counters.scriptMs');
  assert.deepEqual([script.verdict, script.severity], ['regressed', 'info']);
  const painted = rowOf(r, 'frames.painted');
  assert.deepEqual([painted.verdict, painted.severity], ['regressed', 'error']);
  const latency = rowOf(r, 'interactions.latencyMs.p90');
  assert.deepEqual([latency.verdict, latency.severity], ['improved', 'none']);
  assert.equal(rowOf(r, 'frames.overBudget.perFrame').severity, 'error'); // +8% past the 5% override
  assert.equal(rowOf(r, 'durationMs').severity, 'warn');
  assert.equal(r.verdict, 'fail');
  assert.deepEqual(
    r.rows.map((x) => x.metric),
    ['frames.painted', 'frames.overBudget.perFrame', 'durationMs', 'counters.scriptMs', 'interactions.latencyMs.p90', 'steps.open.ms'],
  );
  assert.deepEqual(r.unchanged, ['steps.open.ms']);
  for (const row of r.rows) console.log(`  ${row.metric}: ${row.verdict}/${row.severity} — ${row.reason}`);

  // A non-gated regression alone never fails the gate.
  const info = compareMetrics([{ metric: 'counters.scriptMs', a: draw(50, 0.03, 10), b: draw(90, 0.03, 10), gated: false }], opts);
  assert.equal(info.verdict, 'pass');
  assert.deepEqual(thresholdsFor('x', { thresholds: DEFAULT_THRESHOLDS, perMetric: { x: { errorPct: 40 } } }), { warnPct: 10, errorPct: 40 });
});

test('invalid options throw usage errors', () => {
  const s: MetricSamples[] = [{ metric: 'm', a: [1], b: [1], gated: true }];
  assert.throws(() => compareMetrics(s, { thresholds: { warnPct: 30, errorPct: 10 } }), (e: unknown) => isPerfError(e) && e.code === 'bad_thresholds');
  assert.throws(() => compareMetrics(s, { ...opts, alpha: 0 }), (e: unknown) => isPerfError(e) && e.code === 'bad_alpha');
  assert.throws(() => compareMetrics([...s, ...s], opts), (e: unknown) => isPerfError(e) && e.code === 'duplicate_metric');
  assert.throws(() => compareMetrics([{ metric: 'm', a: [1, NaN], b: [1], gated: true }], opts), (e: unknown) => isPerfError(e));
});
