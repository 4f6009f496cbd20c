/**
 * Statistics for perf samples: descriptive summaries for the run file, and the tests `compare` uses to
 * tell a real change from repeat-to-repeat noise.
 *
 * Pure: numbers in, numbers out. No clock, no I/O, no randomness, so a compare of two run files gives
 * the same verdict bit for bit on every machine, and a CI failure can be reproduced from the files alone.
 * Bad input (an empty sample, NaN, Infinity) throws a `PerfError` rather than poisoning a median.
 */

import { PerfError } from '../errors.js';

// ─── descriptive ────────────────────────────────────────────────────────────────────────────────────

/** The run-file summary of one metric (DESIGN.md "Run file"). */
export interface Summary {
  median: number;
  min: number;
  max: number;
  p25: number;
  p75: number;
  n: number;
}

/** Throws unless `values` is a non-empty array of finite numbers. */
function check(values: readonly number[], what: string): void {
  if (values.length === 0) {
    throw new PerfError({ code: 'empty_sample', message: `${what}: no values to summarize` });
  }
  for (const v of values) {
    if (!Number.isFinite(v)) {
      throw new PerfError({
        code: 'non_finite_sample',
        message: `${what}: sample contains ${String(v)}; every value must be a finite number`,
      });
    }
  }
}

/** Ascending copy; Float64Array sorts numerically (Array#sort would compare as strings). */
function sortedCopy(values: readonly number[]): Float64Array {
  // An indexed copy: Float64Array.from walks the array's iterator, several times slower in a simulation's inner loop.
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i]!;
  return out.sort();
}

/** Type-7 quantile of an already sorted, non-empty array (see `quantile`). */
function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const xLo = sorted[lo]!;
  return xLo + (h - lo) * (sorted[hi]! - xLo);
}

/**
 * Sample quantile, Hyndman & Fan (1996) "Sample quantiles in statistical packages", The American
 * Statistician 50(4):361–365, definition 7: linear interpolation between order statistics at
 * h = (n − 1)p. The default of R, NumPy and Excel's PERCENTILE.INC, so numbers match what a user
 * recomputes by hand.
 */
export function quantile(values: readonly number[], p: number): number {
  check(values, 'quantile');
  if (!(p >= 0 && p <= 1)) {
    throw new PerfError({ code: 'bad_quantile', message: `quantile: p must be within [0, 1], got ${p}` });
  }
  return quantileSorted(sortedCopy(values), p);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

export function p25(values: readonly number[]): number {
  return quantile(values, 0.25);
}

export function p75(values: readonly number[]): number {
  return quantile(values, 0.75);
}

export function min(values: readonly number[]): number {
  check(values, 'min');
  let m = Infinity;
  for (const v of values) if (v < m) m = v;
  return m;
}

export function max(values: readonly number[]): number {
  check(values, 'max');
  let m = -Infinity;
  for (const v of values) if (v > m) m = v;
  return m;
}

export function mean(values: readonly number[]): number {
  check(values, 'mean');
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * Sample standard deviation with Bessel's n − 1 divisor (unbiased variance). NaN for a single value:
 * one repeat says nothing about spread, and 0 would falsely claim "no noise".
 */
export function stddev(values: readonly number[]): number {
  const m = mean(values);
  if (values.length < 2) return NaN;
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return Math.sqrt(ss / (values.length - 1));
}

/** Coefficient of variation, stddev / |mean| (unitless; 0.05 = 5 %). NaN when the mean is 0 or n < 2. */
export function cv(values: readonly number[]): number {
  const m = mean(values);
  if (m === 0) return NaN;
  return stddev(values) / Math.abs(m);
}

/**
 * Multiply a MAD by this to estimate σ of normal data: 1 / Φ⁻¹(3/4) (Hampel 1974; Rousseeuw & Croux
 * 1993, JASA 88:1273). Not applied by default so `mad` returns the plain median of deviations.
 */
export const MAD_NORMAL_CONSISTENCY = 1.482602218505602;

/**
 * Median absolute deviation, median(|x − median(x)|) × scale (Hampel 1974, JASA 69:383). Robust spread:
 * one pathological repeat (a GC pause) moves it little, unlike the standard deviation.
 */
export function mad(values: readonly number[], scale = 1): number {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m))) * scale;
}

