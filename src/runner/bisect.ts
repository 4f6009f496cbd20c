/**
 * `perf bisect GOOD BAD SCENARIO` (issue 32): which commit made it slower, judged under noise.
 *
 * The method follows Chromium's Pinpoint and mozregression where they help a noisy measurement:
 * - the endpoints are compared first (GOOD against BAD): a regression that does not reproduce stops the
 *   search with the figures, instead of bisecting noise;
 * - every comparison is the sequential A/B of `perf run --against` (interleaved, sampled until decided, up
 *   to a cap) and has three outcomes: worse, same, undecided. Each look at a midpoint also asks which side of
 *   the step it is on, by Wald's SPRT between "no change" and "the whole step" (perf/step-side.ts). An
 *   undecided midpoint is compared with the other endpoint (BAD) before it is given up; a commit that cannot
 *   be built, run or decided is skipped, as `git bisect skip` does, and said so; the midpoints are the commits
 *   `git bisect` would test next in the same state (git's own choice, ties and skips included);
 * - each commit is checked out into its own worktree under a temporary folder (the user's working tree
 *   and index are never touched), built once with --build, and served from there (bisect-checkouts.ts); every
 *   commit's scenario is checked against the caller's policy before anything of it runs (bisect-vet.ts).
 * Finished comparisons are kept in a cache file, so a re-run (or a run after Ctrl-C) reuses them.
 * On a Selenium Grid (`grid`), each comparison is its own Grid session; with `parallel` N ≥ 2 the search
 * speculates as Pinpoint does: while the midpoint is compared, the midpoints of the levels below it (both
 * halves, whichever way the midpoint goes) are compared at once, up to N comparisons in flight.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { PerfError } from '../errors.js';
import { checkRef, revParseCommit } from '../history/git.js';
import type { CompareRow } from '../perf/compare.js';
import type { RunsComparison } from '../perf/compare-runs.js';
import { loadScenario, type Scenario } from '../scenario/load.js';
import { writeJsonAtomic } from '../session/state.js';
import { isTimingMetric } from '../perf/metrics.js';
import {
  endpointJudgement,
  followedOf,
  judgementOn,
  regressedPastWarn,
  sideJudgement,
  stepsOf,
  type Followed,
  type Judged,
  type Judgement,
  type Reading,
  type Step,
} from './bisect-follow.js';
import { Checkouts, git, GIT_TIMEOUT_MS, pruneStale, short } from './bisect-checkouts.js';
import { isRefusal, vetCheckout, vetRange, type RangePrograms, type Vet } from './bisect-vet.js';
import { interleavedTiming } from './against.js';
import { runAndJudge } from './judge.js';
import type { TimingPlan } from './records.js';
import type { LookEvent } from './sequential.js';

const run = promisify(execFile);

export interface CommitInfo {
  commit: string;
  subject: string;
  authorDate: string;
}

export type { Followed, Judgement, Reading };

export interface Comparison {
  baseline: string;
  candidate: string;
  judgement: Judgement;
  /** Measured repeats per arm (baseline + candidate). */
  repeats: number;
  /** The metric whose figures these are: the one that decided (at the endpoints, the one that regressed most). */
  metric: string | null;
  deltaPct: number | null;
  ci: CompareRow['ci'];
  /** Why a comparison is untestable or undecided, or which side of the step the side test put a midpoint on, in one line. */
  why?: string;
  /**
   * The functions, layouts or steps that grew (issue 19's attribution), as the compare row carries them. A midpoint
   * measured in timing repeats alone has none; the culprit's delta then carries the endpoints' (GOOD to BAD).
   */
  attribution?: CompareRow['attribution'];
  /** The endpoints: every gated metric that regressed. A midpoint following several metrics: each one's figures and side. */
  readings?: Reading[];
  cached: boolean;
}

/** One tested commit in the answer's table. */
export interface TestedCommit extends CommitInfo {
  verdict: 'good' | 'bad' | 'skipped';
  /** Measured repeats over its comparisons (both arms). */
  repeats: number;
  comparisons: Comparison[];
}

const testedCommit = (c: CommitInfo, verdict: TestedCommit['verdict'], comparisons: Comparison[]): TestedCommit => ({
  ...c,
  verdict,
  repeats: comparisons.reduce((s, x) => s + x.repeats, 0),
  comparisons,
});

/**
 * `metric`: the one the culprit was judged bad on (found), else the first followed (the largest shift at the endpoints);
 * not reproduced: the gated metric that moved most. `followed`: every metric the search followed, and why (none when
 * not reproduced).
 */
