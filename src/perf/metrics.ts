/**
 * The metric registry: every metric a run can produce, declared once. The report builder writes only
 * names declared here; compare, budgets, reporters, the MCP replies, `perf metrics` and the README's
 * metric list all read these declarations, and no other file classifies a metric by its name.
 *
 * A declaration says what a metric measures (unit, kind), which way is better, whether it may decide a
 * verdict (gate), whether it depends on the machine, and the smallest value a relative change is
 * measured against (floor). A `.perFrame` form (the count divided by the window's painted frames) is
 * derived from its base for every declaration with `perFrame: true`; `steps.<label>.ms` is a pattern.
 */
import { closest, PerfError } from '../errors.js';

export type MetricKind = 'count' | 'ms' | 'bytes' | 'score';
export type Better = 'lower' | 'higher' | 'none';
/**
 * primary: decides a compare's verdict (the gate's family, ≤ 8); secondary: judged and shown in a family
 * of its own, never fails the gate; never: shown only (a direction-less metric, or one set by the scenario).
 */
export type GateRole = 'primary' | 'secondary' | 'never';
/**
 * Where a run measures, as far as which metrics come out:
 * cdp: Chromium over the DevTools protocol (trace, Performance counters, CPU profile, in-page probe);
 * webdriver-chromium: Chromium through chromedriver (in-page probe only);
 * webdriver-webkit: the WebKitGTK MiniBrowser through WebKitWebDriver (in-page probe only);
 * bidi-firefox: Firefox ESR over WebDriver BiDi (in-page probe: Event Timing and LCP, no Long Animation Frames,
 *   no layout shifts; no trace, counters or CPU profile);
 * pty: a terminal program in a pseudo-terminal (screen updates, bytes, input latency, /proc).
 */
export type DriverName = 'cdp' | 'webdriver-chromium' | 'webdriver-webkit' | 'bidi-firefox' | 'pty';

/** Every driver, in the order tables show them. */
export const DRIVERS: readonly DriverName[] = ['cdp', 'webdriver-chromium', 'webdriver-webkit', 'bidi-firefox', 'pty'];

export interface MetricDefinition {
  /** Flat dotted name with the unit in it; `<label>` marks a pattern part. */
  name: string;
  /** What one unit is, for tables and docs: ms, layouts, frames, bytes… */
  unit: string;
  kind: MetricKind;
  better: Better;
  gate: GateRole;
  /**
   * Whether the value depends on the machine's speed (CPU model, cores, browser build): milliseconds and
   * frame pacing do, the app's own work (layouts, style recalcs, DOM nodes) does not. Against a baseline
   * recorded on another host, host-dependent metrics are shown but not gated.
   */
  hostDependent: boolean;
  /** Whether a `.perFrame` form exists (the value divided by the window's painted frames). */
  perFrame: boolean;
  /**
   * The smallest baseline a relative change is taken against: below it, a change is measured as a share
   * of this value instead, so 0 → 3 ms of blocking reads as +6% of 50 ms, not +∞%, and 0.9 → 1.2 ms of
   * script is not a +33% regression. In the metric's own unit.
   */
  floor: number;
  /** Shown in one-glance replies (perf_run over MCP). */
  headline: boolean;
  /** Drivers that produce it (test/webdriver.test.ts holds this against real runs). */
  drivers: readonly DriverName[];
  /**
   * A secondary metric the noise rule (PRIMARY_BY_NOISE) may make primary for one comparison, when the
   * baseline's own spread lets it tell a warn-size change in at most half of maxRepeat: a direct
   * measure of the app's own work that is too noisy to gate on every page but quiet on some.
   */
  promote: boolean;
  /**
   * Newer than run files of earlier versions: a baseline with no key of it in any repeat was recorded before it was
   * measured, not by a broken probe, so its row is shown (with how to gate it) instead of failing as missing.
   */
  recent?: boolean;
  description: string;
}

// `drivers` has no default: a new metric states where it comes from, or the registry would claim it
// for drivers that never produce it.
type Defaulted = 'perFrame' | 'headline' | 'promote';
type MetricInit = Omit<MetricDefinition, Defaulted> & Partial<Pick<MetricDefinition, Defaulted>>;

export function defineMetric(init: MetricInit): MetricDefinition {
  return { perFrame: false, headline: false, promote: false, ...init };
}

export const PER_FRAME_SUFFIX = '.perFrame';

/**
 * A `.perFrame` form is judged only when both runs painted at least this many frames (median): one frame
 * more or less, which is the machine's pacing and not the app, then moves the ratio by at most 1/30 ≈ 3%,
 * a third of the default warn threshold. Half a second of 60 Hz animation or scrolling reaches it; a
 * window of a few taps does not, and there the absolute count is judged instead.
 */
export const MIN_PAINTED_FOR_PER_FRAME = 30;

// ─── the registry ───────────────────────────────────────────────────────────────────────────────────

// Floors, each the smallest change a user could notice or the metric's own resolution:
// one 60 Hz frame for frame and step times; Event Timing's 16 ms reporting floor for interactions;
// the 50 ms long-task threshold for blocking; 10 ms for CPU counters (the renderer's process CPU clock
// ticks in 10 ms); 1 for the app's own work (a new layout in every repeat is real); 10 frames (a sixth of
// a second at 60 Hz) for the frame-pacing events, whose single occurrences come and go with the machine.
const FRAME_MS = 16.7;

