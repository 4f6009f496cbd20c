/**
 * What a measured window reads, whatever the driver: the raw session perf_end turns into a report
 * (src/perf/report.ts), and the recorder a driver hands out on perf_begin. The trace is Chrome's
 * Trace Event format and the profile V8's .cpuprofile format: file formats, not protocol types.
 */
import { PerfError } from '../errors.js';

export type PerfMode = 'timing' | 'attribution';

export interface PerfBeginOptions {
  mode: PerfMode;
  /** Layout/paint detail in the trace (attribution only). */
  phases: boolean;
  /**
   * The trace categories DevTools' insight engine reads (a load's diagnosis: perf_load, a load scenario's attribution
   * repeats). More trace events while measuring, so off in a timing repeat of a scenario.
   */
  devtools?: boolean;
  /**
   * Read the heap and the DOM after a forced GC at both ends (memory.*; default true). Each collection costs a full GC
   * of the page (60–300 ms on a 20,000-node list here): a timing repeat beside profiled ones leaves it to them.
   */
  memory?: boolean;
}

/** A user-timing mark placed by the `mark` step during the session. */
export interface SessionMark {
  name: string;
  /** Epoch ms. */
  at: number;
}

export type SourceName =
  | 'frames'
  | 'liveness'
  | 'interactions'
  | 'longFrames'
  | 'counters'
  | 'layoutShift'
  | 'load'
  | 'softNavs'
  | 'profile'
  | 'trace'
  | 'process'
  | 'terminal'
  | 'memory';

/** Why a source is missing (kept out of the flat coverage map, which only says read / missing). */
export type MissingReasons = Partial<Record<SourceName, string>>;

export interface Checkpoint {
  /** Epoch ms. */
  at: number;
  values: Record<string, number>;
}

/** Everything a closed session read, before it is turned into a report. */
export interface RawSession {
  token: string;
  mode: PerfMode;
  phases: boolean;
  /** The trace has DevTools' categories (PerfBeginOptions.devtools): its insight engine can read it. */
  devtools?: boolean;
  /** Epoch ms. */
  startedAt: number;
  endedAt: number;
  durationMs: number;
  checkpoints: Checkpoint[];
  messages: ProbeMessage[];
  /** rAF counters, one per document the session saw (only when the trace is missing). */
  docFrames: ProbeFrames[];
  /** All interactions (performance.interactionCount), summed over the documents; null if unsupported. */
  interactionCount: number | null;
  /**
   * The current document stayed visible (document.visibilityState, never hidden or frozen) from the probe's start to the
   * end of the window; undefined when the probe could not say.
   */
  pageShown?: boolean;
  support: ProbeSupport | undefined;
  /** Why the in-page probe could not be read, if it could not. */
  probeMissing: string | undefined;
  trace: TraceResult | undefined;
  profile: CpuProfile | undefined;
  /** Profiler sampling interval actually requested, µs. */
  samplingIntervalUs: number | undefined;
  marks: SessionMark[];
  navigations: number;
  /**
   * The web content processes' CPU over the window and their peak memory, from /proc (WebDriver, local server; the terminal program's
   * tree).
   */
  process?: { cpuMs: number; maxRssBytes: number };
  /** A terminal program's window: screen updates, bytes it wrote, and each input's written → settled latency. */
  terminal?: { frames: number; bytesOut: number; latenciesMs: number[] };
  /**
   * A terminal program's window as an asciicast v2 recording (what perf_trace writes for a terminal):
   * the screen as it was when the window opened, then every output chunk ('o') and input write ('i').
   */
  cast?: {
    /** Cells, when the window opened. */
    width: number;
    height: number;
    /** [seconds since the window opened, 'o' output | 'i' input, the text], in order of arrival. */
    events: [number, 'o' | 'i', string][];
    /** The window's length on the events' clock, seconds: every event time is at most this. */
    durationS: number;
    /** The program's TERM and SHELL (its environment at spawn), for the file's header. */
    env: { TERM: string; SHELL: string };
    /** Present when the recording hit its byte cap: everything from atS on was left out, so what is kept replays whole. */
    cut?: { atS: number; maxBytes: number; droppedEvents: number; droppedBytes: number };
  };
  missing: MissingReasons;
  env: SessionEnv;
  /** The page load measured in the window (`measure: load`, perf_load), when one was. */
  load?: LoadReadings;
  /**
   * The heap and DOM after a forced garbage collection, read just before the window opened and just after it
   * closed (CDP only): the GCs are outside the timed part, so no ms figure contains them.
   */
  memory?: {
    start: MemoryReading;
    end: MemoryReading;
    /** Wall time of both collections and their reads: what the readings add to a repeat, in no metric. */
    gcMs: number;
  };
}