export type BisectResult =
  | {
      outcome: 'not_reproduced';
      metric: string | null;
      followed: Followed[];
      endpoints: Comparison;
      tested: TestedCommit[];
      durationMs: number;
    }
  | {
      outcome: 'found';
      metric: string;
      followed: Followed[];
      culprit: CommitInfo & { delta: Comparison };
      tested: TestedCommit[];
      durationMs: number;
    }
  /** Skipped commits sit between the last good and the first bad one: the culprit is one of `candidates`. */
  | { outcome: 'ambiguous'; metric: string; followed: Followed[]; candidates: CommitInfo[]; tested: TestedCommit[]; durationMs: number }
  /** Ctrl-C: what was learned so far (finished comparisons are in the cache for the next run). */
  | { outcome: 'interrupted'; metric: string | null; followed: Followed[]; tested: TestedCommit[]; durationMs: number };

export type BisectEvent =
  /** Checkouts an earlier bisect left behind (perf and its watchdog killed), removed before this one starts. */
  | { kind: 'pruned'; paths: string[] }
  | { kind: 'commits'; count: number }
  /** Before anything is checked out: the program HEAD's scenario starts, and the commits whose scenario starts another. */
  | ({ kind: 'programs' } & RangePrograms)
  | { kind: 'build'; commit: string }
  /** `speculative`: started before the search knew it would need it (--parallel on a Grid). */
  | { kind: 'compare-start'; baseline: string; candidate: string; index: number; speculative: boolean }
  | { kind: 'compare-end'; comparison: Comparison; index: number }
  /** The endpoints regressed: the metrics the search follows from here, and why. */
  | { kind: 'following'; followed: Followed[] }
  | { kind: 'look'; event: LookEvent };

export interface BisectOptions {
  /** A folder inside the git repository (the repository is found from it). */
  cwd: string;
  good: string;
  bad: string;
  /** The scenario file, as given (resolved against cwd, then taken relative to the repository's root). */
  scenario: string;
  variant?: string;
  vars?: Record<string, string>;
  build?: string;
  metric?: string;
  outDir: string;
  cacheFile: string;
  /** Also keep (and look up) finished comparisons here: the history store, shared between machines. */
  store?: ComparisonStore;
  repeat?: number;
  maxRepeat?: number;
  /** Selenium Grid base URL: every comparison runs in its own Grid session (both arms in it, one node). */
  grid?: string;
  /** Address app.serve listens on, so Grid nodes on other machines reach each checkout's app. */
  serveHost?: string;
  /** Comparisons in flight at once (speculative midpoints); above 1 only with `grid`. */
  parallel?: number;
  /**
   * A policy on each commit's scenario (the MCP server's commands switch), applied to every commit's copy before anything
   * is checked out, and to each checkout's before its build or app starts: a throw refuses the whole bisect.
   */
  vet?: Vet;
  signal?: AbortSignal;
  onEvent?: (e: BisectEvent) => void;
}

/** A ref as a commit (`rev-parse --verify`), or a PerfError naming `who` (GOOD, BAD) when it names none. */
async function commitInfo(repo: string, ref: string, who: string): Promise<CommitInfo> {
  const sha = await run('git', revParseCommit(ref), { cwd: repo, timeout: GIT_TIMEOUT_MS }).then(
    (r) => r.stdout.trim(),
    () => '',
  );
  if (!sha) throw new PerfError({ code: 'bisect_git', message: `bisect: ${who} ${JSON.stringify(ref)} names no commit of ${repo}` });
  return logInfo(repo, sha);
}

async function logInfo(repo: string, sha: string): Promise<CommitInfo> {
  const out = await git(repo, 'log', '-1', '--format=%H%x00%s%x00%aI', '--end-of-options', sha, '--');
  const [commit, subject, authorDate] = out.split('\0');
  return { commit: commit!, subject: subject ?? '', authorDate: authorDate ?? '' };
}