// Which drivers have each source, measured with real runs (WebKitGTK 2.50, Chromium 150):
// the in-page requestAnimationFrame counter stands in for the trace's frames on WebDriver, so frame
// metrics, the window and step times come out everywhere. Event Timing, Long Animation Frames and
// the Layout Instability API are Chromium's: WebKitGTK's PerformanceObserver has none of them.
// Performance counters need the DevTools protocol.
const EVERY_DRIVER = DRIVERS;
// What a browser page has and a terminal does not: painted frames, their durations, vsync pacing.
const BROWSERS: readonly DriverName[] = ['cdp', 'webdriver-chromium', 'webdriver-webkit', 'bidi-firefox'];
const CHROMIUM_PROBE: readonly DriverName[] = ['cdp', 'webdriver-chromium'];
// Event Timing and Largest Contentful Paint: Chromium's and Firefox's (ESR 153 lists event, first-input and
// largest-contentful-paint in PerformanceObserver.supportedEntryTypes; no long-animation-frame, no layout-shift).
const EVENT_TIMING: readonly DriverName[] = ['cdp', 'webdriver-chromium', 'bidi-firefox'];
const CDP_ONLY: readonly DriverName[] = ['cdp'];

export const durationMs = defineMetric({
  name: 'durationMs',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  floor: 50,
  headline: true,
  drivers: EVERY_DRIVER,
  description: 'Wall time of the measured window, from perf_begin to perf_end.',
});
export const framesCount = defineMetric({
  name: 'frames.count',
  unit: 'frames',
  kind: 'count',
  better: 'none',
  gate: 'never',
  hostDependent: true,
  floor: 1,
  drivers: EVERY_DRIVER,
  description:
    'Frames the compositor began in the window (painted, partial or dropped); on a terminal, its screen updates (bursts of output).',
});
export const framesPainted = defineMetric({
  name: 'frames.painted',
  unit: 'frames',
  kind: 'count',
  better: 'none',
  gate: 'never',
  hostDependent: true,
  floor: 1,
  headline: true,
  drivers: BROWSERS,
  description:
    'Frames presented with new content: the divisor of every .perFrame metric. Falls when steps get faster, so it has no better direction.',
});
export const framesDropped = defineMetric({
  name: 'frames.dropped',
  unit: 'frames',
  kind: 'count',
  better: 'lower',
  gate: 'primary',
  hostDependent: true,
  perFrame: true,
  floor: 10,
  drivers: BROWSERS,
  description: 'Frames the compositor began but never presented.',
});
export const framesPartial = defineMetric({
  name: 'frames.partial',
  unit: 'frames',
  kind: 'count',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  perFrame: true,
  floor: 10,
  drivers: CDP_ONLY,
  description: "Frames presented without all the main thread's update (the compositor went ahead); only the trace shows one.",
});
export const framesOverBudget = defineMetric({
  name: 'frames.overBudget',
  unit: 'frames',
  kind: 'count',
  better: 'lower',
  gate: 'primary',
  hostDependent: true,
  perFrame: true,
  floor: 10,
  headline: true,
  drivers: BROWSERS,
  description: 'Presented frames that took longer than one vsync (16.7 ms at 60 Hz).',
});
export const frameMsP50 = defineMetric({
  name: 'frames.frameMs.p50',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  floor: FRAME_MS,
  drivers: BROWSERS,
  description: 'Median presented frame duration.',
});
export const frameMsP90 = defineMetric({
  name: 'frames.frameMs.p90',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  floor: FRAME_MS,
  headline: true,
  drivers: BROWSERS,
  description: '90th percentile presented frame duration.',
});
export const frameMsP99 = defineMetric({
  name: 'frames.frameMs.p99',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  floor: FRAME_MS,
  drivers: BROWSERS,
  description: '99th percentile presented frame duration.',
});
export const frameMsWorst = defineMetric({
  name: 'frames.frameMs.worst',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  floor: FRAME_MS,
  drivers: BROWSERS,
  description: 'Longest presented frame.',
});
export const interactionsCount = defineMetric({
  name: 'interactions.count',
  unit: 'interactions',
  kind: 'count',
  better: 'none',
  gate: 'never',
  hostDependent: false,
  perFrame: true,
  floor: 1,
  drivers: EVENT_TIMING,
  description: 'Discrete interactions (taps, key presses) in the window: set by the scenario, not by the app.',
});
export const latencyP50 = defineMetric({
  name: 'interactions.latencyMs.p50',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  floor: 16,
  drivers: EVENT_TIMING,
  description: "Median interaction latency (Event Timing: input to next paint). Fast interactions count as 16 ms, Event Timing's floor.",
});
export const latencyP90 = defineMetric({
  name: 'interactions.latencyMs.p90',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'primary',
  hostDependent: true,
  floor: 16,
  headline: true,
  drivers: EVENT_TIMING,
  description: '90th percentile interaction latency (Event Timing: input to next paint).',
});
export const latencyWorst = defineMetric({
  name: 'interactions.latencyMs.worst',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  floor: 16,
  drivers: EVENT_TIMING,
  description: 'Slowest interaction (INP-like for the window).',
});
export const processingMs = defineMetric({
  name: 'interactions.processingMs',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'primary',
  hostDependent: true,
  floor: 16,
  drivers: EVENT_TIMING,
  recent: true,
  description:
    "Event handlers' own time in the window's interactions (Event Timing, processingStart to processingEnd, summed): " +
    'what a slower handler adds, without the input delay and the wait for paint around it (0 when no interaction reached 16 ms).',
});
export const longFramesCount = defineMetric({
  name: 'longFrames.count',
  unit: 'frames',
  kind: 'count',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  perFrame: true,
  floor: 2,
  drivers: CHROMIUM_PROBE,
  description: 'Long animation frames (over 50 ms of main-thread work before the frame).',
});
export const longFramesBlockingMs = defineMetric({
  name: 'longFrames.blockingMs',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'primary',
  hostDependent: true,
  perFrame: true,
  floor: 50,
  headline: true,
  drivers: CHROMIUM_PROBE,
  description: 'Main-thread time over 50 ms in each long animation frame, summed: how long input would have waited.',
});
export const layouts = defineMetric({
  name: 'counters.layouts',
  unit: 'layouts',
  kind: 'count',
  better: 'lower',
  gate: 'primary',
  hostDependent: false,
  perFrame: true,
  floor: 1,
  headline: true,
  drivers: CDP_ONLY,
  description: "Layouts the renderer ran (Performance.getMetrics LayoutCount): the app's own work.",
});
export const styleRecalcs = defineMetric({
  name: 'counters.styleRecalcs',
  unit: 'recalcs',
  kind: 'count',
  better: 'lower',
  gate: 'primary',
  hostDependent: false,
  perFrame: true,
  floor: 1,
  headline: true,
  drivers: CDP_ONLY,
  description: "Style recalculations (RecalcStyleCount): the app's own work.",
});
// Promotable (PRIMARY_BY_NOISE): script time and task time are the main thread's own work, the first
// place a busy handler or a heavier render shows (+43% on a data grid whose scroll handler gained 8 ms,
// tight interval, while it stayed "info"); too noisy to gate everywhere (scriptMs 21–140% CV, taskMs 13–26%
// on the demo, bench/noise.ts), so they decide only where the baseline shows them quiet. Layout and style
// time are not: their counts (counters.layouts, counters.styleRecalcs) already gate that work, without noise.
export const scriptMs = defineMetric({
  name: 'counters.scriptMs',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  perFrame: true,
  floor: 10,
  promote: true,
  drivers: CDP_ONLY,
  description: 'Wall time spent running script (ScriptDuration).',
});
export const layoutMs = defineMetric({
  name: 'counters.layoutMs',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  perFrame: true,
  floor: 10,
  drivers: CDP_ONLY,
  description: 'Wall time spent in layout (LayoutDuration).',
});
export const styleMs = defineMetric({
  name: 'counters.styleMs',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  perFrame: true,
  floor: 10,
  drivers: CDP_ONLY,
  description: 'Wall time spent recalculating style (RecalcStyleDuration).',
});
export const taskMs = defineMetric({
  name: 'counters.taskMs',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  perFrame: true,
  floor: 10,
  promote: true,
  drivers: CDP_ONLY,
  description: 'Wall time of all main-thread tasks (TaskDuration).',
});
export const threadCpuMs = defineMetric({
  name: 'counters.threadCpuMs',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'primary',
  hostDependent: true,
  perFrame: true,
  floor: 10,
  headline: true,
  drivers: CDP_ONLY,
  description: "CPU time of the page's main thread (ThreadTime): its work without the time it waited for a core.",
});
export const processCpuMs = defineMetric({
  name: 'counters.processCpuMs',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  perFrame: true,
  floor: 10,
  drivers: CDP_ONLY,
  description: 'CPU time of the renderer process, every thread (ProcessTime; 10 ms clock ticks).',
});
export const heapDeltaBytes = defineMetric({
  name: 'counters.heapDeltaBytes',
  unit: 'bytes',
  kind: 'bytes',
  better: 'none',
  gate: 'never',
  hostDependent: false,
  floor: 1024 * 1024,
  drivers: CDP_ONLY,
  description: 'Change in used JS heap over the window: garbage collection timing dominates it, so it has no better direction.',
});
export const domNodesDelta = defineMetric({
  name: 'counters.domNodesDelta',
  unit: 'nodes',
  kind: 'count',
  better: 'lower',
  gate: 'secondary',
  hostDependent: false,
  floor: 10,
  drivers: CDP_ONLY,
  description: 'Change in live DOM nodes over the window (growth that stays may be a leak).',
});
export const layoutShiftScore = defineMetric({
  name: 'layoutShift.score',
  unit: 'score',
  kind: 'score',
  better: 'lower',
  gate: 'secondary',
  hostDependent: false,
  floor: 0.1,
  drivers: CHROMIUM_PROBE,
  description: 'Layout shift score over the window (Layout Instability API, CLS-style sum).',
});

