/**
 * Change points in a metric's history: where a series of per-run medians (oldest first) moved to a new level.
 *
 * Method: E-Divisive means, D. S. Matteson & N. A. James (2014), "A Nonparametric Approach for Multiple Change
 * Point Analysis of Multivariate Data", JASA 109(505):334–345, with α = 1 (the energy distance of the two sides'
 * means and spreads), as MongoDB applies it to performance tests (D. Daly, W. Brown, H. Ingo, J. O'Leary, D. Bradford,
 * "The Use of Change Point Detection to Identify Software Performance Regressions in a Continuous Integration
 * System", ICPE 2020) and Apache Otava (ex Hunter; M. Fleming et al., "Hunter: Using Change Point Detection to
 * Hunt for Performance Regressions", ICPE 2023) ships it:
 *   1. In a segment of m points, for every split τ the divergence
 *      Q(τ) = τ(m−τ)/m · [ 2/(τ(m−τ)) Σ|xᵢ−yⱼ| − 2/(τ(τ−1)) Σ|xᵢ−xₖ| − 2/((m−τ)(m−τ−1)) Σ|yⱼ−yₖ| ];
 *      the candidate is the split of largest Q over every open segment (hierarchical bisection).
 *   2. Its significance by a permutation test (Matteson & James §3.3): the segment's points shuffled, the largest
 *      Q recomputed; p = (1 + #{permuted ≥ observed}) / (1 + permutations). p ≤ α splits the segment and the
 *      search goes on in both halves.
 *   3. Otava's last step: change points whose before/after medians differ by less than a minimum relative
 *      magnitude are dropped, weakest first, and their neighbours' medians recomputed.
 *
 * Speed (10,000 runs well within a second): each sum over pairs is kept for every split at once with a Fenwick
 * tree over the values' ranks (|v−x| summed over a prefix = v·#below − Σbelow + Σabove − v·#above), so one pass
 * over a segment is O(m log m), not O(m²). The permutation test runs on a window of at most WINDOW_RUNS points
 * either side of the candidate (Otava, like Hunter, analyses long series in windows for the same reason), and
 * stops as soon as enough permuted statistics beat the observed one that p can no longer reach α
 * (J. Besag & P. Clifford 1991, "Sequential Monte Carlo p-values", Biometrika 78(2):301–304). Deviation from
 * Matteson & James: a segment whose candidate is not significant is closed and the search goes on in the others
 * (their rule stops at the first non-significant candidate), so a quiet stretch doesn't hide a later step.
 *
 * Pure: numbers in, numbers out; the permutations come from a seeded PRNG, so a series gives the same change
 * points on every machine.
 */
import { PerfError } from '../errors.js';
import { median } from './stats.js';
import { mulberry32 } from './prng.js';

export interface ChangePointOptions {
  /** Significance of the permutation test (default DEFAULT_ALPHA). */
  alpha?: number;
  /** Permutations per test (default DEFAULT_PERMUTATIONS). */
  permutations?: number;
  /** Fewest points on either side of a change (default DEFAULT_MIN_SEGMENT). */
  minSegment?: number;
  /** Smallest |after − before| / |before| reported, as a fraction (default DEFAULT_MIN_MAGNITUDE). */
  minMagnitude?: number;
  /** Smallest `before` a relative change is taken against (the metric's floor, metrics.ts), in the series' unit. */
  floor?: number;
  /** Seed of the permutations' PRNG. */
  seed?: number;
}

export interface ChangePoint {
  /** Index of the first point of the new regime. */
  index: number;
  /** Median of the points from the previous change point (or the start) up to this one. */
  beforeMedian: number;
  /** Median of the points from this change point up to the next (or the end). */
  afterMedian: number;
  /** (after − before) / max(|before|, floor), a fraction (+0.2: 20% higher). */
  relativeChange: number;
  /** The permutation test's p-value when the split was made. */
  pValue: number;
}

