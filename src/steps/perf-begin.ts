/**
 * perf_begin: open a perf session on the page. A begin on an open session replaces it, switching off
 * what the previous one switched on.
 */
import { BEGIN_TIMEOUT_MS, beginMeasure } from '../perf/measure.js';
import { defineStep } from './define.js';

export const perfBegin = defineStep({
  name: 'perf_begin',
  description: 'Open a measured window (frames, interactions, long frames, counters, layout shift; a CPU profile in attribution mode) until perf_end.',
  details:
    'Frames come from the Chromium trace and an in-page frame counter, interactions from Event Timing; long animation frames, Performance counters and layout shift too. Attribution mode (default) adds a sampling CPU profile. A perf_begin while a session is open restarts it. Returns {sessionToken, mode}.',
  args: {
    type: 'object',
    properties: {
      mode: {
        type: 'string',
        enum: ['attribution', 'timing'],
        description: 'attribution (default): adds a CPU profile for ranking, ms inflated. timing: ms compare.',
      },
      phases: { type: 'boolean', description: 'attribution only: add layout/paint detail to the trace.' },
    },
    additionalProperties: false,
  } as const,
  readOnly: true,
  defaultTimeoutMs: BEGIN_TIMEOUT_MS,
  async run(ctx, args) {
    const mode = args.mode ?? 'attribution';
    const began = await beginMeasure(ctx.host, ctx.page, { mode, phases: args.phases ?? false });
    return {
      data: { sessionToken: began.sessionToken, mode, phases: args.phases ?? false, ...(began.replaced ? { replaced: began.replaced } : {}) },
      ...(began.replaced ? { warnings: [`session ${began.replaced} was still open: it was discarded and a new one started`] } : {}),
    };
  },
});
