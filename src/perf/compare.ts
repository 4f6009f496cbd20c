/**
 * Judging a candidate (b) against a baseline (a), metric by metric, at one look of a possibly
 * sequential comparison (DESIGN.md "Compare", "Verdicts"). Pure: the repeats' values in, rows and a
 * verdict out; the caller (compare/roles.ts, compare/primaries.ts) decides which metric plays which role.
 *
 * Roles. PRIMARY metrics decide the verdict: a small family (≤ 8 by default, metrics.ts), so that the
 * multiplicity correction leaves each enough α to be caught with a handful of repeats. SECONDARY
 * metrics are judged the same way in a family of their own and shown, but never fail the gate. SHOWN
 * metrics (no better direction, or not comparable here: another host, an undersized per-frame ratio)
 * get their delta printed and no judgement.
 *
 * A metric REGRESSED when both hold:
 *  1. the change is real: its one-sided p-value (Mann–Whitney, worse direction) is at or below the
 *     boundary this look allows it — a group-sequential boundary (Lan & DeMets 1983, Pocock-type
 *     spending; sequential.ts) at the metric's share of α in the family's Holm procedure; and
 *  2. the change is big enough: the Hodges–Lehmann shift ESTIMATE, as % of the baseline median (or of the
 *     metric's floor when the baseline is below it), is past the warn threshold. Severity follows the
 *     estimate: error past the error threshold, else warn. The (1 − 2α) interval is shown as evidence.
 *
 * Why the estimate and not the interval's far end: a noisy +17% change whose interval reaches +30% is a
 * warn-size change that could be larger, not an error; calling it an error makes the gate's severity a
 * measure of its own uncertainty. The sequential design buys the certainty instead: while a primary
 * metric's estimate is past warn but the samples cannot decide, it is INCONCLUSIVE and more repeats
 * are run; at the last look it stays inconclusive with `needRepeats`, never a silent "unchanged".
 *
 * Decided: a primary row is decided when more repeats are unlikely to change its part in the verdict —
 * it regressed with a settled severity (a sequential rejection is final), or its estimate is below warn
 * and its interval rules out an error-level regression (futility; non-binding, so it costs no α). The
 * caller stops sampling when every primary row is decided, or at once when an error is certain.
 */

import { PerfError } from '../errors.js';
import type { RowAttribution } from './attribution.js';
import type { Better } from './metrics.js';
import { hodgesLehmannPaired, wilcoxonSignedRank } from './paired.js';
import { finalNominalP, type SpendingKind } from './sequential.js';
import { hodgesLehmann, mannWhitneyU, median, normalQuantile, poissonRateTest, pooledSigma, stddev, zeroSpreadNullBound } from './stats.js';

export interface Thresholds {
  /** Relative change (percent of the baseline median) from which a real change warns. */
  warnPct: number;
  /** Relative change from which a real regression of a primary metric fails the gate. */
  errorPct: number;
}

/** DESIGN.md "Compare": defaults warn +10 %, error +25 %. */
export const DEFAULT_THRESHOLDS: Thresholds = { warnPct: 10, errorPct: 25 };

/** False-alarm rate the gate tolerates per compare, over every look and every primary metric: the conventional 5 %. */
export const DEFAULT_ALPHA = 0.05;

/** Pocock-type spending: it spends α early, so a clear regression is caught at the first look or two. */
export const DEFAULT_SPENDING: SpendingKind = 'pocock';

/** needRepeats is the sample size at which the observed shift would be caught with this power (Noether 1987's convention). */
const NEED_POWER = 0.8;
/** Asymptotic relative efficiency of Mann–Whitney against the t-test on normal data, 3/π (Hodges & Lehmann 1956). */
const MW_EFFICIENCY = 3 / Math.PI;
// 1000 repeats: past this no practical run decides it; needRepeats is then reported as null.
const MAX_NEED = 1000;

export type MetricRole = 'primary' | 'secondary' | 'shown';

