/**
 * A busy host is named, not blamed on the code (issue 27 item 3). Each repeat records the host's speed
 * just before its window (runner/host-speed.ts: a BenchmarkIndex-like calibration, after Lighthouse's
 * `computeBenchmarkIndex`) and how much of the machine's CPU other processes left it over its window. A
 * repeat whose index or CPU left is far below the run pair's usual (SLOW_HOST_FACTOR) ran on a busy host
 * (busyHostMarks). A primary row that regressed, improved, or stayed undecided past warn is asked
 * whether the difference follows the host rather than the arm: the arm that looks worse holds the larger
 * share of slow-host repeats, and either judging the pair again on its quiet repeats does not find the
 * same change, or the host's own slowdown (hostShiftPct: index or CPU left) accounts for all but a
 * warn-size part of it. Such a row becomes `inconclusive: host busy during N of M repeats`, and the
 * verdict follows from the rows again (compare.ts verdictOf), so a hog on the candidate's repeats cannot
 * fail a gate. A change the quiet repeats still show, beyond the host's slowdown, stays a regression.
 * Pure: run files and a re-judging function in, rows out.
 */
import { verdictOf, type CompareResult, type CompareRow } from './compare.js';
import type { HostRecord, RepeatRecord, RunFile } from './run-file.js';
import { median, quantile } from './stats.js';

/**
 * 0.8: a repeat is slow-host below 0.8 × the pair's reference speed. Measured here (2 cores shared with
 * other sessions, load 8–9; 40 calibrations each, runner/host-speed.ts): median 102–103 units/ms with
 * the machine's own load, 73–88 with one more busy core (0.71–0.86×), 54–55 with two (0.52×); in the
 * end-to-end test 190 vs 34 with a hog per core. One busy core on two is a borderline slowdown; two are
 * clearly below 0.8. The machine's own load swings too (p75 196 vs median 102), so marks also fall in
 * both arms of an A/A: they decide nothing unless the worse arm holds more of them (see below). In the
 * simulations (test/host-busy.test.ts) a 30–60 % slower host is marked in most repeats, < 3 % of quiet
 * repeats at an 8 % calibration CV are.
 */
export const SLOW_HOST_FACTOR = 0.8;
/**
 * 0.9: only repeats at or above 0.9 × the reference are re-judged as quiet. The calibration has its own
 * noise (8 % CV simulated; a 1.3× slower host then reads above 0.8 × the reference in ~40 % of its
 * repeats): a busy repeat read high must not be the "quiet" evidence that confirms its own slowdown.
 */
export const QUIET_HOST_FACTOR = 0.9;
/**
 * The reference is the pair's 75th percentile, not its median: a busy host only ever slows a repeat, and
 * when one arm ran busy throughout, the median falls between the two clusters and marks neither.
 */
export const REFERENCE_QUANTILE = 0.75;
// 4 repeats with an index: fewer cannot tell a usual speed from an unusual one.
const MIN_INDEXED = 4;
// 2 per arm: the least that says which arm a slow host fell on.
const MIN_INDEXED_PER_ARM = 2;

export interface HostBusy {
  /** Slow-host repeats, over both arms' counted measured repeats. */
  repeats: number;
  /** Counted measured repeats with a host record, over both arms. */
  of: number;
  /** The primary metrics whose difference followed the host. */
  metrics: string[];
  note: string;
  /** What the host did, the gate line's first words ("host busy during 3 of 10 repeats"). */
  headline: string;
}

type Measured = Extract<RepeatRecord, { status: 'measured' }>;
const counted = (run: RunFile): Measured[] => run.repeats.filter((r): r is Measured => r.status === 'measured' && !r.warmup);