// ─── memory after a forced GC (CDP: HeapProfiler.collectGarbage, Runtime.getHeapUsage, Memory.getDOMCounters) ───
// Read after a full collection at both ends of the window (outside its timed part): what the app keeps alive,
// not when V8 happened to collect, so they repeat on an unchanged page on any host: over the 9 committed baselines
// (10–15 repeats, clean restarts) the node, listener and document counts had a robust CV of 0%, the heap 0.01–0.47%,
// its growth 0.01–3.5%.
// Secondary and promotable, not primary: the default family is full (MAX_PRIMARY), and the noise rule makes the
// quiet ones primary wherever their spread allows (on a page whose heap moves between repeats it is not).
// 100 KB: the size perf leaks calls a leak (issue 30); below it a heap change is a cache warming up, not a regression.
const MEMORY_BYTES_FLOOR = 100 * 1024;
export const memoryHeapUsedAfterGcBytes = defineMetric({
  name: 'memory.heapUsedAfterGcBytes',
  unit: 'bytes',
  kind: 'bytes',
  better: 'lower',
  gate: 'secondary',
  promote: true,
  hostDependent: false,
  floor: MEMORY_BYTES_FLOOR,
  drivers: CDP_ONLY,
  description:
    "Used JS heap after a forced garbage collection at the end of the window (Runtime.getHeapUsage usedSize): what the app's " +
    "script keeps alive. DOM objects live in the renderer's own heap: see memory.domNodes.",
});
export const memoryHeapGrowthAfterGcBytes = defineMetric({
  name: 'memory.heapGrowthAfterGcBytes',
  unit: 'bytes',
  kind: 'bytes',
  better: 'lower',
  gate: 'secondary',
  hostDependent: false,
  floor: MEMORY_BYTES_FLOOR,
  drivers: CDP_ONLY,
  description: 'Used JS heap after GC at the end of the window minus the same at its start: what the measured steps left alive.',
});
// 100 nodes: a small panel's worth; below it a page is a few elements and one more is not a 10% regression.
export const memoryDomNodes = defineMetric({
  name: 'memory.domNodes',
  unit: 'nodes',
  kind: 'count',
  better: 'lower',
  gate: 'secondary',
  promote: true,
  hostDependent: false,
  floor: 100,
  drivers: CDP_ONLY,
  description:
    'DOM nodes alive in the renderer after a forced GC at the end of the window (Memory.getDOMCounters), detached ones included: ' +
    'a closed panel kept alive shows here.',
});
export const memoryDocuments = defineMetric({
  name: 'memory.documents',
  unit: 'documents',
  kind: 'count',
  better: 'lower',
  gate: 'secondary',
  hostDependent: false,
  floor: 1,
  drivers: CDP_ONLY,
  description: 'Documents alive in the renderer after GC at the end of the window (the page, its frames, leaked iframes).',
});
// 10 listeners: one component's handful; below it a single listener more would read as +50%.
export const memoryJsEventListeners = defineMetric({
  name: 'memory.jsEventListeners',
  unit: 'listeners',
  kind: 'count',
  better: 'lower',
  gate: 'secondary',
  hostDependent: false,
  floor: 10,
  drivers: CDP_ONLY,
  description: 'JS event listeners registered in the renderer after GC at the end of the window (a listener never removed stays here).',
});
// Blink's own garbage-collected heap (Oilpan: DOM nodes, listeners' wrappers, layout objects): a detached DOM tree
// is here, not in the JS heap. Chromium 156 reports it in Runtime.getHeapUsage (embedderHeapUsedSize). Secondary,
// not promotable: a figure newer than the committed baselines, left out of the primary family until they show its spread.
export const memoryBlinkHeapAfterGcBytes = defineMetric({
  name: 'memory.blinkHeapAfterGcBytes',
  unit: 'bytes',
  kind: 'bytes',
  better: 'lower',
  gate: 'secondary',
  hostDependent: false,
  floor: MEMORY_BYTES_FLOOR,
  drivers: CDP_ONLY,
  description:
    "Blink's garbage-collected heap (Oilpan: DOM nodes, detached ones included) after two forced GCs at the end of the window " +
    '(Runtime.getHeapUsage embedderHeapUsedSize); absent on a Chromium that does not report it.',
});
/** Every memory metric, in report order. */
export const MEMORY_METRICS: readonly MetricDefinition[] = [
  memoryHeapUsedAfterGcBytes,
  memoryHeapGrowthAfterGcBytes,
  memoryBlinkHeapAfterGcBytes,
  memoryDomNodes,
  memoryDocuments,
  memoryJsEventListeners,
];