/** The run-file summary shape. Throws on an empty sample: a metric nobody measured has no summary. */
export function summarize(values: readonly number[]): Summary {
  check(values, 'summarize');
  const s = sortedCopy(values);
  return {
    median: quantileSorted(s, 0.5),
    min: s[0]!,
    max: s[s.length - 1]!,
    p25: quantileSorted(s, 0.25),
    p75: quantileSorted(s, 0.75),
    n: s.length,
  };
}

// ─── normal distribution ────────────────────────────────────────────────────────────────────────────

/**
 * Complementary error function, Chebyshev fit of Press, Teukolsky, Vetterling & Flannery, "Numerical
 * Recipes in C", 2nd ed. (1992), §6.2 p. 221 (`erfcc`): fractional error < 1.2e-7 everywhere, ample
 * for p-values compared against 0.05.
 */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Standard normal CDF Φ(z). */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/**
 * Standard normal quantile Φ⁻¹(p), P. J. Acklam's rational approximation (2003, "An algorithm for
 * computing the inverse normal cumulative distribution function"; relative error < 1.15e-9).
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) {
    if (p === 0) return -Infinity;
    if (p === 1) return Infinity;
    throw new PerfError({ code: 'bad_probability', message: `normalQuantile: p must be within (0, 1), got ${p}` });
  }
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  // Acklam's break point between the central rational fit and the two tail fits.
  const pLow = 0.02425;
  if (p < pLow || p > 1 - pLow) {
    const q = Math.sqrt(-2 * Math.log(p < pLow ? p : 1 - p));
    const x = (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
    return p < pLow ? x : -x;
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

// ─── Mann–Whitney U ─────────────────────────────────────────────────────────────────────────────────

/**
 * Use exact distributions while n1·n2 ≤ 400 (e.g. up to 20 × 20 repeats, every practical repeat count).
 * Why 400: U takes n1·n2 + 1 values, so tables stay small; arrangement counts stay below C(40, 20) ≈
 * 1.4e11 < 2^53 and are exact in doubles; and beyond it the normal approximation is accurate to about
 * 0.001 in p (Hollander, Wolfe & Chicken, "Nonparametric Statistical Methods", 3rd ed. 2014, §4.1).
 */
const EXACT_MAX_PAIRS = 400;
/**
 * With ties, the exact permutation distribution is a subset-sum count over the doubled mid-ranks:
 * N · n2 · Σranks steps, ~1.3 M at 20 vs 20, which a sequential gate pays per metric per look. Keep it
 * exact up to 10 × 10 repeats, where the normal approximation is least trustworthy (a = [1,1,1],
 * b = [2,2,2] gets p ≈ 0.047 from it against the exact 0.1); beyond, the tie-corrected normal
 * approximation with continuity correction is used, as for large untied samples.
 */
const EXACT_TIES_MAX_PAIRS = 100;

export interface MannWhitneyResult {
  /** U of the candidate arm b: pairs (aᵢ, bⱼ) with bⱼ > aᵢ, a tie counting ½. Ranges 0 … n1·n2. */
  u: number;
  /** Two-sided p-value: 2 · min(P(U ≤ u), P(U ≥ u)), capped at 1. */
  pValue: number;
  /** One-sided p that b is stochastically LARGER than a: P(U ≥ u) under no change. */
  pGreater: number;
  /** One-sided p that b is stochastically SMALLER than a: P(U ≤ u) under no change. */
  pLess: number;
  /** The smallest one-sided p these sizes and this tie pattern could produce (either direction). */
  minAttainableOneSidedP: number;
  /**
   * The smallest two-sided p these sample sizes and this tie pattern could produce at all (at complete
   * separation). 0.1 for 3 vs 3 repeats: such a test can never be significant at α = 0.05, which
   * `compare` uses to keep it out of the multiple-testing family (Tarone 1990).
   */
  minAttainableP: number;
  /** exact = Mann & Whitney's null distribution; exact-ties = permutation distribution of the mid-rank
   *  sum given the ties; normal = large-sample approximation with tie and continuity corrections. */
  method: 'exact' | 'exact-ties' | 'normal';
}