/** One reading of the page's renderer after a full garbage collection. */
export interface MemoryReading {
  /** V8's used JS heap (Runtime.getHeapUsage usedSize): Blink's DOM objects live outside it. */
  heapUsedBytes: number;
  /** Blink's Oilpan heap (Runtime.getHeapUsage embedderHeapUsedSize), when the Chromium reports it. */
  blinkHeapUsedBytes?: number;
  /** Memory.getDOMCounters: live documents, DOM nodes and JS event listeners in the renderer. */
  documents: number;
  nodes: number;
  jsEventListeners: number;
}

/**
 * A session from a recorder without Chromium's own sources (WebDriver, a terminal): no trace, CPU
 * profile, Performance counters or navigation events; what it did read is given over these.
 */
export function sessionWithout(
  read: Pick<RawSession, 'token' | 'mode' | 'phases' | 'startedAt' | 'endedAt' | 'durationMs' | 'marks' | 'missing' | 'env'> &
    Partial<RawSession>,
): RawSession {
  return {
    checkpoints: [],
    messages: [],
    docFrames: [],
    interactionCount: null,
    support: undefined,
    probeMissing: undefined,
    trace: undefined,
    profile: undefined,
    samplingIntervalUs: undefined,
    navigations: 0,
    ...read,
  };
}

export interface SessionEnv {
  browser: string;
  userAgent: string;
  headless: boolean;
  viewport: { width: number; height: number; dpr: number; mobile: boolean };
  /**
   * CPU throttling rate in effect: the rate this page's target acknowledged (Emulation.setCPUThrottlingRate
   * through Page.send; Chromium has no getter), else 1, the state of a target nobody throttled.
   */
  cpuThrottle: number;
  cpuThrottleSource: 'acknowledged' | 'default';
  url: string;
}

/** Marks the session places in the page (and so in the trace): they tie the trace clock to epoch time. */
export const BEGIN_MARK = 'rehearse:perf_begin';
export const END_MARK = 'rehearse:perf_end';

/** The probe's script URL, so CPU profiles can leave the harness's own work out of the page's. */
export const PERF_PROBE_URL = 'rehearse-perf-probe.js';

/**
 * The step runtime's script URL on CDP (drivers/cdp/page-runtime.ts): without one its functions (queryAll,
 * awaitScroll, settle…) showed in a profile as the page's own "(no url)" work, the top "function" of a run.
 */
export const PAGE_RUNTIME_URL = 'rehearse-runtime.js';
/** The sourceURL of the load probe (LCP, CLS, the resource entries of a measured load). */
export const LOAD_PROBE_URL = 'rehearse-load-probe.js';

/** Scripts the harness puts in the page: their time and their source are not the page's. */
export function isHarnessScript(url: string): boolean {
  return url === PERF_PROBE_URL || url === PAGE_RUNTIME_URL || url === LOAD_PROBE_URL;
}

