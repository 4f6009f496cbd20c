/**
 * Sampling to a decision (DESIGN.md "Verdicts"): a sequential compare runs the minimum (`repeat`), looks,
 * and adds rounds while a primary metric is undecided, up to `maxRepeat` or the time budget. The looks are
 * group-sequential (compare.ts, sequential.ts), so the false-alarm rate over every look stays at α.
 *
 * This module owns the loop's decisions and its record; the runners own the browsers. `look()` is
 * called with the two runs as they stand and answers how many repeat units to add (0 = stop).
 */
import { compareRuns, primaryChoiceOf, type CompareRunsOptions, type RunsComparison } from '../perf/compare-runs.js';
import type { CompareVerdict, Direction } from '../perf/compare.js';
import { DEFAULT_ALPHA, DEFAULT_SPENDING } from '../perf/compare.js';
import type { Scenario } from '../scenario/load.js';
import { writeJsonAtomic } from '../session/state.js';
import { againstPlan, runAgainst, type AgainstOptions, type AgainstResult } from './against.js';
import type { RunFile, SequentialRecord } from '../perf/run-file.js';
import { repeatSlots, runScenario, type RunOptions } from './run.js';
import { schedulePlan, type TimingPlan } from './records.js';

/** One look adds one round: two repeats per growing arm (A B B A in an interleaved compare), so drift cancels within it. */
export const ROUND_UNITS = 2;

export interface SequentialPlan {
  /** Units of the first look (the scenario's repeat). */
  repeat: number;
  /** Most units per arm. */
  maxRepeat: number;
  /** Timing-mode units (T,A,T,T,A…, or T,T,T… for 'only'): max sizes count both modes. */
  timing: TimingPlan;
  /** Stop adding rounds once this much wall time has passed (ms). */
  budgetMs?: number;
  alpha?: number;
  /** The baseline is a stored run file (perf gate): only the candidate is sampled. */
  storedBaseline: boolean;
  /** Compare options passed through (thresholds, primary metrics, force, files). */
  compare?: Omit<CompareRunsOptions, 'sequential' | 'rejected'>;
  /**
   * The caller's own question, answered before the compare is decided (perf bisect's side test): a reason ends the
   * sampling at this look, undefined goes on. It only ever stops sooner, never later than the compare would.
   */
  stop?: (c: RunsComparison) => string | undefined;
}

export type LookEvent = {
  kind: 'look';
  look: number;
  n: { a: number; b: number };
  comparison: RunsComparison;
  /** Units about to be added; 0 when this look ends the sampling. */
  adding: number;
  /** Why sampling goes on, or why it stops, in one line. */
  why: string;
};

/** The most measured repeats the plan can reach per arm, all modes and timing-mode only. */
function maxSizes(plan: SequentialPlan): { all: number; timing: number } {
  const all = repeatSlots(0, plan.maxRepeat, plan.timing).length;
  return { all, timing: plan.timing ? plan.maxRepeat : 0 };
}

function countedRecords(run: RunFile): number {
  return run.repeats.filter((r) => !r.warmup).length;
}

export class SequentialJudge {
  private readonly looks: { a: number; b: number }[] = [];
  private rejected: Record<string, Direction> = {};
  /** The primary family chosen at the first look (the noise rule on the baseline then): every later look keeps it. */
  private primaries: SequentialRecord['primaries'];
  private units: number;
  private readonly started = Date.now();
  private lastLookAt = Date.now();
  private roundMs: number | undefined;
  stopped: SequentialRecord['stopped'] = 'decided';
  last: RunsComparison | undefined;

  constructor(
    private readonly plan: SequentialPlan,
    private readonly onLook?: (e: LookEvent) => void,
  ) {
    this.units = plan.repeat;
  }

  /** The design as it stands; `looks` are the looks before the current state. */
  record(a: RunFile, stopped: SequentialRecord['stopped'] = this.stopped): SequentialRecord {
    const max = maxSizes(this.plan);
    const baseline = this.plan.storedBaseline
      ? {
          a: a.repeats.filter((r) => !r.warmup && r.status === 'measured').length,
          timingA: a.repeats.filter((r) => !r.warmup && r.status === 'measured' && r.mode === 'timing').length,
        }
      : { a: max.all, timingA: max.timing };
    return {
      alpha: this.plan.alpha ?? DEFAULT_ALPHA,
      spending: DEFAULT_SPENDING,
      looks: this.looks.map((l) => ({ ...l })),
      max: { a: baseline.a, b: max.all, timingA: baseline.timingA, timingB: max.timing },
      stopped,
      storedBaseline: this.plan.storedBaseline,
      ...(Object.keys(this.rejected).length ? { rejected: { ...this.rejected } } : {}),
      ...(this.primaries ? { primaries: this.primaries } : {}),
    };
  }