// Otava's default p-value bound is of this order: with a few dozen metrics per scenario checked after every run,
// 1% keeps false alarms to about one per hundred series examined.
export const DEFAULT_ALPHA = 0.01;
// 199 permutations resolve p down to 0.005, half the default α, so a clear step is always significant.
export const DEFAULT_PERMUTATIONS = 199;
// A regime needs 5 runs before its median means anything; fewer and one noisy run makes a "change".
export const DEFAULT_MIN_SEGMENT = 5;
// 5%: half the compare's default warn threshold; smaller moves are within a build-to-build drift users accept.
export const DEFAULT_MIN_MAGNITUDE = 0.05;
// 30 runs either side (the length of the A/A and step series) confirm a step as well as a longer history,
// and bound each test (O(m²) per permutation) to 60 points, so 10,000 runs with dozens of changes stay well under 1 s.
export const WINDOW_RUNS = 30;
// The default seed: any fixed value; fixed so that the same series gives the same answer everywhere.
const DEFAULT_SEED = 0x5eed31;
// Relative tolerance for "permuted statistic ≥ observed": sums in another order differ in the last bits.
const TIE_TOLERANCE = 1e-9;

interface Resolved {
  alpha: number;
  permutations: number;
  minSegment: number;
  minMagnitude: number;
  floor: number;
  seed: number;
}

function badOption(message: string): PerfError {
  return new PerfError({ code: 'bad_change_options', message: `change points: ${message}` });
}

function resolve(o: ChangePointOptions): Resolved {
  const r: Resolved = {
    alpha: o.alpha ?? DEFAULT_ALPHA,
    permutations: o.permutations ?? DEFAULT_PERMUTATIONS,
    minSegment: o.minSegment ?? DEFAULT_MIN_SEGMENT,
    minMagnitude: o.minMagnitude ?? DEFAULT_MIN_MAGNITUDE,
    floor: o.floor ?? 0,
    seed: o.seed ?? DEFAULT_SEED,
  };
  if (!(r.alpha > 0 && r.alpha < 1)) throw badOption(`alpha must be within (0, 1), got ${r.alpha}`);
  if (!Number.isInteger(r.permutations) || r.permutations < 1) throw badOption(`permutations must be a whole number ≥ 1`);
  if (!Number.isInteger(r.minSegment) || r.minSegment < 2) throw badOption(`minSegment must be a whole number ≥ 2`);
  if (!(r.minMagnitude >= 0) || !(r.floor >= 0)) throw badOption(`minMagnitude and floor must be ≥ 0`);
  return r;
}

/** 1-based ranks for the Fenwick trees: equal values share one (they add 0 to |v−x| whichever side they count on). */
function ranksOf(values: Float64Array): Int32Array {
  const sorted = values.slice().sort();
  const ranks = new Int32Array(values.length);
  for (let j = 0; j < values.length; j++) {
    const v = values[j]!;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    ranks[j] = lo + 1;
  }
  return ranks;
}

/**
 * Σ over pairs within each prefix of `values` (each suffix when `reverse`): out[t] = Σ_{i<k<t} |xᵢ−xₖ| over the
 * first (last) t points, for t = 0..m, in O(m log m). Fenwick trees over the ranks hold the count and sum of the
 * values seen so far: |v−x| summed = v·#below − Σbelow + Σrest − v·#rest.
 */
function prefixPairSums(values: Float64Array, ranks: Int32Array, reverse: boolean): Float64Array {
  const m = values.length;
  const count = new Float64Array(m + 1);
  const sum = new Float64Array(m + 1);
  const out = new Float64Array(m + 1);
  let total = 0;
  for (let step = 0; step < m; step++) {
    const j = reverse ? m - 1 - step : step;
    const v = values[j]!;
    let nBelow = 0;
    let sBelow = 0;
    for (let k = ranks[j]! - 1; k > 0; k -= k & -k) {
      nBelow += count[k]!;
      sBelow += sum[k]!;
    }
    out[step + 1] = out[step]! + v * nBelow - sBelow + (total - sBelow) - v * (step - nBelow);
    for (let k = ranks[j]!; k <= m; k += k & -k) {
      count[k]! += 1;
      sum[k]! += v;
    }
    total += v;
  }
  return out;
}