// ─── page load (`measure: load`, perf_load) ──────────────────────────────────────────────────────────
// Navigation, Paint and Resource Timing exist in every browser; LCP, layout shifts and long tasks are
// Chromium's observers (WebKitGTK's PerformanceObserver lacks them); task time needs the DevTools protocol.
// Floors: 100 ms for a load milestone (the smallest delay in a page's appearance a user notices, RAIL's
// 100 ms); 50 ms for TTFB and blocking (the long-task threshold); 0.1 for CLS (web.dev's "good" limit);
// one request; 10 KB of transfer (a small image: below it a change is noise in headers, not the app).
const LOAD_MS_FLOOR = 100;
const LOAD_BYTES_FLOOR = 10 * 1024;

function loadTiming(name: string, floor: number, drivers: readonly DriverName[], description: string, gate: GateRole = 'secondary') {
  return defineMetric({ name, unit: 'ms', kind: 'ms', better: 'lower', gate, hostDependent: true, floor, drivers, description });
}
export const loadTtfbMs = loadTiming('load.ttfbMs', 50, BROWSERS, 'Time to the first byte of the document, from the navigation start.');
export const loadFcpMs = loadTiming(
  'load.fcpMs',
  LOAD_MS_FLOOR,
  BROWSERS,
  'First contentful paint (Paint Timing), from the navigation start.',
  'primary',
);
export const loadLcpMs = loadTiming(
  'load.lcpMs',
  LOAD_MS_FLOOR,
  EVENT_TIMING,
  'Largest contentful paint: the last LCP candidate before the load window ended (or the first input).',
  'primary',
);
export const loadClsScore = defineMetric({
  name: 'load.clsScore',
  unit: 'score',
  kind: 'score',
  better: 'lower',
  gate: 'primary',
  hostDependent: false,
  floor: 0.1,
  drivers: CHROMIUM_PROBE,
  description: 'Cumulative layout shift of the load: the largest session window (gaps < 1 s, ≤ 5 s) of shifts without recent input.',
});
export const loadTbtMs = loadTiming(
  'load.tbtMs',
  50,
  CHROMIUM_PROBE,
  "Total blocking time: each long task's time over 50 ms, between first contentful paint and the end of the load window.",
  'primary',
);
export const loadDomContentLoadedMs = loadTiming(
  'load.domContentLoadedMs',
  LOAD_MS_FLOOR,
  BROWSERS,
  'DOMContentLoaded handlers done (domContentLoadedEventEnd).',
);
export const loadEventMs = loadTiming('load.loadEventMs', LOAD_MS_FLOOR, BROWSERS, 'Load event handlers done (loadEventEnd).');
export const loadRequests = defineMetric({
  name: 'load.requests',
  unit: 'requests',
  kind: 'count',
  better: 'lower',
  gate: 'primary',
  hostDependent: false,
  floor: 1,
  drivers: BROWSERS,
  description: 'Requests of the load (the document and every resource it fetched until the window ended).',
});
function loadBytes(type: string, gate: GateRole, description: string): MetricDefinition {
  const name = type ? `load.transferBytes.${type}` : 'load.transferBytes';
  return defineMetric({
    name,
    unit: 'bytes',
    kind: 'bytes',
    better: 'lower',
    gate,
    hostDependent: false,
    floor: LOAD_BYTES_FLOOR,
    drivers: BROWSERS,
    description,
  });
}
export const loadTransferBytes = loadBytes(
  '',
  'primary',
  'Bytes over the wire for the whole load, headers included (cache hits are 0): as the network counted them on cdp ' +
    "and bidi-firefox; over WebDriver, Resource Timing's body plus 300 B of headers per response.",
);
export const loadTransferBytesByType = {
  document: loadBytes('document', 'secondary', 'Transfer bytes of documents (the page and its frames).'),
  script: loadBytes('script', 'secondary', 'Transfer bytes of scripts.'),
  stylesheet: loadBytes('stylesheet', 'secondary', 'Transfer bytes of stylesheets.'),
  image: loadBytes('image', 'secondary', 'Transfer bytes of images.'),
  font: loadBytes('font', 'secondary', 'Transfer bytes of fonts.'),
  fetch: loadBytes('fetch', 'secondary', 'Transfer bytes of fetch/XHR requests.'),
  other: loadBytes('other', 'secondary', 'Transfer bytes of everything else.'),
} as const;
export const loadMainThreadMs = loadTiming(
  'load.mainThreadMs',
  LOAD_MS_FLOOR,
  CDP_ONLY,
  'Main-thread task time during the load (parsing, script evaluation and compilation, style, layout, paint: ' +
    'Performance.getMetrics TaskDuration).',
);
/** Every load metric, in report order. */
export const LOAD_METRICS: readonly MetricDefinition[] = [
  loadTtfbMs,
  loadFcpMs,
  loadLcpMs,
  loadClsScore,
  loadTbtMs,
  loadDomContentLoadedMs,
  loadEventMs,
  loadRequests,
  loadTransferBytes,
  ...Object.values(loadTransferBytesByType),
  loadMainThreadMs,
];

