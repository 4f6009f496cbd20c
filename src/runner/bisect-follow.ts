/**
 * What `perf bisect` follows, and how one comparison reads on it (issue 56 item 6). Pure: a comparison in, a judgement out.
 *
 * The endpoints (GOOD against BAD) are compared by the gate's own compare: the scenario's primaries, the ones the noise
 * rule set aside included (they gate at a quarter weight). The search then follows every gated metric that regressed
 * there, not one of them: a regression that shows in thread CPU and in blocking time is followed on both, and a commit
 * between the endpoints is bad when any followed metric is on BAD's side, good when all of them are on GOOD's side,
 * undecided otherwise (perf/step-side.ts: Wald's SPRT per metric, the "bad" side at α/k over k metrics, so a commit before
 * the culprit is named bad at most α of the time). `--metric M` follows M alone. Following the one that regressed most
 * (before) read a heap size that moved by a byte at the endpoints instead of the thread CPU the busy loop added.
 */
import type { CompareRow, RowVerdict } from '../perf/compare.js';
import type { RunsComparison } from '../perf/compare-runs.js';
import { stepSide, type StepSide } from '../perf/step-side.js';

/** What of a comparison the bisect reads: its rows, its verdict, its α and its one-line summary. */
export type ComparisonView = Pick<RunsComparison, 'rows' | 'verdict' | 'rejected'> & {
  gate: Pick<RunsComparison['gate'], 'alpha' | 'summary'>;
};

/** How one comparison came out for the bisect: the candidate against its baseline on the followed metrics. */
export type Judgement = 'worse' | 'same' | 'undecided' | 'untestable';

/** One metric of a comparison as the bisect read it. */
export interface Reading {
  metric: string;
  deltaPct: number | null;
  ci: CompareRow['ci'];
  /** The compare row's verdict; null when the metric was not measured. */
  verdict: RowVerdict | null;
  /** At the endpoints: the noise rule set it aside (it gates at a quarter weight). */
  setAside?: boolean;
  /** At a midpoint: the side test's reading (undecided until it leaves its bounds). */
  side?: 'good' | 'bad' | 'undecided';
}

/** A metric the search follows: the endpoints' figures on it and why it is followed. */
export interface Followed {
  metric: string;
  deltaPct: number | null;
  ci: CompareRow['ci'];
  why: string;
}

/** A followed metric's step: GOOD → BAD's shift (%, its worse direction), and the sign its raw delta had. */
export interface Step {
  metric: string;
  pct: number;
  sign: 1 | -1;
}

/** What a comparison said for the bisect: the judgement, and the figures of the metric that decided it. */
export interface Judged {
  judgement: Judgement;
  metric: string | null;
  /** Measured repeats (both arms) of the deciding metric. */
  repeats: number;
  deltaPct: number | null;
  ci: CompareRow['ci'];
  why?: string;
  attribution?: CompareRow['attribution'];
  /** Every followed metric (a midpoint), or every gated metric that regressed (the endpoints). */
  readings?: Reading[];
}

const reading = (metric: string, r: CompareRow | undefined): Reading => ({
  metric,
  deltaPct: r?.deltaPct ?? null,
  ci: r?.ci ?? null,
  verdict: r?.verdict ?? null,
});

const figures = (r: CompareRow | undefined, metric: string | null): Omit<Judged, 'judgement'> => ({
  metric: r?.metric ?? metric,
  repeats: r ? r.a.n + r.b.n : 0,
  deltaPct: r?.deltaPct ?? null,
  ci: r?.ci ?? null,
  ...(r?.attribution ? { attribution: r.attribution } : {}),
});

// Largest shift first (either direction: a metric better higher regresses downwards).
const bySize = (x: CompareRow, y: CompareRow): number => Math.abs(y.deltaPct ?? 0) - Math.abs(x.deltaPct ?? 0);

const UNMEASURED: Judged = {
  judgement: 'untestable',
  metric: null,
  repeats: 0,
  deltaPct: null,
  ci: null,
  why: 'an arm measured nothing (every repeat failed or was refused)',
};

/**
 * What the endpoints follow, the largest shift first: the gated rows that regressed (past warn, set-aside ones
 * included); when none did, the gated rows whose worse shift the compare confirmed below warn ("a real change but
 * smaller than warn": rejected in the gate's own Holm family at α, so as sure as a regression, only smaller than the
 * size the gate flags). The user asked which commit made BAD worse: a confirmed shift is an answer to search for, and
 * "not reproduced" would be untrue. The warn threshold stays the gate's policy for what to flag, not for what exists.
 */
export function regressedRows(c: ComparisonView): CompareRow[] {
  const regressed = c.rows.filter((r) => r.gated && r.verdict === 'regressed');
  const confirmed = regressed.length ? regressed : c.rows.filter((r) => r.gated && c.rejected[r.metric] === 'worse');
  return confirmed.sort(bySize);
}