/** GOOD, the commits after it up to BAD on BAD's first-parent line, and BAD. */
async function commitRange(repo: string, good: string, bad: string): Promise<{ good: CommitInfo; between: CommitInfo[]; bad: CommitInfo }> {
  const g = await commitInfo(repo, good, 'GOOD');
  const b = await commitInfo(repo, bad, 'BAD');
  if (g.commit === b.commit)
    throw new PerfError({ code: 'bisect_range', message: `bisect: GOOD and BAD are the same commit (${short(g.commit)})` });
  const isAncestor = ['merge-base', '--is-ancestor', '--end-of-options', g.commit, b.commit];
  const ancestor = await run('git', isAncestor, { cwd: repo, timeout: GIT_TIMEOUT_MS }).then(
    () => true,
    () => false,
  );
  if (!ancestor)
    throw new PerfError({
      code: 'bisect_range',
      message: `bisect: GOOD ${short(g.commit)} is not an ancestor of BAD ${short(b.commit)}`,
      suggestion: 'give the older, good commit first: perf bisect GOOD BAD SCENARIO',
    });
  const range = `${g.commit}..${b.commit}`;
  const list = (await git(repo, 'rev-list', '--first-parent', '--reverse', '--end-of-options', range)).split('\n').filter(Boolean);
  const between: CommitInfo[] = [];
  for (const c of list.slice(0, -1)) between.push(await logInfo(repo, c));
  return { good: g, between, bad: b };
}

export { short };

type CacheEntries = Record<string, Omit<Comparison, 'cached'>>;

/**
 * Somewhere else finished comparisons are kept besides the cache file: the history store when one is configured
 * (`--history`), so a re-run on any machine that shares it reuses them. Values are the comparisons' JSON.
 */
export interface ComparisonStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, json: string): Promise<void>;
}

const isComparison = (v: unknown): v is Omit<Comparison, 'cached'> =>
  typeof v === 'object' && v !== null && typeof (v as { judgement?: unknown }).judgement === 'string';

/**
 * Finished comparisons by (scenario, variant, metric, baseline, candidate, build): what a re-run reuses. The file is read
 * first; the store (when given) next, and what it had is copied into the file. Each new comparison goes to both.
 */
class ComparisonCache {
  private entries: CacheEntries = {};
  constructor(
    private readonly file: string,
    private readonly store?: ComparisonStore,
  ) {
    if (!existsSync(file)) return;
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) this.entries = parsed as CacheEntries;
    } catch {
      // A damaged cache is only lost time: start afresh, and overwrite it.
    }
  }
  async get(key: string): Promise<Comparison | undefined> {
    const e = this.entries[key];
    if (isComparison(e)) return { ...e, cached: true };
    const stored = await this.store?.get(key);
    if (stored === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(stored);
    } catch {
      return undefined;
    }
    if (!isComparison(parsed)) return undefined;
    this.entries[key] = parsed;
    writeJsonAtomic(this.file, this.entries);
    return { ...parsed, cached: true };
  }
  async set(key: string, c: Comparison): Promise<void> {
    const { cached: _c, ...kept } = c;
    this.entries[key] = kept;
    writeJsonAtomic(this.file, this.entries);
    await this.store?.set(key, JSON.stringify(kept));
  }
}

interface Ctx {
  opts: BisectOptions;
  repo: string;
  scenarioRel: string;
  checkouts: Checkouts;
  cache: ComparisonCache;
  count: number;
  /** Comparisons started in this run (needed or speculative) by cache key: a needed one joins a speculative one. */
  started: Map<string, Promise<Comparison | 'interrupted'>>;
  /** Comparisons running now (a cached one while it is looked up), so speculation keeps at most `parallel` in flight. */
  active: number;
  /**
   * Each followed metric's step (the endpoints' shift, % in its worse direction, and the sign of its raw delta), once
   * measured: what the midpoints' side test and boundary are set from.
   */
  steps?: Step[];
  /** The endpoints are judged: what is compared now is a midpoint (needed or speculative). */
  midpoints?: boolean;
}

/** What a comparison is judged on: the followed metrics (or --metric's), or null: the gate's own primaries (the endpoints). */
type On = readonly string[] | null;

/**
 * A midpoint whose followed metrics are all milliseconds, with timing repeats in both scenarios (the default of an
 * interleaved compare: runner/against.ts interleavedTiming), measures timing repeats
 * alone: its verdict reads only those (the profiler's repeats inflate ms and are never judged), and the evidence of what
 * grew is the endpoints' (kept with the answer). Each unit then costs one repeat instead of one and a half, the warm-up
 * an unprofiled one. A count among them keeps the profiled repeats (some counts are read from those only).
 */
