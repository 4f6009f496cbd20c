/**
 * perf_end: close the open perf session and return its bounded report. A page that rendered nothing
 * is refused ({refused: true, reason}) rather than reported as fast.
 */
import { END_TIMEOUT_MS, endMeasure } from '../perf/measure.js';
import { defineStep } from './define.js';

export const perfEnd = defineStep({
  name: 'perf_end',
  description: 'Close the perf session; its report: metrics, coverage, summary, ranked insights.',
  details:
    'About 6 KB at most: sessionToken, refused/reason, mode, flat metrics (frames, interactions, longFrames, counters, per ' +
    'painted frame, steps.<label>.ms), coverage (each source read or missing), env, summary (frames, blocksBySelf, ' +
    'blocksByCount), counters, interactions, insights (ranked) and omitted ' +
    '(what each ranked list cut). perf_trace writes the trace.',
  args: { type: 'object', properties: {}, additionalProperties: false } as const,
  readOnly: true,
  defaultTimeoutMs: END_TIMEOUT_MS,
  terminal: async (ctx) => {
    const { report } = await endMeasure(ctx.host);
    return { data: { ...report }, ...(report.refused ? { warnings: [report.reason ?? 'refused'] } : {}) };
  },
  async run(ctx) {
    const { report } = await endMeasure(ctx.host);
    return { data: { ...report }, ...(report.refused ? { warnings: [report.reason ?? 'refused'] } : {}) };
  },
});