/** Raw entries as they come from the page; times are epoch ms (timeOrigin + startTime). */
export type ProbeMessage = { token: string; doc: string } & (
  | {
      kind: 'interaction';
      id: number;
      name: string;
      target: string;
      startAt: number;
      durationMs: number;
      inputDelayMs: number;
      processingMs: number;
      presentationMs: number;
    }
  | {
      kind: 'loaf';
      startAt: number;
      durationMs: number;
      blockingMs: number;
      renderStartAt: number;
      styleAndLayoutStartAt: number;
      scripts: ProbeScript[];
    }
  | { kind: 'shift'; startAt: number; value: number }
  /** A soft navigation (an SPA route change after an interaction, Chromium 139+): its URL, start and next paint (epoch ms; 0 unknown). */
  | { kind: 'softNav'; id: number; url: string; startAt: number; paintAt: number }
  /** A contentful paint attributed to soft navigation `id` (interaction-contentful-paint): the latest is its LCP. */
  | { kind: 'softLcp'; id: number; at: number }
  /** A document's totals, sent on pagehide (and returned by the final flush for the current one). */
  | {
      kind: 'docEnd';
      frames: ProbeFrames | null;
      interactionCount: number | null;
      /** The document stayed visible from the probe's start, never hidden or frozen (absent from probes before it was read). */
      shown?: boolean;
    }
);

export interface ProbeScript {
  sourceURL: string;
  sourceFunctionName: string;
  sourceCharPosition: number;
  invoker: string;
  durationMs: number;
  forcedStyleAndLayoutMs: number;
}

/** The rAF counter of one document. */
export interface ProbeFrames {
  count: number;
  /** Epoch ms of the first and last counted frame. */
  firstAt: number;
  lastAt: number;
  /** Intervals between consecutive rAF callbacks, ms (bounded: see MAX_INTERVALS in the probe). */
  intervalsMs: number[];
}

export interface ProbeSupport {
  event: boolean;
  loaf: boolean;
  /** Soft navigation entries (absent in reports from before they were read). */
  softNav?: boolean;
  shift: boolean;
}

/** One Chrome Trace Event (the JSON Trace Event Format), as much of it as we read. */
export interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  /** Monotonic clock, µs. */
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  id?: string | number;
  id2?: { local?: string; global?: string };
  s?: string;
  args?: Record<string, any>;
  [k: string]: unknown;
}

export interface TraceResult {
  events: TraceEvent[];
  /** The trace buffer overflowed: events were lost (Tracing.tracingComplete dataLossOccurred). */
  dataLoss: boolean;
  /** The renderer process of the page under test, from TracingStartedInBrowser. */
  rendererPid: number | undefined;
  mainFrameId: string;
  /** Bytes of JSON read from the stream. */
  bytes: number;
}

/** V8's sampling CPU profile (the .cpuprofile format), as much of it as perf reads. */
export interface CpuProfile {
  nodes: CpuProfileNode[];
  /** µs, V8's monotonic clock. */
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}
export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

/**
 * An open measured window on one page: perf_begin gets one from the driver, perf_end ends it. A
 * recorder that fails to start switches off what it switched on before it throws.
 */
export interface PerfRecorder {
  readonly token: string;
  readonly mode: PerfMode;
  /** Epoch ms when the window opened. */
  readonly startedAt: number;
  /** A mark placed by the `mark` step (already in the page's user timing). */
  addMark(mark: SessionMark): void;
  /** Close the window and read everything back. */
  end(): Promise<RawSession>;
  /** Switch everything off without reading (a replaced or abandoned session). Best effort. */
  dispose(): Promise<void>;
}

/** Refuse option combinations before anything is switched on (or an open session is replaced). */
export function checkBeginOptions(opts: PerfBeginOptions): void {
  if (opts.phases && opts.mode === 'timing') {
    throw new PerfError({
      code: 'phases_need_attribution',
      message:
        'perf_begin: phases (layout/paint detail) needs mode attribution; timing ' +
        'mode keeps its milliseconds comparable by recording nothing extra',
      suggestion: 'use perf_begin { mode: attribution, phases: true }, or drop phases',
    });
  }
}

/** What a page load's request was, by what the page did with it (Lighthouse's byte-weight families). */
export type LoadResourceType = 'document' | 'script' | 'stylesheet' | 'image' | 'font' | 'fetch' | 'other';
export const LOAD_RESOURCE_TYPES: readonly LoadResourceType[] = ['document', 'script', 'stylesheet', 'image', 'font', 'fetch', 'other'];

