/**
 * Which side of a step a commit is on (perf bisect's midpoints): Wald's sequential probability ratio test between two
 * simple hypotheses, "no change" (the commit's shift against GOOD is 0) and "the whole step" (its shift is D, what
 * GOOD → BAD moved), on a normal approximation of the shift estimate (A. Wald, "Sequential Analysis", 1947, §3.2 and
 * §5.3: for a normal mean with known σ the log likelihood ratio is D·(x − D/2)/σ², and the test stops the first time
 * it leaves (ln(β/(1 − α)), ln((1 − β)/α)); here β = α for one metric).
 *
 * Why not ask the shift's interval to clear D/2, as a gate asks it to clear a threshold: that rule answers "is the
 * shift above D/2 for every shift it could be", a composite question, and at n = 5 per arm its 90% interval is about
 * as wide as D/2 itself, so a commit sitting on one of the two sides was undecided at the first look about half the
 * time (each extra look is four more repeats). A bisect's commits are either before the culprit (shift ≈ 0) or after
 * it (shift ≈ D): the two simple hypotheses are the question, and the SPRT is the test that needs the fewest
 * samples on average for given error rates between two simple hypotheses (Wald & Wolfowitz 1948, "Optimum character
 * of the sequential probability ratio test", Ann. Math. Statist. 19:326–339).
 *
 * σ is not known: the estimate's standard error is read off its rank interval (Hodges–Lehmann, from the compare), as
 * half its width over the normal quantile of its achieved level. Wald's bounds (error ≤ α/(1 − β)) assume σ known; the
 * simulations in test/step-side.test.ts (5 repeats per arm, then 2 more per look, up to 20; CV 7–10% with outliers)
 * measure the real rates: under 1% on either side at α = 0.05, with a fifth fewer repeats than the interval rule.
 *
 * Several metrics followed at once (the endpoints regressed on k of the gate's primaries): a commit is bad when any of
 * them is like the step, good when all of them are like GOOD. Each metric's test then puts "the whole step" at α/k and
 * "no change" at α, Wald's bounds for unequal error rates (§3.2: ln((1 − β)/α) and ln(β/(1 − α))): a commit before the
 * culprit is called bad only if one of the k tests errs, at most k · α/k = α (Bonferroni), and a commit after it is
 * called good only if every test says GOOD, the one on the metric that carries its step included, at most α.
 * Pure: numbers in, a side out.
 */
import { normalQuantile } from './stats.js';

export interface StepShift {
  /** The commit's shift against GOOD, % of GOOD's median, oriented so that the step's direction is positive. */
  shiftPct: number;
  /** Its interval in the same orientation (lowPct ≤ highPct). */
  lowPct: number;
  highPct: number;
  /** The interval's achieved two-sided level (0..1). */
  level: number;
}

export interface StepSide {
  /** good: like GOOD (no change); bad: like BAD (the whole step); undecided: more repeats are needed. */
  side: 'good' | 'bad' | 'undecided';
  /** The log likelihood ratio of "the whole step" over "no change"; null when the interval gives no spread. */
  llr: number | null;
  /** The test's bound for "the whole step": llr at or above it decides bad. */
  bound: number;
  /** Its bound for "no change" (negative): llr at or below it decides good. ±bound when the rates are equal. */
  goodBound: number;
}

// Below this the interval is a zero-spread one (identical repeats): no σ to read, the compare's own rules judge it.
const MIN_SE_PCT = 1e-9;

/**
 * Wald's SPRT of shift 0 against shift `stepPct` (> 0); see the file header. `alpha` is the compare's (its interval's
 * level is 1 − 2α) and the rate of calling a commit after the culprit good; calling one before it bad is held at
 * α / `family`, the number of metrics judged together (1: α each way).
 */
export function stepSide(x: StepShift, stepPct: number, alpha: number, family = 1): StepSide {
  const falseBad = alpha / family;
  const bound = Math.log((1 - alpha) / falseBad);
  const goodBound = Math.log(alpha / (1 - falseBad));
  const undecided: StepSide = { side: 'undecided', llr: null, bound, goodBound };
  const finite = [x.shiftPct, x.lowPct, x.highPct, x.level, stepPct].every(Number.isFinite);
  const valid = Number.isInteger(family) && family >= 1 && alpha > 0 && alpha < 0.5;
  // An interval below 1 − 2α (too few repeats for the level: stats.ts then gives [min, max]) overstates σ's precision.
  if (!finite || !valid || !(stepPct > 0) || x.level < 1 - 2 * alpha - 0.01 || x.level >= 1) return undecided;
  const se = (x.highPct - x.lowPct) / (2 * normalQuantile((1 + x.level) / 2));
  if (!(se > MIN_SE_PCT)) return undecided;
  const llr = (stepPct * (x.shiftPct - stepPct / 2)) / (se * se);
  return { side: llr >= bound ? 'bad' : llr <= goodBound ? 'good' : 'undecided', llr, bound, goodBound };
}