export interface MetricSamples {
  metric: string;
  /** Baseline repeats. */
  a: number[];
  /** Candidate repeats. */
  b: number[];
  role: MetricRole;
  better: Better;
  /**
   * The smallest baseline a relative change is taken against (metrics.ts `floor`): below it, shifts are
   * measured as a share of the floor. 0 = the baseline median only.
   */
  floor: number;
  /**
   * The app's own work as a whole count (layouts, style recalcs): when each arm is constant and the two
   * constants differ, repeat-to-repeat noise was observed to be zero and cannot explain the change
   * (`zeroSpreadNullBound`). Never set for machine-paced counts or ratios.
   */
  exact?: boolean;
  /**
   * Machine-paced events (frames over budget, dropped frames): the per-repeat event counts and
   * exposures (1 per repeat, or painted frames for a per-frame form). The change must also pass the
   * Poisson rate test on them, so that a lucky zero spread of small counts is not taken as precision.
   */
  events?: { a: number[]; b: number[]; exposureA: number[]; exposureB: number[] };
  /** Why this metric has this role, when it is not the obvious one (shown in the reason). */
  note?: string;
  /** Sample sizes at the EARLIER looks of a sequential comparison; empty or absent for a fixed compare. */
  looks?: { a: number; b: number }[];
  /** Sample sizes the design reaches at its last look; default this look's (a fixed compare: t = 1). */
  maxN?: { a: number; b: number };
  /**
   * Why the run without samples of this metric could not have measured it (its driver does not produce
   * it). A primary metric that one run measured and the other did not is otherwise a lost measurement,
   * which fails the compare.
   */
  unmeasurable?: string;
  /**
   * A primary candidate the noise rule set aside (too noisy to tell a warn-size change within maxRepeat):
   * it is tested with the primaries at a smaller weight (SET_ASIDE_WEIGHT), decides the verdict when that smaller
   * share still rejects "no change", and holds the gate (inconclusive, more repeats) while its estimate is
   * past warn. Only with role 'primary'. The string is why it was set aside.
   */
  setAside?: string;
  /**
   * The repeats of one interleaved round, aligned (compare/pairs.ts): when set, the test and the shift's interval are
   * those of the paired differences b − a (perf/paired.ts), which cancel what each round's two repeats shared.
   */
  pairs?: { a: number[]; b: number[] };
}

/**
 * The weight of a set-aside hypothesis in the deciding family's weighted Holm procedure, a primary's being 1: each
 * is tested at α·w / (the remaining weight), step-down, so the family's false-alarm rate stays at most α (Holm 1979,
 * Scand. J. Statist. 6:65–70, weighted form; Bretz et al. 2009, "A graphical approach to sequentially rejective
 * multiple test procedures", Stat. Med. 28:586–604). A quarter: a set-aside metric is noisy, so what it can tell at
 * all is a large change, which a quarter of a share still rejects in a few repeats, while each primary gives up
 * little (α/6 → α/6.25 beside one set-aside metric).
 */
export const SET_ASIDE_WEIGHT = 0.25;

/** `missing`: one run has samples of the metric and the other none: a lost measurement (DESIGN.md "Verdicts"). */
export const ROW_VERDICTS = ['regressed', 'improved', 'unchanged', 'inconclusive', 'changed', 'missing'] as const;
export type RowVerdict = (typeof ROW_VERDICTS)[number];
export const SEVERITIES = ['error', 'warn', 'info', 'none'] as const;
export type Severity = (typeof SEVERITIES)[number];
export type Direction = 'worse' | 'better';

export interface CompareRow {
  metric: string;
  /** Medians and repeat counts of each arm; median is NaN (JSON null) for an empty arm. */
  a: { median: number; n: number };
  b: { median: number; n: number };
  /** Hodges–Lehmann shift as % of the scale (the baseline median, or the floor when the baseline is below it). */
  deltaPct: number | null;
  /** What deltaPct is a percentage of. */
  scale: { kind: 'baseline' | 'floor'; value: number } | null;
  /** The shift's (1 − 2α) interval in % of the scale; `level` is its achieved confidence. */
  ci: { lowPct: number; highPct: number; level: number } | null;
  /** One-sided p in the worse direction (two-sided for a shown metric without a direction). */
  pValue: number | null;
  /** The nominal level the p-value had to reach at this look (its share of α after Holm, on its sequential boundary). */
  pNeeded: number | null;
  verdict: RowVerdict;
  severity: Severity;
  /** A primary metric: it decides the verdict. */
  gated: boolean;
  role: MetricRole;
  /** Set aside by the noise rule (MetricSamples.setAside): gated at a smaller share of α; why. */
  setAside?: string;
  /** More repeats could not change this row's part in the verdict. */
  decided: boolean;
  /** For an inconclusive row: repeats per arm that would decide it at the observed noise (null: more than 1000, or unreachable). */
  needRepeats?: number | null;
  /** One sentence: why this verdict, with the evidence. */
  reason: string;
  /** Hodges–Lehmann shift b − a in the metric's own unit. */
  shift: number | null;
  /** Where the change is (issue 27): set on a regressed or inconclusive primary row by the comparison of two run files. */
  attribution?: RowAttribution;
}

export interface CompareOptions {
  thresholds: Thresholds;
  /** Per-metric overrides, e.g. { "frames.overBudget": { errorPct: 5 } } (scenario `thresholds.metrics`). */
  perMetric?: Record<string, Partial<Thresholds>>;
  /** Family-wise false-alarm rate over all looks; default 0.05. The interval shown is the (1 − 2α) one. */
  alpha?: number;
  spending?: SpendingKind;
  /**
   * Rejections made at earlier looks of this sequential comparison: final, whatever this look's p says
   * (a group-sequential test stops a hypothesis at its first crossing).
   */
  rejected?: Readonly<Record<string, Direction>>;
  /** The baseline's repeats are fixed (a stored baseline): needRepeats counts the candidate's alone. */
  fixedBaseline?: boolean;
  /**
   * A set-aside metric below warn stays undecided while its interval reaches past error, as a primary's does, instead
   * of settling on its estimate (perf bisect's endpoints, where "not reproduced" ends the search). Futility spends no
   * α: the family's false-alarm rate is the same; the comparison only samples longer.
   */
  holdSetAside?: boolean;
}