/** One request of a measured page load (Navigation Timing for the document, Resource Timing for the rest). */
export interface LoadRequest {
  url: string;
  type: LoadResourceType;
  /** ms since the navigation started. */
  startMs: number;
  /**
   * First byte of the response, ms since the navigation started; null when hidden (cross-origin without Timing-Allow-Origin)
   * or when the browser's entry put it outside the request's start..end (a load note names the request).
   */
  responseStartMs: number | null;
  endMs: number;
  /** Bytes over the wire, headers included; 0 from the cache, or hidden (cross-origin) where the driver cannot see the network. */
  transferBytes: number;
  /** The browser held the first paint for it (Resource Timing renderBlockingStatus; the document always). */
  renderBlocking: boolean;
  /** The response's HTTP status; absent where the browser does not say (Resource Timing before Chromium 109, cross-origin). */
  status?: number;
  /** How it came: h1, h2, h3, or the browser's own name (data, blob…); absent where the browser does not say. */
  protocol?: string;
  /** Where the response came from; only where the driver sees the network (CDP). */
  servedFrom?: LoadServedFrom;
  /** The response's Cache-Control header, '' when it has none: what decides whether the next load reuses it (CDP). */
  cacheControl?: string;
  /** What asked for it (parser, script, preload, other…) and from which URL, when the browser names one (CDP). */
  initiator?: { type: string; url?: string };
  /** The browser's fetch priority as the load ended (VeryHigh … VeryLow), CDP's names. */
  priority?: string;
  /** The render-blocking behaviour Chromium gave it (blocking, in_body_parser_blocking, non_blocking…), the trace's names. */
  renderBlockingStatus?: string;
  /** `first-party` when on the page's site, else the third party's entity (DevTools' list) or its registrable domain. */
  entity?: string;
}

/** Where a response came from: the network, one of the browser's caches, or a service worker. */
export const LOAD_SERVED_FROM = ['network', 'memory-cache', 'disk-cache', 'prefetch-cache', 'service-worker'] as const;
export type LoadServedFrom = (typeof LOAD_SERVED_FROM)[number];

/**
 * What a measured page load read in the page (src/drivers/runtime/load-probe.ts), every time in ms since
 * the navigation started (the new document's timeOrigin): null where the browser has no such entry.
 */
export interface LoadReadings {
  url: string;
  /** Epoch ms of the navigation start. */
  navigationStartAt: number;
  /** Epoch ms when the load window ended: the page went quiet, or the deadline passed. */
  endedAt: number;
  ended: 'quiet' | 'deadline';
  /** The document's HTTP status (Navigation Timing responseStatus); 0 when the browser does not say. */
  status: number;
  ttfbMs: number | null;
  fcpMs: number | null;
  domContentLoadedMs: number | null;
  loadEventMs: number | null;
  lcp: { ms: number; element: string; url: string; sizePx: number } | null;
  /** Layout shifts without recent input, in order. */
  shifts: { ms: number; value: number }[];
  longTasks: { startMs: number; durationMs: number }[];
  requests: LoadRequest[];
  support: { paint: boolean; lcp: boolean; shift: boolean; longTask: boolean; renderBlocking: boolean };
  /** Main-thread work during the load (script, style, layout), when the driver counts it (CDP Performance.getMetrics). */
  mainThreadMs?: number;
  /**
   * Resource Timing entries whose first byte fell outside their own start..end (Chromium's entry for a font answered
   * 404 ends ~1 ms after its start, before its headers came): left null in `requests` unless the driver saw the network.
   */
  unorderedFirstBytes?: { url: string; startMs: number; firstByteMs: number; endMs: number }[];
  /**
   * What the driver could not see of this load, and why (a probe installed only after the load event, a
   * cache it cannot clear, a counter it has no access to): each one of the report's warnings.
   */
  notes?: string[];
}

/** How a measured load is opened and when it is over. */
export interface LoadOptions {
  /** The page is quiet this long (no request ends, long task, layout shift or LCP candidate) after its load event. */
  quietMs: number;
  /** The most the load window may last, navigation to quiet. */
  timeoutMs: number;
  /** Clear the HTTP cache before navigating (a reload restart keeps it otherwise). */
  clearCache: boolean;
}