// Soft navigations: Chromium's soft-navigation entries (139+), read by the in-page probe in any window.
export const softNavsCount = defineMetric({
  name: 'softNavs.count',
  unit: 'navigations',
  kind: 'count',
  better: 'none',
  gate: 'never',
  hostDependent: false,
  floor: 1,
  drivers: CHROMIUM_PROBE,
  description: 'Soft navigations in the window: SPA route changes after an interaction (history API, a new URL and a paint).',
});
export const softNavsNextPaintMs = loadTiming(
  'softNavs.nextPaintMs',
  FRAME_MS,
  CHROMIUM_PROBE,
  "The slowest soft navigation's time from its interaction to the route's next paint.",
);
export const softNavsLcpMs = loadTiming(
  'softNavs.lcpMs',
  LOAD_MS_FLOOR,
  CHROMIUM_PROBE,
  "The slowest soft navigation's largest contentful paint (interaction-contentful-paint), from its interaction.",
);
const LOCAL_PROCESS: readonly DriverName[] = ['webdriver-chromium', 'webdriver-webkit', 'bidi-firefox', 'pty'];
const PTY: readonly DriverName[] = ['pty'];
// Over CDP the renderer's CPU is counters.processCpuMs; /proc is read where there are no counters.
export const webProcessCpuMs = defineMetric({
  name: 'process.cpuMs',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  // The CPU time of drivers without counters.threadCpuMs (Firefox, WebDriver, terminals): a candidate the noise rule
  // makes primary where it is quiet enough, so a CPU-only regression there is not left to secondaries.
  promote: true,
  hostDependent: true,
  perFrame: true,
  floor: 10,
  drivers: LOCAL_PROCESS,
  description:
    "CPU time over the window, from /proc (10 ms clock ticks): a browser's web content processes (a WebDriver " +
    "server this harness started), or a terminal program's process tree.",
});
// 4 MiB: below it, a change in peak memory is allocator and GC timing, not the app.
export const webProcessMaxRssBytes = defineMetric({
  name: 'process.maxRssBytes',
  unit: 'bytes',
  kind: 'bytes',
  better: 'lower',
  gate: 'secondary',
  hostDependent: false,
  floor: 4 * 1024 * 1024,
  drivers: LOCAL_PROCESS,
  description: "Peak resident memory (VmHWM from /proc): of the largest web content process, or of a terminal program's tree.",
});
// A keystroke's echo on a local terminal takes well under a millisecond: 1 ms is below what anyone sees.
export const terminalLatencyP50 = defineMetric({
  name: 'terminal.latencyMs.p50',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'primary',
  hostDependent: true,
  floor: 1,
  drivers: PTY,
  description: 'Median input latency of a terminal program: input written to the last byte of its response (the screen settled).',
});
export const terminalLatencyP90 = defineMetric({
  name: 'terminal.latencyMs.p90',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  floor: 1,
  drivers: PTY,
  description: '90th percentile input latency of a terminal program.',
});
export const terminalLatencyWorst = defineMetric({
  name: 'terminal.latencyMs.worst',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  floor: 1,
  drivers: PTY,
  description: 'Slowest input of the window on a terminal program.',
});
// 1 KiB: below it a change is a status line redrawn, not the program doing more.
export const terminalBytesOut = defineMetric({
  name: 'terminal.bytesOut',
  unit: 'bytes',
  kind: 'bytes',
  better: 'lower',
  gate: 'primary',
  hostDependent: false,
  floor: 1024,
  drivers: PTY,
  description: "Bytes the terminal program wrote in the window: what it redraws (the app's own work).",
});
export const stepMs = defineMetric({
  name: 'steps.<label>.ms',
  unit: 'ms',
  kind: 'ms',
  better: 'lower',
  gate: 'secondary',
  hostDependent: true,
  floor: FRAME_MS,
  drivers: EVERY_DRIVER,
  description: 'Wall time of one measured step (a label used twice sums).',
});