export function midpointTiming(
  midpoint: boolean,
  metrics: On,
  a: Pick<Scenario, 'timing' | 'timingSet'>,
  b: Pick<Scenario, 'timing' | 'timingSet'>,
): { timing?: TimingPlan } {
  const timingOnly = metrics !== null && metrics.length > 0 && metrics.every(isTimingMetric);
  return midpoint && timingOnly && interleavedTiming(a) && interleavedTiming(b) ? { timing: 'only' } : {};
}

/**
 * A midpoint's question is which side of the step it is on, not whether it moved at all. When the endpoints differ by D,
 * midpoints are judged at D/2 (warn = error = D/2): the boundary Wald's sequential probability ratio test puts between
 * "no change" and "the whole change" for a shift in a mean (A. Wald, Sequential Analysis, 1947, ch. 5). The side test
 * (perf/step-side.ts) decides most midpoints; this boundary is what the compare's own verdict falls back on, and what ends
 * its sampling. Whatever D's size: a step below twice the error threshold once kept the scenario's thresholds, and the
 * compare's futility rule (estimate below warn, interval clear of error) then called a commit carrying a 10.9% CPU step
 * "unchanged" at +6.5% [-6.0, 19.6] (the Tabulator grid's scroll loop, 2026-12-06): the culprit read good.
 */
export function sideThresholds(t: Scenario['thresholds'], metric: string, stepPct: number | undefined): Scenario['thresholds'] {
  if (stepPct === undefined || !(stepPct > 0)) return t;
  const half = Math.round((stepPct / 2) * 10) / 10;
  // A step of under 0.1% rounds to no boundary at all: the scenario's thresholds judge it.
  if (!(half > 0)) return t;
  return { ...t, metrics: { ...t.metrics, [metric]: { warnPct: half, errorPct: half } } };
}

/**
 * The endpoints' boundary: the warn threshold, as error too, for every metric. The gate fails on an error and calls a
 * change "unchanged" once its estimate is below warn and its interval clear of error; the bisect follows any worse
 * shift the compare confirms, so GOOD against BAD samples on until the interval is clear of warn (or a worse shift is
 * confirmed, or maxRepeat). At the gate's own boundary the Tabulator grid's scroll loop (+9% thread CPU by the medians) read
 * +1.9% [-12.2, 14.6] at 7 + 7 repeats, "not an error-size change", and the bisect stopped there: "not reproduced"
 * (2026-12-06). The primaries, the tests and α are the gate's.
 */
export function endpointThresholds(t: Scenario['thresholds']): Scenario['thresholds'] {
  const metrics = Object.fromEntries(
    Object.entries(t.metrics).map(([m, own]) => {
      // A metric given only `error` below the scenario's warn warns from there too (perf/compare/rows.ts perMetricThresholds).
      const warnPct = Math.min(own.warnPct ?? t.warnPct, own.errorPct ?? t.warnPct);
      return [m, { warnPct, errorPct: warnPct }];
    }),
  );
  return { ...t, errorPct: t.warnPct, metrics };
}

/** What every copy of the scenario is loaded with: the bisect's variant and vars. */
const loadOptions = (o: BisectOptions): { variant?: string; vars: Record<string, string> } => ({
  ...(o.variant !== undefined ? { variant: o.variant } : {}),
  vars: o.vars ?? {},
});

/** Load the scenario from a commit's checkout, pinned to the followed metrics (each at its side boundary) once chosen. */
function scenarioAt(dir: string, ctx: Ctx, metrics: On): Scenario {
  const loaded = loadScenario(ctx.scenarioRel, { ...loadOptions(ctx.opts), cwd: dir });
  const sc = ctx.midpoints ? loaded : { ...loaded, thresholds: endpointThresholds(loaded.thresholds) };
  if (!metrics) return sc;
  const step = (m: string): number | undefined => ctx.steps?.find((s) => s.metric === m)?.pct;
  const thresholds = metrics.reduce((t, m) => sideThresholds(t, m, step(m)), sc.thresholds);
  return { ...sc, gate: { metrics: [...metrics] }, thresholds };
}