/** Q of X = the n1 points before a split, Y = the n2 after, from their pair sums (within X, within Y, between). */
function divergence(n1: number, n2: number, withinX: number, withinY: number, between: number): number {
  const e = (2 * between) / (n1 * n2) - (2 * withinX) / (n1 * (n1 - 1)) - (2 * withinY) / (n2 * (n2 - 1));
  return ((n1 * n2) / (n1 + n2)) * e;
}

interface Split {
  /** Points before the split. */
  tau: number;
  q: number;
}

/** The best split with Y running to the segment's end (κ = m), as MongoDB's and Otava's E-Divisive: O(m log m). */
function bestSplitToEnd(values: Float64Array, minSegment: number): Split {
  const m = values.length;
  const ranks = ranksOf(values);
  const left = prefixPairSums(values, ranks, false);
  const right = prefixPairSums(values, ranks, true);
  let best: Split = { tau: -1, q: -Infinity };
  for (let tau = minSegment; tau <= m - minSegment; tau++) {
    const q = divergence(tau, m - tau, left[tau]!, right[m - tau]!, left[m]! - left[tau]! - right[m - tau]!);
    if (q > best.q) best = { tau, q };
  }
  return best;
}

/**
 * The best split over τ and κ as Matteson & James define it (X = [0, τ), Y = [τ, κ)), in O(m²): a step up and
 * back down again is found, where a split with Y to the end sees two halves that look alike. `within[τ]` holds
 * Σ pairs within [τ, κ) as κ grows.
 */
function bestSplitAnyEnd(values: Float64Array, minSegment: number, within: Float64Array): Split {
  const m = values.length;
  within.fill(0);
  let best: Split = { tau: -1, q: -Infinity };
  for (let kappa = 2; kappa <= m; kappa++) {
    const x = values[kappa - 1]!;
    let s = 0;
    for (let tau = kappa - 2; tau >= 0; tau--) {
      s += Math.abs(values[tau]! - x);
      within[tau]! += s;
    }
    // within[0] is now Σ pairs within [0, κ), within[τ] within [τ, κ), and prefix sums within [0, τ) were within[0] at κ = τ.
    within[m + kappa] = within[0]!;
    const all = within[0]!;
    for (let tau = minSegment; tau <= kappa - minSegment; tau++) {
      const a = within[m + tau]!;
      const b = within[tau]!;
      const q = divergence(tau, kappa - tau, a, b, all - a - b);
      if (q > best.q) best = { tau, q };
    }
  }
  return best;
}

/** Scratch for bestSplitAnyEnd: [0, m) the running sums, [m, 2m] the prefix sums by κ. */
const anyEndScratch = (m: number): Float64Array => new Float64Array(2 * m + 1);

/** Where to test a segment: the best split's series index, and the window around it. */
interface Candidate {
  at: number;
  q: number;
  lo: number;
  hi: number;
}

/**
 * The candidate of xs[lo, hi): a segment of up to 2·WINDOW_RUNS points is searched whole over τ and κ; a longer
 * one is searched with Y to its end, then re-searched over τ and κ in the window around that split.
 */
function candidate(xs: Float64Array, lo: number, hi: number, minSegment: number): Candidate | null {
  if (hi - lo < 2 * minSegment) return null;
  let wLo = lo;
  let wHi = hi;
  if (hi - lo > 2 * WINDOW_RUNS) {
    const rough = lo + bestSplitToEnd(xs.subarray(lo, hi), minSegment).tau;
    wLo = Math.max(lo, Math.min(rough - WINDOW_RUNS, hi - 2 * WINDOW_RUNS));
    wHi = wLo + 2 * WINDOW_RUNS;
  }
  const values = xs.slice(wLo, wHi);
  const { tau, q } = bestSplitAnyEnd(values, minSegment, anyEndScratch(values.length));
  return tau < 0 ? null : { at: wLo + tau, q, lo: wLo, hi: wHi };
}

