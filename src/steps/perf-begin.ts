/**
 * perf_begin: open a perf session on the page. A begin on an open session replaces it, switching off
 * what the previous one switched on.
 */
import { BEGIN_TIMEOUT_MS, beginMeasure, type Began } from '../perf/measure.js';
import { defineStep, type StepOutput } from './define.js';

export const perfBegin = defineStep({
  name: 'perf_begin',
  description: 'Open a measured window until perf_end: frames, interactions, long frames, counters, layout shift.',
  details:
    'Frames come from the Chromium trace and an in-page frame counter, interactions from Event Timing; long ' +
    'animation frames, Performance counters and layout shift too. Attribution mode (default) adds a sampling ' +
    'CPU profile. A perf_begin while a session is open restarts it. Returns {sessionToken, mode}.',
  args: {
    type: 'object',
    properties: {
      mode: {
        type: 'string',
        enum: ['attribution', 'timing'],
        description: 'attribution (default): + CPU profile to rank, ms inflated; timing: ms to compare.',
      },
      phases: { type: 'boolean', description: 'attribution only: layout/paint detail in the trace.' },
    },
    additionalProperties: false,
  } as const,
  readOnly: true,
  defaultTimeoutMs: BEGIN_TIMEOUT_MS,
  terminal: async (ctx, args) =>
    began(await beginMeasure(ctx.host, ctx.terminal, { mode: args.mode ?? 'attribution', phases: args.phases ?? false }), args),
  async run(ctx, args) {
    return began(await beginMeasure(ctx.host, ctx.page.perf, { mode: args.mode ?? 'attribution', phases: args.phases ?? false }), args);
  },
});

function began(b: Began, args: { mode?: 'attribution' | 'timing'; phases?: boolean }): StepOutput {
  return {
    data: {
      sessionToken: b.sessionToken,
      mode: args.mode ?? 'attribution',
      phases: args.phases ?? false,
      ...(b.replaced ? { replaced: b.replaced } : {}),
    },
    ...(b.replaced ? { warnings: [`session ${b.replaced} was still open: it was discarded and a new one started`] } : {}),
  };
}