/** Which of `indices` (undefined: no host record) ran on a host much slower than the rest's reference. */
export function slowHostMarks(indices: readonly (number | undefined)[]): { slow: boolean[]; quiet: boolean[]; reference: number | null } {
  const known = indices.filter((v): v is number => v !== undefined && Number.isFinite(v) && v > 0);
  if (known.length < MIN_INDEXED) return { slow: indices.map(() => false), quiet: indices.map(() => true), reference: null };
  const reference = quantile(known, REFERENCE_QUANTILE);
  return {
    slow: indices.map((v) => v !== undefined && v < SLOW_HOST_FACTOR * reference),
    // A repeat without a record cannot be told apart: it is kept, as it was measured.
    quiet: indices.map((v) => v === undefined || v >= QUIET_HOST_FACTOR * reference),
    reference,
  };
}

// 10 %: beside other processes using this much of the CPU, the ~15 ms calibration reads full speed or half by the
// scheduler's luck (full in 12 of 18 repeats beside one spinning process on two cores here): its reading is left out.
const CLOUDED_INDEX_PCT = 10;

/** The CPU other processes left the run over its window, %; undefined where not recorded. */
const cpuLeftPct = (h: HostRecord | undefined): number | undefined => (h?.foreignCpuPct !== undefined ? 100 - h.foreignCpuPct : undefined);

/** A repeat whose calibration cannot be trusted: other processes were busy through its window. */
const clouded = (h: HostRecord | undefined): boolean => (h?.foreignCpuPct ?? 0) >= CLOUDED_INDEX_PCT;

/**
 * Busy-host and quiet marks of the repeats of both arms (a's, then b's) from their host records. Where both
 * arms record the CPU other processes left them (100 minus HostRecord.foreignCpuPct), a repeat left less
 * than 0.8 × the quieter arm's median is busy, at least 0.9 × is quiet (the calibration's own factors), and
 * the calibration (slowHostMarks) still marks the repeats no other process clouded: a host slowed another
 * way (its clock, another guest's steal). Measured here (2 cores): other processes used 0–3 % on a quiet host,
 * 41–49 % with one spinning process (51–59 % left: busy), while the calibration read full speed in 12 of 18 of
 * those repeats. Relative, not absolute: another job busy through both arms loads them alike and marks
 * nothing. Without shares in both arms (an older run file, a remote browser) the index alone decides.
 */
export function busyHostMarks(
  a: readonly (HostRecord | undefined)[],
  b: readonly (HostRecord | undefined)[],
): { slow: boolean[]; quiet: boolean[] } {
  const all = [...a, ...b];
  const byIndex = slowHostMarks(all.map((h) => h?.benchmarkIndex));
  const reference = leftReference(a, b);
  if (reference === undefined) return byIndex;
  const left = all.map((h) => cpuLeftPct(h) ?? reference);
  return {
    slow: all.map((h, i) => left[i]! < SLOW_HOST_FACTOR * reference || (!clouded(h) && byIndex.slow[i]!)),
    quiet: all.map((h, i) => left[i]! >= QUIET_HOST_FACTOR * reference && (clouded(h) || byIndex.quiet[i]!)),
  };
}

/** The quieter arm's median CPU left, %; undefined unless both arms record it. */
function leftReference(a: readonly (HostRecord | undefined)[], b: readonly (HostRecord | undefined)[]): number | undefined {
  const left = (hs: readonly (HostRecord | undefined)[]): number[] => hs.flatMap((h) => cpuLeftPct(h) ?? []);
  const [la, lb] = [left(a), left(b)];
  return la.length < MIN_INDEXED_PER_ARM || lb.length < MIN_INDEXED_PER_ARM ? undefined : Math.max(median(la), median(lb));
}

/** `run` with only the repeats marked quiet (same positions as counted(run)). */
function quietOnly(run: RunFile, quiet: readonly boolean[]): RunFile {
  const drop = new Set<RepeatRecord>(counted(run).filter((_, i) => !quiet[i]));
  return { ...run, repeats: run.repeats.filter((r) => !drop.has(r)) };
}

/**
 * Rows of `full` whose regression or improvement follows the host, rewritten; the verdict again from the
 * rows. `rejudge` is the same comparison (roles, thresholds) on other run files, without sequential state.
 */
