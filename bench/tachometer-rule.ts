/**
 * tachometer's auto-sample stopping rule, re-implemented over our own measurements so bench/verdict.ts can
 * run it side by side with our sequential gate. Pure: samples in, interval and decision out.
 *
 * Source (google/tachometer): README "Auto sample" / "Auto sample conditions"; src/stats.ts
 * `summaryStats`, `computeDifference`, `horizonsResolved`; src/runner.ts `takeAdditionalSamples`; src/defaults.ts
 * (sampleSize 50, timeout 3 minutes, autoSampleConditions ['0%']). The rule: after the minimum sample size,
 * while the 95 % confidence interval of the difference of means (Student t, df = smaller sample − 1) contains
 * any condition ("horizon"), add a batch of 10 samples per benchmark; stop when every horizon lies outside the
 * interval, or when the timeout (measured from the start of auto-sampling) has passed. A relative condition
 * "10%" means both −10 % and +10 % (README table: "-10%, +10% (Same as 10%)").
 */

/** tachometer adds samples in batches of 10 per benchmark (runner.ts: "for more presentable sample sizes"). */
export const TACHOMETER_BATCH = 10;
/** tachometer's default auto-sample timeout, 3 minutes (defaults.ts `timeout = 3`). */
export const TACHOMETER_TIMEOUT_MS = 3 * 60_000;

export interface Interval {
  low: number;
  high: number;
}

export interface Difference {
  /** Candidate − baseline, in the samples' unit. */
  absolute: Interval;
  /** (candidate − baseline) / baseline, as a fraction. */
  relative: Interval;
}

// Two-sided 95 % Student t quantiles for df 1…5, where the expansion below is off by more than 0.5 %.
const T975_SMALL_DF = [12.706, 4.303, 3.182, 2.776, 2.571];
// The 97.5 % normal quantile: the limit of t as df grows.
const Z975 = 1.959964;

/**
 * The 97.5 % quantile of Student's t with `df` degrees of freedom (tachometer uses jstat.studentt.inv(0.975, df)):
 * exact table for df ≤ 5, else the Cornish–Fisher expansion of t about the normal quantile (Abramowitz & Stegun
 * 26.7.5), within 0.01 % of the exact value from df 6.
 */
export function t975(df: number): number {
  if (!(df >= 1)) return Number.POSITIVE_INFINITY;
  if (df <= T975_SMALL_DF.length) return T975_SMALL_DF[Math.floor(df) - 1]!;
  const z = Z975;
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  const g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384;
  const g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
}

function meanAndVariance(xs: readonly number[]): { mean: number; variance: number } {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  // n − 1: Bessel's correction, as tachometer's summaryStats.
  const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1);
  return { mean, variance };
}

/** tachometer's computeDifference(a, b): 95 % intervals of b − a and (b − a) / a from the sampling distributions of the means. */
export function difference(a: readonly number[], b: readonly number[]): Difference {
  const sa = meanAndVariance(a);
  const sb = meanAndVariance(b);
  // Variances of the sample means.
  const va = sa.variance / a.length;
  const vb = sb.variance / b.length;
  const t = t975(Math.min(a.length, b.length) - 1);
  const absMean = sb.mean - sa.mean;
  const absMargin = t * Math.sqrt(va + vb);
  const relMean = (sb.mean - sa.mean) / sa.mean;
  const relMargin = t * Math.sqrt((va * sb.mean ** 2 + vb * sa.mean ** 2) / sa.mean ** 4);
  return {
    absolute: { low: absMean - absMargin, high: absMean + absMargin },
    relative: { low: relMean - relMargin, high: relMean + relMargin },
  };
}

/** Relative horizons as fractions, from tachometer condition strings: "10%" → [−0.1, 0.1], "+10%" → [0.1], "0%" → [0]. */
export function parseConditions(conditions: readonly string[]): number[] {
  const out = new Set<number>();
  for (const c of conditions) {
    const m = /^([+-]?)(\d+(?:\.\d+)?)%$/.exec(c.trim());
    if (!m) throw new Error(`auto-sample condition "${c}": give a relative one such as 10%, +10% or 0%`);
    const v = Number(m[2]) / 100;
    if (m[1] !== '-') out.add(v);
    if (m[1] !== '+') out.add(-v);
  }
  return [...out].map((v) => (Object.is(v, -0) ? 0 : v)).sort((x, y) => x - y);
}

/** tachometer's horizonsResolved for one difference: no horizon lies inside the interval (ends included). */
export function horizonsResolved(d: Difference, horizons: readonly number[]): boolean {
  return horizons.every((h) => h < d.relative.low || h > d.relative.high);
}

export type TachometerOutcome =
  { kind: 'slower'; by: number } | { kind: 'faster'; by: number } | { kind: 'within'; of: number } | { kind: 'unsure' };

/**
 * What a reader concludes where sampling stopped: slower (or faster) by more than the largest horizon the
 * interval clears on that side, within ±h when the interval lies between two horizons around 0, else unsure
 * (the timeout ended it with a horizon still inside).
 */
export function outcomeOf(d: Difference, horizons: readonly number[]): TachometerOutcome {
  if (!horizonsResolved(d, horizons)) return { kind: 'unsure' };
  const below = horizons.filter((h) => h < d.relative.low);
  const above = horizons.filter((h) => h > d.relative.high);
  if (below.length && below[below.length - 1]! >= 0) return { kind: 'slower', by: below[below.length - 1]! };
  if (above.length && above[0]! <= 0) return { kind: 'faster', by: -above[0]! };
  const around = Math.min(...above.filter((h) => h > 0), ...below.filter((h) => h < 0).map((h) => -h));
  return { kind: 'within', of: around };
}

/** The verdict word of our compare that a tachometer outcome stands for, for the side-by-side table. */
export function verdictOf(o: TachometerOutcome): string {
  switch (o.kind) {
    case 'slower':
      return `fail (slower >${(o.by * 100).toFixed(0)}%)`;
    case 'faster':
      return `improved (>${(o.by * 100).toFixed(0)}%)`;
    case 'within':
      return `pass (within ±${(o.of * 100).toFixed(0)}%)`;
    case 'unsure':
      return 'unsure (timeout)';
  }
}