/** Every metric, in the order a reader scans them (reports, tables, docs). */
export const METRICS: readonly MetricDefinition[] = [
  durationMs,
  framesCount,
  framesPainted,
  framesDropped,
  framesPartial,
  framesOverBudget,
  frameMsP50,
  frameMsP90,
  frameMsP99,
  frameMsWorst,
  interactionsCount,
  latencyP50,
  latencyP90,
  latencyWorst,
  processingMs,
  longFramesCount,
  longFramesBlockingMs,
  layouts,
  styleRecalcs,
  threadCpuMs,
  processCpuMs,
  scriptMs,
  layoutMs,
  styleMs,
  taskMs,
  heapDeltaBytes,
  domNodesDelta,
  layoutShiftScore,
  ...MEMORY_METRICS,
  ...LOAD_METRICS,
  softNavsCount,
  softNavsNextPaintMs,
  softNavsLcpMs,
  webProcessCpuMs,
  webProcessMaxRssBytes,
  terminalLatencyP50,
  terminalLatencyP90,
  terminalLatencyWorst,
  terminalBytesOut,
  stepMs,
];

/*
 * The primary family, chosen from measured noise (bench/noise.ts, timing repeats of the examples on a
 * 2-core machine, quiet / beside a busy process): layouts and style recalcs 0–10% CV (the app's own
 * work, machine-independent); counters.threadCpuMs 8–17%, steadier than scriptMs (21–140%), taskMs
 * (13–26%) and processCpuMs (9–37%, 10 ms ticks); frames over budget / dropped and long-frame blocking
 * (zero on a healthy page, judged as Poisson events). Interaction latency (p50 and p90; 16–46% CV, Event
 * Timing's 16 ms floor and 8 ms rounding) is what a user feels of a slower handler, so its INP-like p90 is in the
 * family, beside the handlers' own time (interactions.processingMs), which leaves out the input delay and the
 * wait for paint, the noisiest parts on a busy host (issue 56: a +60 ms click handler on Swagger UI moved
 * latency +45% at 30–40% CV beside busy cores, while thread CPU moved within its noise: a wall-clock-bound loop
 * gets less CPU when others take the cores). Where one is too noisy to judge a warn-size change the noise rule
 * sets it aside, and a set-aside metric still decides a change its smaller share of α can tell (compare.ts
 * SET_ASIDE_WEIGHT). Wall times (durationMs 5–19%, steps) stay secondary: they include the waits.
 */