const cacheKey = (ctx: Ctx, baseline: string, candidate: string, metrics: On): string => {
  const o = ctx.opts;
  // The midpoints' boundaries (sideThresholds) change the verdicts, so they are part of what was compared.
  // `~sprt`: midpoints judged by the side test (perf/step-side.ts); comparisons cached under the interval rule are not reused.
  // `~half`: at D/2 whatever the step's size (sideThresholds); those judged at the scenario's thresholds are not either.
  const side = ctx.steps?.length ? `@${ctx.steps.map((x) => x.pct.toFixed(1)).join(',')}~sprt~half` : '';
  return [
    ctx.scenarioRel,
    o.variant ?? '',
    // `gate`: the endpoints judged by the gate's own compare, every regressed primary followed (`*`: the worst one's);
    // `~warn`: at the warn threshold (endpointThresholds), not the gate's error threshold.
    `${metrics ? metrics.join(',') : 'gate'}${ctx.midpoints ? side : '~warn'}`,
    JSON.stringify(o.vars ?? {}),
    o.build ?? '',
    baseline,
    candidate,
  ].join('|');
};

/**
 * One A/B comparison of two commits (cached), started once per run: a needed comparison that speculation
 * already started waits for that one instead of measuring it again.
 */
function compareCommits(
  ctx: Ctx,
  baseline: string,
  candidate: string,
  metrics: On,
  speculative = false,
): Promise<Comparison | 'interrupted'> {
  const key = cacheKey(ctx, baseline, candidate, metrics);
  let p = ctx.started.get(key);
  if (!p) {
    p = measureCommits(ctx, key, baseline, candidate, metrics, speculative);
    ctx.started.set(key, p);
    // A speculative comparison nobody awaits yet must not be an unhandled rejection; whoever needs it sees the error.
    p.catch(() => undefined);
  }
  return p;
}

/** The comparison itself: sequential, interleaved, in the commits' own checkouts (on the Grid when given). */
async function measureCommits(
  ctx: Ctx,
  key: string,
  baseline: string,
  candidate: string,
  metrics: On,
  speculative: boolean,
): Promise<Comparison | 'interrupted'> {
  const o = ctx.opts;
  const index = ++ctx.count;
  o.onEvent?.({ kind: 'compare-start', baseline, candidate, index, speculative });
  // Counted before the cache lookup, which may wait on the history store: speculation, which runs right after this
  // call returns, must see the comparison in flight, or it would start more than `parallel`.
  ctx.active++;
  try {
    const hit = await ctx.cache.get(key);
    if (hit) {
      o.onEvent?.({ kind: 'compare-end', comparison: hit, index });
      return hit;
    }
    const out = await judgeCommits(ctx, baseline, candidate, metrics);
    if (out === 'interrupted') return out;
    await ctx.cache.set(key, out);
    o.onEvent?.({ kind: 'compare-end', comparison: out, index });
    return out;
  } finally {
    ctx.active--;
  }
}

/**
 * Both commits measured afresh, interleaved, even when GOOD was measured before: judging a midpoint alone against
 * GOOD's earlier repeats (a stored baseline) was tried and named the wrong culprit on a shared host: a good commit
 * read 10% slower (interval 5–16%) seven minutes after GOOD as the host slowed (bench:bisect, 2026-12-04).
 */
