/**
 * perf_end: close the open perf session and return its bounded report. A page that rendered nothing
 * is refused ({refused: true, reason}) rather than reported as fast.
 */
import { PerfError } from '../errors.js';
import { buildReport } from '../perf/report.js';
import { openSession, setLastSession, setOpenSession, takeSpans } from '../perf/state.js';
import { defineStep } from './define.js';

// Reading a trace of a long session (tens of MB) and a CPU profile takes seconds on a loaded machine.
const END_TIMEOUT_MS = 60_000;

export const perfEnd = defineStep({
  name: 'perf_end',
  description:
    'Close the perf session opened by perf_begin and return its report (about 6 KB at most): sessionToken, refused/reason, mode, flat metrics (frames, interactions, longFrames, counters, per painted frame, steps.<label>.ms), coverage (each source read or missing), env, summary (frames, blocksBySelf, blocksByCount), counters, interactions, insights (ranked; perf_insight {id} shows the rows behind one) and omitted (what each ranked list cut). perf_trace writes the trace.',
  args: { type: 'object', properties: {}, additionalProperties: false } as const,
  readOnly: true,
  defaultTimeoutMs: END_TIMEOUT_MS,
  async run(ctx) {
    const session = openSession(ctx.host);
    if (!session) {
      throw new PerfError({ code: 'no_open_session', message: 'perf_end: no perf session is open on this page', suggestion: 'call perf_begin before the steps to measure' });
    }
    const spans = takeSpans(ctx.host);
    setOpenSession(ctx.host, undefined);
    const raw = await session.end();
    const { report, details } = buildReport(raw, spans);
    setLastSession(ctx.host, { token: raw.token, report, details, trace: raw.trace, startedAt: raw.startedAt, endedAt: raw.endedAt });
    return { data: report as unknown as Record<string, unknown>, ...(report.refused ? { warnings: [report.reason ?? 'refused'] } : {}) };
  },
});
