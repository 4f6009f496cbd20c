/**
 * Perf session state kept per StepHost (host.state), in slots this module owns: the open session, the
 * last closed one (what perf_insight and perf_trace read) and the step spans of the open one.
 */
import { PerfError } from '../errors.js';
import { StateSlot, type HostState } from '../host-state.js';
import type { LoadReadings, PerfRecorder, RawSession, TraceResult } from '../drivers/measure.js';
import type { PerfReport } from './report.js';
import type { InsightDetail } from './insights.js';
import type { StepSpan } from './analysis.js';

/** What of a step host perf uses: its per-host state (the steps' StepHost is one). */
export type PerfHost = { state: HostState };

const OPEN = new StateSlot<PerfRecorder>('perf.open');
const LAST = new StateSlot<ClosedSession>('perf.last');
const SPANS = new StateSlot<StepSpan[]>('perf.spans');
const LOAD = new StateSlot<LoadReadings>('perf.load');

/** Start recording step spans (perf_begin); a load measured in an earlier window is forgotten. */
export function beginSpans(host: PerfHost): void {
  host.state.set(SPANS, []);
  host.state.delete(LOAD);
}

/** The page load measured in the open window: perf_end puts it in the window's raw session. */
export function recordLoad(host: PerfHost, load: LoadReadings): void {
  host.state.set(LOAD, load);
}

export function takeLoad(host: PerfHost): LoadReadings | undefined {
  const load = host.state.get(LOAD);
  host.state.delete(LOAD);
  return load;
}

/** Stop recording and return what was recorded (perf_end, or a discarded session). */
export function takeSpans(host: PerfHost): StepSpan[] {
  const spans = host.state.get(SPANS) ?? [];
  host.state.delete(SPANS);
  return spans;
}

/** Called by runStep after every step; kept only while a session records (the perf_ steps themselves never). */
export function recordStepSpan(host: PerfHost, span: StepSpan): void {
  const spans = host.state.get(SPANS);
  if (spans && !span.step.startsWith('perf_')) spans.push(span);
}

/** A terminal window's recording: asciicast v2 events and what the file's header needs. */
export type TerminalCast = NonNullable<RawSession['cast']>;

/** A closed session: its report, the rows behind its insights, and its trace (or a terminal's recording). */
export interface ClosedSession {
  token: string;
  report: PerfReport;
  details: Map<string, InsightDetail>;
  trace: TraceResult | undefined;
  /** A terminal program's window as asciicast events; undefined on a page. */
  cast?: TerminalCast;
  /** Epoch ms, so the trace written by perf_trace can be checked against the window. */
  startedAt: number;
  endedAt: number;
}

export function openSession(host: PerfHost): PerfRecorder | undefined {
  return host.state.get(OPEN);
}

export function setOpenSession(host: PerfHost, s: PerfRecorder | undefined): void {
  if (s) host.state.set(OPEN, s);
  else host.state.delete(OPEN);
}

export function setLastSession(host: PerfHost, s: ClosedSession): void {
  host.state.set(LAST, s);
}

/**
 * The last closed session, checked against `token` when given. Errors name what to do instead.
 */
export function lastSession(host: PerfHost, step: string, token: string | undefined): ClosedSession {
  const last = host.state.get(LAST);
  if (!last) {
    const open = openSession(host);
    throw new PerfError({
      code: 'no_closed_session',
      message: `${step}: no perf session has been closed on this page yet${open ? ` (session ${open.token} is still open)` : ''}`,
      suggestion: open
        ? 'call perf_end first, then read its insights'
        : 'run perf_begin, the steps to measure, then perf_end; then call this again',
    });
  }
  if (token !== undefined && token !== last.token) {
    throw new PerfError({
      code: 'stale_session_token',
      message: `${step}: session ${token} is not the last closed session; only ${last.token} is kept`,
      suggestion: `use token ${last.token} (or omit token), or measure again`,
      candidates: [last.token],
    });
  }
  return last;
}

/**
 * A closed session's trace as Chrome Trace Event JSON ({traceEvents, metadata}), the format Perfetto
 * and the DevTools Performance panel open. perf_trace writes it; `perf run` can keep it per repeat
 * (read it right after perf_end: a restart clears the host's state).
 */
export function serializeTrace(closed: ClosedSession, trace: TraceResult): string {
  return JSON.stringify({
    traceEvents: trace.events,
    metadata: {
      'trace-source': 'rehearse perf_trace',
      sessionToken: closed.token,
      mode: closed.report.mode,
      startedAt: new Date(closed.startedAt).toISOString(),
      durationMs: closed.endedAt - closed.startedAt,
      dataLoss: trace.dataLoss,
    },
  });
}

/**
 * A closed terminal session's recording as an asciicast v2 file (docs.asciinema.org/manual/asciicast/v2):
 * a header line, then one [seconds, "o" | "i", text] array per line. `asciinema play` and `perf replay`
 * play it. A recording cut at its byte cap says so in its title and in a `rehearse.cut` header field.
 */
export function serializeCast(closed: ClosedSession, cast: TerminalCast): string {
  const cut = cast.cut;
  const header = {
    version: 2,
    width: cast.width,
    height: cast.height,
    timestamp: Math.floor(closed.startedAt / 1000),
    duration: cast.durationS,
    title:
      `rehearse perf session ${closed.token}` +
      `${cut ? ` (cut at ${cut.atS} s, past the ${Math.round(cut.maxBytes / 1024 / 1024)} MB cap)` : ''}`,
    env: { TERM: cast.env.TERM, SHELL: cast.env.SHELL },
    // Players ignore header fields they do not know; this one says what the file left out.
    rehearse: { sessionToken: closed.token, mode: closed.report.mode, ...(cut ? { cut } : {}) },
  };
  // JSON.stringify escapes control characters and lone surrogates: every line is valid JSON in UTF-8.
  return [JSON.stringify(header), ...cast.events.map((e) => JSON.stringify(e))].join('\n') + '\n';
}