export function judgeHostBusy(
  a: RunFile,
  b: RunFile,
  full: CompareResult,
  judge: {
    rejudge: (a: RunFile, b: RunFile) => CompareResult;
    warnPct: (metric: string) => number;
    /** The registry's word: a host-independent metric (the app's own layouts, DOM nodes) cannot follow the host. */
    hostDependent: (metric: string) => boolean;
  },
): { result: CompareResult; busy?: HostBusy } {
  const repA = counted(a);
  const repB = counted(b);
  // Speeds compare across arms only when both arms have them (a stored baseline from before the
  // calibration has none: its candidate's own spread would otherwise read as a busy host).
  const indexed = (reps: Measured[]): number => reps.filter((r) => r.host !== undefined).length;
  if (indexed(repA) < MIN_INDEXED_PER_ARM || indexed(repB) < MIN_INDEXED_PER_ARM) return { result: full };
  const { slow, quiet: isQuiet } = busyHostMarks(
    repA.map((r) => r.host),
    repB.map((r) => r.host),
  );
  const slowA = slow.slice(0, repA.length);
  const slowB = slow.slice(repA.length);
  const n = slow.filter(Boolean).length;
  const of = [...repA, ...repB].filter((r) => r.host !== undefined).length;
  const share = (xs: boolean[]): number => (xs.length ? xs.filter(Boolean).length / xs.length : 0);
  // The arm that looks worse must be the one the host slowed more: otherwise the host cannot explain it.
  // An inconclusive row is one whose estimate is past warn in the worse direction: named the same way.
  const worse = (r: CompareRow): boolean => r.verdict === 'regressed' || r.verdict === 'inconclusive';
  const suspect = (r: CompareRow): boolean =>
    r.gated &&
    judge.hostDependent(r.metric) &&
    ((worse(r) && share(slowB) > share(slowA)) || (r.verdict === 'improved' && share(slowA) > share(slowB)));
  if (n === 0 || !full.rows.some(suspect)) return { result: full };
  const quiet = judge.rejudge(quietOnly(a, isQuiet.slice(0, repA.length)), quietOnly(b, isQuiet.slice(repA.length)));
  const hostPct = hostShiftPct(repA, repB);
  const busyNote = `host busy during ${n} of ${of} repeats`;
  const metrics: string[] = [];
  const rows = full.rows.map((r) => {
    if (!suspect(r)) return r;
    const q = quiet.rows.find((x) => x.metric === r.metric);
    // What is left of the change once the host's own slowdown is taken out, for a metric that scales
    // as 1 / speed (CPU-bound work): a change the host alone could make is not the build's.
    const host = worse(r) ? hostPct : -hostPct;
    const beyondHost = r.deltaPct !== null && Math.abs(r.deltaPct) - host >= judge.warnPct(r.metric);
    const quietSame = q !== undefined && (q.verdict === r.verdict || (r.verdict === 'inconclusive' && q.verdict === 'regressed'));
    if (quietSame && beyondHost) return r.verdict === 'inconclusive' ? r : confirmed(r, q, busyNote);
    // Quiet repeats too few to decide (5 stored repeats less the slow ones) are not evidence that the host
    // made the change: when they still show it past warn on their own, it stands as judged.
    if (beyondHost && quietShowsIt(r, q, judge.warnPct(r.metric))) return r;
    metrics.push(r.metric);
    return hostRow(r, q, busyNote, beyondHost ? undefined : host);
  });
  if (!metrics.length && rows.every((r, i) => r === full.rows[i])) return { result: full };
  const result = rejudged(full, rows, metrics);
  if (!metrics.length) return { result };
  const whose = share(slowA) > share(slowB) ? "mostly the baseline's" : "mostly the candidate's";
  const note =
    `${busyNote} (calibration or CPU left by other processes below ${SLOW_HOST_FACTOR} × the pair's usual, ${whose}): ` +
    `${metrics.join(', ')} followed the host, not the build; rerun on a quieter machine`;
  return { result, busy: { repeats: n, of, metrics, note, headline: busyNote } };
}

