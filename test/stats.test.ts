/**
 * Known-value tests for src/perf/stats.ts, plus the coverage property of the Hodges–Lehmann interval.
 * Reference values come from published tables and from R / SciPy (cited per test), so a regression in
 * the arithmetic shows up as a mismatch with a number anyone can recompute.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cv,
  hodgesLehmann,
  holmAdjust,
  mad,
  MAD_NORMAL_CONSISTENCY,
  mannWhitneyU,
  max,
  mean,
  median,
  min,
  normalCdf,
  normalQuantile,
  p25,
  poissonRateTest,
  p75,
  quantile,
  stddev,
  summarize,
  zeroSpreadNullBound,
} from '../src/perf/stats.js';
import { isPerfError } from '../src/errors.js';
import { close, mulberry32, normals as gaussian } from './gate-sim.js';

test('quantile type 7 matches R quantile() / numpy.percentile defaults', () => {
  const x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  // R: quantile(1:10, c(.1, .25, .5, .75, .9)) → 1.9 3.25 5.5 7.75 9.1
  close(quantile(x, 0.1), 1.9, 1e-12);
  close(quantile(x, 0.25), 3.25, 1e-12);
  close(quantile(x, 0.5), 5.5, 1e-12);
  close(quantile(x, 0.75), 7.75, 1e-12);
  close(quantile(x, 0.9), 9.1, 1e-12);
  // numpy.percentile([1, 2, 3, 4], 40) → 2.2; order of input must not matter.
  close(quantile([4, 1, 3, 2], 0.4), 2.2, 1e-12);
  assert.equal(quantile([7], 0.3), 7);
  assert.equal(quantile([3, 1, 2], 0), 1);
  assert.equal(quantile([3, 1, 2], 1), 3);
  assert.equal(median([7, 1, 3]), 3);
  assert.equal(median([10, 2, 1, 9]), 5.5);
  close(p25([1, 2, 3, 4, 5]), 2, 1e-12);
  close(p75([1, 2, 3, 4, 5]), 4, 1e-12);
});

test('descriptive statistics', () => {
  const x = [2, 4, 4, 4, 5, 5, 7, 9];
  assert.equal(min(x), 2);
  assert.equal(max(x), 9);
  assert.equal(mean(x), 5);
  // Σ(x − 5)² = 32; sample variance 32/7.
  close(stddev(x), Math.sqrt(32 / 7), 1e-12);
  close(cv(x), Math.sqrt(32 / 7) / 5, 1e-12);
  assert.ok(Number.isNaN(stddev([3])), 'one value says nothing about spread');
  assert.deepEqual(summarize([5, 1, 4, 2, 3]), { median: 3, min: 1, max: 5, p25: 2, p75: 4, n: 5 });
});

test('MAD known values', () => {
  // Wikipedia "Median absolute deviation" example: {1, 1, 2, 2, 4, 6, 9} → median 2, MAD 1.
  assert.equal(mad([1, 1, 2, 2, 4, 6, 9]), 1);
  // R: mad(c(1, 2, 3, 4, 100)) = 1.4826 (default constant); raw MAD 1.
  close(mad([1, 2, 3, 4, 100], MAD_NORMAL_CONSISTENCY), 1.4826, 1e-4);
  assert.equal(mad([5, 5, 5]), 0);
});

test('bad input throws a PerfError, never returns NaN silently', () => {
  for (const f of [() => median([]), () => summarize([]), () => mean([1, NaN]), () => quantile([1], 1.5)]) {
    assert.throws(f, (e: unknown) => isPerfError(e) && e.kind === 'usage');
  }
  assert.throws(
    () => holmAdjust([0.5, 2]),
    (e: unknown) => isPerfError(e),
  );
});

test('normal distribution helpers', () => {
  // Numerical Recipes' erfc is good to ~1.2e-7 relative, so compare at 2e-7.
  close(normalCdf(1.96), 0.9750021, 2e-7);
  close(normalCdf(-3), 0.0013499, 2e-7);
  close(normalCdf(0), 0.5, 2e-7);
  close(normalQuantile(0.975), 1.959964, 1e-6);
  close(normalQuantile(0.01), -2.326348, 1e-6);
  close(normalQuantile(0.5), 0, 1e-12);
});

test('Mann–Whitney exact p-values match tables', () => {
  // n1 = n2 = 3, complete separation: 2 of C(6,3) = 20 arrangements as extreme → p = 0.1.
  const r3 = mannWhitneyU([1, 2, 3], [4, 5, 6]);
  assert.equal(r3.method, 'exact');
  assert.equal(r3.u, 9);
  close(r3.pValue, 0.1, 1e-12);
  close(r3.minAttainableP, 0.1, 1e-12);
  // n1 = n2 = 5, complete separation: 2 / C(10,5) = 2/252 = 0.0079.
  close(mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).pValue, 2 / 252, 1e-12);
  close(mannWhitneyU([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]).pValue, 2 / 252, 1e-12);
  // R example ?wilcox.test: x vs y, W = 35, one-sided p = 0.1272 → two-sided 0.2544 (SciPy exact agrees).
  const x = [0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
  const y = [1.15, 0.88, 0.9, 0.74, 1.21];
  const ry = mannWhitneyU(y, x);
  assert.equal(ry.u, 35);
  close(ry.pValue, 0.2544122544122544, 1e-12);
  // Identical samples are the centre of the distribution: p = 1.
  assert.equal(mannWhitneyU([1, 4, 5, 8], [2, 3, 6, 7]).pValue, 1);
});

test('Mann–Whitney critical value n1 = n2 = 10 (two-sided α = 0.05 table: U ≤ 23)', () => {
  // Samples with U = 23 and U = 24: the published table says 23 rejects at two-sided 0.05, 24 does not.
  const a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const b23 = [0.5, 0.6, 0.7, 0.8, 1.5, 1.6, 2.5, 4.5, 5.5, 10.5]; // U = 0+0+0+0+1+1+2+4+5+10 = 23
  const b24 = [0.5, 0.6, 0.7, 0.8, 1.5, 2.5, 2.6, 4.5, 5.5, 10.5]; // U = 0+0+0+0+1+2+2+4+5+10 = 24
  assert.equal(mannWhitneyU(a, b23).u, 23);
  assert.equal(mannWhitneyU(a, b24).u, 24);
  const p23 = mannWhitneyU(a, b23).pValue;
  const p24 = mannWhitneyU(a, b24).pValue;
  assert.ok(p23 < 0.05, `U = 23 must reject, p = ${p23}`);
  assert.ok(p24 > 0.05, `U = 24 must not reject, p = ${p24}`);
  // scipy.stats.mannwhitneyu(method='exact'): 0.04325705254497823 and 0.0524259022711035.
  close(p23, 0.04325705254497823, 1e-12);
  close(p24, 0.0524259022711035, 1e-12);
});

test('Mann–Whitney with ties: exact permutation p at small n, normal approximation at large n', () => {
  // All tied within arms, separated: still only 2 of 20 arrangements → p = 0.1 (the normal
  // approximation would claim 0.047 here, which is why small tied samples stay exact).
  const r = mannWhitneyU([1, 1, 1], [2, 2, 2]);
  assert.equal(r.method, 'exact-ties');
  close(r.pValue, 0.1, 1e-12);
  // Full enumeration of C(17, 9) arrangements of mid-ranks (SciPy/itertools): 0.019580419580419582.
  const t = mannWhitneyU([1, 2, 2, 3, 4, 5, 5, 6], [3, 4, 4, 6, 7, 8, 8, 9, 9]);
  assert.equal(t.u, 60);
  close(t.pValue, 0.019580419580419582, 1e-12);
  // Large tied samples: scipy.stats.mannwhitneyu(method='asymptotic') = 0.000115074675.
  const a = Array.from({ length: 30 }, (_, i) => Math.floor(i / 3));
  const b = Array.from({ length: 25 }, (_, i) => Math.floor(i / 2) + 3);
  const n = mannWhitneyU(a, b);
  assert.equal(n.method, 'normal');
  assert.equal(n.u, 603);
  close(n.pValue, 0.000115074675, 1e-9);
  // Everything tied: no evidence at all.
  assert.equal(mannWhitneyU([4, 4, 4], [4, 4, 4]).pValue, 1);
  assert.equal(mannWhitneyU([4, 4, 4], [4, 4, 4]).minAttainableP, 1);
});

test('Mann–Whitney with ties: the exact p equals a full enumeration, on 400 random tied pairs (memoized or not)', () => {
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  // Every b-subset of the pooled mid-ranks, equally likely under H0 (the definition the DP computes).
  const enumerate = (a: number[], b: number[]) => {
    const pooled = [...a, ...b];
    const sorted = [...pooled].sort((x, y) => x - y);
    const rank = (v: number) => (sorted.indexOf(v) + 1 + sorted.lastIndexOf(v) + 1) / 2;
    const ranks = pooled.map(rank);
    const observed = b.map(rank).reduce((s, r) => s + r, 0);
    let lower = 0;
    let upper = 0;
    let total = 0;
    const walk = (from: number, left: number, sum: number): void => {
      if (left === 0) {
        total++;
        if (sum <= observed + 1e-9) lower++;
        if (sum >= observed - 1e-9) upper++;
        return;
      }
      for (let i = from; i <= ranks.length - left; i++) walk(i + 1, left - 1, sum + ranks[i]!);
    };
    walk(0, b.length, 0);
    return Math.min(1, 2 * Math.min(lower / total, upper / total));
  };
  let checked = 0;
  for (let i = 0; i < 400; i++) {
    const a = Array.from({ length: 2 + rnd(6) }, () => rnd(4));
    const b = Array.from({ length: 2 + rnd(6) }, () => rnd(4));
    const r = mannWhitneyU(a, b);
    if (r.method !== 'exact-ties') continue;
    close(r.pValue, enumerate(a, b), 1e-12);
    // Same tie pattern again (the memo's hit): the same answer.
    close(mannWhitneyU(a, b).pValue, r.pValue, 0);
    checked++;
  }
  assert.ok(checked > 300, `only ${checked} of 400 pairs had ties`);
});

test('Mann–Whitney one-sided p: the worse direction alone, half the two-sided p at complete separation', () => {
  const r = mannWhitneyU([1, 2, 3], [4, 5, 6]);
  close(r.pGreater, 1 / 20, 1e-12);
  close(r.pLess, 1, 1e-12);
  close(r.pValue, 0.1, 1e-12);
  close(r.minAttainableOneSidedP, 1 / 20, 1e-12);
  // Ten vs ten untied: 1 / C(20, 10).
  const ten = mannWhitneyU([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  close(ten.pGreater, 1 / 184756, 1e-15);
});

test('Poisson rate test: binomial tails given the total (known values), exposure-weighted', () => {
  // 5 events over 5 repeats vs 10 over 5: P(X ≥ 10 | n = 15, p = ½) = 4944 / 32768.
  const r = poissonRateTest(5, 5, 10, 5);
  close(r.pGreater, 4944 / 32768, 1e-12);
  close(r.pLess, 1 - 1941 / 32768, 1e-12);
  // One over-budget frame per repeat in both arms: no evidence either way.
  assert.ok(poissonRateTest(5, 5, 5, 5).pGreater > 0.5);
  // The same 10 events over twice the exposure (twice the painted frames) is no higher rate.
  assert.ok(poissonRateTest(5, 5, 10, 10).pGreater > 0.5);
  assert.deepEqual(poissonRateTest(0, 5, 0, 5), { pGreater: 1, pLess: 1 });
  assert.throws(() => poissonRateTest(-1, 5, 0, 5), /finite and ≥ 0/);
});

test('Hodges–Lehmann estimate and interval: known values', () => {
  // Differences bⱼ − aᵢ: 1,2,2,3,3,3,4,4,5 → median 3. 3 vs 3 cannot reach 95 %: widest interval, 90 %.
  const h = hodgesLehmann([1, 2, 3], [4, 5, 6]);
  assert.equal(h.shift, 3);
  assert.deepEqual([h.low, h.high], [1, 5]);
  close(h.level, 0.9, 1e-12);
  // R: wilcox.test(x, y, conf.int = TRUE) → difference in location 0.305, 95 % CI [-0.15, 0.76] (x − y).
  const x = [0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
  const y = [1.15, 0.88, 0.9, 0.74, 1.21];
  const r = hodgesLehmann(y, x);
  close(r.shift, 0.305, 1e-12);
  close(r.low, -0.15, 1e-12);
  close(r.high, 0.76, 1e-12);
  assert.ok(r.level >= 0.95);
});

test('Hodges–Lehmann 95 % interval covers the true shift ~95 % of the time', () => {
  const rand = mulberry32(20240601);
  const z = gaussian(rand);
  const trials = 2000;
  const trueShiftMs = 7;
  let covered = 0;
  let levelSum = 0;
  for (let t = 0; t < trials; t++) {
    const a = Array.from({ length: 10 }, () => 100 + 5 * z());
    const b = Array.from({ length: 10 }, () => 100 + trueShiftMs + 5 * z());
    const h = hodgesLehmann(a, b, 0.95);
    if (h.low <= trueShiftMs && trueShiftMs <= h.high) covered++;
    levelSum += h.level;
  }
  const rate = covered / trials;
  console.log(
    `HL 95% CI coverage, 10 vs 10, normal noise: ${(rate * 100).toFixed(2)}% (nominal achieved level ${((levelSum / trials) * 100).toFixed(2)}%)`,
  );
  assert.ok(rate >= 0.92 && rate <= 0.985, `coverage ${rate}`);
});

test('Holm adjustment: known values and family-wise error ≤ α over 5 independent null tests', () => {
  // p = [0.01, 0.04, 0.03, 0.005] → sorted 0.005·4, 0.01·3, 0.03·2, 0.04·1 → 0.02, 0.03, 0.06, 0.06 (R p.adjust).
  const adj = holmAdjust([0.01, 0.04, 0.03, 0.005]);
  [0.03, 0.06, 0.06, 0.02].forEach((e, i) => close(adj[i]!, e, 1e-12));
  assert.deepEqual(holmAdjust([]), []);
  assert.deepEqual(holmAdjust([0.9, 0.8]), [1, 1]); // 0.8·2 caps at 1; monotone step-down keeps 1

  const rand = mulberry32(7);
  const z = gaussian(rand);
  const trials = 10000;
  let anyHolm = 0;
  let anyRaw = 0;
  for (let t = 0; t < trials; t++) {
    const ps = Array.from({ length: 5 }, () => {
      const a = Array.from({ length: 10 }, () => 100 * (1 + 0.05 * z()));
      const b = Array.from({ length: 10 }, () => 100 * (1 + 0.05 * z()));
      return mannWhitneyU(a, b).pValue;
    });
    if (holmAdjust(ps).some((p) => p < 0.05)) anyHolm++;
    if (ps.some((p) => p < 0.05)) anyRaw++;
  }
  console.log(
    `FWER over 5 null metrics, 10 vs 10: Holm ${((anyHolm / trials) * 100).toFixed(2)}%, unadjusted ${((anyRaw / trials) * 100).toFixed(2)}%`,
  );
  assert.ok(anyHolm / trials <= 0.05);
});

test('zero-spread bound is an upper bound on the chance of "each arm constant, arms differ"', () => {
  close(zeroSpreadNullBound(3, 3), 108 / 3125, 1e-12);
  assert.ok(zeroSpreadNullBound(2, 2) > 0.05, '2 + 2 repeats must not qualify');
  assert.ok(zeroSpreadNullBound(4, 4) < 0.0085);
  // Exact probability Σ_v Σ_{w≠v} p_v^n1 p_w^n2 for random pmfs never exceeds the bound.
  const rand = mulberry32(99);
  for (let trial = 0; trial < 2000; trial++) {
    const k = 2 + Math.floor(rand() * 4);
    const w = Array.from({ length: k }, () => rand() ** 3);
    const total = w.reduce((s, v) => s + v, 0);
    const pmf = w.map((v) => v / total);
    for (const [n1, n2] of [
      [3, 3],
      [3, 5],
      [4, 4],
      [2, 6],
    ] as const) {
      let prob = 0;
      pmf.forEach((pv, i) => pmf.forEach((pw, j) => (prob += i === j ? 0 : pv ** n1 * pw ** n2)));
      assert.ok(prob <= zeroSpreadNullBound(n1, n2) + 1e-12, `${prob} > bound for ${n1},${n2}`);
    }
  }
});
