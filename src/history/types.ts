/**
 * The history store's contract (issue 31, DESIGN.md wave 3): what is kept of every recorded run and how it is read
 * back. Two backends implement it (an embedded SQLite file, a team's PostgreSQL); the CLI verbs, the gate's
 * `--baseline history` and MCP `perf_history` see only this interface.
 *
 * Raw per-repeat samples are kept, not only medians: change points, baselines and re-judging need the spread.
 */
import type { RunFile } from '../perf/run-file.js';

/** Where a run's code came from; every field null outside a git checkout. */
export interface GitInfo {
  commit: string | null;
  branch: string | null;
  /** The merge-base of `commit` with the default branch (main/master, or --branch's), for baselines. */
  mergeBase: string | null;
  /** The commit's subject line and author date (ISO), to name a change point's commit without git. */
  subject: string | null;
  authorDate: string | null;
}

/** What a run is recorded with, beside its run file. */
export interface RecordInput {
  run: RunFile;
  git: GitInfo;
  /** A project name (package.json name, else the checkout's folder name): one store may serve several. */
  project: string;
}

/** One stored run, without its samples. */
export interface StoredRun {
  runId: number;
  project: string;
  scenario: string;
  variant: string | null;
  label: string;
  git: GitInfo;
  /** perf/compare/preflight.ts hostKey(env): host-dependent metrics compare only within one. */
  hostKey: string;
  toolVersion: string;
  startedAt: string;
  finishedAt: string;
  complete: boolean;
  /** Measured (non-warmup) repeats. */
  repeats: number;
}

/** One point of a metric's series: a run and its raw values (one per measured repeat that had the metric). */
export interface SeriesPoint {
  run: StoredRun;
  values: number[];
  /** The median of `values` (what change points are computed on). */
  median: number;
}

export interface SeriesQuery {
  project?: string;
  scenario: string;
  variant?: string | null;
  metric: string;
  branch?: string;
  hostKey?: string;
  /** ISO date: only runs started at or after it. */
  since?: string;
  /** The newest N runs (default: all), returned oldest first. */
  limit?: number;
}

/** The recorded verdict of one comparison (run/gate --against, perf gate). */
export interface VerdictInput {
  baselineRunId: number | null;
  candidateRunId: number;
  verdict: 'pass' | 'warn' | 'fail' | 'inconclusive';
  /** Per primary metric: the compare row's status and relative change. */
  metrics: { metric: string; status: string; deltaPct: number | null }[];
}

export interface HistoryStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Where it is (a file path, or the URL with its password removed), for messages. */
  readonly location: string;
  /** Idempotent: a run file recorded twice (same scenario, variant, label, startedAt, host) is stored once. */
  recordRun(input: RecordInput): Promise<{ runId: number; created: boolean }>;
  recordVerdict(input: VerdictInput): Promise<void>;
  /** A metric's series, oldest first. */
  series(q: SeriesQuery): Promise<SeriesPoint[]>;
  /** The metric names recorded for a scenario (and variant). */
  metrics(q: { project?: string; scenario: string; variant?: string | null }): Promise<string[]>;
  /** Runs matching the filter, newest first. */
  runs(q: {
    project?: string;
    scenario?: string;
    variant?: string | null;
    commit?: string;
    branch?: string;
    hostKey?: string;
    limit?: number;
  }): Promise<StoredRun[]>;
  /** A stored run rebuilt as a run file (repeats carry the stored metrics), for the gate's baseline. */
  runFile(runId: number): Promise<RunFile>;
  prune(q: { keepDays?: number; keepRuns?: number }): Promise<{ runsDeleted: number; samplesDeleted: number }>;
  /** A finished `perf bisect` comparison (its JSON) by its key, or undefined. */
  bisectComparison(key: string): Promise<string | undefined>;
  /** Keep a finished comparison; the same key again replaces it. */
  putBisectComparison(key: string, json: string): Promise<void>;
  close(): Promise<void>;
}
