/**
 * Judging a candidate run (b) against a baseline (a), metric by metric, for `perf compare` / `perf gate`
 * (DESIGN.md "Compare"). Pure: the repeats' values in, rows and a verdict out.
 *
 * A metric has REGRESSED when both hold:
 *  1. the change is real: the two-sided Mann–Whitney p, Holm-adjusted over the gated metrics compared
 *     together, is below α — or the zero-spread rule below fires; and
 *  2. the change is big enough: the (1 − α) Hodges–Lehmann confidence interval of the shift, as % of the
 *     baseline median, reaches the warn threshold in the worse direction. Severity is the highest
 *     threshold the interval reaches (error ≥ errorPct, warn ≥ warnPct).
 *
 * Why the interval's far end and not the point estimate: a true +25 % regression has a point estimate
 * above 25 % only half the time (at CV 5 % and 10 repeats its standard error is ≈ 2.3 %), so a
 * point-estimate rule would let half of all error-level regressions through the gate as warnings.
 * Judging by "the data cannot rule out ≥ errorPct" catches them ≥ 97.5 % of the time; the price is that
 * a noisy real +18 % regression can be called an error, and the reason string shows the interval so a
 * reader can see why. No-change false alarms stay controlled by step 1.
 */

import { PerfError } from '../errors.js';
import { hodgesLehmann, holmAdjust, mannWhitneyU, median, zeroSpreadNullBound } from './stats.js';
import type { MannWhitneyResult, ShiftEstimate } from './stats.js';

export interface Thresholds {
  /** Relative change (percent of the baseline median) from which a significant change warns. */
  warnPct: number;
  /** Relative change from which a significant regression of a gated metric fails the gate. */
  errorPct: number;
}

/** DESIGN.md "Compare": defaults warn +10 %, error +25 %. */
export const DEFAULT_THRESHOLDS: Thresholds = { warnPct: 10, errorPct: 25 };

/** Family-wise false-alarm rate the gate tolerates per compare: the conventional 5 %. */
export const DEFAULT_ALPHA = 0.05;

export interface MetricSamples {
  metric: string;
  /** Baseline repeats. */
  a: number[];
  /** Candidate repeats. */
  b: number[];
  /** Whether a regression here can fail the gate; non-gated metrics are reported as info at most. */
  gated: boolean;
  /** Default false: lower is better (ms, counts). */
  higherIsBetter?: boolean;
}

export type RowVerdict = 'regressed' | 'improved' | 'unchanged';
export type Severity = 'error' | 'warn' | 'info' | 'none';

export interface CompareRow {
  metric: string;
  /** Medians and repeat counts of each arm; median is NaN (JSON null) for an empty arm. */
  a: { median: number; n: number };
  b: { median: number; n: number };
  /**
   * Hodges–Lehmann shift as % of |baseline median|. null when the baseline median is 0 and the
   * candidate's is not (no relative scale; see `shift`), 0 when both medians are 0.
   */
  deltaPct: number | null;
  /** The shift's confidence interval in % of |baseline median|; `level` is its achieved confidence. */
  ci: { lowPct: number; highPct: number; level: number } | null;
  /** Two-sided Mann–Whitney p. */
  pValue: number | null;
  /**
   * Holm-adjusted p within this row's family (gated metrics together, non-gated together). Metrics that
   * could not reach p < α whatever the data (too few repeats, all values tied) are left out of the
   * family and show their raw p here.
   */
  pAdjusted: number | null;
  verdict: RowVerdict;
  severity: Severity;
  gated: boolean;
  /** One sentence: why this verdict, with the evidence. */
  reason: string;
  /** Hodges–Lehmann shift b − a in the metric's own unit (extension; the only scale at a 0 baseline). */
  shift: number | null;
}

export interface CompareOptions {
  thresholds: Thresholds;
  /** Per-metric overrides, e.g. { "frames.overBudget": { errorPct: 5 } } (scenario `thresholds.metrics`). */
  perMetric?: Record<string, Partial<Thresholds>>;
  /** Family-wise significance level; default 0.05. Also sets the CI level, 1 − α. */
  alpha?: number;
}

export interface CompareResult {
  verdict: 'pass' | 'warn' | 'fail';
  /** Every metric, worst first: error, warn, info, then improvements, then unchanged; by |deltaPct|. */
  rows: CompareRow[];
  /** Names of the rows whose verdict is 'unchanged', in row order. */
  unchanged: string[];
}