/**
 * Whether the endpoints can stop at this look: a gated row (or --metric's) regressed past warn. A worse shift confirmed
 * below warn does not stop them: a heap a few hundred bytes larger is confirmed at the first look while the thread CPU
 * the change added needs more repeats to pass warn, and the search would follow the bytes (2026-12-06). It is followed
 * only when the comparison ends without a regression past warn (regressedRows).
 */
export function regressedPastWarn(c: ComparisonView, forced: string | null): boolean {
  return c.rows.some((r) => r.gated && r.verdict === 'regressed' && (forced === null || r.metric === forced));
}

/**
 * The endpoints' answer. Forced (--metric): that metric's row. Otherwise the gate's compare: worse when any gated row
 * regressed, or none did and one moved worse below warn (regressedRows; the readings list them all); undecided when
 * the gate could not decide (a set-aside metric past warn, too few repeats) or fails on a lost measurement, which
 * gives no step to follow; else same. With nothing regressed, the figures are the gated metric that moved most, so
 * "not reproduced" still shows one.
 */
export function endpointJudgement(c: ComparisonView | undefined, forced: string | null): Judged {
  if (!c) return { ...UNMEASURED, metric: forced };
  if (forced !== null) {
    const own = c.rows.find((r) => r.metric === forced);
    // Its worse shift confirmed below warn: worse too, as without --metric (regressedRows).
    const below = own && own.verdict !== 'regressed' && own.verdict !== 'missing' && c.rejected[forced] === 'worse';
    return below ? { judgement: 'worse', ...figures(own, null) } : judgementOn(c, [forced]);
  }
  const regressed = regressedRows(c);
  if (regressed.length) {
    const readings = regressed.map((r) => ({ ...reading(r.metric, r), ...(r.setAside !== undefined ? { setAside: true } : {}) }));
    return { judgement: 'worse', ...figures(regressed[0], null), readings };
  }
  const moved = figures(c.rows.filter((r) => r.gated).sort(bySize)[0], null);
  if (c.verdict === 'inconclusive' || c.verdict === 'fail') return { judgement: 'undecided', ...moved, why: c.gate.summary };
  // Held (a set-aside metric whose interval still reaches past warn at maxRepeat): not "not worse", but undecided.
  const open = c.rows.filter((r) => r.gated && !r.decided).sort(bySize);
  if (open.length) return { judgement: 'undecided', ...figures(open[0], null), why: openWords(open) };
  return { judgement: 'same', ...moved };
}

const signed = (v: number): string => `${v > 0 ? '+' : ''}${v.toFixed(1)}`;

const shiftWords = (r: CompareRow): string =>
  `${r.metric} ${r.deltaPct === null ? '' : signed(r.deltaPct)}%${r.ci ? ` [${r.ci.lowPct.toFixed(1)}, ${r.ci.highPct.toFixed(1)}]` : ''}`;

/** "undecided at the last look, …: counters.threadCpuMs +7.7% [1.6, 11.8] (set aside as noisy), …; --metric M follows one". */
function openWords(open: readonly CompareRow[]): string {
  const each = open.map((r) => `${shiftWords(r)}${r.setAside !== undefined ? ' (set aside as noisy)' : ''}`).join(', ');
  const follow = `--metric ${open[0]!.metric} follows it as a full primary`;
  return `undecided at the last look, an interval still reaching past warn: ${each}; ${follow}`;
}

/**
 * A comparison read on the followed metrics by the compare's own row verdicts: worse when any regressed, untestable
 * when one was not measured, undecided when one is inconclusive, same when all are unchanged, improved or changed.
 *
 * `settled` (a midpoint whose side test had not decided by its last look, its rows judged at warn = error = D/2):
 * worse only when a followed metric's interval is clear above D/2 (a regressed row the compare calls decided), same
 * only when every one is improved or its interval clear below D/2 (decided unchanged), else undecided (then compared
 * against BAD, then skipped): the interval rule the side test was measured against (test/step-side.test.ts). A row's
 * "regressed" alone, significant against 0 with its estimate past D/2, named an unchanged commit (a changelog line)
 * the culprit: +7.9% [2.4, 13.6] after 20 + 20 repeats at a load average of 10, against a 11.2% step (2026-12-06).
 */
