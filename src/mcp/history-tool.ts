/**
 * perf_history: the recent series of a metric from the history store and where it changed (`perf history show`
 * and `changes` for an agent). The reply stays under HISTORY_REPLY_MAX_BYTES however long the history is: the
 * newest points of each series, its change points newest first, and counts of what was left out.
 */
import { PerfError } from '../errors.js';
import { DEFAULT_HISTORY, isPostgresUrl, openHistory } from '../history/open.js';
import { loadTrends } from '../history/trends.js';
import type { Trend } from '../perf/trends.js';
import { defineTool } from './core.js';
import { okReply } from './format.js';
import { withoutSecretsOf } from '../url.js';

// 6 KB, as perf_compare's and perf_leaks' replies: an agent reads it whole every time.
export const HISTORY_REPLY_MAX_BYTES = 6 * 1024;
// The newest 30 runs: a month of nightly runs, enough to see the level now and the step that made it.
export const HISTORY_REPLY_POINTS = 30;
// Change points are looked for in the newest 500 runs unless `limit` says otherwise: older steps are history.
const DEFAULT_LIMIT = 500;
// The envelope ({"tool":…,"status":…} and the transport's framing) beside the brief.
const ENVELOPE_BYTES = 100;
const SUBJECT_CHARS = 80;

const round = (v: number): number => Number(v.toPrecision(4));
const short = (c: string | null): string | null => (c ? c.slice(0, 10) : null);

function seriesBrief(t: Trend): Record<string, unknown> {
  const points = t.points
    .slice(-HISTORY_REPLY_POINTS)
    .map((p) => ({ commit: short(p.commit), date: p.date.slice(0, 16), median: round(p.median) }));
  const changes = t.changes
    .slice()
    .reverse()
    .map((c) => ({
      commit: c.commit,
      subject: c.subject && c.subject.length > SUBJECT_CHARS ? `${c.subject.slice(0, SUBJECT_CHARS - 1)}…` : c.subject,
      runId: c.runId,
      date: c.date.slice(0, 16),
      before: round(c.before),
      after: round(c.after),
      relativeChange: round(c.relativeChange),
      pValue: round(c.pValue),
    }));
  return { scenario: t.scenario, variant: t.variant, metric: t.metric, unit: t.unit, runs: t.points.length, points, changes };
}

/** The reply's body within `budget` bytes: oldest points go first, then older change points, then whole series. */
export function historyBrief(trends: readonly Trend[], budget = HISTORY_REPLY_MAX_BYTES - ENVELOPE_BYTES): Record<string, unknown> {
  const series = trends.map(seriesBrief);
  const brief: Record<string, unknown> = { series };
  // The reply's exact size, kept per series: serializing every series after each dropped point was quadratic
  // (a history of many long series took seconds). The brief is {"series":[s1,s2,…],"omitted":…}.
  const bytesOf = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));
  const seriesBytes = series.map(bytesOf);
  const size = (): number => bytesOf({ ...brief, series: [] }) + seriesBytes.reduce((t, b) => t + b, 0) + Math.max(0, series.length - 1);
  let dropped = { points: 0, changes: 0, series: 0 };
  const note = (): void => {
    brief.omitted =
      `${dropped.points} older point(s), ${dropped.changes} older change point(s), ${dropped.series} series left out ` +
      'to keep this reply under 6 KB; name a scenario and metric, or use perf history show|changes --json';
  };
  while (size() > budget) {
    const longest = series.reduce<Record<string, unknown> | null>((m, s) => {
      const n = (s.points as unknown[]).length;
      return n > 5 && (!m || n > (m.points as unknown[]).length) ? s : m;
    }, null);
    const withChanges = series.find((s) => (s.changes as unknown[]).length > 1);
    const changed = longest ?? withChanges;
    if (longest) ((longest.points as unknown[]).shift(), dropped.points++);
    else if (withChanges) ((withChanges.changes as unknown[]).pop(), dropped.changes++);
    else if (series.length) (series.pop(), seriesBytes.pop(), dropped.series++);
    else break;
    if (changed) seriesBytes[series.indexOf(changed)] = bytesOf(changed);
    dropped = { ...dropped };
    note();
  }
  return brief;
}

export const perfHistoryTool = defineTool({
  name: 'perf_history',
  // Small: --caps all must list every tool within Playwright MCP's 45,612 bytes (test/mcp.test.ts).
  description: 'Recent run medians and change points of a metric, from the history.',
  inputSchema: {
    type: 'object',
    properties: {
      scenario: { type: 'string' },
      variant: { type: 'string' },
      metric: { type: 'string', description: 'Default: primaries.' },
      limit: { type: 'integer', minimum: 1, description: 'Runs searched.' },
      history: { type: 'string', description: 'File or postgres URL.' },
    },
    additionalProperties: false,
  },
  readOnly: true,
  async run(core, args) {
    const where = args.history ?? (process.env.PERF_HISTORY?.trim() || DEFAULT_HISTORY);
    const location = isPostgresUrl(where) ? where : core.confine('perf_history history', where, 'read');
    // A read: opened read-only; a missing file, or one that is not a history, is refused and left as it is.
    const store = await openHistory(location, core.cwd, 'read').catch((e: unknown) => {
      if (e instanceof PerfError) throw e;
      throw new PerfError({ code: 'history_unavailable', message: `perf_history: ${withoutSecretsOf(where, String(e))}`, cause: e });
    });
    try {
      const trends = await loadTrends(store, {
        ...(args.scenario !== undefined ? { scenario: args.scenario } : {}),
        ...(args.variant !== undefined ? { variant: args.variant } : {}),
        ...(args.metric !== undefined ? { metric: args.metric } : {}),
        limit: args.limit ?? DEFAULT_LIMIT,
      });
      return okReply({ tool: 'perf_history', status: 'ok', history: store.location, ...historyBrief(trends) });
    } finally {
      await store.close();
    }
  },
});
