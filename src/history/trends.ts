/**
 * The trends of recorded scenarios read from a history store (for `perf history show|changes` and MCP
 * `perf_history`): which scenario/variant series and which metrics (the primary ones unless one is named), each
 * series read for the newest run's host when the metric depends on the machine, and its change points.
 */
import { closest, PerfError } from '../errors.js';
import type { ChangePointOptions } from '../perf/change-points.js';
import { resolveMetric } from '../perf/metrics.js';
import { buildTrend, primaryMetricsOf, type Trend } from '../perf/trends.js';
import type { HistoryStore, StoredRun } from './types.js';

export interface TrendQuery {
  /** One scenario (by name), or every recorded one. */
  scenario?: string;
  /** One variant (null: the scenario without a variant); undefined: every recorded variant. */
  variant?: string | null;
  /** One metric, or the scenario's primary metrics. */
  metric?: string;
  /** ISO date: only runs started at or after it. */
  since?: string;
  /** The newest N runs of each series. */
  limit?: number;
  branch?: string;
}

/** Each recorded scenario/variant with its newest run, in name order. */
async function seriesKeys(store: HistoryStore, q: TrendQuery): Promise<StoredRun[]> {
  const runs = await store.runs({
    ...(q.scenario !== undefined ? { scenario: q.scenario } : {}),
    ...(q.variant !== undefined ? { variant: q.variant } : {}),
    ...(q.branch !== undefined ? { branch: q.branch } : {}),
    // One scenario and variant named: its newest run is all that is needed (10,000 runs read for nothing cost 0.1 s).
    ...(q.scenario !== undefined && q.variant !== undefined ? { limit: 1 } : {}),
  });
  const newest = new Map<string, StoredRun>();
  for (const r of runs) if (!newest.has(`${r.scenario}\u0000${r.variant ?? ''}`)) newest.set(`${r.scenario}\u0000${r.variant ?? ''}`, r);
  return [...newest.values()].sort((a, b) => a.scenario.localeCompare(b.scenario) || (a.variant ?? '').localeCompare(b.variant ?? ''));
}

/** Names the recorded scenarios (or variants) when the one asked for has no runs. */
async function notRecorded(store: HistoryStore, q: TrendQuery): Promise<PerfError> {
  const all = await store.runs({});
  const scenarios = [...new Set(all.map((r) => r.scenario))].sort();
  const variants = [...new Set(all.filter((r) => r.scenario === q.scenario).map((r) => r.variant ?? '(none)'))].sort();
  const known = scenarios.includes(q.scenario!);
  const what = known ? `variant "${q.variant ?? '(none)'}" of scenario "${q.scenario}"` : `scenario "${q.scenario}"`;
  const list = known ? `its variants: ${variants.join(', ')}` : `recorded scenarios: ${scenarios.join(', ') || 'none'}`;
  const near = known ? [] : closest(q.scenario!, scenarios);
  return new PerfError({
    code: 'history_not_recorded',
    message: `${store.location} holds no runs of ${what}${q.branch ? ` on branch ${q.branch}` : ''}; ${list}`,
    ...(near.length ? { candidates: near } : {}),
  });
}

async function metricsOf(store: HistoryStore, newest: StoredRun, q: TrendQuery): Promise<string[]> {
  const recorded = await store.metrics({ scenario: newest.scenario, variant: newest.variant });
  if (q.metric === undefined) return primaryMetricsOf(recorded, (await store.runFile(newest.runId)).gate?.metrics);
  if (recorded.includes(q.metric)) return [q.metric];
  // Named for every scenario: a scenario that never measured it has no series of it, which is not an error.
  if (q.scenario === undefined) return [];
  const near = closest(q.metric, recorded);
  throw new PerfError({
    code: 'history_not_recorded',
    message:
      `--metric: no run of "${newest.scenario}" recorded "${q.metric}"` +
      (near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''),
    ...(near.length ? { candidates: near } : {}),
  });
}

/** The trends a query names, each with its change points. */
export async function loadTrends(store: HistoryStore, q: TrendQuery, options: ChangePointOptions = {}): Promise<Trend[]> {
  const keys = await seriesKeys(store, q);
  if (!keys.length && q.scenario !== undefined) throw await notRecorded(store, q);
  const trends: Trend[] = [];
  for (const newest of keys) {
    for (const metric of await metricsOf(store, newest, q)) {
      // Milliseconds from two machines are two series: the newest run's host is the one shown.
      const hostDependent = resolveMetric(metric)?.def.hostDependent ?? true;
      const points = await store.series({
        scenario: newest.scenario,
        variant: newest.variant,
        metric,
        ...(hostDependent ? { hostKey: newest.hostKey } : {}),
        ...(q.since !== undefined ? { since: q.since } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
        ...(q.branch !== undefined ? { branch: q.branch } : {}),
      });
      const inputs = points.map((p) => ({
        runId: p.run.runId,
        commit: p.run.git.commit,
        subject: p.run.git.subject,
        date: p.run.startedAt,
        values: p.values,
        median: p.median,
      }));
      trends.push(buildTrend({ scenario: newest.scenario, variant: newest.variant, metric }, inputs, options));
    }
  }
  return trends;
}
