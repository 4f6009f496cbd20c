/**
 * A metric's trend over recorded runs, with its change points (change-points.ts): what `perf history show`,
 * `perf history changes`, the trends page and MCP `perf_history` print. Pure: plain points in (the CLI and MCP
 * read them from the history store), a trend out; no store types here, so reporters/ may read it.
 */
import { changePoints, type ChangePointOptions } from './change-points.js';
import { defaultPrimaryMetrics, floorOf, LOAD_METRICS, resolveMetric, sortMetricNames } from './metrics.js';
import { p25, p75 } from './stats.js';

/** One recorded run's values of the metric. */
export interface TrendPointInput {
  runId: number;
  /** The commit measured (full sha), null outside a git checkout. */
  commit: string | null;
  subject: string | null;
  /** When the run started (ISO). */
  date: string;
  /** The measured repeats' values. */
  values: readonly number[];
  median: number;
}

export interface TrendPoint {
  runId: number;
  commit: string | null;
  subject: string | null;
  date: string;
  median: number;
  /** Measured repeats with the metric. */
  n: number;
  /** The repeats' interquartile range, for the chart's spread. */
  p25: number;
  p75: number;
}

/** A change point, named by the first run (and commit) of the new level. */
export interface TrendChange {
  /** Index into the trend's points. */
  index: number;
  runId: number;
  commit: string | null;
  subject: string | null;
  date: string;
  /** Medians of the run medians before and after (to the neighbouring change points). */
  before: number;
  after: number;
  /** (after − before) / max(|before|, floor), a fraction. */
  relativeChange: number;
  pValue: number;
}

export interface TrendKey {
  scenario: string;
  variant: string | null;
  metric: string;
}

export interface Trend extends TrendKey {
  /** metrics.ts unit ('ms', 'layouts', …). */
  unit: string;
  better: 'lower' | 'higher' | 'none';
  points: TrendPoint[];
  changes: TrendChange[];
}

/** The trend of one metric: its points (oldest first) and change points computed on the run medians. */
export function buildTrend(key: TrendKey, inputs: readonly TrendPointInput[], options: ChangePointOptions = {}): Trend {
  const resolved = resolveMetric(key.metric);
  const points: TrendPoint[] = inputs.map((p) => ({
    runId: p.runId,
    commit: p.commit,
    subject: p.subject,
    date: p.date,
    median: p.median,
    n: p.values.length,
    p25: p.values.length ? p25(p.values) : p.median,
    p75: p.values.length ? p75(p.values) : p.median,
  }));
  const floor = options.floor ?? (resolved ? floorOf(resolved) : 0);
  const changes = changePoints(
    points.map((p) => p.median),
    { ...options, floor },
  ).map((c) => {
    const at = points[c.index]!;
    return {
      index: c.index,
      runId: at.runId,
      commit: at.commit,
      subject: at.subject,
      date: at.date,
      before: c.beforeMedian,
      after: c.afterMedian,
      relativeChange: c.relativeChange,
      pValue: c.pValue,
    };
  });
  return { ...key, unit: resolved?.def.unit ?? '', better: resolved?.def.better ?? 'none', points, changes };
}

/**
 * The primary metrics of a recorded scenario: its `gate:` block when the newest run has one, else the registry's
 * default family (the load family when the runs measured a load), kept to those the history holds.
 */
export function primaryMetricsOf(recorded: readonly string[], gate?: readonly string[]): string[] {
  const held = new Set(recorded);
  const isLoad = LOAD_METRICS.some((d) => held.has(d.name));
  const wanted = gate?.length ? gate : defaultPrimaryMetrics(isLoad);
  return sortMetricNames(wanted.filter((m) => held.has(m)));
}