/**
 * How much slower the candidate's host was than the baseline's, %: the larger of two readings, each the
 * ratio of a's median over b's, minus 1 (negative when the baseline's host was the slower): the calibration's
 * index over the repeats no other process clouded, and the CPU other processes left the run. Either alone
 * misses what the other sees (a slower clock; a job beside the run). 0 without either in both arms.
 */
export function hostShiftPct(repA: readonly Measured[], repB: readonly Measured[]): number {
  const idx = (reps: readonly Measured[]): number[] =>
    reps.flatMap((r) => (r.host && !clouded(r.host) && r.host.benchmarkIndex > 0 ? [r.host.benchmarkIndex] : []));
  const left = (reps: readonly Measured[]): number[] => reps.flatMap((r) => cpuLeftPct(r.host) ?? []);
  const shift = (xa: number[], xb: number[]): number | undefined =>
    xa.length && xb.length && median(xb) > 0 ? 100 * (median(xa) / median(xb) - 1) : undefined;
  const shifts = [shift(idx(repA), idx(repB)), shift(left(repA), left(repB))].filter((v): v is number => v !== undefined);
  if (!shifts.length) return 0;
  // The reading farther from none: a host slower for the candidate is positive, for the baseline negative.
  return shifts.reduce((x, y) => (Math.abs(y) > Math.abs(x) ? y : x));
}

// 3 quiet repeats per arm: the fewest a one-sided rank test can decide at 5 % (p = 1/C(6,3) = 0.05).
const MIN_QUIET_PER_ARM = 3;

/** The quiet repeats are too few to decide, yet their own estimate shows the change, same sign, past warn. */
function quietShowsIt(r: CompareRow, q: CompareRow | undefined, warnPct: number): boolean {
  if (!q || q.verdict !== 'inconclusive' || q.a.n < MIN_QUIET_PER_ARM || q.b.n < MIN_QUIET_PER_ARM) return false;
  if (q.deltaPct === null || r.deltaPct === null || Math.sign(q.deltaPct) !== Math.sign(r.deltaPct)) return false;
  return Math.abs(q.deltaPct) >= warnPct;
}

/** A change the quiet repeats confirm: the quiet judgement's severity when the host inflated it. */
function confirmed(r: CompareRow, q: CompareRow, busyNote: string): CompareRow {
  // A quiet judgement that demoted the metric (another role there) says nothing of its gate severity.
  if (q.severity === r.severity || !q.gated) return r;
  return { ...q, gated: r.gated, role: r.role, reason: `judged without the slow-host repeats (${busyNote}): ${q.reason}` };
}

/** The row of a change that followed the host: inconclusive, with what the quiet repeats showed. */
function hostRow(r: CompareRow, q: CompareRow | undefined, busyNote: string, hostPct: number | undefined): CompareRow {
  const pct = (v: number): string => `${v > 0 ? '+' : ''}${v.toFixed(0)}%`;
  const quietSaid =
    hostPct !== undefined
      ? `the host's own slowdown (${pct(hostPct)} by its calibration or the CPU other processes left) ` +
        'accounts for all but a warn-size part of it'
      : !q || q.a.n === 0 || q.b.n === 0
        ? 'one arm has no quiet repeat left to judge'
        : `the quiet repeats alone find it ${q.verdict}${q.deltaPct === null ? '' : ` (${pct(q.deltaPct)})`}`;
  const kind = r.verdict === 'regressed' ? 'regression' : r.verdict === 'improved' ? 'improvement' : 'change';
  const what = `${r.deltaPct === null ? '' : `${pct(r.deltaPct)} `}${kind}`;
  return hostInconclusive(r, `${busyNote}: the ${what} follows the host's speed, not the build; ${quietSaid}`);
}

/** A row whose difference the host may have made, not the build: inconclusive, `why` first, then what it was. */
export function hostInconclusive(r: CompareRow, why: string): CompareRow {
  return { ...r, verdict: 'inconclusive', severity: 'none', decided: false, needRepeats: null, reason: `${why}. Was: ${r.reason}` };
}