async function judgeCommits(ctx: Ctx, baseline: string, candidate: string, metrics: On): Promise<Comparison | 'interrupted'> {
  const o = ctx.opts;
  let out: Comparison;
  try {
    const [a, b] = [await ctx.checkouts.folder(baseline), await ctx.checkouts.folder(candidate)];
    const [scA, scB] = [scenarioAt(a, ctx, metrics), scenarioAt(b, ctx, metrics)];
    const side = sideTest(ctx);
    // A midpoint stops once the side test decides it; the endpoints once BAD is judged worse.
    const stop = side
      ? (c: RunsComparison) => side(c)?.why
      : ctx.midpoints
        ? undefined
        : (c: RunsComparison) => endpointsAnswered(c, metrics);
    const judged = await runAndJudge({
      kind: 'against',
      baseline: scA,
      candidate: scB,
      options: {
        ...midpointTiming(ctx.midpoints === true, metrics, scA, scB),
        outDir: join(o.outDir, `${short(baseline)}-vs-${short(candidate)}`),
        ...(o.repeat !== undefined ? { repeat: o.repeat } : {}),
        ...(o.maxRepeat !== undefined ? { maxRepeat: o.maxRepeat } : {}),
        ...(o.grid !== undefined ? { grid: o.grid } : {}),
        ...(o.serveHost !== undefined ? { serveHost: o.serveHost } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
        ...(stop ? { stop } : {}),
        // The endpoints hold a set-aside primary while its interval reaches past warn (endpointThresholds: error = warn).
        ...(ctx.midpoints ? {} : { compare: { holdSetAside: true } }),
        onLook: (event) => o.onEvent?.({ kind: 'look', event }),
      },
    });
    if (judged.res.candidate.run.interrupted || o.signal?.aborted) return 'interrupted';
    const c = judged.comparison;
    // The side test's answer when it decided; else the compare's own verdicts on the followed metrics.
    const judgement =
      (c && side?.(c)) ?? (ctx.midpoints ? judgementOn(c, metrics ?? [], true) : endpointJudgement(c, metrics?.[0] ?? null));
    out = { baseline, candidate, ...judgement, cached: false };
  } catch (e) {
    if (o.signal?.aborted) return 'interrupted';
    // A commit that cannot be checked out, built, loaded or run is skipped, with the reason; a bug or a refusal still throws.
    if (!(e instanceof PerfError) || e.kind === 'internal' || isRefusal(e)) throw e;
    const metric = metrics?.[0] ?? null;
    out = { baseline, candidate, metric, judgement: 'untestable', repeats: 0, deltaPct: null, ci: null, why: e.message, cached: false };
  }
  return out;
}

/**
 * The endpoints' question is whether BAD is worse at all: once the gate's compare has found a primary regressed past
 * warn at this look's boundary (a set-aside one included; with --metric, that metric), the search can start,
 * following every primary regressed by that look (bisect-follow.ts). Sampling on until the whole interval clears the
 * threshold would only size the step more precisely, at 3 repeats per arm a round (timing repeats and the profiled
 * ones between them); the midpoints' side test takes the step as estimated. A BAD that is not worse past warn samples
 * until the compare is decided (every interval clear of warn) or maxRepeat; a worse shift confirmed below warn is
 * followed then.
 */
function endpointsAnswered(c: RunsComparison, metrics: On): string | undefined {
  return regressedPastWarn(c, metrics?.[0] ?? null) ? `BAD is worse: ${c.gate.summary}` : undefined;
}

/**
 * A midpoint's side of the step on each followed metric, by Wald's SPRT between "no change" and "the whole step"
 * (perf/step-side.ts, bisect-follow.ts sideJudgement: bad when any metric is like the step, good when all are like
 * GOOD); undefined while undecided, and for the endpoints (no step is known yet). Also for a midpoint against BAD:
 * there "the whole step" means BAD is worse than it, so it is on GOOD's side.
 */
function sideTest(ctx: Ctx): ((c: RunsComparison) => Judged | undefined) | undefined {
  const steps = ctx.steps;
  if (!ctx.midpoints || !steps?.length) return undefined;
  return (c) => sideJudgement(c, steps);
}

type Tested = 'good' | 'bad' | 'skipped';

/**
 * Test a commit between the endpoints: against GOOD first; when that cannot decide, against BAD (as bad as BAD
 * means bad, better than BAD means good); still undecided or untestable: skipped.
 */
async function testCommit(
  ctx: Ctx,
  ends: { good: string; bad: string },
  c: CommitInfo,
  metrics: readonly string[],
): Promise<TestedCommit | 'interrupted'> {
  const first = await compareCommits(ctx, ends.good, c.commit, metrics);
  if (first === 'interrupted') return first;
  const done = (verdict: Tested, comparisons: Comparison[]): TestedCommit => testedCommit(c, verdict, comparisons);
  if (first.judgement === 'worse') return done('bad', [first]);
  if (first.judgement === 'same') return done('good', [first]);
  if (first.judgement === 'untestable') return done('skipped', [first]);
  const second = await compareCommits(ctx, c.commit, ends.bad, metrics);
  if (second === 'interrupted') return second;
  if (second.judgement === 'worse') return done('good', [first, second]);
  if (second.judgement === 'same') return done('bad', [first, second]);
  return done('skipped', [first, second]);
}

/** The middle of the commits between lo and hi (exclusive) not skipped, or none. */
function middle(lo: number, hi: number, skipped: Set<number>): number | undefined {
  const open: number[] = [];
  for (let i = lo + 1; i < hi; i++) if (!skipped.has(i)) open.push(i);
  return open.length ? open[Math.floor((open.length - 1) / 2)] : undefined;
}

/**
 * The commit the search tests next between lo and hi (exclusive), as `git bisect --first-parent` would choose it:
 * `git rev-list --bisect`, or once any commit was skipped, the first one not skipped in `--bisect-all`'s order (git
 * then sorts by distance and breaks ties by hash). Someone who bisected by hand meets the same commits, and where two
 * commits halve the range equally well, the choice is git's, not always the lower one. When git names none of the
 * open commits, the middle of those not skipped.
 */
export async function midpoint(
  repo: string,
  all: { commit: string }[],
  lo: number,
  hi: number,
  skipped: Set<number>,
): Promise<number | undefined> {
  const open = (i: number): boolean => i > lo && i < hi && !skipped.has(i);
  const fallback = middle(lo, hi, skipped);
  if (fallback === undefined) return undefined;
  const range = [all[hi]!.commit, `^${all[lo]!.commit}`];
  const out = skipped.size
    ? await git(repo, 'rev-list', '--first-parent', '--bisect-all', '--end-of-options', ...range)
    : await git(repo, 'rev-list', '--first-parent', '--bisect', '--end-of-options', ...range);
  for (const line of out.split('\n')) {
    const i = all.findIndex((c) => c.commit === line.split(' ')[0]);
    if (open(i)) return i;
  }
  return fallback;
}

/**
 * Speculation as Pinpoint does it on its bots: while `mid` is measured, the midpoints the search would test
 * next (of both halves, since either may follow, then of their halves) are compared against GOOD at once,
 * nearest level first, until `parallel` comparisons are in flight. One that turns out not to be needed still
 * finishes and is cached (a later bisect of an overlapping range reuses it).
 */
async function speculate(
  ctx: Ctx,
  all: CommitInfo[],
  metrics: readonly string[],
  [lo, mid, hi]: [number, number, number],
  skipped: Set<number>,
): Promise<void> {
  const parallel = ctx.opts.parallel ?? 1;
  let level: [number, number][] = [
    [lo, mid],
    [mid, hi],
  ];
  while (level.length) {
    const next: [number, number][] = [];
    for (const [a, b] of level) {
      const m = await midpoint(ctx.repo, all, a, b, skipped);
      if (m === undefined) continue;
      if (ctx.active >= parallel) return;
      void compareCommits(ctx, all[0]!.commit, all[m]!.commit, metrics, true);
      next.push([a, m], [m, b]);
    }
    level = next;
  }
}

/** Binary search over the commits between GOOD (index 0) and BAD (the last), skipping what cannot be judged. */
async function search(
  ctx: Ctx,
  all: CommitInfo[],
  metrics: readonly string[],
  tested: TestedCommit[],
): Promise<{ lo: number; hi: number; skipped: number[] } | 'interrupted'> {
  let lo = 0;
  let hi = all.length - 1;
  const skipped = new Set<number>();
  const ends = { good: all[0]!.commit, bad: all[hi]!.commit };
  for (;;) {
    const mid = await midpoint(ctx.repo, all, lo, hi, skipped);
    if (mid === undefined) break;
    // Started first, so speculation counts it among the comparisons in flight.
    const pending = testCommit(ctx, ends, all[mid]!, metrics);
    // A git failure while speculating only costs the speculation: the needed comparison runs either way.
    if ((ctx.opts.parallel ?? 1) > 1) speculate(ctx, all, metrics, [lo, mid, hi], new Set(skipped)).catch(() => undefined);
    const t = await pending;
    if (t === 'interrupted') return t;
    tested.push(t);
    if (t.verdict === 'good') lo = mid;
    else if (t.verdict === 'bad') hi = mid;
    else skipped.add(mid);
  }
  return { lo, hi, skipped: [...skipped].filter((i) => i > lo && i < hi).sort((x, y) => x - y) };
}

/** Where the scenario sits in the repository, so each checkout loads its own copy. */
async function locate(opts: BisectOptions): Promise<{ repo: string; scenarioRel: string }> {
  const repo = await git(opts.cwd, 'rev-parse', '--show-toplevel');
  const scenarioRel = relative(repo, resolve(opts.cwd, opts.scenario));
  if (scenarioRel.startsWith('..'))
    throw new PerfError({ code: 'bisect_range', message: `bisect: ${opts.scenario} is outside the repository ${repo}` });
  return { repo, scenarioRel };
}

/** Comparisons at once only on a Grid: on this machine they would share its CPU and measure each other. */
function checkParallel(opts: BisectOptions): void {
  const parallel = opts.parallel ?? 1;
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new PerfError({ code: 'invalid_flag', message: `bisect: --parallel must be a whole number >= 1, got ${parallel}` });
  if (parallel > 1 && opts.grid === undefined)
    throw new PerfError({
      code: 'invalid_flag',
      message:
        `bisect: --parallel ${parallel} needs a Selenium Grid (--grid URL): comparisons in parallel on this one machine ` +
        'would share its CPU and measure each other',
      suggestion: 'add --grid http://HOST:4444 (each comparison then gets its own Grid session, on its own node), or drop --parallel',
    });
}

export async function bisect(opts: BisectOptions): Promise<BisectResult> {
  const started = Date.now();
  checkParallel(opts);
  checkRef(opts.good, 'bisect GOOD');
  checkRef(opts.bad, 'bisect BAD');
  const { repo, scenarioRel } = await locate(opts);
  const pruned = await pruneStale(repo);
  if (pruned.length) opts.onEvent?.({ kind: 'pruned', paths: pruned });
  const range = await commitRange(repo, opts.good, opts.bad);
  opts.onEvent?.({ kind: 'commits', count: range.between.length });
  const load = (text: string): Scenario => loadScenario(scenarioRel, { ...loadOptions(opts), cwd: repo, text, allowOutside: true });
  const commits = [range.good, ...range.between, range.bad].map((c) => c.commit);
  const programs = await vetRange({ repo, rel: scenarioRel, load, vet: opts.vet }, commits);
  opts.onEvent?.({ kind: 'programs', ...programs });
  const checkouts = new Checkouts(repo, {
    build: opts.build,
    signal: opts.signal,
    onBuild: (commit) => opts.onEvent?.({ kind: 'build', commit }),
    vet: (dir, commit) => vetCheckout(dir, commit, scenarioRel, () => scenarioAt(dir, ctx, null), opts.vet),
  });
  const ctx: Ctx = {
    opts,
    repo,
    scenarioRel,
    checkouts,
    cache: new ComparisonCache(opts.cacheFile, opts.store),
    count: 0,
    started: new Map(),
    active: 0,
  };
  const tested: TestedCommit[] = [];
  const elapsed = (): number => Date.now() - started;
  try {
    const forced = opts.metric !== undefined ? [opts.metric] : null;
    const ends = await compareCommits(ctx, range.good.commit, range.bad.commit, forced);
    if (ends === 'interrupted') return { outcome: 'interrupted', metric: opts.metric ?? null, followed: [], tested, durationMs: elapsed() };
    if (ends.judgement === 'untestable')
      throw new PerfError({
        code: 'bisect_endpoints',
        kind: 'environment',
        message: `bisect: GOOD ${short(range.good.commit)} against BAD ${short(range.bad.commit)} could not be judged: ${ends.why ?? ''}`,
      });
    tested.push(testedCommit(range.bad, ends.judgement === 'worse' ? 'bad' : 'good', [ends]));
    if (ends.judgement !== 'worse' || ends.metric === null)
      return { outcome: 'not_reproduced', metric: ends.metric, followed: [], endpoints: ends, tested, durationMs: elapsed() };
    // Every gated metric that regressed from GOOD to BAD (or --metric's), the largest shift first. A comparison cached
    // with --metric carries no readings: its one metric is the reading.
    const readings = ends.readings ?? [{ metric: ends.metric, deltaPct: ends.deltaPct, ci: ends.ci, verdict: 'regressed' as const }];
    const followed = followedOf(readings, forced !== null);
    opts.onEvent?.({ kind: 'following', followed });
    ctx.steps = stepsOf(readings);
    ctx.midpoints = true;
    const all = [range.good, ...range.between, range.bad];
    const metrics = readings.map((r) => r.metric);
    const found = await search(ctx, all, metrics, tested);
    const metric = metrics[0]!;
    if (found === 'interrupted') return { outcome: 'interrupted', metric, followed, tested, durationMs: elapsed() };
    if (found.skipped.length) {
      const candidates = [...found.skipped, found.hi].map((i) => all[i]!);
      return { outcome: 'ambiguous', metric, followed, candidates, tested, durationMs: elapsed() };
    }
    const culprit = all[found.hi]!;
    const own = tested.find((t) => t.commit === culprit.commit)?.comparisons.find((x) => x.judgement === 'worse');
    // A timing-only midpoint kept no profile: what grew is then told by the endpoints' comparison.
    const delta = !own ? ends : own.attribution || !ends.attribution ? own : { ...own, attribution: ends.attribution };
    return { outcome: 'found', metric: delta.metric ?? metric, followed, culprit: { ...culprit, delta }, tested, durationMs: elapsed() };
  } finally {
    // Speculative comparisons still running measure in these checkouts: they finish (and are cached) first.
    await Promise.allSettled(ctx.started.values());
    await checkouts.close();
  }
}