/** At most this many primary metrics by default: each one dilutes the others' share of α. */
export const MAX_PRIMARY = 8;

/**
 * The rule that fits the primary family to a comparison's own noise, declared once: compare/primaries.ts and
 * primaries.ts apply it, the README and `perf metrics` print its description.
 */
export const PRIMARY_BY_NOISE = {
  name: 'primaries by noise',
  description:
    'A default primary metric whose baseline is too noisy to tell a warn-size change within maxRepeat repeats per arm is ' +
    'set aside ("too noisy here to judge ±10%: CV 48% (needs ~300 repeats per arm…)"): tested at a quarter of a ' +
    "primary's weight in the Holm procedure, it still fails the gate on a change that level can tell, and holds it " +
    '(inconclusive, more repeats) while its estimate is past warn. A promotable one ' +
    `(${METRICS.filter((d) => d.promote)
      .map((d) => `\`${d.name}\``)
      .join(', ')}) quiet enough to tell it within half of maxRepeat ` +
    `becomes primary, never past ${MAX_PRIMARY} primaries. Noise is the baseline's robust CV (1.4826 · MAD / median, against the ` +
    "metric's floor when the median is below it), sized for the rank test at the compare's α with 80% power; a sequential " +
    "compare fixes the choice at its first look and records it, and below 3 baseline repeats the registry's default stands. " +
    "A scenario's `gate.metrics` overrides the rule (no demotion, no promotion), and a page load's family is fixed the same way.",
  /** Below 3 baseline repeats a median absolute deviation is half the gap of two values, not a spread. */
  minBaselineRepeats: 3,
  /**
   * A promoted metric must detect a warn-size change within this share of maxRepeat: the size is taken at
   * the full α, while the gate tests it at its Holm share on a sequential boundary (α/8 on a Pocock-type
   * boundary needs about twice the repeats), so half of maxRepeat is what it really needs at the end.
   */
  promoteShare: 0.5,
  /**
   * Without a sequential design (two stored runs), the reach is this many times the baseline's repeats:
   * a scenario's default maxRepeat is 4 × repeat (scenario/load.ts), the repeats an inconclusive row can ask for.
   */
  reachFactor: 4,
} as const;

/** Metrics the noise rule may make primary (`promote: true`), base names. */
export function promotableMetrics(): string[] {
  return METRICS.filter((d) => d.promote && d.gate === 'secondary').map((d) => d.name);
}

// ─── lookup ─────────────────────────────────────────────────────────────────────────────────────────

/** The metric of one measured step's wall time (the `steps.<label>.ms` pattern). */
export function stepMetricName(label: string): string {
  return `steps.${label}.ms`;
}

/** A metric as resolved from a concrete name: its declaration, and whether this is the per-frame form. */
export interface ResolvedMetric {
  name: string;
  def: MetricDefinition;
  /** The base name (without `.perFrame`). */
  base: string;
  perFrame: boolean;
  /** Position in METRICS, for ordering. */
  order: number;
  /** For `steps.<label>.ms`: the label. */
  label?: string;
}

const byName = new Map(METRICS.map((d, i) => [d.name, { def: d, order: i }]));
const STEP_METRIC = /^steps\.(.+)\.ms$/;

/** The declaration behind a concrete metric name, or undefined for a name no run produces. */
export function resolveMetric(name: string): ResolvedMetric | undefined {
  const perFrame = name.endsWith(PER_FRAME_SUFFIX);
  const base = perFrame ? name.slice(0, -PER_FRAME_SUFFIX.length) : name;
  const hit = byName.get(base);
  if (hit) {
    if (perFrame && !hit.def.perFrame) return undefined;
    return { name, def: hit.def, base, perFrame, order: hit.order };
  }
  const step = STEP_METRIC.exec(base);
  if (step && !perFrame) return { name, def: stepMs, base, perFrame: false, order: METRICS.indexOf(stepMs), label: step[1]! };
  return undefined;
}

/**
 * Milliseconds are read from timing-mode repeats when a run has them: attribution mode runs the sampling
 * profiler, which inflates every ms figure. Counts are the same in both modes.
 */
export function isTimingMetric(name: string): boolean {
  return resolveMetric(name)?.def.kind === 'ms';
}

/** The floor of a concrete name: per-frame forms spread the base floor over the per-frame minimum. */
export function floorOf(m: ResolvedMetric): number {
  return m.perFrame ? m.def.floor / MIN_PAINTED_FOR_PER_FRAME : m.def.floor;
}

/** Every concrete name the registry declares (patterns excluded), per-frame forms after their base. */
export function concreteMetricNames(): string[] {
  return METRICS.flatMap((d) => (d.name.includes('<') ? [] : d.perFrame ? [d.name, d.name + PER_FRAME_SUFFIX] : [d.name]));
}

/** The default primary family: base names with `gate: 'primary'`, the load family for a run that measured a load. */
export function defaultPrimaryMetrics(load = false): string[] {
  // A load scenario is judged on its load (Lighthouse's family), any other on its interactions.
  return METRICS.filter((d) => d.gate === 'primary' && LOAD_METRICS.includes(d) === load).map((d) => d.name);
}