/** `full` with `rows` in place of its own and the verdict again from them (compare.ts verdictOf). */
export function rejudged(full: CompareResult, rows: CompareRow[], hostMade: readonly string[]): CompareResult {
  const unchanged = rows.filter((r) => r.verdict === 'unchanged').map((r) => r.metric);
  // A rejection the host made is not carried to the next look as final: that look judges it afresh
  // (dropping a rejection only makes the sequential test more conservative).
  const rejected = Object.fromEntries(Object.entries(full.rejected).filter(([m]) => !hostMade.includes(m)));
  return { ...full, rows, ...verdictOf(rows), unchanged, rejected };
}

/** The gate's one line when the host was busy: the host, then what the other rows decided (if anything). */
export function busySummary(busy: HostBusy, result: CompareResult, summarize: (r: CompareResult) => string): string {
  const rest = result.rows.filter((r) => !busy.metrics.includes(r.metric));
  const decided = verdictOf(rest);
  const line = `${busy.headline}: ${busy.metrics.join(', ')} followed the host, not the build`;
  return decided.verdict === 'pass' ? line : `${line}; ${summarize({ ...result, rows: rest, ...decided })}`;
}

/**
 * 60 %: beside one process spinning on two cores, others use 41–49 % of the machine (measured, see busyHostMarks) and
 * a stored baseline still judges milliseconds. Above 60 % the browser, the renderer and perf share less than 0.8 of a
 * core, and what else runs decides the milliseconds: here, with other processes at 73–77 % through both runs, five
 * A/A pairs (gate --update, then gate, unchanged code) moved load.fcpMs's median by −13 … +27 %, and one failed.
 */
export const SATURATED_FOREIGN_PCT = 60;

/** The median share of the CPU other processes used over an arm's windows, %; undefined with fewer than two records. */
function foreignMedian(reps: readonly Measured[]): number | undefined {
  const v = reps.flatMap((r) => (r.host?.foreignCpuPct !== undefined ? [r.host.foreignCpuPct] : []));
  return v.length < MIN_INDEXED_PER_ARM ? undefined : median(v);
}

/**
 * A stored baseline and its candidate both measured on a saturated machine (other processes above
 * SATURATED_FOREIGN_PCT through both): their milliseconds compare two moments of the machine's load, which the
 * per-repeat marks cannot tell apart when it was heavy in both. A host-dependent primary that regressed or improved, or
 * whose estimate moved past warn either way, becomes inconclusive, saying so; counts still decide. Measured: a slowed
 * Tabulator grid (+8 ms per scroll event) passed a stored gate at look 1 with others at 56–84 % of the CPU, its script,
 * task and blocking time reading −13, −22 and −40 % against a baseline recorded at a busier moment. Interleaved runs
 * never come here: their rounds share the moment, so the load cancels in the pairs.
 */
export function judgeSaturatedHost(
  a: RunFile,
  b: RunFile,
  full: CompareResult,
  judge: { hostDependent: (metric: string) => boolean; warnPct: (metric: string) => number },
): { result: CompareResult; busy?: HostBusy } {
  const [repA, repB] = [counted(a), counted(b)];
  const [fa, fb] = [foreignMedian(repA), foreignMedian(repB)];
  if (fa === undefined || fb === undefined || Math.min(fa, fb) < SATURATED_FOREIGN_PCT) return { result: full };
  // An estimate past warn either way, decided or not: a noisy row that settled as "unchanged" on a −20 % drift (a
  // baseline recorded at a busier moment) would otherwise pass the change the drift hid.
  const pastWarn = (r: CompareRow): boolean => r.deltaPct !== null && Math.abs(r.deltaPct) >= judge.warnPct(r.metric);
  const moved = (r: CompareRow): boolean =>
    r.gated && judge.hostDependent(r.metric) && (r.verdict === 'regressed' || r.verdict === 'improved' || pastWarn(r));
  const metrics = full.rows.filter(moved).map((r) => r.metric);
  if (!metrics.length) return { result: full };
  const pct = (v: number): string => `${Math.round(v)}%`;
  const why =
    `machine saturated: other processes used ${pct(fa)} of the CPU during the baseline's repeats and ${pct(fb)} during ` +
    "the candidate's, so their milliseconds compare two moments of that load, not two builds";
  const result = rejudged(
    full,
    full.rows.map((r) => (moved(r) ? hostInconclusive(r, why) : r)),
    metrics,
  );
  const of = [...repA, ...repB].filter((r) => r.host?.foreignCpuPct !== undefined).length;
  const note = `${why}: ${metrics.join(', ')} not judged; rerun on a quieter machine, or interleaved (perf run --against)`;
  return { result, busy: { repeats: of, of, metrics, note, headline: `machine saturated (others used ${pct(fa)}, ${pct(fb)})` } };
}