  /** Judge the runs as they stand; answer how many units to add (0: stop, the comparison is final). */
  look(a: RunFile, b: RunFile, interrupted = false): number {
    const now = Date.now();
    if (this.looks.length > 0) {
      const took = now - this.lastLookAt;
      // The slowest round so far predicts the next: a budget must not be overrun by a slow tail.
      this.roundMs = Math.max(this.roundMs ?? 0, took);
    }
    this.lastLookAt = now;
    const comparison = compareRuns(a, b, { ...(this.plan.compare ?? {}), sequential: this.record(a) });
    this.rejected = comparison.rejected;
    this.primaries ??= primaryChoiceOf(comparison);
    this.last = comparison;
    const n = { a: countedRecords(a), b: countedRecords(b) };
    const lookNo = this.looks.length + 1;
    let adding = 0;
    let why: string;
    const answered = interrupted || comparison.decided ? undefined : this.plan.stop?.(comparison);
    if (interrupted) {
      this.stopped = 'interrupted';
      why = 'interrupted';
    } else if (comparison.decided) {
      this.stopped = 'decided';
      why = comparison.verdict === 'fail' ? `decided: ${comparison.gate.summary}` : 'decided: every primary metric is settled';
    } else if (answered !== undefined) {
      this.stopped = 'decided';
      why = `decided: ${answered}`;
    } else if (this.units >= this.plan.maxRepeat) {
      this.stopped = 'max-repeat';
      why = `maxRepeat ${this.plan.maxRepeat} reached, still undecided: ${undecided(comparison)}`;
    } else if (this.plan.budgetMs !== undefined && now - this.started + (this.roundMs ?? 0) > this.plan.budgetMs) {
      this.stopped = 'budget';
      why = `time budget ${Math.round(this.plan.budgetMs / 1000)} s spent, still undecided: ${undecided(comparison)}`;
    } else {
      adding = Math.min(ROUND_UNITS, this.plan.maxRepeat - this.units);
      why = `${undecided(comparison)}; adding ${this.plan.storedBaseline ? `${ROUND_UNITS} candidate repeats` : 'an A B B A round'}`;
    }
    this.onLook?.({ kind: 'look', look: lookNo, n, comparison, adding, why });
    if (adding > 0) {
      this.looks.push(n);
      this.units += adding;
    }
    return adding;
  }
}

/**
 * What a look says of the verdict. Only the last look gives one: an earlier look's verdict is this look's
 * estimate, which more repeats can turn (look 4 "fail", look 5 "inconclusive" read as a reversal), so it
 * leans until sampling stops.
 */
export function lookVerdictWords(e: { adding: number; comparison: { verdict: CompareVerdict } }): string {
  const v = e.comparison.verdict;
  if (!e.adding) return v;
  return v === 'inconclusive' ? 'undecided' : `leaning ${v}`;
}

/** "counters.threadCpuMs +31%, undecided at n=5": the primary metrics keeping the sampling going. */
export function undecided(c: RunsComparison): string {
  const open = c.rows.filter((r) => r.gated && !r.decided);
  if (!open.length) return 'nothing undecided';
  const shown = open
    .slice(0, 3)
    .map(
      (r) =>
        `${r.metric} ` +
        `${r.deltaPct === null ? 'n/a' : `${r.deltaPct > 0 ? '+' : ''}${r.deltaPct.toFixed(Math.abs(r.deltaPct) >= 10 ? 0 : 1)}%`}`,
    );
  const n = Math.min(...open.map((r) => Math.min(r.a.n, r.b.n)));
  return `${shown.join(', ')}${open.length > 3 ? ` +${open.length - 3} more` : ''} undecided at n=${n}`;
}

// ─── drivers ────────────────────────────────────────────────────────────────────────────────────────

export interface DecisionOptions {
  /** --fixed: run exactly `repeat` units per arm and judge once. */
  fixed?: boolean;
  maxRepeat?: number;
  budgetMs?: number;
  alpha?: number;
  compare?: SequentialPlan['compare'];
  stop?: SequentialPlan['stop'];
  onLook?: (e: LookEvent) => void;
}

/** Write the sequential record into a run file on disk and in memory. */
function stamp(file: { run: RunFile; path: string }, record: SequentialRecord): void {
  file.run.sequential = record;
  const { repeats, ...head } = file.run;
  writeJsonAtomic(file.path, { ...head, repeats });
}

