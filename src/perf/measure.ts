/**
 * Opening and closing a measured window on a step host: what perf_begin and perf_end do, and what
 * the runner calls directly around a repeat's steps. The open recorder, the step spans and the last
 * closed session live in the host's typed state (perf/state.ts).
 */
import { within } from '../deadline.js';
import { PerfError } from '../errors.js';
import {
  checkBeginOptions,
  type LoadOptions,
  type LoadReadings,
  type PerfBeginOptions,
  type PerfRecorder,
  type RawSession,
  type TraceEvent,
} from '../drivers/measure.js';
import { devtoolsInsights, requestEntities, warmEngine } from './devtools-insights.js';
import { protocolName, requestsDetail, REQUESTS_DETAIL } from './load.js';
import type { InsightDetail } from './insights.js';
import { boundReport, buildReport, type PerfReport } from './report.js';
import {
  beginSpans,
  openSession,
  recordLoad,
  setLastSession,
  setOpenSession,
  takeLoad,
  takeSpans,
  type ClosedSession,
  type PerfHost,
} from './state.js';

// Starting the trace and the profiler can take a second on a loaded 2-core machine.
export const BEGIN_TIMEOUT_MS = 15_000;
// Reading a trace of a long session (tens of MB) and a CPU profile takes seconds on a loaded machine; a load's
// DevTools insights add 0.7-1.8 s more (2 cores, load average 11: test/devtools-insights.test.ts).
export const END_TIMEOUT_MS = 60_000;
// Lighthouse's quiet rule (networkQuietThresholdMs, cpuQuietThresholdMs and pauseAfterLoadMs are 1 s each).
export const LOAD_QUIET_MS = 1000;
// The shortest quiet a scenario may ask for: one poll of the quiet check (drivers/load.ts) is 100 ms.
export const LOAD_QUIET_MIN_MS = 100;
// The longest quiet a scenario may ask for: a third of LOAD_TIMEOUT_MS, so a page still has time to load before the quiet.
export const LOAD_QUIET_MAX_MS = 10_000;
// The longest a measured load may take, navigation to quiet: Lighthouse's maxWaitForLoad is 45 s; a page
// that is not quiet after 30 s on a local server never will be, and the repeat still reports what loaded.
export const LOAD_TIMEOUT_MS = 30_000;
// Opening about:blank (where a measured load starts) is local: a second is already a hung renderer.
export const BLANK_TIMEOUT_MS = 10_000;

/** How a measured load ends (the quiet rule and its deadline), with the cache as asked. */
export function loadOptions(cache: 'cold' | 'warm', quietMs = LOAD_QUIET_MS): LoadOptions {
  return { quietMs, timeoutMs: LOAD_TIMEOUT_MS, clearCache: cache === 'cold' };
}

export interface Began {
  sessionToken: string;
  /** The token of a session that was still open and was discarded for this one. */
  replaced?: string;
}

/** Open a measured window; one still open is discarded first. A refused begin leaves an open session as it was. */
export async function beginMeasure(
  host: PerfHost,
  on: { begin(opts: PerfBeginOptions): Promise<PerfRecorder> },
  opts: PerfBeginOptions,
): Promise<Began> {
  checkBeginOptions(opts);
  const previous = openSession(host);
  if (previous) {
    setOpenSession(host, undefined);
    takeSpans(host);
    await previous.dispose();
  }
  // The engine's import before the window, not after it in the first trace's analysis (nor in a window: its CPU).
  if (opts.devtools) await warmEngine();
  const recorder = await on.begin(opts);
  setOpenSession(host, recorder);
  beginSpans(host);
  return { sessionToken: recorder.token, ...(previous ? { replaced: previous.token } : {}) };
}

/**
 * Close the open window and build its report; the closed session is kept for perf_insight and perf_trace.
 * `raw` (the profile, the trace) is handed to the caller, not kept: perf run reads its attribution from it.
 */