/** The thresholds that apply to one metric: the per-metric override merged over the defaults. */
export function thresholdsFor(metric: string, opts: Pick<CompareOptions, 'thresholds' | 'perMetric'>): Thresholds {
  const t = { ...opts.thresholds, ...(opts.perMetric?.[metric] ?? {}) };
  checkThresholds(t, metric);
  return t;
}

function checkThresholds(t: Thresholds, metric: string): void {
  const ok = Number.isFinite(t.warnPct) && Number.isFinite(t.errorPct) && t.warnPct >= 0 && t.errorPct >= t.warnPct;
  if (!ok) {
    throw new PerfError({
      code: 'bad_thresholds',
      message: `thresholds for ${metric}: need 0 ≤ warn ≤ error, got warn ${t.warnPct}%, error ${t.errorPct}%`,
      suggestion: 'Set thresholds like { warn: 10%, error: 25% } in the scenario.',
    });
  }
}

/** Everything measured about one metric before the family-wide Holm step. */
interface Analysis {
  s: MetricSamples;
  medA: number;
  medB: number;
  mw: MannWhitneyResult | null;
  hl: ShiftEstimate | null;
  /** Each arm constant, the two constants differ, and that pattern is rare enough under "no change". */
  zeroSpread: boolean;
  zeroSpreadBound: number;
  /** Could this test reach p < α at all? Otherwise it stays out of the Holm family. */
  testable: boolean;
  /** Every repeat of both runs gave the same value. */
  identical: boolean;
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warn: 1, info: 2, none: 3 };
const VERDICT_RANK: Record<RowVerdict, number> = { regressed: 0, improved: 1, unchanged: 2 };

/**
 * Judge every metric of a candidate run against the baseline; see the file header for the rule.
 *
 * Design points:
 * - Multiple testing: a compare checks dozens of metrics; at α = 0.05 each, some would "regress" by
 *   chance on every PR. Holm's step-down adjustment over the GATED metrics keeps the chance of any false
 *   gated regression ≤ α. Non-gated metrics form their own family so informational rows do not dilute
 *   the gate's power (and vice versa). Following Tarone (1990, "A modified Bonferroni method for discrete
 *   data", Biometrics 46:515–522), a metric whose test cannot reach p < α whatever the data — all values
 *   tied, or too few repeats (3 vs 3: p ≥ 0.1) — cannot produce a false rejection, so it is left out of
 *   the family instead of making the others pay for it.
 * - Zero-spread rule (deterministic counts): if every baseline repeat gives one value and every candidate
 *   repeat another (layouts per frame 2, 2, 2 → 3, 3, 3), the change is called significant when
 *   `zeroSpreadNullBound(n1, n2)` ≤ α. Repeat-to-repeat noise was observed to be exactly zero in both
 *   runs, so noise cannot explain the difference; and the bound caps the chance of that pattern under
 *   "no change" for ANY distribution, even a count that flips between two values (≤ 3.5 % at 3 + 3
 *   repeats, ≤ 0.84 % at 4 + 4). For continuous timings the pattern has probability 0 under no change, so
 *   the A/A false-alarm rate of timing metrics is untouched. It bypasses Holm because it is the only way
 *   such a metric can ever be significant with 3 repeats (Holm over k metrics would need p < α/k); the
 *   bound is per metric.
 * - Zero baseline: with a baseline median of 0 a relative change is undefined (0 → 1 is "+∞ %"), so the
 *   absolute shift is judged against the thresholds read per unit of the metric: warnPct 10 means a shift
 *   of 0.1 units, errorPct 25 means 0.25. For whole counts (frames.overBudget, longFrames.count) any
 *   consistent new occurrence is then error-level; for per-frame counts 0 → 0.1 per frame warns.
 * - Empty arm: verdict 'unchanged', reason 'no samples' — nothing can be judged, and a missing metric is
 *   the runner's problem to report, not a regression.
 */
