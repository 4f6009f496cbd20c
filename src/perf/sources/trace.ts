/**
 * The Chromium trace (CDP) as a source of its own: whether it was read, its size and loss, the layouts it
 * shows (for the forced-layout insight) and, when asked, main-thread time by rendering phase. Its frames
 * are the frames source's.
 */
import { round } from '../profile.js';
import { layoutsFromTrace, phasesFromTrace, type Phases, type TraceLayouts } from '../trace-layouts.js';
import { defineSource } from './source.js';

export interface TraceFindings {
  summary: { events: number; bytes: number; dataLoss: boolean } | null;
  layouts: TraceLayouts | undefined;
  /** Main-thread ms by phase, and per painted frame; only when the session asked for phases. */
  phases: (Phases & { perFrame: Record<string, number> }) | undefined;
}

// Per-frame phase times are fractions of a millisecond: three digits keep them apart.
const PER_FRAME_DIGITS = 3;

export const traceSource = defineSource<TraceFindings>({
  name: 'trace',
  emits: [],
  cover: ({ raw }) => ({ trace: raw.missing.trace ?? null }),
  measure({ raw, window, offsetMs, frames }) {
    const { trace } = raw;
    const layouts = trace && offsetMs !== undefined ? layoutsFromTrace(trace, window, offsetMs) : undefined;
    let phases: TraceFindings['phases'];
    if (raw.phases && trace && offsetMs !== undefined) {
      const p = phasesFromTrace(trace, window, offsetMs);
      if (p)
        phases = {
          ...p,
          perFrame: Object.fromEntries(Object.entries(p).map(([k, v]) => [k, round(v / frames.painted, PER_FRAME_DIGITS)])),
        };
    }
    const warnings = trace?.dataLoss ? ['the trace buffer overflowed: some trace events were lost (frames may be undercounted)'] : [];
    const summary = trace ? { events: trace.events.length, bytes: trace.bytes, dataLoss: trace.dataLoss } : null;
    return { emits: [], findings: { summary, layouts, phases }, warnings };
  },
});