/**
 * A stored baseline against a candidate recorded at another moment of the machine (issue 56 item 2): the per-repeat
 * marks are relative to the pair, so a host a little slower through the whole candidate recording (a busier hour, a
 * throttled clock, one more job) marks nothing, yet moves every millisecond. Its size is measured, not guessed: the
 * host's own slowdown between the two recordings (hostShiftPct: the calibration's index, after Lighthouse's
 * BenchmarkIndex, and the CPU other processes left). For CPU-bound work time scales as 1 / speed, so a host-dependent
 * primary's estimate is normalised by it, (1 + change) / (1 + slowdown) − 1, and severity follows the normalised
 * estimate: below warn the row is inconclusive, saying by how much the host moved (never a pass, never a fail); below
 * error a fail becomes a warn. Interleaved runs never come here: their rounds share the moment. Counts (the app's own
 * work) still decide.
 */
export function judgeStoredDrift(
  a: RunFile,
  b: RunFile,
  full: CompareResult,
  judge: { hostDependent: (metric: string) => boolean; thresholds: (metric: string) => { warnPct: number; errorPct: number } },
): { result: CompareResult; busy?: HostBusy } {
  const [repA, repB] = [counted(a), counted(b)];
  const hostPct = hostShiftPct(repA, repB);
  if (hostPct === 0) return { result: full };
  const normalised = (deltaPct: number): number => 100 * ((1 + deltaPct / 100) / (1 + hostPct / 100) - 1);
  const follows = (r: CompareRow): r is CompareRow & { deltaPct: number } =>
    r.gated &&
    judge.hostDependent(r.metric) &&
    r.deltaPct !== null &&
    ((r.verdict === 'regressed' && hostPct > 0) || (r.verdict === 'improved' && hostPct < 0));
  const pct = (v: number): string => `${v > 0 ? '+' : ''}${v.toFixed(0)}%`;
  const headline = `host ${Math.abs(hostPct).toFixed(0)}% slower during the ${hostPct > 0 ? "candidate's" : "baseline's"} recording`;
  const metrics: string[] = [];
  const rows = full.rows.map((r): CompareRow => {
    if (!follows(r)) return r;
    const n = normalised(r.deltaPct);
    const { warnPct, errorPct } = judge.thresholds(r.metric);
    const said =
      `${pct(r.deltaPct)} is ${pct(n)} once normalised by the host's own ${pct(hostPct)} ` +
      '(its calibration or the CPU other processes left)';
    if (Math.abs(n) < warnPct) {
      metrics.push(r.metric);
      return hostInconclusive(r, `${headline}: ${said}, within warn: it may be the machine's change, not the build's`);
    }
    if (r.severity !== 'error' || n >= errorPct) return r;
    return { ...r, severity: 'warn', reason: `${headline}: ${said}, a warn, not an error. Was: ${r.reason}` };
  });
  if (rows.every((r, i) => r === full.rows[i])) return { result: full };
  const result = rejudged(full, rows, metrics);
  if (!metrics.length) return { result };
  const of = [...repA, ...repB].filter((r) => r.host !== undefined).length;
  const note =
    `${headline}: ${metrics.join(', ')} moved no more than the host did; record the baseline again at a quieter ` +
    'moment (perf gate --update), or compare interleaved (perf run --against)';
  return { result, busy: { repeats: of, of, metrics, note, headline } };
}