/**
 * `perf run --against` / `perf_run {against}` / `perf selftest`: both arms interleaved, sampled to a
 * decision unless `fixed`. Returns the runs and the final comparison (undefined when an arm measured
 * nothing).
 */
export async function againstToDecision(
  baseline: Scenario,
  candidate: Scenario,
  opts: AgainstOptions & DecisionOptions,
): Promise<{ res: AgainstResult; comparison: RunsComparison | undefined }> {
  const repeat = opts.repeat ?? candidate.repeat;
  const compareOpts = { force: true, ...(opts.compare ?? {}) };
  // The plan the arms will follow, as the design counts it: its reach in timing repeats is what the noise rule reads.
  const plan = againstPlan(baseline, candidate, opts.timing);
  if (opts.fixed) {
    const res = await runAgainst(baseline, candidate, { ...opts, plan });
    return { res, comparison: finalCompare(res.baseline, res.candidate, compareOpts) };
  }
  const judge = new SequentialJudge(
    {
      repeat,
      maxRepeat: Math.max(repeat, opts.maxRepeat ?? candidate.maxRepeat),
      timing: plan,
      storedBaseline: false,
      compare: compareOpts,
      ...(opts.stop ? { stop: opts.stop } : {}),
      ...(opts.budgetMs !== undefined ? { budgetMs: opts.budgetMs } : {}),
      ...(opts.alpha !== undefined ? { alpha: opts.alpha } : {}),
    },
    opts.onLook,
  );
  const res = await runAgainst(baseline, candidate, {
    ...opts,
    plan,
    extend: (a, b) => (measuredAny(a) && measuredAny(b) ? judge.look(a, b, opts.signal?.aborted === true) : 0),
  });
  if (!measuredAny(res.baseline.run) || !measuredAny(res.candidate.run)) return { res, comparison: undefined };
  const record = judge.record(res.baseline.run, res.baseline.run.interrupted ? 'interrupted' : judge.stopped);
  stamp(res.baseline, record);
  stamp(res.candidate, record);
  return { res, comparison: finalCompare(res.baseline, res.candidate, compareOpts) };
}

/**
 * `perf gate` against a stored baseline: the candidate alone is sampled to a decision (the baseline
 * cannot grow). Returns the run and the final comparison; none when the candidate measured nothing or
 * the baseline is unreadable (the caller reports that).
 */
export async function runToDecision(
  sc: Scenario,
  baseline: RunFile | undefined,
  opts: RunOptions & DecisionOptions,
): Promise<{ run: RunFile; path: string; comparison: RunsComparison | undefined }> {
  const repeat = opts.repeat ?? sc.repeat;
  const compareOpts = opts.compare ?? {};
  if (opts.fixed || !baseline) {
    const out = await runScenario(sc, opts);
    return { ...out, comparison: baseline ? finalCompare({ run: baseline, path: '' }, out, compareOpts) : undefined };
  }
  const plan = schedulePlan(opts.timing ?? sc.timing, [sc]);
  const judge = new SequentialJudge(
    {
      repeat,
      maxRepeat: Math.max(repeat, opts.maxRepeat ?? sc.maxRepeat),
      timing: plan,
      storedBaseline: true,
      compare: compareOpts,
      ...(opts.budgetMs !== undefined ? { budgetMs: opts.budgetMs } : {}),
      ...(opts.alpha !== undefined ? { alpha: opts.alpha } : {}),
    },
    opts.onLook,
  );
  const out = await runScenario(sc, {
    ...opts,
    plan,
    extend: (b) => (measuredAny(b) ? judge.look(baseline, b, opts.signal?.aborted === true) : 0),
  });
  if (!measuredAny(out.run)) return { ...out, comparison: undefined };
  stamp(out, judge.record(baseline, out.run.interrupted ? 'interrupted' : judge.stopped));
  return { ...out, comparison: finalCompare({ run: baseline, path: '' }, out, compareOpts) };
}

function measuredAny(run: RunFile): boolean {
  return run.repeats.some((r) => !r.warmup && r.status === 'measured');
}

function finalCompare(
  a: { run: RunFile; path: string },
  b: { run: RunFile; path: string },
  opts: SequentialPlan['compare'] & object,
): RunsComparison | undefined {
  if (!measuredAny(a.run) || !measuredAny(b.run)) return undefined;
  return compareRuns(a.run, b.run, {
    ...opts,
    files: { ...(opts.files ?? {}), ...(a.path ? { a: a.path } : {}), ...(b.path ? { b: b.path } : {}) },
  });
}
