/**
 * The shapes passed between the stages of a comparison (compare-runs.ts names them in order) and the one
 * it ends with: DESIGN.md's compare JSON, RunsComparison. Types only.
 */
import type { CompareResult, Direction } from '../compare.js';
import type { PrimaryChoiceRecord, SequentialRecord } from '../run-file.js';
import type { HostBusy } from '../host-busy.js';
import type { ComparisonFlame } from '../attribution.js';
import type { InsightChange } from './insight-changes.js';

export interface RunIdentity {
  file: string | null;
  scenario: string;
  variant: string | null;
  label: string;
  startedAt: string;
  /** Repeats whose metrics were used (measured, not warmup). */
  measured: number;
  refused: number;
  failed: number;
  timingRepeats: number;
}

export interface ThresholdsUsed {
  warnPct: number;
  errorPct: number;
  metrics: Record<string, { warnPct?: number; errorPct?: number }>;
}

/** DESIGN.md's compare JSON: compareMetrics() plus the run-level facts around it. */
export interface RunsComparison extends CompareResult {
  thresholds: ThresholdsUsed;
  frames: { painted: { a: number | null; b: number | null } };
  timing: { gated: boolean; note: string };
  /**
   * Whether both runs come from one kind of machine; when not, what that means for the verdict. `busy`:
   * primary differences that followed the host's speed, not the build (perf/host-busy.ts).
   */
  host: { same: boolean; note?: string; busy?: Omit<HostBusy, 'metrics' | 'headline'> };
  /** Which metrics decided the verdict, how, and at which look. */
  gate: {
    primary: string[];
    /**
     * Primary metrics the noise rule set aside as too noisy to judge a warn-size change: each is tested at a smaller
     * share of α, decides when that still rejects, and holds the gate (inconclusive) while its estimate is past warn.
     */
    setAside?: { metric: string; why: string; deltaPct: number | null }[];
    /** Primary metrics that could not be judged here, and why. */
    notJudged: { metric: string; why: string }[];
    /**
     * How the primary family was chosen (scenario, registry default, or the noise rule on the baseline),
     * at which look, what the rule demoted and promoted and why. Absent in compare files of older versions.
     */
    chosen?: PrimaryChoiceRecord & { note: string };
    alpha: number;
    look: number;
    /** A sequential comparison: how it sampled. */
    sequential: (SequentialRecord & { note: string }) | null;
    /** One line for a reader: what decided, and what is undecided. */
    summary: string;
  };
  /** Differences a reader must know about (env, forced compare, ignored repeats); never change the verdict. */
  warnings: string[];
  baseline: RunIdentity;
  candidate: RunIdentity;
  /** The folded stacks of each run's median attribution repeat, for a differential flame graph (HTML report). */
  attribution?: { flame: ComparisonFlame };
  /** Insights that appear, disappear, grow or shrink between the runs: they explain, never decide. Absent in older files. */
  insights?: InsightChange[];
}

export interface CompareRunsOptions {
  /** Compare runs of different scenarios or variants anyway (a warning instead of exit 2). */
  force?: boolean;
  alpha?: number;
  /** Replace the thresholds read from the candidate run file (e.g. the gate's loaded scenario). */
  thresholds?: ThresholdsUsed;
  /** Replace the primary metrics read from the candidate run file; the noise rule then does not apply. */
  primary?: string[];
  /** The design of a sequential comparison in progress (else the candidate file's `sequential`, else a fixed compare). */
  sequential?: SequentialRecord;
  /** Rejections made at earlier looks of the same sequential comparison. */
  rejected?: Readonly<Record<string, Direction>>;
  /** Paths, for messages and the identity blocks. */
  files?: { a?: string; b?: string };
  /** CompareOptions.holdSetAside: a set-aside metric below warn holds while its interval reaches past error (perf bisect). */
  holdSetAside?: boolean;
}

export interface SampleContext {
  /** Both runs have timing-mode repeats: ms metrics are read from those and judged. */
  timingGated: boolean;
  sameHost: boolean;
  /** Median painted frames per run; per-frame forms need both ≥ MIN_PAINTED_FOR_PER_FRAME. */
  painted: { a: number | null; b: number | null };
  /** The primary forms actually judged. */
  primary: string[];
  notJudged: { metric: string; why: string }[];
  /** How the primary family was chosen (see RunsComparison.gate.chosen). */
  chosen: PrimaryChoiceRecord & { note: string };
}

/** What metricSamples needs to apply the noise rule; compareRuns passes what it resolved. */
export interface SampleOptions {
  /** The primary family, overriding the rule (CompareRunsOptions.primary; else the candidate's gate.metrics). */
  primary?: string[];
  sequential?: SequentialRecord | undefined;
  /** Thresholds in use (warn-size is what the rule sizes); default the candidate file's. */
  thresholds?: ThresholdsUsed;
  /** The compare's α; default the sequential design's, else DEFAULT_ALPHA. */
  alpha?: number;
  /** Which look this is (the choice made now is recorded with it). */
  look?: number;
}