export async function endMeasure(host: PerfHost): Promise<{ report: PerfReport; closed: ClosedSession; raw: RawSession }> {
  const recorder = openSession(host);
  if (!recorder) {
    throw new PerfError({
      code: 'no_open_session',
      message: 'perf_end: no perf session is open on this page',
      suggestion: 'call perf_begin before the steps to measure',
    });
  }
  const spans = takeSpans(host);
  const load = takeLoad(host);
  setOpenSession(host, undefined);
  const raw = { ...(await recorder.end()), ...(load ? { load } : {}) };
  const { report, details } = buildReport(raw, spans);
  if (raw.load && !report.refused) details.set(REQUESTS_DETAIL, requestsDetail(raw.load));
  if (raw.devtools && raw.trace && !report.refused) await addDevtoolsInsights(report, details, raw.trace.events, !raw.load);
  const closed: ClosedSession = {
    token: raw.token,
    report,
    details,
    trace: raw.trace,
    ...(raw.cast ? { cast: raw.cast } : {}),
    startedAt: raw.startedAt,
    endedAt: raw.endedAt,
  };
  setLastSession(host, closed);
  return { report, closed, raw };
}

/**
 * DevTools' insights of the load, after ours (frame rules): the window is closed, so the engine's time is in no
 * measured figure; it is on record in `report.devtools`.
 */
async function addDevtoolsInsights(
  report: PerfReport,
  details: Map<string, InsightDetail>,
  events: readonly TraceEvent[],
  bounded: boolean,
): Promise<void> {
  const r = await devtoolsInsights(events);
  // Every fired insight stays in the report (what a budget or a compare reads): the 6 KB bound shortens the ranked
  // lists instead, as for our own rules. perf_end's and perf_load's replies list them one line each.
  report.insights.push(...r.insights);
  if (bounded) boundReport(report);
  for (const d of r.details) details.set(d.id, d);
  report.devtools = {
    ms: Math.round(r.ms),
    insights: r.insights.length,
    ...(r.error ? { error: r.error } : {}),
    ...(r.failed.length ? { failed: r.failed } : {}),
  };
}

/** `work`, or PerfError timeout after `ms` (the work itself is not stopped: the page may be hung). */
export function withinMs<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  return within(
    work,
    ms,
    () =>
      new PerfError({
        code: 'timeout',
        kind: 'failed',
        message: `${what}: did not finish within ${ms} ms`,
        suggestion: 'check what the page is doing (a hung renderer?)',
      }),
  );
}

/**
 * Measure a page load inside the open window: navigate to `url` with the load probe at the document's
 * start and wait until the page is quiet; perf_end reports it. The window must be open (the load is its start).
 */
export async function measureLoad(
  host: PerfHost,
  on: { load?(url: string, opts: LoadOptions): Promise<LoadReadings> },
  url: string,
  opts: LoadOptions,
): Promise<LoadReadings> {
  if (!openSession(host)) {
    throw new PerfError({
      code: 'no_open_session',
      message: 'a measured load needs an open perf session: the load is measured inside its window',
      suggestion: 'call perf_begin first',
    });
  }
  if (!on.load) {
    throw new PerfError({
      code: 'unsupported_on_driver',
      message: 'this driver cannot measure a page load (it cannot watch a document from its start)',
      suggestion: 'measure the load on Chromium (cdp) or a WebDriver browser',
    });
  }
  const load = await describeRequests(await on.load(url, opts));
  recordLoad(host, load);
  return load;
}

/** What every driver's requests say alike: the protocol by its short name, and whose each one is (its entity). */
async function describeRequests(load: LoadReadings): Promise<LoadReadings> {
  const entities = await requestEntities(
    load.url,
    load.requests.map((r) => r.url),
  );
  const requests = load.requests.map((r, i) => {
    const entity = entities[i];
    return { ...r, ...(r.protocol ? { protocol: protocolName(r.protocol) } : {}), ...(entity ? { entity } : {}) };
  });
  return { ...load, requests };
}