export type CompareVerdict = 'pass' | 'warn' | 'fail' | 'inconclusive';

export interface CompareResult {
  verdict: CompareVerdict;
  /** Every primary row is decided, or an error-level regression is: more repeats cannot change the verdict. */
  decided: boolean;
  /** Worst first: error, warn, inconclusive, info, improvements, changes, then unchanged; by size. */
  rows: CompareRow[];
  /** Names of the rows whose verdict is 'unchanged', in row order. */
  unchanged: string[];
  /** Rejections so far (pass to the next look as `rejected`). */
  rejected: Record<string, Direction>;
  /**
   * Set when no primary metric could be significant at these sample sizes whatever the data (e.g. 3 vs 3
   * repeats: the smallest possible p is 0.05): the compare cannot detect its thresholds at all.
   */
  blind?: string;
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

/** Everything measured about one metric before the family-wide step. */
interface Analysis {
  s: MetricSamples;
  medA: number;
  medB: number;
  /** Divisor of deltaPct. */
  scale: number;
  scaleKind: 'baseline' | 'floor';
  /** The shift estimate and its (1 − 2α) interval: Hodges–Lehmann, or the Poisson rate difference for events. */
  hl: Interval | null;
  /** One-sided p-values, worse and better direction (after the zero-spread and Poisson rules). */
  pWorse: number;
  pBetter: number;
  /** Two-sided p for shown metrics. */
  pTwoSided: number;
  /** The smallest one-sided p these sizes and ties could give: above the boundary, the metric cannot be rejected. */
  minP: number;
  identical: boolean;
  /** Why the p is what it is: zero spread, Poisson floor. */
  pNote: string;
  /** Information fractions of the looks so far, this one last. */
  fractions: number[];
  /** Shift in the worse direction (positive = worse), % of scale; and the interval's ends in that orientation. */
  worsePct: number;
  worseHighPct: number;
  worseLowPct: number;
}

interface Interval {
  shift: number;
  low: number;
  high: number;
  level: number;
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warn: 1, info: 2, none: 3 };
const VERDICT_RANK: Record<RowVerdict, number> = { missing: 0, regressed: 1, inconclusive: 2, improved: 3, changed: 4, unchanged: 5 };

/** Judge every metric at this look; see the file header for the rule. */
export function compareMetrics(samples: MetricSamples[], opts: CompareOptions): CompareResult {
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  if (!(alpha > 0 && alpha < 0.5)) {
    throw new PerfError({ code: 'bad_alpha', message: `compare: alpha must be within (0, 0.5), got ${alpha}` });
  }
  const spending = opts.spending ?? DEFAULT_SPENDING;
  checkThresholds(opts.thresholds, 'all metrics');
  const seen = new Set<string>();
  for (const s of samples) {
    if (seen.has(s.metric)) throw new PerfError({ code: 'duplicate_metric', message: `compare: metric ${s.metric} given twice` });
    seen.add(s.metric);
  }
  const rejectedBefore = opts.rejected ?? {};

  const analyses = samples.map((s) => analyse(s, alpha));
  const thresholds = new Map(analyses.map((x) => [x, thresholdsFor(x.s.metric, opts)]));

  // Holm per family and direction (families, holm below).
  const rejected: Record<string, Direction> = {};
  const needed = new Map<Analysis, number>();
  for (const fam of families(analyses, alpha)) {
    for (const dir of ['worse', 'better'] as const) holm(fam.members, fam.alpha, dir, { rejectedBefore, rejected, needed, spending });
  }

  const rows = analyses.map((x) =>
    judge(
      x,
      thresholds.get(x)!,
      alpha,
      rejected[x.s.metric],
      needed.get(x) ?? null,
      spending,
      opts.fixedBaseline === true,
      opts.holdSetAside,
    ),
  );
  const sorted = rows
    .map((row) => ({ row, magnitude: magnitudeOf(row) }))
    .sort(
      (p, q) =>
        SEVERITY_RANK[p.row.severity] - SEVERITY_RANK[q.row.severity] ||
        VERDICT_RANK[p.row.verdict] - VERDICT_RANK[q.row.verdict] ||
        q.magnitude - p.magnitude ||
        (p.row.metric < q.row.metric ? -1 : p.row.metric > q.row.metric ? 1 : 0),
    )
    .map((k) => k.row);

  const { verdict, decided } = verdictOf(sorted);
  const judgeable = analyses.filter((x) => x.s.role === 'primary' && x.hl && !x.identical && x.s.better !== 'none');
  const blind =
    judgeable.length > 0 && judgeable.every((x) => x.minP > boundaryP(x.fractions, alpha / judgeable.length, spending))
      ? `no primary metric that varied (${judgeable.map((x) => x.s.metric).join(', ')}) can be significant at ` +
        `${describeSizes(judgeable)} whatever the data (the smallest possible p is ` +
        `${fmtP(Math.min(...judgeable.map((x) => x.minP)))}, the gate needs ≤ ` +
        `${fmtP(Math.max(...judgeable.map((x) => boundaryP(x.fractions, alpha / judgeable.length, spending))))}): run more repeats`
      : undefined;
  return {
    verdict,
    decided,
    rows: sorted,
    unchanged: sorted.filter((r) => r.verdict === 'unchanged').map((r) => r.metric),
    rejected,
    ...(blind ? { blind } : {}),
  };
}

/** A family of hypotheses tested together under (weighted) Holm at its own level. */
interface TestFamily {
  members: Analysis[];
  alpha: number;
}

/** A hypothesis's weight in its family (SET_ASIDE_WEIGHT for a set-aside primary, else 1). */
const weightOf = (x: Analysis): number => (x.s.setAside !== undefined ? SET_ASIDE_WEIGHT : 1);

/**
 * The families: the deciding one (primaries, with the set-aside ones at a smaller weight) and the secondary metrics at
 * α in a family of their own (never gated).
 */
function families(analyses: readonly Analysis[], alpha: number): TestFamily[] {
  const judged = (x: Analysis): boolean => x.hl !== null && !x.identical && x.s.better !== 'none';
  return [
    { members: analyses.filter((x) => judged(x) && x.s.role === 'primary'), alpha },
    { members: analyses.filter((x) => judged(x) && x.s.role === 'secondary'), alpha },
  ];
}

interface HolmState {
  rejectedBefore: Readonly<Record<string, Direction>>;
  rejected: Record<string, Direction>;
  needed: Map<Analysis, number>;
  spending: SpendingKind;
}

/**
 * Weighted Holm on sequential boundaries (graphical form: Maurer & Bretz 2013, "Multiple testing in group sequential
 * trials using graphical approaches", Stat. Biopharm. Res. 5:311–320): each remaining hypothesis is tested at
 * α·w / (the remaining weight) on its own boundary; every one that crosses is rejected, its α passes to the rest,
 * repeat. A metric that could not cross even with complete separation is left out (Tarone 1990, Biometrics 46:515).
 */
function holm(family: readonly Analysis[], alpha: number, dir: Direction, st: HolmState): void {
  if (!family.length) return;
  const level = (x: Analysis, share: number): number => boundaryP(x.fractions, share, st.spending);
  const weight = (xs: readonly Analysis[]): number => xs.reduce((t, x) => t + weightOf(x), 0);
  // Tarone: cannot cross at the family's full α → cannot be a false rejection; it does not dilute the others.
  let remaining = family.filter((x) => !st.rejectedBefore[x.s.metric] && x.minP <= level(x, alpha));
  // Earlier rejections are final, and they free their share of α (Holm's step-down).
  for (const x of family) if (st.rejectedBefore[x.s.metric] === dir) st.rejected[x.s.metric] = dir;
  const before = family.filter((x) => st.rejectedBefore[x.s.metric] === dir);
  const total = weight(remaining) + weight(before);
  let freed = weight(before);
  for (;;) {
    const share = (x: Analysis): number => (alpha * weightOf(x)) / Math.max(weightOf(x), total - freed);
    const crossing = remaining.filter((x) => (dir === 'worse' ? x.pWorse : x.pBetter) <= level(x, share(x)));
    for (const x of remaining) if (dir === 'worse') st.needed.set(x, level(x, share(x)));
    if (crossing.length === 0) break;
    for (const x of crossing) st.rejected[x.s.metric] = dir;
    remaining = remaining.filter((x) => !crossing.includes(x));
    freed += weight(crossing);
  }
  if (dir === 'worse') {
    for (const x of family) if (!st.needed.has(x)) st.needed.set(x, level(x, (alpha * weightOf(x)) / Math.max(weightOf(x), total)));
  }
}

/** The compare's verdict from its rows (the primary ones decide), and whether more repeats could change it. */
export function verdictOf(rows: readonly CompareRow[]): Pick<CompareResult, 'verdict' | 'decided'> {
  const primary = rows.filter((r) => r.gated);
  // A lost primary measurement fails like an error-level regression: a broken probe must never read as a pass.
  const errors = primary.filter((r) => (r.verdict === 'regressed' || r.verdict === 'missing') && r.severity === 'error');
  // No primary judged at all (a driver that measures none of the family, frames too few to count): nothing decided a
  // pass, so it is never one (a Firefox scroll 2.6× slower read PASS, judged on secondaries alone).
  const verdict: CompareVerdict = errors.length
    ? 'fail'
    : primary.length === 0 || primary.some((r) => r.verdict === 'inconclusive')
      ? 'inconclusive'
      : primary.some((r) => r.verdict === 'regressed')
        ? 'warn'
        : 'pass';
  // A certain error (its whole interval past the error threshold) ends the sampling at once: nothing can undo it.
  const decided = errors.some((r) => r.decided) || primary.every((r) => r.decided);
  return { verdict, decided };
}

function describeSizes(xs: Analysis[]): string {
  const sizes = [...new Set(xs.map((x) => `${x.s.a.length} vs ${x.s.b.length}`))];
  return `${sizes.join(', ')} repeats`;
}

/** The nominal one-sided p a test must reach at the last of `fractions` with `share` of α. */
function boundaryP(fractions: readonly number[], share: number, spending: SpendingKind): number {
  return finalNominalP(share, fractions, spending);
}

/** Information of a two-sample comparison: 1 / (1/na + 1/nb), the inverse of the shift estimate's variance up to σ². */
function information(na: number, nb: number): number {
  return na > 0 && nb > 0 ? 1 / (1 / na + 1 / nb) : 0;
}

/**
 * Information fractions of every look so far, this one last (t = I_k / I_max). Looks whose fraction does
 * not grow (a failed repeat added nothing) are merged: boundaries need strictly increasing fractions.
 */
function fractionsOf(s: MetricSamples): number[] {
  const now = { a: s.a.length, b: s.b.length };
  const max = s.maxN ?? now;
  const iMax = information(max.a, max.b);
  const out: number[] = [];
  for (const look of [...(s.looks ?? []), now]) {
    const i = information(look.a, look.b);
    if (i <= 0 || iMax <= 0) continue;
    const t = Math.min(1, i / iMax);
    if (out.length && t <= out[out.length - 1]!) continue;
    out.push(t);
    if (t >= 1) break;
  }
  return out.length ? out : [1];
}

/** Sort key: size of the change in % of its scale, 0 when unknown. */
function magnitudeOf(row: CompareRow): number {
  return row.deltaPct === null ? 0 : Math.abs(row.deltaPct);
}

function analyse(s: MetricSamples, alpha: number): Analysis {
  const medA = s.a.length ? median(s.a) : NaN;
  const medB = s.b.length ? median(s.b) : NaN;
  const absA = Math.abs(medA);
  // The floor: a shift is judged against max(|baseline|, floor); with neither, against one unit.
  const scaleKind: Analysis['scaleKind'] = absA >= s.floor && absA > 0 ? 'baseline' : 'floor';
  const scale = scaleKind === 'baseline' ? absA : s.floor > 0 ? s.floor : 1;
  const base: Analysis = {
    s,
    medA,
    medB,
    scale,
    scaleKind,
    hl: null,
    pWorse: 1,
    pBetter: 1,
    pTwoSided: 1,
    minP: 1,
    identical: false,
    pNote: '',
    fractions: fractionsOf(s),
    worsePct: 0,
    worseHighPct: 0,
    worseLowPct: 0,
  };
  if (!s.a.length || !s.b.length) return base;
  if (s.pairs) return analysePaired(s, s.pairs, alpha, base);
  const mw = mannWhitneyU(s.a, s.b);
  // Events: the Poisson model's interval (the rank interval of a few small integers is all ties and
  // jumps by whole events); otherwise Hodges–Lehmann.
  const interval = (level: number): Interval => (s.events ? poissonShift(s.events, level) : hodgesLehmann(s.a, s.b, level));
  const hl = interval(1 - 2 * alpha);
  const sign = s.better === 'higher' ? -1 : 1;
  // Orient: "greater" is worse for lower-is-better metrics.
  let pWorse = sign > 0 ? mw.pGreater : mw.pLess;
  let pBetter = sign > 0 ? mw.pLess : mw.pGreater;
  let minP = mw.minAttainableOneSidedP;
  const notes: string[] = [];
  const constant = (xs: number[]): boolean => xs.every((v) => v === xs[0]);
  const bothConstant = constant(s.a) && constant(s.b);
  const identical = bothConstant && medA === medB;
  if (s.exact && bothConstant && !identical) {
    const bound = zeroSpreadNullBound(s.a.length, s.b.length);
    const worse = sign * (medB - medA) > 0;
    if (worse) pWorse = Math.min(pWorse, bound);
    else pBetter = Math.min(pBetter, bound);
    notes.push(`zero spread in both runs (${fmtNum(medA)} → ${fmtNum(medB)}): the chance of that under no change is ≤ ${fmtP(bound)}`);
  }
  if (s.exact) minP = Math.min(minP, zeroSpreadNullBound(s.a.length, s.b.length));
  if (s.events) {
    const sum = (xs: number[]): number => xs.reduce((t, v) => t + v, 0);
    const pr = poissonRateTest(sum(s.events.a), sum(s.events.exposureA), sum(s.events.b), sum(s.events.exposureB));
    const prWorse = sign > 0 ? pr.pGreater : pr.pLess;
    const prBetter = sign > 0 ? pr.pLess : pr.pGreater;
    if (prWorse > pWorse || prBetter > pBetter)
      notes.push(`as Poisson events ${fmtNum(sum(s.events.a))} → ${fmtNum(sum(s.events.b))}: p ${fmtP(Math.min(prWorse, prBetter))}`);
    // Both tests must agree: the larger p is still a valid p-value.
    pWorse = Math.max(pWorse, prWorse);
    pBetter = Math.max(pBetter, prBetter);
  }
  const pct = (v: number): number => (100 * v) / scale;
  return {
    ...base,
    hl,
    pWorse,
    pBetter,
    pTwoSided: mw.pValue,
    minP,
    identical,
    pNote: notes.join('; '),
    worsePct: pct(sign * hl.shift),
    worseHighPct: pct(sign > 0 ? hl.high : -hl.low),
    worseLowPct: pct(sign > 0 ? hl.low : -hl.high),
  };
}

/** analyse() for the paired design: Wilcoxon's signed-rank test and the one-sample Hodges–Lehmann interval of b − a. */
function analysePaired(s: MetricSamples, pairs: { a: number[]; b: number[] }, alpha: number, base: Analysis): Analysis {
  const d = pairs.b.map((v, i) => v - pairs.a[i]!);
  const w = wilcoxonSignedRank(d);
  const hl = hodgesLehmannPaired(d, 1 - 2 * alpha);
  const sign = s.better === 'higher' ? -1 : 1;
  const pct = (v: number): number => (100 * v) / base.scale;
  const constant = (xs: number[]): boolean => xs.every((v) => v === xs[0]);
  const identical = constant(s.a) && constant(s.b) && base.medA === base.medB;
  return {
    ...base,
    hl,
    pWorse: sign > 0 ? w.pGreater : w.pLess,
    pBetter: sign > 0 ? w.pLess : w.pGreater,
    pTwoSided: Math.min(1, 2 * Math.min(w.pGreater, w.pLess)),
    minP: w.minAttainableOneSidedP,
    identical,
    pNote: `paired: ${d.length} rounds of the interleaved run, signed-rank test of their differences`,
    worsePct: pct(sign * hl.shift),
    worseHighPct: pct(sign > 0 ? hl.high : -hl.low),
    worseLowPct: pct(sign > 0 ? hl.low : -hl.high),
  };
}

/**
 * Difference of two Poisson rates per unit of exposure (per repeat, or per painted frame) with its
 * normal-approximation interval, rate_b − rate_a ± z·√(S_a/E_a² + S_b/E_b²) (the Wald interval for a rate
 * difference; e.g. Agresti 2013, "Categorical Data Analysis" 3rd ed., §3.3, applied to Poisson counts).
 */
function poissonShift(e: NonNullable<MetricSamples['events']>, level: number): Interval {
  const sum = (xs: number[]): number => xs.reduce((t, v) => t + v, 0);
  const sa = sum(e.a);
  const sb = sum(e.b);
  const ea = sum(e.exposureA);
  const eb = sum(e.exposureB);
  if (!(ea > 0) || !(eb > 0)) return { shift: 0, low: 0, high: 0, level };
  // Per repeat for a count; per frame for a per-frame form (its exposure is painted frames).
  const shift = sb / eb - sa / ea;
  const se = Math.sqrt(sa / (ea * ea) + sb / (eb * eb));
  const z = normalQuantile(1 - (1 - level) / 2);
  return { shift, low: shift - z * se, high: shift + z * se, level };
}

const FUTILE = 'within noise, below warn, and not an error-size change';

/** What every judged row carries before its verdict (see judge). */
type JudgedRow = Pick<CompareRow, 'metric' | 'a' | 'b' | 'gated' | 'role' | 'deltaPct' | 'scale' | 'ci' | 'shift'>;

function judge(
  x: Analysis,
  t: Thresholds,
  alpha: number,
  rejection: Direction | undefined,
  pNeeded: number | null,
  spending: SpendingKind,
  fixedBaseline: boolean,
  holdSetAside = false,
): CompareRow {
  const { s, medA, medB, hl } = x;
  const gated = s.role === 'primary';
  const common = {
    metric: s.metric,
    a: { median: medA, n: s.a.length },
    b: { median: medB, n: s.b.length },
    gated,
    role: s.role,
    ...(s.setAside !== undefined && gated ? { setAside: s.setAside } : {}),
  };
  if (!hl) return unjudgeable(s, common);
  const pct = (v: number): number => (100 * v) / x.scale;
  const deltaPct = pct(hl.shift);
  const ci = { lowPct: pct(hl.low), highPct: pct(hl.high), level: hl.level };
  const scaleNote = x.scaleKind === 'floor' ? ` of the ${fmtNum(x.scale)} floor` : '';
  const evidence =
    `${fmtSigned(deltaPct)}%${scaleNote} (${fmtNum(medA)} → ${fmtNum(medB)}; ` +
    `${levelPct(hl.level)} interval ${fmtSigned(ci.lowPct)}…${fmtSigned(ci.highPct)}%)`;
  const row = { ...common, deltaPct, scale: { kind: x.scaleKind, value: x.scale }, ci, shift: hl.shift };
  const note = s.note ? `; ${s.note}` : '';

  if (x.identical)
    return {
      ...row,
      pValue: 1,
      pNeeded,
      verdict: 'unchanged',
      severity: 'none',
      decided: true,
      reason: `identical in every repeat of both runs${note}`,
    };

  // Shown only: the delta and a plain two-sided test, no verdict on it.
  if (s.role === 'shown' || s.better === 'none') {
    const changed = x.pTwoSided <= 2 * alpha && Math.abs(deltaPct) >= t.warnPct;
    const why = s.better === 'none' ? 'no better direction: shown, not judged' : `not judged${note || ''}`;
    return {
      ...row,
      pValue: x.pTwoSided,
      pNeeded: null,
      verdict: changed ? 'changed' : 'unchanged',
      severity: 'none',
      decided: true,
      reason: `${changed ? 'changed' : 'no clear change'} ${evidence}; ${why.replace(/^; /, '')}`,
    };
  }

  return judgeDirected(x, t, alpha, rejection, pNeeded, fixedBaseline, { row, evidence, note, gated, held: holdSetAside });
}

/**
 * Set aside, the main thread's CPU totals still hold the gate until their interval rules out an error-size regression,
 * not only while their estimate is past warn: a Tabulator grid with an 8 ms scroll handler passed `--against` at look 1
 * with script, task and thread time all set aside, estimates under warn and intervals of −70…+56 % (a core spinning,
 * load 6). Their repeat-to-repeat noise (CV 10–30 % on a busy 2-core host, bench/noise.ts) brings the interval under
 * error within maxRepeat; long-frame blocking (a sum of excesses past 50 ms, CV past 100 %) would hold every A/A to
 * maxRepeat, so it is not here.
 */
const HOLD_UNTIL_RULED_OUT: ReadonlySet<string> = new Set(['counters.scriptMs', 'counters.taskMs', 'counters.threadCpuMs']);

/** The verdict of a metric with a better direction: regressed, improved, inconclusive or unchanged, and whether it is decided. */
function judgeDirected(
  x: Analysis,
  t: Thresholds,
  alpha: number,
  rejection: Direction | undefined,
  pNeeded: number | null,
  fixedBaseline: boolean,
  shown: { row: JudgedRow; evidence: string; note: string; gated: boolean; held: boolean },
): CompareRow {
  const { s } = x;
  const { row, evidence, note, gated, held } = shown;
  const sideNote = x.pNote ? `; ${x.pNote}` : '';
  const why = `p ${fmtP(x.pWorse)}${pNeeded !== null ? ` (needs ≤ ${fmtP(pNeeded)} at this look)` : ''}${sideNote}`;
  const far = x.worseHighPct; // the interval's end in the worse direction
  const couldBe = far > x.worsePct ? `; could be as large as ${fmtSigned(far * (s.better === 'higher' ? -1 : 1))}%` : '';
  const warnShown = fmtSigned(t.warnPct * (s.better === 'higher' ? -1 : 1));
  const base = { ...row, pValue: x.pWorse, pNeeded };

  if (rejection === 'worse' && x.worsePct >= t.warnPct) {
    const level = x.worsePct >= t.errorPct ? 'error' : 'warn';
    const threshold = level === 'error' ? t.errorPct : t.warnPct;
    // The severity is settled when the whole interval is on the estimate's side of the error threshold;
    // until then more repeats may move the estimate across it.
    const settled = level === 'error' ? x.worseLowPct >= t.errorPct : far < t.errorPct;
    return {
      ...base,
      verdict: 'regressed',
      severity: gated ? level : 'info',
      decided: settled,
      reason:
        `regressed ${evidence}, past the ${level} threshold ` +
        `${fmtSigned(threshold * (s.better === 'higher' ? -1 : 1))}%${couldBe}; ${why}${gated ? '' : ' (secondary: not gated)'}${note}`,
    };
  }
  if (rejection === 'better' && -x.worsePct >= t.warnPct) {
    return { ...base, verdict: 'improved', severity: 'none', decided: true, reason: `improved ${evidence}; p ${fmtP(x.pBetter)}${note}` };
  }
  // Futility (non-binding, so it spends no α): the estimate is below warn and the interval shown rules
  // out an error-level regression. Asking the interval to clear warn itself would take 8–14 repeats per arm at
  // the ~10% repeat-to-repeat noise of CPU time measured here (bench/noise.ts), slower than a fixed
  // compare; the gate fails on errors, and a warn-size change whose estimate is still below warn is
  // what the estimate-based severity calls unchanged anyway.
  // A set-aside metric is too noisy for its interval to rule out an error in practical repeats: it holds the gate
  // only while its estimate is past warn. Except the main thread's CPU totals (HOLD_UNTIL_RULED_OUT).
  const holds = held || HOLD_UNTIL_RULED_OUT.has(s.metric);
  const futile = x.worsePct < t.warnPct && (far < t.errorPct || (gated && s.setAside !== undefined && !holds));
  if (rejection === 'worse') {
    return {
      ...base,
      verdict: 'unchanged',
      severity: 'none',
      decided: futile,
      reason: `a real change but smaller than warn ${warnShown}%: ${evidence}; ${why}${note}`,
    };
  }
  if (x.worsePct >= t.warnPct && gated) {
    const need = needRepeats(x, pNeeded ?? alpha, fixedBaseline);
    return {
      ...base,
      verdict: 'inconclusive',
      severity: 'none',
      decided: false,
      needRepeats: need,
      reason:
        `undecided: ${evidence} is past warn ${warnShown}% but within noise (${why}); ` +
        (s.setAside ? 'set aside as noisy, it holds the gate; ' : '') +
        `${need === null ? 'more repeats than practical would be needed' : `about ${need} repeats per run would decide it`}${note}`,
    };
  }
  return {
    ...base,
    verdict: 'unchanged',
    severity: 'none',
    decided: futile,
    reason: `${unchangedWords(futile, far < t.errorPct, x.worsePct >= t.warnPct)}: ${evidence}; ${why}${note}`,
  };
}

/** Why an undecided-or-unchanged directed row reads as it does. */
function unchangedWords(futile: boolean, errorRuledOut: boolean, pastWarn: boolean): string {
  if (futile) return errorRuledOut ? FUTILE : 'within noise and below warn (set aside as noisy)';
  return pastWarn ? 'undecided (secondary)' : 'within noise';
}

/** A row with no samples in one run or in both: missing (a lost measurement), or nothing to judge. */
function unjudgeable(s: MetricSamples, common: Pick<CompareRow, 'metric' | 'a' | 'b' | 'gated' | 'role'>): CompareRow {
  const empty = { ...common, deltaPct: null, scale: null, ci: null, pValue: null, pNeeded: null, decided: true, shift: null };
  if (!s.a.length && !s.b.length) return { ...empty, verdict: 'unchanged', severity: 'none', reason: 'no samples in either run' };
  const lostIn = s.a.length ? 'candidate' : 'baseline';
  const had = `the ${lostIn === 'candidate' ? 'baseline' : 'candidate'} measured it in ${Math.max(s.a.length, s.b.length)} repeat(s)`;
  if (s.unmeasurable)
    return { ...empty, verdict: 'missing', severity: 'none', reason: `not measured in the ${lostIn}: ${s.unmeasurable}; ${had}` };
  if (!common.gated) return { ...empty, verdict: 'missing', severity: 'none', reason: `no samples in the ${lostIn}; ${had} (not gated)` };
  return {
    ...empty,
    verdict: 'missing',
    severity: 'error',
    reason:
      `lost: the ${lostIn} has no value of this primary metric (its key is gone or every value is null) ` +
      `while ${had}; a broken measurement is not a pass`,
  };
}

/**
 * Repeats per arm at which the observed shift would be significant with NEED_POWER at level `level`
 * (one-sided), from the observed noise: Noether's (1987, "Sample size determination for some common
 * nonparametric tests", JASA 82:645–647) normal-theory size divided by Mann–Whitney's efficiency 3/π,
 *   n = 2 (z_{1−level} + z_power)² σ² / (δ² · 3/π)   per arm.
 * With a stored baseline of n_a repeats only the candidate grows: 1/n_a + 1/n_b = 2/n → n_b = 1/(2/n − 1/n_a).
 */
function needRepeats(x: Analysis, level: number, fixedBaseline: boolean): number | null {
  if (!x.hl) return null;
  // Paired: the differences' spread over √2 is the per-arm σ that gives the same size from the same formula.
  const sigma = x.s.pairs ? stddev(x.s.pairs.b.map((v, i) => v - x.s.pairs!.a[i]!)) / Math.SQRT2 : pooledSigma(x.s.a, x.s.b);
  const delta = Math.abs(x.hl.shift);
  if (!(sigma > 0) || !(delta > 0)) return null;
  const n = repeatsToDetect(sigma, delta, level);
  let need = n;
  if (fixedBaseline) {
    const room = 2 / n - 1 / x.s.a.length;
    if (room <= 0) return null;
    need = 1 / room;
  }
  const rounded = Math.max(Math.ceil(need), x.s.b.length + 1);
  return rounded > MAX_NEED ? null : rounded;
}

/**
 * Repeats per arm (unrounded) at which a shift `delta` over noise `sigma` (same unit, or both in % of one
 * scale) is significant with NEED_POWER at one-sided `level`: Noether's (1987) normal-theory size divided
 * by Mann–Whitney's efficiency 3/π, n = 2 (z_{1−level} + z_power)² σ² / (δ² · 3/π). needRepeats() sizes an
 * observed shift with it; the noise rule (primaries.ts) sizes a warn-size one on the baseline's noise.
 */
export function repeatsToDetect(sigma: number, delta: number, level: number): number {
  if (!(delta > 0)) return Infinity;
  const z = normalQuantile(1 - Math.min(0.5, level)) + normalQuantile(NEED_POWER);
  return (2 * z * z * sigma * sigma) / (delta * delta * MW_EFFICIENCY);
}

/** Past this many repeats per arm no practical run decides: needRepeats is null, the noise rule says "more than". */
export const MAX_NEED_REPEATS = MAX_NEED;

// ─── formatting for reason strings ──────────────────────────────────────────────────────────────────

function fmtNum(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(3)));
}

function fmtSigned(v: number): string {
  const s = Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : String(Number(v.toPrecision(2)));
  return v > 0 ? `+${s}` : s === '-0' ? '0' : s;
}

function fmtP(p: number): string {
  return p < 0.001 ? p.toExponential(1) : String(Number(p.toPrecision(2)));
}

function levelPct(level: number): string {
  return `${Number((level * 100).toPrecision(3))}%`;
}