export function compareMetrics(samples: MetricSamples[], opts: CompareOptions): CompareResult {
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  if (!(alpha > 0 && alpha < 1)) {
    throw new PerfError({ code: 'bad_alpha', message: `compare: alpha must be within (0, 1), got ${alpha}` });
  }
  checkThresholds(opts.thresholds, 'all metrics');
  const seen = new Set<string>();
  for (const s of samples) {
    if (seen.has(s.metric)) {
      throw new PerfError({ code: 'duplicate_metric', message: `compare: metric ${s.metric} given twice` });
    }
    seen.add(s.metric);
  }

  const analyses = samples.map((s) => analyse(s, alpha));

  // Holm within each family, over the testable metrics only.
  const pAdjusted = new Map<Analysis, number>();
  for (const gated of [true, false]) {
    const family = analyses.filter((x) => x.s.gated === gated && x.testable && x.mw);
    const adjusted = holmAdjust(family.map((x) => x.mw!.pValue));
    family.forEach((x, i) => pAdjusted.set(x, adjusted[i]!));
  }
  const familySize = {
    gated: analyses.filter((x) => x.s.gated && x.testable).length,
    info: analyses.filter((x) => !x.s.gated && x.testable).length,
  };

  const rows = analyses.map((x) => judge(x, thresholdsFor(x.s.metric, opts), alpha, pAdjusted.get(x), familySize));
  const keyed = rows.map((row) => ({ row, magnitude: magnitudeOf(row) }));
  keyed.sort(
    (p, q) =>
      SEVERITY_RANK[p.row.severity] - SEVERITY_RANK[q.row.severity] ||
      VERDICT_RANK[p.row.verdict] - VERDICT_RANK[q.row.verdict] ||
      q.magnitude - p.magnitude ||
      (p.row.metric < q.row.metric ? -1 : p.row.metric > q.row.metric ? 1 : 0),
  );
  const sorted = keyed.map((k) => k.row);

  const gatedRegressions = sorted.filter((r) => r.gated && r.verdict === 'regressed');
  const verdict = gatedRegressions.some((r) => r.severity === 'error')
    ? 'fail'
    : gatedRegressions.some((r) => r.severity === 'warn')
      ? 'warn'
      : 'pass';
  return { verdict, rows: sorted, unchanged: sorted.filter((r) => r.verdict === 'unchanged').map((r) => r.metric) };
}

/** Sort key: size of the change in % of the baseline (per unit at a 0 baseline), 0 when unknown. */
function magnitudeOf(row: CompareRow): number {
  if (row.deltaPct !== null) return Math.abs(row.deltaPct);
  return row.shift === null ? 0 : Math.abs(row.shift) * 100;
}

function analyse(s: MetricSamples, alpha: number): Analysis {
  const medA = s.a.length ? median(s.a) : NaN;
  const medB = s.b.length ? median(s.b) : NaN;
  if (!s.a.length || !s.b.length) {
    return { s, medA, medB, mw: null, hl: null, zeroSpread: false, zeroSpreadBound: 1, testable: false, identical: false };
  }
  const mw = mannWhitneyU(s.a, s.b);
  const hl = hodgesLehmann(s.a, s.b, 1 - alpha);
  const constant = (xs: number[]): boolean => xs.every((v) => v === xs[0]);
  const zeroSpreadBound = zeroSpreadNullBound(s.a.length, s.b.length);
  const bothConstant = constant(s.a) && constant(s.b);
  const zeroSpread = bothConstant && medA !== medB && zeroSpreadBound <= alpha;
  const identical = bothConstant && medA === medB;
  return { s, medA, medB, mw, hl, zeroSpread, zeroSpreadBound, testable: mw.minAttainableP < alpha, identical };
}