const uCumulativeCache = new Map<string, Float64Array>();

/**
 * Cumulative counts of the null distribution of U for sizes (m, n) without ties: cum[u] = number of the
 * C(m+n, m) equally likely arrangements with U ≤ u. Recurrence of Mann & Whitney (1947), "On a test of
 * whether one of two random variables is stochastically larger than the other", Ann. Math. Statist.
 * 18:50–60, eq. (2): condition on whether the largest observation belongs to b (it then beats all m
 * values of a, adding m to U) or to a (adding 0): c(m, n, u) = c(m, n−1, u−m) + c(m−1, n, u).
 * The distribution is the same for (m, n) and (n, m), so one table serves both; memoized because
 * `compare` asks for the same sizes once per metric.
 */
function uCumulative(m: number, n: number): Float64Array {
  const key = m <= n ? `${m},${n}` : `${n},${m}`;
  const hit = uCumulativeCache.get(key);
  if (hit) return hit;
  // prev[j] = counts for (i − 1, j); cur[j] = counts for (i, j). Index = u.
  let prev: Float64Array[] = [];
  for (let j = 0; j <= n; j++) prev.push(Float64Array.of(1));
  for (let i = 1; i <= m; i++) {
    const cur: Float64Array[] = [Float64Array.of(1)];
    for (let j = 1; j <= n; j++) {
      const c = new Float64Array(i * j + 1);
      const left = cur[j - 1]!; // (i, j − 1): largest is b, adds i
      const up = prev[j]!; // (i − 1, j): largest is a, adds 0
      for (let u = 0; u < left.length; u++) c[u + i]! += left[u]!;
      for (let u = 0; u < up.length; u++) c[u]! += up[u]!;
      cur.push(c);
    }
    prev = cur;
  }
  const pdf = prev[n]!;
  const cum = new Float64Array(pdf.length);
  let run = 0;
  for (let u = 0; u < pdf.length; u++) {
    run += pdf[u]!;
    cum[u] = run;
  }
  uCumulativeCache.set(key, cum);
  return cum;
}

interface Ranked {
  /** Doubled mid-ranks (integers: a tie group over positions i…j gets i + j), per pooled value. */
  scores2: Int32Array;
  /** true where the pooled value came from b. */
  fromB: Uint8Array;
  /** Σ (t³ − t) over tie groups of size t. */
  tieTerm: number;
  hasTies: boolean;
}

/**
 * Mid-ranks of the pooled sample a ∪ b (ties share the average of the ranks they span). A tie group is
 * found by binary search in the sorted pool: no comparator sort, which dominated a simulation's time.
 */
function rankPooled(a: readonly number[], b: readonly number[]): Ranked {
  const n = a.length + b.length;
  const values = new Float64Array(n);
  const fromB = new Uint8Array(n);
  for (let i = 0; i < a.length; i++) values[i] = a[i]!;
  for (let i = 0; i < b.length; i++) {
    values[a.length + i] = b[i]!;
    fromB[a.length + i] = 1;
  }
  const sorted = values.slice().sort();
  const scores2 = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    // 0-based positions first … last of v's tie group; doubled mid-rank = (first + 1) + (last + 1).
    const first = lowerBound(sorted, v);
    const last = lowerBound(sorted, v, first, true) - 1;
    scores2[i] = first + last + 2;
  }
  let tieTerm = 0;
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && sorted[j + 1] === sorted[i]) j++;
    const t = j - i + 1;
    tieTerm += t * t * t - t;
    i = j + 1;
  }
  return { scores2, fromB, tieTerm, hasTies: tieTerm > 0 };
}