/** The permutation test's p-value of a candidate: its window's points shuffled, the best Q found again. */
function permutationP(xs: Float64Array, c: Candidate, o: Resolved, rng: () => number): number {
  const values = xs.slice(c.lo, c.hi);
  const m = values.length;
  const scratch = anyEndScratch(m);
  // Once this many permutations reach the observed Q, p > α whatever the rest give (Besag & Clifford 1991).
  const enough = Math.max(1, Math.floor(o.alpha * (o.permutations + 1)));
  let atLeast = 0;
  let done = 0;
  while (done < o.permutations && atLeast < enough) {
    for (let i = m - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      const t = values[i]!;
      values[i] = values[j]!;
      values[j] = t;
    }
    if (bestSplitAnyEnd(values, o.minSegment, scratch).q >= c.q - TIE_TOLERANCE * Math.abs(c.q)) atLeast++;
    done++;
  }
  return done < o.permutations ? atLeast / done : (1 + atLeast) / (1 + o.permutations);
}

/** Open segments are searched; a segment whose candidate is not significant is closed (best = null). */
interface Segment {
  lo: number;
  hi: number;
  best: Candidate | null;
}

/** Hierarchical bisection (Matteson & James §3.2): the significant splits, with their p-values, by index. */
function bisect(xs: Float64Array, o: Resolved): Map<number, number> {
  const rng = mulberry32(o.seed);
  const found = new Map<number, number>();
  const open = (lo: number, hi: number): Segment => ({ lo, hi, best: candidate(xs, lo, hi, o.minSegment) });
  let segments: Segment[] = [open(0, xs.length)];
  for (;;) {
    let pick: Segment | null = null;
    for (const s of segments) if (s.best && (!pick || s.best.q > pick.best!.q)) pick = s;
    if (!pick || !pick.best) return found;
    const p = permutationP(xs, pick.best, o, rng);
    if (p > o.alpha) {
      pick.best = null;
      continue;
    }
    const { at } = pick.best;
    found.set(at, p);
    segments = segments.filter((s) => s !== pick);
    segments.push(open(pick.lo, at), open(at, pick.hi));
  }
}

function relative(before: number, after: number, floor: number): number {
  // 0 → x has no ratio: taken against x itself, so it reads as a 100% change.
  const scale = Math.max(Math.abs(before), floor) || Math.abs(after);
  return scale === 0 ? 0 : (after - before) / scale;
}

function describe(xs: Float64Array, cuts: readonly number[], pValues: Map<number, number>, floor: number): ChangePoint[] {
  const bounds = [0, ...cuts, xs.length];
  return cuts.map((index, i) => {
    const beforeMedian = median(Array.from(xs.subarray(bounds[i]!, index)));
    const afterMedian = median(Array.from(xs.subarray(index, bounds[i + 2]!)));
    return { index, beforeMedian, afterMedian, relativeChange: relative(beforeMedian, afterMedian, floor), pValue: pValues.get(index)! };
  });
}

/**
 * The change points of `series` (per-run medians, oldest first), oldest first. Splits smaller than the minimum
 * magnitude are merged away one at a time, weakest first, as Otava does: removing one changes its neighbours'
 * medians, which may lift them over the bar or drop them under it.
 */
export function changePoints(series: readonly number[], options: ChangePointOptions = {}): ChangePoint[] {
  const o = resolve(options);
  for (const v of series) {
    if (!Number.isFinite(v)) {
      throw new PerfError({
        code: 'non_finite_sample',
        message: `change points: the series holds ${String(v)}; every median must be finite`,
      });
    }
  }
  const xs = Float64Array.from(series);
  const pValues = bisect(xs, o);
  let cuts = [...pValues.keys()].sort((a, b) => a - b);
  for (;;) {
    const points = describe(xs, cuts, pValues, o.floor);
    let weakest: ChangePoint | null = null;
    for (const c of points) {
      if (Math.abs(c.relativeChange) < o.minMagnitude && (!weakest || Math.abs(c.relativeChange) < Math.abs(weakest.relativeChange))) {
        weakest = c;
      }
    }
    if (!weakest) return points;
    cuts = cuts.filter((c) => c !== weakest.index);
  }
}