/**
 * Check a metric name written by a user (budgets, thresholds, gate.metrics). `stepLabels` are the
 * scenario's measured step labels, for `steps.<label>.ms`. Returns the resolved metric or throws a
 * PerfError naming the closest valid names.
 */
export function checkMetricName(name: string, stepLabels: readonly string[] = [], where = 'metric'): ResolvedMetric {
  const r = resolveMetric(name);
  if (r && (r.label === undefined || stepLabels.includes(r.label))) return r;
  const valid = [...concreteMetricNames(), ...stepLabels.map((l) => `steps.${l}.ms`)];
  const near = closest(name, valid);
  const didYouMean = near.map((n) => `"${n}"`).join(' or ');
  const stepHint = r?.label !== undefined ? ` (no measured step is labelled "${r.label}"; labels: ${stepLabels.join(', ') || 'none'})` : '';
  throw new PerfError({
    code: 'unknown_metric',
    message: `${where}: unknown metric "${name}"${stepHint}${near.length ? `; did you mean ${didYouMean}?` : ''}`,
    suggestion: '`perf metrics` lists every metric',
    candidates: near,
  });
}

/** Sort names in registry order (a per-frame form right after its base; steps in `stepLabels` order), unknown names last. */
export function sortMetricNames(names: Iterable<string>, stepLabels: readonly string[] = []): string[] {
  const key = (name: string): [number, number, string, number] => {
    const r = resolveMetric(name);
    if (!r) return [METRICS.length, 0, name, 0];
    const within = r.label !== undefined ? stepLabels.indexOf(r.label) : 0;
    return [r.order, within < 0 ? Number.MAX_SAFE_INTEGER : within, r.base, r.perFrame ? 1 : 0];
  };
  return [...names]
    .map((name) => ({ name, k: key(name) }))
    .sort((x, y) => x.k[0] - y.k[0] || x.k[1] - y.k[1] || (x.k[2] < y.k[2] ? -1 : x.k[2] > y.k[2] ? 1 : 0) || x.k[3] - y.k[3])
    .map((x) => x.name);
}

// ─── docs ───────────────────────────────────────────────────────────────────────────────────────────

/** One row per declaration, as `perf metrics --json` prints it. */
export function metricTable(): (Omit<MetricDefinition, 'drivers'> & { drivers: DriverName[]; perFrameName: string | null })[] {
  return METRICS.map((d) => ({ ...d, drivers: [...d.drivers], perFrameName: d.perFrame ? d.name + PER_FRAME_SUFFIX : null }));
}

/** The README's metric list (Markdown), generated so it never disagrees with the registry. */
export function metricsMarkdown(): string {
  const rows = METRICS.map((d) => {
    const dir = d.better === 'none' ? 'none' : `${d.better}`;
    return (
      `| ${markdownName(d)} | ${d.unit} | ${dir} | ${d.gate}${d.promote ? ' (promotable)' : ''} | ` +
      `${d.hostDependent ? 'yes' : 'no'} | ${d.floor} | ${d.drivers.join(', ')} | ${d.description.replace(/\|/g, '\\|')} |`
    );
  });
  return [
    '| metric | unit | better | gate | host-dependent | floor | drivers | what it measures |',
    '|:--|:--|:--|:--|:--|--:|:--|:--|',
    ...rows,
  ].join('\n');
}

/** The README's paragraph on how the primary family follows the baseline's noise, generated from the rule's declaration. */
export function primaryRuleMarkdown(): string {
  return `**${PRIMARY_BY_NOISE.name[0]!.toUpperCase()}${PRIMARY_BY_NOISE.name.slice(1)}.** ${PRIMARY_BY_NOISE.description}`;
}

/** docs/metrics.md's Memory section, generated from the memory declarations. */
export function memoryMarkdown(): string {
  const names = (ds: readonly MetricDefinition[]): string => ds.map((d) => `\`${d.name}\``).join(', ');
  return (
    `${names(MEMORY_METRICS)} are read after a forced garbage collection at both ends of a CDP window, outside its timed ` +
    "part: every window of perf_begin/perf_end and of a profiled repeat; a run's timing repeats skip the GCs. " +
    `They depend on what the app keeps alive, not on the host. ${names(MEMORY_METRICS.filter((d) => d.promote))} are ` +
    'promotable: the noise rule makes them primary where the baseline shows them quiet. WebDriver and terminal runs report ' +
    '`process.maxRssBytes` instead. What the GC costs and how a leak fails the gate: [memory.md](memory.md).'
  );
}

/** The README's per-driver table (Markdown): which metrics each driver produces, ✓ or —. */
export function metricsByDriverMarkdown(): string {
  const rows = METRICS.map((d) => `| ${markdownName(d)} | ${DRIVERS.map((x) => (d.drivers.includes(x) ? '✓' : '—')).join(' | ')} |`);
  return [`| metric | ${DRIVERS.map((x) => `\`${x}\``).join(' | ')} |`, `|:--|${DRIVERS.map(() => ':-:').join('|')}|`, ...rows].join('\n');
}

function markdownName(d: MetricDefinition): string {
  return `\`${d.name}\`${d.perFrame ? ` (+ \`.perFrame\`)` : ''}`;
}
