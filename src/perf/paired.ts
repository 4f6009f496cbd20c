/**
 * The paired design of an interleaved comparison: baseline and candidate repeats run side by side in the same
 * A B | B A round, so each pair shares the machine's state of that moment (a job that starts, a thermal step, a
 * slower minute). The pair's difference cancels what the two shared; a rank test on the differences then sees
 * only the noise within a round. Blocking on time to remove drift from a benchmark's comparison is the
 * randomised-block design (Kalibera & Jones 2013, "Rigorous benchmarking in reasonable time", ISMM '13, §4;
 * Box, Hunter & Hunter 2005, "Statistics for Experimenters" 2nd ed., ch. 3.2, the paired comparison).
 * Pure: numbers in, numbers out.
 *
 * - Test: Wilcoxon's signed-rank test on the differences (Wilcoxon 1945, Biometrics Bulletin 1:80–83); zeros
 *   dropped (Wilcoxon's convention), mid-ranks for ties; the exact null distribution of W+ without ties up to
 *   EXACT_MAX_PAIRS, else the normal approximation with the tie-corrected variance and a ½ continuity
 *   correction (Hollander, Wolfe & Chicken 2014, "Nonparametric Statistical Methods" 3rd ed., §3.1, eqs. 3.4–3.6).
 * - Estimate: the one-sample Hodges–Lehmann estimator, the median of the n(n+1)/2 Walsh averages (dᵢ + dⱼ)/2,
 *   i ≤ j, with the distribution-free interval [W(k), W(M + 1 − k)] whose k comes from the same null
 *   distribution (Hodges & Lehmann 1963, Ann. Math. Statist. 34:598–611; H, W & C §3.2–3.3, eq. 3.21–3.24).
 */
import { PerfError } from '../errors.js';
import { normalCdf, normalQuantile, quantile } from './stats.js';

/** Up to this many nonzero differences, the exact null of W+ (a table of n(n+1)/2 + 1 counts: 1,276 at 50). */
const EXACT_MAX_PAIRS = 50;

export interface SignedRankResult {
  /** Sum of the ranks of |d| over the positive differences. */
  wPlus: number;
  /** Nonzero differences the test used. */
  n: number;
  /** P(W+ ≥ observed): the differences lean positive (b above a). */
  pGreater: number;
  /** P(W+ ≤ observed). */
  pLess: number;
  /** The smallest one-sided p these pairs could reach (every difference of one sign): 2⁻ⁿ. */
  minAttainableOneSidedP: number;
  method: 'exact' | 'normal';
}

/** counts[w] = number of subsets of {1…n} summing to w, i.e. 2ⁿ · P(W+ = w) under the null. */
function signedRankCounts(n: number): Float64Array {
  const top = (n * (n + 1)) / 2;
  const counts = new Float64Array(top + 1);
  counts[0] = 1;
  for (let r = 1; r <= n; r++) for (let w = top; w >= r; w--) counts[w]! += counts[w - r]!;
  return counts;
}

interface Ranked {
  ranks: number[];
  positive: boolean[];
  ties: boolean;
  tieTerm: number;
}

/** Mid-ranks of |d| (zeros already removed), and Σ(t³ − t) over the tie groups. */
function rankAbs(d: readonly number[]): Ranked {
  const order = d.map((v, i) => ({ v: Math.abs(v), i })).sort((p, q) => p.v - q.v);
  const ranks = new Array<number>(d.length);
  let tieTerm = 0;
  for (let s = 0; s < order.length;) {
    let e = s;
    while (e + 1 < order.length && order[e + 1]!.v === order[s]!.v) e++;
    const t = e - s + 1;
    tieTerm += t * t * t - t;
    for (let k = s; k <= e; k++) ranks[order[k]!.i] = (s + e) / 2 + 1;
    s = e + 1;
  }
  return { ranks, positive: d.map((v) => v > 0), ties: tieTerm > 0, tieTerm };
}

function check(d: readonly number[], who: string): void {
  if (!d.every((v) => Number.isFinite(v)))
    throw new PerfError({ code: 'bad_level', message: `${who}: differences must be finite numbers` });
}