export function judgementOn(c: ComparisonView | undefined, metrics: readonly string[], settled = false): Judged {
  if (!c) return { ...UNMEASURED, metric: metrics[0] ?? null };
  const rows = metrics.map((m) => c.rows.find((r) => r.metric === m));
  const readings = metrics.map((m, i) => reading(m, rows[i]));
  const many = metrics.length > 1 ? { readings } : {};
  const sure = (r: CompareRow): boolean => !settled || r.decided;
  const worse = rows.filter((r): r is CompareRow => r?.verdict === 'regressed' && sure(r)).sort(bySize)[0];
  if (worse) return { judgement: 'worse', ...figures(worse, null), ...many };
  const lost = metrics.findIndex((_, i) => rows[i] === undefined || rows[i]!.verdict === 'missing');
  if (lost >= 0) {
    const why = `${metrics[lost]} ${rows[lost] ? 'is missing in one arm' : 'was not measured'}`;
    return { judgement: 'untestable', ...figures(rows[lost], metrics[lost]!), why, ...many };
  }
  const open = rows.find((r) => r!.verdict === 'inconclusive' || r!.verdict === 'regressed' || (r!.verdict === 'unchanged' && !sure(r!)));
  if (open) {
    const why = settled ? `the side test and the interval left ${open.metric} undecided at the last look` : c.gate.summary;
    return { judgement: 'undecided', ...figures(open, null), why, ...many };
  }
  return { judgement: 'same', ...figures(rows[0], metrics[0]!), ...many };
}

const signOf = (v: number): 1 | -1 => (v > 0 ? 1 : -1);

/** The steps the endpoints set: each followed metric's shift, largest first; a metric that did not move sets none. */
export function stepsOf(readings: readonly Reading[]): Step[] {
  return readings.flatMap((r) =>
    r.deltaPct !== null && r.deltaPct !== 0 ? [{ metric: r.metric, pct: Math.abs(r.deltaPct), sign: signOf(r.deltaPct) }] : [],
  );
}

/** One followed metric at a look: its row and its side test (null when the row has no estimate or interval to read). */
interface SideRead {
  s: Step;
  row: CompareRow | undefined;
  side: (StepSide & { llr: number }) | null;
}

function sideOn(c: ComparisonView, s: Step, family: number): SideRead {
  const row = c.rows.find((r) => r.metric === s.metric);
  if (!row || row.deltaPct === null || !row.ci) return { s, row, side: null };
  const [low, high] = s.sign > 0 ? [row.ci.lowPct, row.ci.highPct] : [-row.ci.highPct, -row.ci.lowPct];
  const side = stepSide({ shiftPct: s.sign * row.deltaPct, lowPct: low, highPct: high, level: row.ci.level }, s.pct, c.gate.alpha, family);
  return { s, row, side: side.llr === null ? null : { ...side, llr: side.llr } };
}

/** "counters.threadCpuMs like the whole 12.3% step: SPRT log LR +4.4, bound +3.6/-3.0" (the name only among several). */
function sideWords(x: SideRead & { side: NonNullable<SideRead['side']> }, named: boolean): string {
  const like = x.side.side === 'bad' ? `the whole ${x.s.pct.toFixed(1)}% step` : 'no change';
  const bounds = x.side.bound === -x.side.goodBound ? `±${x.side.bound.toFixed(1)}` : `${signed(x.side.bound)}/${signed(x.side.goodBound)}`;
  return `${named ? `${x.s.metric} ` : ''}like ${like}: SPRT log LR ${signed(x.side.llr)}, bound ${bounds}`;
}

/**
 * A midpoint's side: bad as soon as any followed metric's SPRT says "the whole step", good once all of them say "no
 * change", else undefined (sample on). The figures are those of the metric that decided: the one furthest past its
 * bound when bad, the first followed when good. For a midpoint against BAD, "the whole step" means BAD is worse than it.
 */
export function sideJudgement(c: ComparisonView, steps: readonly Step[]): Judged | undefined {
  if (!steps.length) return undefined;
  const read = steps.map((s) => sideOn(c, s, steps.length));
  const many = steps.length > 1;
  const readings = read.map((x) => ({ ...reading(x.s.metric, x.row), side: x.side?.side ?? ('undecided' as const) }));
  const withReadings = many ? { readings } : {};
  const decided = read.flatMap((x) => (x.side ? [{ ...x, side: x.side }] : []));
  const past = (x: (typeof decided)[number]): number => x.side.llr - x.side.bound;
  const bad = decided.filter((x) => x.side.side === 'bad').sort((x, y) => past(y) - past(x))[0];
  if (bad) return { judgement: 'worse', ...figures(bad.row, bad.s.metric), why: sideWords(bad, many), ...withReadings };
  if (decided.length < read.length || !decided.every((x) => x.side.side === 'good')) return undefined;
  const why = decided.map((x) => sideWords(x, many)).join('; ');
  return { judgement: 'same', ...figures(decided[0]!.row, decided[0]!.s.metric), why, ...withReadings };
}

/** Why each followed metric is followed, in words (the answer's `followed`). */
export function followedOf(readings: readonly Reading[], forced: boolean): Followed[] {
  return readings.map((r) => ({
    metric: r.metric,
    deltaPct: r.deltaPct,
    ci: r.ci,
    why: forced
      ? '--metric'
      : (r.verdict === 'regressed'
          ? 'a primary of the gate, regressed past warn from GOOD to BAD'
          : 'a primary of the gate, a real change from GOOD to BAD but smaller than warn (the gate does not flag it)') +
        (r.setAside ? '; set aside as noisy, it gates at a quarter weight' : ''),
  }));
}
