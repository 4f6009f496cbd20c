/**
 * A metric source: one family of metrics (frames, interactions, counters…) read from a closed session's
 * raw data. Each says which coverage entries it answers for and why one is missing (from what the driver
 * read), which registry metrics it may write, and what it found, typed, for the report and the insights.
 * buildReport (src/perf/report.ts) folds over SOURCES (./index.ts) in order.
 */
import { BEGIN_MARK, type RawSession, type SourceName } from '../../drivers/measure.js';
import type { StepSpan } from '../analysis.js';
import type { FrameStats } from '../frames.js';
import type { MetricDefinition } from '../metrics.js';

/** What every source reads: the raw session, the steps that ran in it, and the trace clock. */
export interface SourceInput {
  raw: RawSession;
  spans: readonly StepSpan[];
  /** The measured window, epoch ms. */
  window: { startAt: number; endAt: number };
  /** Trace clock → epoch (ms), when the trace or the counters tie them. */
  offsetMs: number | undefined;
}

/**
 * What painted, established before any source measures: every `.perFrame` form divides by `painted`,
 * the profile places samples in frames, the refusal reads the liveness count.
 */
export interface FramePicture {
  stats: FrameStats | undefined;
  /** Frames that show the page (or the terminal program) drew anything; undefined when nothing could say. */
  liveness: number | undefined;
  /** Painted frames, ≥ 1: the divisor of every perFrame metric. */
  painted: number;
  /** Index of the frame containing epoch time `at`, or -1. */
  frameOf(at: number): number;
  /** Why the frame sources are missing (the driver's reason first). */
  missing: Partial<Record<'frames' | 'liveness', string>>;
}

export interface SourceContext extends SourceInput {
  frames: FramePicture;
  /** Whether a coverage entry was read (a source writes the metrics of a missing entry not at all). */
  read(source: SourceName): boolean;
}

/** One metric value a source writes; `name` only for a pattern (`steps.<label>.ms`). */
export interface Emit {
  def: MetricDefinition;
  value: number;
  /** Rounding digits (profile.ts round's default, 2, when absent). */
  digits?: number;
  name?: string;
}

/**
 * Coverage entries a source answers for: a reason when missing, null when read; an entry left out was
 * not tried by this driver and does not show in coverage.
 */
export type CoverageAnswer = Partial<Record<SourceName, string | null>>;

export interface SourceDefinition<Findings> {
  /** The family's name (a file in src/perf/sources). */
  name: string;
  /** Every registry metric it may write: test/report-sources.test.ts holds these against the registry, both ways. */
  emits: readonly MetricDefinition[];
  cover(input: SourceInput, frames: FramePicture): CoverageAnswer;
  measure(ctx: SourceContext): { emits: Emit[]; findings: Findings; warnings?: string[] };
}

export function defineSource<Findings>(def: SourceDefinition<Findings>): SourceDefinition<Findings> {
  return def;
}

/**
 * Trace clock → epoch: the user-timing mark perf_begin placed is in both (epoch from the page, ts in
 * the trace); else the Performance.getMetrics Timestamp (ticks, s) against the checkpoint's epoch.
 */
export function clockOffsetMs(raw: RawSession): number | undefined {
  const begin = raw.marks.find((m) => m.name === BEGIN_MARK);
  if (begin && raw.trace) {
    const ev = raw.trace.events.find((e) => e.name === BEGIN_MARK && e.cat.includes('user_timing'));
    if (ev) return begin.at - ev.ts / 1000;
  }
  const cp = raw.checkpoints[0];
  const ts = cp?.values.Timestamp;
  if (cp && ts) return cp.at - ts * 1000;
  return undefined;
}

/** Why the in-page probe could not be read, when it could not (an empty reason is none). */
export function probeReason(raw: RawSession): string | undefined {
  return raw.probeMissing ? raw.probeMissing : undefined;
}
