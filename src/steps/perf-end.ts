/**
 * perf_end: close the open perf session and return a one-glance summary of its report: the figures an agent decides
 * on and one line per fired insight (perf_insight has the rows); `full: true` returns the whole bounded report. A page
 * that rendered nothing is refused ({refused: true, reason}) rather than reported as fast.
 */
import { END_TIMEOUT_MS, endMeasure } from '../perf/measure.js';
import { METRICS, PER_FRAME_SUFFIX } from '../perf/metrics.js';
import type { PerfReport } from '../perf/report.js';
import { defineStep, type StepOutput } from './define.js';
import { insightLines } from './insight-lines.js';

// The figures of the summary: the registry's headline metrics (what perf_run's reply shows), and beside them what
// names the worst of a window (the worst frame and interaction, the frames dropped, the shift) and a terminal's
// latency. Everything else (per-frame forms, counters, memory, coverage, env, ranked lists) is in full: true.
const SUMMARY_METRICS = new Set([
  ...METRICS.filter((d) => d.headline).map((d) => d.name),
  'frames.dropped',
  'frames.frameMs.worst',
  'interactions.latencyMs.worst',
  'layoutShift.score',
  'terminal.latencyMs.p50',
  'terminal.latencyMs.p90',
  'terminal.bytesOut',
]);
// What the summary must never outgrow (issue 59: perf_end lists each insight in one line): half the full report's
// 6 KB, room for the figures (~0.5 KB) and some twenty lines of ~120 bytes, more insights than a window fires.
export const PERF_END_SUMMARY_MAX_BYTES = 3 * 1024;

export const perfEnd = defineStep({
  name: 'perf_end',
  description: 'Close the perf session: key metrics, one line per insight.',
  details:
    'The summary: sessionToken, mode, the headline metrics with the worst frame and interaction and steps.<label>.ms, ' +
    'missing (sources not read, and why) and insights, one line each starting with the id perf_insight takes, within ' +
    '3 KB. full: true returns the whole report, about 6 KB at most: flat metrics, coverage, env, summary (frames, ' +
    'blocksBySelf, blocksByCount), counters, interactions, insights (ranked) and omitted (what each ranked list cut). ' +
    'perf_trace writes the trace.',
  args: {
    type: 'object',
    properties: { full: { type: 'boolean', description: 'The whole report.' } },
    additionalProperties: false,
  } as const,
  readOnly: true,
  defaultTimeoutMs: END_TIMEOUT_MS,
  terminal: async (ctx, args) => endReply((await endMeasure(ctx.host)).report, args.full === true),
  async run(ctx, args) {
    return endReply((await endMeasure(ctx.host)).report, args.full === true);
  },
});

function endReply(report: PerfReport, full: boolean): StepOutput {
  const engine = report.devtools?.error ? [report.devtools.error] : [];
  const warnings = report.refused ? [report.reason ?? 'refused'] : [...(report.warnings ?? []), ...engine];
  if (full) return { data: { ...report }, ...(report.refused ? { warnings } : {}) };
  return { data: endSummary(report), ...(warnings.length ? { warnings } : {}) };
}

/** The one-glance form: figures, what was not read, one line per insight; the rows are perf_insight's. */
export function endSummary(report: PerfReport): Record<string, unknown> {
  if (report.refused) return { sessionToken: report.sessionToken, refused: true, reason: report.reason, mode: report.mode };
  const metrics = Object.fromEntries(
    Object.entries(report.metrics).filter(([m]) => (SUMMARY_METRICS.has(m) || m.startsWith('steps.')) && !m.endsWith(PER_FRAME_SUFFIX)),
  );
  const missing = report.missingReasons;
  const summary: Record<string, unknown> = {
    sessionToken: report.sessionToken,
    mode: report.mode,
    metrics,
    ...(Object.keys(missing).length ? { missing } : {}),
    insights: insightLines(report),
    // What DevTools' engine cost on this trace, after the window closed (off the measured figures), as perf_load says it.
    ...(report.devtools ? { devtoolsMs: Math.round(report.devtools.ms) } : {}),
  };
  // Bounded by construction (a handful of metrics, lines of at most 240 characters) but for a long scenario's step
  // times: those go first (full: true has them), then the last insights, counted.
  const over = (): boolean => Buffer.byteLength(JSON.stringify(summary)) > PERF_END_SUMMARY_MAX_BYTES;
  for (const m of Object.keys(metrics).reverse()) if (m.startsWith('steps.') && over()) delete metrics[m];
  const lines = summary.insights as string[];
  while (lines.length && over()) {
    lines.pop();
    summary.insightsOmitted = (Number(summary.insightsOmitted) || 0) + 1;
  }
  return summary;
}