/** First index in sorted[from…] whose value is ≥ v (or > v when `past`). */
function lowerBound(sorted: Float64Array, v: number, from = 0, past = false): number {
  let lo = from;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < v || (past && sorted[mid] === v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Exact permutation distribution of the sum of k scores drawn without replacement from `scores2`
 * (doubled mid-ranks), conditional on the observed ties: every k-subset equally likely under H0.
 * This is the conditional (randomization) form of the rank-sum test for tied data (Lehmann,
 * "Nonparametrics: Statistical Methods Based on Ranks", 1975, §1.4; Hollander, Wolfe & Chicken 2014,
 * §4.1 "Ties"). Returns counts indexed by sum, and the total C(N, k).
 */
function tiedSumDistribution(scores2: Int32Array, k: number): { counts: Float64Array; total: number } {
  // The distribution depends only on the multiset of scores and k: key it so, for the memo.
  const sorted = Int32Array.from(scores2).sort();
  const key = `${k}:${sorted.join(',')}`;
  const hit = tiedMemo.get(key);
  if (hit) return hit;
  let maxSum = 0;
  for (const s of sorted) maxSum += s;
  const width = maxSum + 1;
  // ways[c · width + s] = number of c-subsets of the scores seen so far with sum s.
  const ways = new Float64Array((k + 1) * width);
  ways[0] = 1;
  let seen = 0;
  let seenSum = 0;
  for (const s of sorted) {
    seen++;
    seenSum += s;
    // No subset of the scores seen so far sums past seenSum: the rows above it are still zero.
    for (let c = Math.min(k, seen); c >= 1; c--) {
      const row = c * width;
      const below = (c - 1) * width;
      for (let t = seenSum; t >= s; t--) ways[row + t]! += ways[below + t - s]!;
    }
  }
  // A copy, so the memo does not pin the whole (k + 1) × width table.
  const counts = ways.slice(k * width, (k + 1) * width);
  let total = 0;
  for (const c of counts) total += c;
  const out = { counts, total };
  if (tiedMemo.size >= TIED_MEMO_MAX) tiedMemo.delete(tiedMemo.keys().next().value!);
  tiedMemo.set(key, out);
  return out;
}

/**
 * Tie patterns repeat: count metrics (requests, DOM nodes) take a few values, and compare re-tests the same pair at every
 * look and for every form of a metric. An entry is at most ~10k doubles (N ≤ 101): 256 of them stay under
 * ~21 MB, and typical ones are a few KB.
 */
const TIED_MEMO_MAX = 256;
const tiedMemo = new Map<string, { counts: Float64Array; total: number }>();

/** Two-sided p from a discrete null: 2 · min(P(X ≤ x), P(X ≥ x)), capped at 1. */
function twoSided(lowerTail: number, upperTail: number): number {
  return Math.min(1, 2 * Math.min(lowerTail, upperTail));
}

/**
 * Mann–Whitney U test (Wilcoxon rank-sum), two-sided: is b stochastically larger or smaller than a?
 * Distribution-free, so it needs no normality of frame times, and robust to the odd outlier repeat.
 *
 * - Exact null distribution without ties while n1·n2 ≤ 400 (Mann & Whitney 1947).
 * - With ties and n1·n2 ≤ 100 (EXACT_TIES_MAX_PAIRS): the exact permutation distribution of the mid-rank sum given the ties.
 *   Deliberately not the normal approximation there: at tiny n it is anti-conservative (a = [1,1,1],
 *   b = [2,2,2] gets p ≈ 0.047 from it, while only 2 of the 20 equally likely arrangements are that
 *   extreme, p = 0.1), and count metrics are where ties live.
 * - Otherwise the normal approximation with tie-corrected variance
 *   σ² = n1·n2/12 · [(N + 1) − Σ(t³ − t) / (N(N − 1))] and a ½ continuity correction
 *   (Hollander, Wolfe & Chicken 2014, §4.1, eqs. 4.6–4.7 in rank-sum form).
 */
export function mannWhitneyU(a: readonly number[], b: readonly number[]): MannWhitneyResult {
  check(a, 'mannWhitneyU (a)');
  check(b, 'mannWhitneyU (b)');
  const n1 = a.length;
  const n2 = b.length;
  const nn = n1 + n2;
  const ranked = rankPooled(a, b);
  let rankSumB2 = 0;
  for (let i = 0; i < nn; i++) if (ranked.fromB[i]) rankSumB2 += ranked.scores2[i]!;
  const offset2 = n2 * (n2 + 1); // doubled n2(n2+1)/2
  const u = (rankSumB2 - offset2) / 2;

  if (n1 * n2 <= EXACT_MAX_PAIRS && !ranked.hasTies) {
    const cum = uCumulative(n1, n2);
    const total = cum[cum.length - 1]!;
    const lower = cum[u]! / total; // P(U ≤ u)
    const upper = (u === 0 ? total : total - cum[u - 1]!) / total; // P(U ≥ u)
    return {
      u,
      pValue: twoSided(lower, upper),
      pGreater: upper,
      pLess: lower,
      minAttainableP: twoSided(cum[0]! / total, 1),
      minAttainableOneSidedP: cum[0]! / total,
      method: 'exact',
    };
  }

  if (n1 * n2 <= EXACT_TIES_MAX_PAIRS) {
    // Distribution of b's doubled rank sum given the tie pattern.
    const { counts, total } = tiedSumDistribution(ranked.scores2, n2);
    let lowerCount = 0;
    let upperCount = 0;
    let first = -1;
    let last = -1;
    for (let s = 0; s < counts.length; s++) {
      const c = counts[s]!;
      if (c === 0) continue;
      if (first < 0) first = s;
      last = s;
      if (s <= rankSumB2) lowerCount += c;
      if (s >= rankSumB2) upperCount += c;
    }
    const minOne = Math.min(counts[first]! / total, counts[last]! / total);
    // Every value tied: one possible arrangement, no evidence either way.
    const degenerate = first === last;
    return {
      u,
      pValue: twoSided(lowerCount / total, upperCount / total),
      pGreater: degenerate ? 1 : upperCount / total,
      pLess: degenerate ? 1 : lowerCount / total,
      minAttainableP: degenerate ? 1 : Math.min(1, 2 * minOne),
      minAttainableOneSidedP: degenerate ? 1 : minOne,
      method: 'exact-ties',
    };
  }

  const meanU = (n1 * n2) / 2;
  const varU = ((n1 * n2) / 12) * (nn + 1 - ranked.tieTerm / (nn * (nn - 1)));
  const pAt = (uu: number): number => {
    if (varU <= 0) return 1; // every value tied: no evidence either way
    const z = Math.max(0, Math.abs(uu - meanU) - 0.5) / Math.sqrt(varU);
    return Math.min(1, erfc(z / Math.SQRT2));
  };
  // One-sided upper tail P(U ≥ uu) with the ½ continuity correction.
  const upperAt = (uu: number): number => (varU <= 0 ? 1 : normalCdf(-(uu - meanU - 0.5) / Math.sqrt(varU)));
  const lowerAt = (uu: number): number => (varU <= 0 ? 1 : normalCdf((uu - meanU + 0.5) / Math.sqrt(varU)));
  // Most extreme U this tie pattern allows: b holding the n2 smallest (or largest) mid-ranks.
  const sorted2 = Int32Array.from(ranked.scores2).sort();
  let lowest2 = 0;
  let highest2 = 0;
  for (let i = 0; i < n2; i++) {
    lowest2 += sorted2[i]!;
    highest2 += sorted2[nn - 1 - i]!;
  }
  const minP = Math.min(pAt((lowest2 - offset2) / 2), pAt((highest2 - offset2) / 2));
  const minOne = Math.min(lowerAt((lowest2 - offset2) / 2), upperAt((highest2 - offset2) / 2));
  return {
    u,
    pValue: pAt(u),
    pGreater: Math.min(1, upperAt(u)),
    pLess: Math.min(1, lowerAt(u)),
    minAttainableP: minP,
    minAttainableOneSidedP: minOne,
    method: 'normal',
  };
}

// ─── Hodges–Lehmann shift ───────────────────────────────────────────────────────────────────────────

export interface ShiftEstimate {
  /** Estimated shift of b relative to a, in the metric's unit: median of all bⱼ − aᵢ. */
  shift: number;
  /** Confidence interval for the shift, same unit. */
  low: number;
  high: number;
  /**
   * Achieved confidence of [low, high] under the location-shift model. At least the requested level
   * (discreteness makes exact intervals a little wider), except when the samples are too small to reach
   * it at all (3 vs 3 repeats reach at most 0.90), when the widest interval [min, max] is returned with
   * its true, lower level.
   */
  level: number;
  method: 'exact' | 'normal';
}

/**
 * Hodges–Lehmann two-sample shift estimate with its distribution-free confidence interval
 * (Hodges & Lehmann 1963, Ann. Math. Statist. 34:598–611; Hollander, Wolfe & Chicken 2014, §4.2–4.3;
 * Bauer 1972, JASA 67:687). The shift is the median of the n1·n2 pairwise differences D = bⱼ − aᵢ; the
 * interval is [D(k), D(n1·n2 + 1 − k)] with k − 1 the largest lower critical value of Mann–Whitney U at
 * (1 − level)/2, so the interval is exactly the set of shifts the U test would not reject. Critical
 * values come from the exact no-ties distribution while n1·n2 ≤ 400, else from the normal
 * approximation k ≈ n1·n2/2 − z·√(n1·n2(N+1)/12) (H&W&C eq. 4.43, with continuity correction).
 * Preferred over a bootstrap: exact coverage, deterministic, and consistent with the test's verdict.
 */
export function hodgesLehmann(a: readonly number[], b: readonly number[], level = 0.95): ShiftEstimate {
  check(a, 'hodgesLehmann (a)');
  check(b, 'hodgesLehmann (b)');
  if (!(level > 0 && level < 1)) {
    throw new PerfError({ code: 'bad_level', message: `hodgesLehmann: level must be within (0, 1), got ${level}` });
  }
  const n1 = a.length;
  const n2 = b.length;
  const mn = n1 * n2;
  const diffs = new Float64Array(mn);
  let i = 0;
  for (let j = 0; j < n2; j++) for (let h = 0; h < n1; h++) diffs[i++] = b[j]! - a[h]!;
  const { k, achieved, method } = intervalRank(n1, n2, level);
  // Only four order statistics are read: the median's two neighbours and the interval's ends.
  const mid = Math.floor((mn - 1) / 2);
  selectRanks(diffs, [k - 1, mid, Math.min(mid + 1, mn - 1), mn - k]);
  const shift = quantileSorted(diffs, 0.5);
  return { shift, low: diffs[k - 1]!, high: diffs[mn - k]!, level: achieved, method };
}

/**
 * Rearranges `xs` so that each index in `ranks` holds the value a full sort would put there (Hoare's
 * FIND, C. A. R. Hoare 1961, Algorithm 65, CACM 4:321). Ascending ranks each search only above the last:
 * everything past rank r is ≥ xs[r]. Linear on average, against n·log n for sorting all n·m differences.
 */
function selectRanks(xs: Float64Array, ranks: number[]): void {
  let from = 0;
  for (const r of [...new Set(ranks)].sort((p, q) => p - q)) {
    selectRank(xs, r, from, xs.length - 1);
    from = r + 1;
  }
}

/** Puts the rank-r value of xs[lo…hi] at index r, smaller or equal values before it, larger or equal after. */
function selectRank(xs: Float64Array, r: number, lo: number, hi: number): void {
  while (hi > lo) {
    // Median of three as the pivot: sorted or constant input (tied repeats) stays linear.
    const m = (lo + hi) >>> 1;
    const pivot = medianOf3(xs[lo]!, xs[m]!, xs[hi]!);
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (xs[i]! < pivot) i++;
      while (xs[j]! > pivot) j--;
      if (i <= j) {
        const t = xs[i]!;
        xs[i++] = xs[j]!;
        xs[j--] = t;
      }
    }
    // Now xs[lo…j] ≤ pivot ≤ xs[i…hi], and anything between equals the pivot.
    if (r <= j) hi = j;
    else if (r >= i) lo = i;
    else return;
  }
}

function medianOf3(x: number, y: number, z: number): number {
  return x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
}

/** Which order statistics of the pairwise differences bound the interval; memoized per (n1, n2, level). */
function intervalRank(n1: number, n2: number, level: number): IntervalRank {
  let byLevel = rankMemo.get(level);
  if (!byLevel) rankMemo.set(level, (byLevel = new Map<number, IntervalRank>()));
  // Cantor's pairing: one exact integer per (n1, n2) while n1 + n2 < 10^8, far past any array of n1·n2 differences.
  const key = ((n1 + n2) * (n1 + n2 + 1)) / 2 + n2;
  const hit = byLevel.get(key);
  if (hit) return hit;
  const mn = n1 * n2;
  const tail = (1 - level) / 2;
  let out: IntervalRank;
  if (mn <= EXACT_MAX_PAIRS) {
    const cum = uCumulative(n1, n2);
    const total = cum[cum.length - 1]!;
    // Largest k with P(U ≤ k − 1) ≤ tail; coverage of [D(k), D(mn+1−k)] is 1 − 2·P(U ≤ k − 1).
    let k = 1;
    while (k < mn && cum[k]! / total <= tail) k++;
    out = { k, achieved: 1 - (2 * cum[k - 1]!) / total, method: 'exact' };
  } else {
    const sd = Math.sqrt((mn * (n1 + n2 + 1)) / 12);
    const z = normalQuantile(1 - tail);
    const k = Math.max(1, Math.floor(mn / 2 - z * sd + 0.5));
    out = { k, achieved: 1 - 2 * normalCdf((k - 0.5 - mn / 2) / sd), method: 'normal' };
  }
  if (byLevel.size >= RANK_MEMO_MAX) byLevel.clear();
  byLevel.set(key, out);
  return out;
}

/** A run compares a few dozen sample sizes at one or two levels; this bounds a long-lived process's memo. */
const RANK_MEMO_MAX = 4096;
interface IntervalRank {
  k: number;
  achieved: number;
  method: ShiftEstimate['method'];
}
const rankMemo = new Map<number, Map<number, IntervalRank>>();

// ─── zero-spread rule ───────────────────────────────────────────────────────────────────────────────

/**
 * Upper bound on the probability, under "nothing changed" (all n1 + n2 repeats i.i.d. from one
 * distribution, of ANY shape, including a count that flips between values), that every repeat of a
 * gives one value and every repeat of b another. With pmf p_v:
 *   P = Σ_v Σ_{w≠v} p_v^n1 · p_w^n2 ≤ Σ_v p_v^n1 (1 − p_v)^n2     (Σ_{w≠v} p_w^n2 ≤ (1 − p_v)^n2)
 *     ≤ max_p p^(n1−1) (1 − p)^n2 · Σ_v p_v = (n1−1)^(n1−1) n2^n2 / (n1+n2−1)^(n1+n2−1),
 * and symmetrically with n1, n2 swapped; the smaller bound holds. 0.035 for 3 + 3 repeats, 0.0084 for
 * 4 + 4, 0.0021 for 5 + 5. (Elementary; the maximisation is the Beta-kernel mode.) It lets `compare`
 * call a zero-spread difference significant with 3 repeats, where no rank test can reach p < 0.1.
 */
export function zeroSpreadNullBound(n1: number, n2: number): number {
  const bound = (x: number, y: number): number => {
    // (x−1)^(x−1) · y^y / (x+y−1)^(x+y−1), in logs to avoid overflow; 0^0 = 1.
    const t = (v: number): number => (v === 0 ? 0 : v * Math.log(v));
    return Math.exp(t(x - 1) + t(y) - t(x + y - 1));
  };
  if (n1 < 1 || n2 < 1) return 1;
  return Math.min(1, bound(n1, n2), bound(n2, n1));
}

// ─── multiple testing ───────────────────────────────────────────────────────────────────────────────

/**
 * Holm–Bonferroni step-down adjusted p-values (Holm 1979, "A simple sequentially rejective multiple test
 * procedure", Scand. J. Statist. 6:65–70; adjusted form as in Wright 1992, Biometrics 48:1005): with
 * p(1) ≤ … ≤ p(m), adj(i) = max_{j ≤ i} min(1, (m − j + 1) · p(j)). Rejecting adj < α controls the
 * family-wise error rate at α under any dependence between metrics (frame count and duration are
 * strongly correlated), and is uniformly more powerful than plain Bonferroni. Same order as the input.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  for (const p of pValues) {
    if (!(p >= 0 && p <= 1)) {
      throw new PerfError({ code: 'bad_p_value', message: `holmAdjust: p-values must be within [0, 1], got ${p}` });
    }
  }
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((x, y) => pValues[x]! - pValues[y]! || x - y);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach((idx, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[idx]!));
    out[idx] = running;
  });
  return out;
}

// ─── counts of random events ────────────────────────────────────────────────────────────────────────

/** log Γ(x) for x > 0: Lanczos approximation, g = 7, n = 9 (Numerical Recipes 3rd ed. §6.1; |ε| < 2e-10). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const xx = x - 1;
  let a = c[0]!;
  const t = xx + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (xx + i);
  return 0.5 * Math.log(2 * Math.PI) + (xx + 0.5) * Math.log(t) - t + Math.log(a);
}

// 10^6 events: the exact sum costs one term per event (tens of ms at a million); a run's frames stay far
// below it, and past it the normal approximation with continuity correction is within ~1/√n ≤ 0.001.
// Without the bound, a run file claiming 10^21 dropped frames held perf compare for ever.
const BINOMIAL_EXACT_MAX_N = 1e6;

/** P(X ≥ k) for X ~ Binomial(n, p), summed in log space (n is a count of events: at most a few thousand here). */
function binomialUpperTail(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  if (n > BINOMIAL_EXACT_MAX_N) return normalCdf(-(k - 0.5 - n * p) / Math.sqrt(n * p * (1 - p)));
  const lc = logGamma(n + 1);
  const lp = Math.log(p);
  const lq = Math.log1p(-p);
  let sum = 0;
  for (let i = k; i <= n; i++) sum += Math.exp(lc - logGamma(i + 1) - logGamma(n - i + 1) + i * lp + (n - i) * lq);
  return Math.min(1, sum);
}

export interface PoissonRateResult {
  /** One-sided p that b's rate per unit of exposure is HIGHER than a's. */
  pGreater: number;
  /** One-sided p that b's rate is LOWER. */
  pLess: number;
}

/**
 * Conditional test of two Poisson rates (Przyborowski & Wilenski 1940, "Homogeneity of results in testing
 * samples from Poisson series", Biometrika 31:313–323; Krishnamoorthy & Thomson 2004, J. Statist. Plann.
 * Inference 119:23–35, the "C-test"): given the total S = Sa + Sb of events, Sb ~ Binomial(S, Eb/(Ea + Eb))
 * when both arms have one rate per unit of exposure (repeats, or painted frames).
 *
 * Why compare uses it: events paced by the machine (a frame over budget, a dropped frame) come and go one
 * at a time, so five repeats that each show exactly one such frame say little about the rate — their zero
 * spread is luck, not precision. This test charges such counts at least their Poisson noise.
 */
export function poissonRateTest(sumA: number, exposureA: number, sumB: number, exposureB: number): PoissonRateResult {
  for (const v of [sumA, exposureA, sumB, exposureB]) {
    if (!Number.isFinite(v) || v < 0)
      throw new PerfError({ code: 'bad_count', message: `poissonRateTest: counts and exposures must be finite and ≥ 0, got ${v}` });
  }
  if (exposureA <= 0 || exposureB <= 0) return { pGreater: 1, pLess: 1 };
  const a = Math.round(sumA);
  const b = Math.round(sumB);
  const n = a + b;
  if (n === 0) return { pGreater: 1, pLess: 1 };
  const p = exposureB / (exposureA + exposureB);
  // P(X ≤ b) = 1 − P(X ≥ b + 1).
  return { pGreater: binomialUpperTail(b, n, p), pLess: Math.min(1, 1 - binomialUpperTail(b + 1, n, p)) };
}

/**
 * Repeat-to-repeat noise of two samples in their own unit: the MAD of each value's distance from its
 * arm's median, scaled to σ for normal data (MAD_NORMAL_CONSISTENCY); the pooled standard deviation when
 * more than half the values sit exactly on their median (a count that rarely moves). 0 when nothing varies.
 */
export function pooledSigma(a: readonly number[], b: readonly number[]): number {
  check(a, 'pooledSigma (a)');
  check(b, 'pooledSigma (b)');
  const ma = median(a);
  const mb = median(b);
  const dev = [...a.map((v) => v - ma), ...b.map((v) => v - mb)];
  const robust = median(dev.map(Math.abs)) * MAD_NORMAL_CONSISTENCY;
  if (robust > 0) return robust;
  const dof = a.length + b.length - 2;
  if (dof <= 0) return 0;
  return Math.sqrt(dev.reduce((s, d) => s + d * d, 0) / dof);
}
