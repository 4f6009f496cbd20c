/**
 * perf_begin: open a perf session on the page. A begin on an open session replaces it, switching off
 * what the previous one switched on.
 */
import { checkBeginOptions, PerfSession } from '../perf/session.js';
import { beginSpans, openSession, setOpenSession, takeSpans } from '../perf/state.js';
import { defineStep } from './define.js';

// Starting the trace and the profiler can take a second on a loaded 2-core machine.
const BEGIN_TIMEOUT_MS = 15_000;

export const perfBegin = defineStep({
  name: 'perf_begin',
  description:
    'Open a perf session on the page: frames (Chromium trace + in-page frame counter), interactions (Event Timing), long animation frames, Performance counters and layout shift; ' +
    'in attribution mode (default) also a sampling CPU profile. Run the steps to measure, then perf_end. A perf_begin while a session is open restarts it. Returns {sessionToken, mode}.',
  args: {
    type: 'object',
    properties: {
      mode: {
        type: 'string',
        enum: ['attribution', 'timing'],
        description: 'attribution (default): also record a CPU profile to rank functions by self time (its ms are inflated, for ranking only). timing: frames, interactions and counters only, so its ms compare.',
      },
      phases: { type: 'boolean', description: 'attribution only: add layout/paint detail to the trace (more trace categories). Refused with mode timing.' },
    },
    additionalProperties: false,
  } as const,
  readOnly: true,
  defaultTimeoutMs: BEGIN_TIMEOUT_MS,
  async run(ctx, args) {
    const mode = args.mode ?? 'attribution';
    const opts = { mode, phases: args.phases ?? false } as const;
    // A refused begin leaves an open session as it was.
    checkBeginOptions(opts);
    const previous = openSession(ctx.host);
    const warnings: string[] = [];
    if (previous) {
      setOpenSession(ctx.host, undefined);
      takeSpans(ctx.host);
      await previous.dispose();
      warnings.push(`session ${previous.token} was still open: it was discarded and a new one started`);
    }
    const session = await PerfSession.begin(ctx.page, opts);
    setOpenSession(ctx.host, session);
    beginSpans(ctx.host);
    return {
      data: { sessionToken: session.token, mode, phases: args.phases ?? false, ...(previous ? { replaced: previous.token } : {}) },
      ...(warnings.length ? { warnings } : {}),
    };
  },
});