/** Wilcoxon's signed-rank test of the differences d = b − a, one-sided both ways (see the file's head). */
export function wilcoxonSignedRank(d: readonly number[]): SignedRankResult {
  check(d, 'wilcoxonSignedRank');
  const nz = d.filter((v) => v !== 0);
  const n = nz.length;
  if (n === 0) return { wPlus: 0, n: 0, pGreater: 1, pLess: 1, minAttainableOneSidedP: 1, method: 'exact' };
  const { ranks, positive, ties, tieTerm } = rankAbs(nz);
  let wPlus = 0;
  for (let i = 0; i < n; i++) if (positive[i]) wPlus += ranks[i]!;
  const minP = 2 ** -n;
  if (!ties && n <= EXACT_MAX_PAIRS) {
    const counts = signedRankCounts(n);
    const total = 2 ** n;
    let upper = 0;
    let lower = 0;
    for (let w = 0; w < counts.length; w++) {
      if (w >= wPlus) upper += counts[w]!;
      if (w <= wPlus) lower += counts[w]!;
    }
    return { wPlus, n, pGreater: upper / total, pLess: lower / total, minAttainableOneSidedP: minP, method: 'exact' };
  }
  const mean = (n * (n + 1)) / 4;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieTerm / 48);
  if (!(sd > 0)) return { wPlus, n, pGreater: 1, pLess: 1, minAttainableOneSidedP: 1, method: 'normal' };
  return {
    wPlus,
    n,
    pGreater: Math.min(1, normalCdf(-(wPlus - mean - 0.5) / sd)),
    pLess: Math.min(1, normalCdf((wPlus - mean + 0.5) / sd)),
    minAttainableOneSidedP: minP,
    method: 'normal',
  };
}

export interface PairedShift {
  /** Median of the Walsh averages: the estimated shift b − a. */
  shift: number;
  low: number;
  high: number;
  /** Achieved confidence of [low, high] (exact tables are discrete; tiny n cannot reach the level asked). */
  level: number;
}

/**
 * k of the interval [W(k), W(M + 1 − k)]: the largest k with P(W+ ≤ k − 1) ≤ (1 − level)/2 under the null
 * (exact below EXACT_MAX_PAIRS, else k ≈ M/2 − z·√(n(n+1)(2n+1)/24), H, W & C eq. 3.24), at least 1.
 */
function intervalRank(n: number, level: number): { k: number; achieved: number } {
  const m = (n * (n + 1)) / 2;
  const tail = (1 - level) / 2;
  if (n <= EXACT_MAX_PAIRS) {
    const counts = signedRankCounts(n);
    const total = 2 ** n;
    // j values of W+ (0 … j − 1) fit in the lower tail; at least one order statistic is cut off either way.
    let j = 0;
    let cum = 0;
    while (j < m && cum + counts[j]! <= tail * total) cum += counts[j++]!;
    const k = Math.max(1, j);
    const below = k === j ? cum : counts[0]!;
    return { k, achieved: 1 - (2 * below) / total };
  }
  const z = normalQuantile(1 - tail);
  const k = Math.max(1, Math.floor(m / 2 - z * Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24)));
  return { k, achieved: level };
}

/** One-sample Hodges–Lehmann estimate of the differences with its distribution-free interval (see the file's head). */
export function hodgesLehmannPaired(d: readonly number[], level = 0.9): PairedShift {
  check(d, 'hodgesLehmannPaired');
  if (!(level > 0 && level < 1))
    throw new PerfError({ code: 'bad_level', message: `hodgesLehmannPaired: level must be within (0, 1), got ${level}` });
  const n = d.length;
  if (n === 0) return { shift: 0, low: 0, high: 0, level: 0 };
  const walsh: number[] = [];
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) walsh.push((d[i]! + d[j]!) / 2);
  walsh.sort((p, q) => p - q);
  const m = walsh.length;
  const { k, achieved } = intervalRank(n, level);
  return { shift: quantile(walsh, 0.5), low: walsh[k - 1]!, high: walsh[m - k]!, level: achieved };
}