function judge(
  x: Analysis,
  t: Thresholds,
  alpha: number,
  pAdj: number | undefined,
  familySize: { gated: number; info: number },
): CompareRow {
  const { s, medA, medB, mw, hl } = x;
  const base = {
    metric: s.metric,
    a: { median: medA, n: s.a.length },
    b: { median: medB, n: s.b.length },
    gated: s.gated,
  };
  if (!mw || !hl) {
    return {
      ...base,
      deltaPct: null,
      ci: null,
      pValue: null,
      pAdjusted: null,
      verdict: 'unchanged',
      severity: 'none',
      reason: 'no samples',
      shift: null,
    };
  }

  // Relative scale: |baseline median|, or one unit of the metric when the baseline median is 0.
  const zeroBase = medA === 0;
  const scale = zeroBase ? 1 : Math.abs(medA);
  const pct = (v: number): number => (100 * v) / scale;
  const deltaPct = zeroBase ? (medB === 0 ? 0 : null) : pct(hl.shift);
  const ci = zeroBase ? null : { lowPct: pct(hl.low), highPct: pct(hl.high), level: hl.level };
  const pAdjusted = pAdj ?? mw.pValue;
  const row = { ...base, deltaPct, ci, pValue: mw.pValue, pAdjusted, shift: hl.shift };
  const unchanged = (reason: string): CompareRow => ({ ...row, verdict: 'unchanged', severity: 'none', reason });

  // Orient so that positive = worse.
  const sign = s.higherIsBetter ? -1 : 1;

  const worsePoint = sign * hl.shift;
  const worseFar = pct(sign > 0 ? hl.high : -hl.low); // interval end in the worse direction
  const betterFar = pct(sign > 0 ? -hl.low : hl.high); // interval end in the better direction

  const units = zeroBase ? ' units' : '%';
  // A threshold shown in the direction it applies: +25% for ms, −25% for a higher-is-better metric.
  const show = (v: number): string => fmtSigned((zeroBase ? v / 100 : v) * sign) + units;
  const evidence = zeroBase
    ? `baseline median 0, judged by absolute shift ${fmtSigned(hl.shift)} (${levelPct(hl.level)} CI ${fmtSigned(hl.low)}…${fmtSigned(hl.high)}) against warn ${fmtNum(t.warnPct / 100)} / error ${fmtNum(t.errorPct / 100)} units`
    : `${fmtSigned(pct(hl.shift))}% (${levelPct(hl.level)} CI ${fmtSigned(pct(hl.low))}…${fmtSigned(pct(hl.high))}%)`;

  if (x.identical) return unchanged('identical in both runs');

  let significant: boolean;
  let why: string;
  const familyN = s.gated ? familySize.gated : familySize.info;
  if (x.zeroSpread) {
    significant = true;
    why = `zero spread in both runs (${fmtNum(medA)} → ${fmtNum(medB)}); chance of that under no change ≤ ${fmtP(x.zeroSpreadBound)}`;
  } else if (!x.testable) {
    return unchanged(
      `too few repeats (${s.a.length} vs ${s.b.length}) or too many ties to reach significance: smallest attainable p ${fmtP(mw.minAttainableP)} ≥ α ${fmtNum(alpha)}; ${evidence}`,
    );
  } else {
    significant = pAdjusted < alpha;
    why = `p ${fmtP(mw.pValue)}, Holm-adjusted ${fmtP(pAdjusted)} over ${familyN} ${s.gated ? 'gated' : 'non-gated'} metric${familyN === 1 ? '' : 's'}`;
  }
  if (!significant) return unchanged(`within noise: ${why} ≥ α ${fmtNum(alpha)}; ${evidence}`);
  if (worsePoint === 0) return unchanged(`significant (${why}) but the estimated shift is 0`);

  if (worsePoint > 0) {
    const level = worseFar >= t.errorPct ? 'error' : worseFar >= t.warnPct ? 'warn' : null;
    if (!level) {
      return unchanged(`significant (${why}) but smaller than warn ${show(t.warnPct)}: ${evidence}`);
    }
    const threshold = level === 'error' ? t.errorPct : t.warnPct;
    return {
      ...row,
      verdict: 'regressed',
      severity: s.gated ? level : 'info',
      reason: `regressed ${evidence}, reaching the ${level} threshold ${show(threshold)}; ${why}${s.gated ? '' : ' (not gated)'}`,
    };
  }
  if (betterFar >= t.warnPct) {
    return { ...row, verdict: 'improved', severity: 'none', reason: `improved ${evidence}; ${why}` };
  }
  return unchanged(`significant improvement (${why}) but smaller than ${show(-t.warnPct)}: ${evidence}`);
}

// ─── formatting for reason strings ──────────────────────────────────────────────────────────────────

function fmtNum(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(3)));
}

function fmtSigned(v: number): string {
  const s = Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : String(Number(v.toPrecision(2)));
  return v > 0 ? `+${s}` : s;
}

function fmtP(p: number): string {
  return p < 0.001 ? p.toExponential(1) : String(Number(p.toPrecision(2)));
}

function levelPct(level: number): string {
  return `${Number((level * 100).toPrecision(3))}%`;
}
