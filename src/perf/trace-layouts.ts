/**
 * Layout work from the trace (devtools.timeline Layout events on the page's main thread), split into
 * forced (synchronous: run inside a script, because it read geometry after writing styles) and the
 * frame's own. The spans of forced layouts let the CPU profile name the function that forced them.
 */
import { pageRendererPids } from './frames.js';
import { BEGIN_MARK, END_MARK, type TraceEvent, type TraceResult } from '../drivers/measure.js';

export interface LayoutSpan {
  /** Epoch ms. */
  at: number;
  ms: number;
}

export interface TraceLayouts {
  layouts: number;
  layoutMs: number;
  forced: number;
  forcedMs: number;
  /** Forced layouts, in time order. */
  forcedSpans: LayoutSpan[];
  /** Forced style recalculations (UpdateLayoutTree / RecalculateStyles inside a script), in time order. */
  forcedStyleSpans: LayoutSpan[];
}

/** Main-thread events that run page script: a Layout nested in one of them was forced by it. */
const SCRIPT_EVENTS = new Set([
  'FunctionCall',
  'FireAnimationFrame',
  'EventDispatch',
  'TimerFire',
  'EvaluateScript',
  'v8.callFunction',
  'RunMicrotasks',
  'FireIdleCallback',
  'v8.run',
]);
/** Style recalculation, by the names Chromium has used (RecalculateStyles before M107, UpdateLayoutTree since). */
const STYLE_EVENTS = new Set(['UpdateLayoutTree', 'RecalculateStyles']);
/** A main-thread task, by the names Chromium has used (RunTask since M81). */
const TASK_EVENTS = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);

/** The page's main threads ("pid:tid"): the ones that ran our marks. */
function mainThreads(trace: TraceResult): Set<string> {
  const mains = new Set<string>();
  for (const e of trace.events)
    if (e.cat === 'blink.user_timing' && (e.name === BEGIN_MARK || e.name === END_MARK)) mains.add(`${e.pid}:${e.tid}`);
  return mains;
}

export function layoutsFromTrace(
  trace: TraceResult,
  window: { startAt: number; endAt: number },
  offsetMs: number,
): TraceLayouts | undefined {
  const pids = pageRendererPids(trace);
  const mains = mainThreads(trace);
  if (mains.size === 0) return undefined;
  const onMain = (e: TraceEvent): boolean => pids.has(e.pid) && mains.has(`${e.pid}:${e.tid}`);
  const inWindow = (e: TraceEvent): boolean => {
    const at = e.ts / 1000 + offsetMs;
    return at >= window.startAt && at <= window.endAt;
  };
  const scripts: { start: number; end: number }[] = [];
  const layouts: TraceEvent[] = [];
  const styles: TraceEvent[] = [];
  for (const e of trace.events) {
    if (e.ph !== 'X' || !onMain(e) || !inWindow(e)) continue;
    if (e.name === 'Layout') layouts.push(e);
    else if (STYLE_EVENTS.has(e.name)) styles.push(e);
    else if (SCRIPT_EVENTS.has(e.name)) scripts.push({ start: e.ts, end: e.ts + (e.dur ?? 0) });
  }
  scripts.sort((a, b) => a.start - b.start);
  const forcedLayouts = forcedIn(layouts, scripts, offsetMs);
  const forcedStyleSpans = forcedIn(styles, scripts, offsetMs);
  const out: TraceLayouts = {
    layouts: layouts.length,
    layoutMs: 0,
    forced: forcedLayouts.length,
    forcedMs: 0,
    forcedSpans: forcedLayouts,
    forcedStyleSpans,
  };
  for (const l of layouts) out.layoutMs += (l.dur ?? 0) / 1000;
  for (const f of forcedLayouts) out.forcedMs += f.ms;
  out.layoutMs = Math.round(out.layoutMs * 100) / 100;
  out.forcedMs = Math.round(out.forcedMs * 100) / 100;
  return out;
}

/** The events (in time order) that ran inside a script interval: forced by that script. `scripts` sorted by start. */
function forcedIn(events: TraceEvent[], scripts: readonly { start: number; end: number }[], offsetMs: number): LayoutSpan[] {
  const out: LayoutSpan[] = [];
  let j = 0;
  let openEnd = -Infinity;
  events.sort((a, b) => a.ts - b.ts);
  for (const l of events) {
    // Script intervals that started before this event: the latest-ending one decides whether it encloses it.
    while (j < scripts.length && scripts[j]!.start <= l.ts) openEnd = Math.max(openEnd, scripts[j++]!.end);
    if (openEnd >= l.ts + (l.dur ?? 0)) out.push({ at: l.ts / 1000 + offsetMs, ms: (l.dur ?? 0) / 1000 });
  }
  return out;
}

// 50 ms: the Long Tasks API's threshold (w3c.github.io/longtasks), which Lighthouse and DevTools use too.
export const LONG_TASK_MS = 50;

/** Main-thread tasks longer than LONG_TASK_MS that started inside the window, in time order. */
export function longTasksFromTrace(trace: TraceResult, window: { startAt: number; endAt: number }, offsetMs: number): LayoutSpan[] {
  const pids = pageRendererPids(trace);
  const mains = mainThreads(trace);
  const out: LayoutSpan[] = [];
  for (const e of trace.events) {
    if (e.ph !== 'X' || !TASK_EVENTS.has(e.name) || (e.dur ?? 0) <= LONG_TASK_MS * 1000) continue;
    if (!pids.has(e.pid) || !mains.has(`${e.pid}:${e.tid}`)) continue;
    const at = e.ts / 1000 + offsetMs;
    if (at < window.startAt || at > window.endAt) continue;
    out.push({ at, ms: e.dur! / 1000 });
  }
  // A RunTask nested in another (a nested run loop) is the same time twice: keep the outer one.
  out.sort((a, b) => a.at - b.at || b.ms - a.ms);
  const kept: LayoutSpan[] = [];
  for (const t of out) {
    const last = kept[kept.length - 1];
    if (last && t.at + t.ms <= last.at + last.ms) continue;
    kept.push(t);
  }
  return kept;
}

/** Main-thread time by rendering phase (exclusive: a Layout inside a script counts as layout). */
export interface Phases {
  scriptMs: number;
  styleMs: number;
  layoutMs: number;
  paintMs: number;
  commitMs: number;
  gcMs: number;
  /** Traced main-thread work that is none of the above (task overhead, parsing, hit tests…). */
  otherMs: number;
}

const PHASE_OF: Record<string, keyof Phases> = {
  FunctionCall: 'scriptMs',
  EvaluateScript: 'scriptMs',
  TimerFire: 'scriptMs',
  FireAnimationFrame: 'scriptMs',
  EventDispatch: 'scriptMs',
  RunMicrotasks: 'scriptMs',
  FireIdleCallback: 'scriptMs',
  'v8.compile': 'scriptMs',
  'v8.compileModule': 'scriptMs',
  'v8.evaluateModule': 'scriptMs',
  'v8.callFunction': 'scriptMs',
  'v8.run': 'scriptMs',
  'V8.Execute': 'scriptMs',
  UpdateLayoutTree: 'styleMs',
  RecalculateStyles: 'styleMs',
  ParseAuthorStyleSheet: 'styleMs',
  Layout: 'layoutMs',
  ComputeIntersections: 'layoutMs',
  PrePaint: 'paintMs',
  Paint: 'paintMs',
  PaintImage: 'paintMs',
  Layerize: 'paintMs',
  UpdateLayerTree: 'paintMs',
  'Decode Image': 'paintMs',
  CompositeLayers: 'paintMs',
  Commit: 'commitMs',
  'ProxyMain::BeginMainFrame::commit': 'commitMs',
  MajorGC: 'gcMs',
  MinorGC: 'gcMs',
  BlinkGC: 'gcMs',
};

/** Exclusive main-thread ms per phase inside the window (the `phases` detail of attribution mode). */
export function phasesFromTrace(trace: TraceResult, window: { startAt: number; endAt: number }, offsetMs: number): Phases | undefined {
  const mains = mainThreads(trace);
  if (mains.size === 0) return undefined;
  const xs = trace.events
    .filter((e) => e.ph === 'X' && e.dur !== undefined && mains.has(`${e.pid}:${e.tid}`))
    .filter((e) => {
      const at = e.ts / 1000 + offsetMs;
      return at >= window.startAt && at <= window.endAt;
    })
    // Parents before children: earlier first, and at the same start the longer one.
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const out: Phases = { scriptMs: 0, styleMs: 0, layoutMs: 0, paintMs: 0, commitMs: 0, gcMs: 0, otherMs: 0 };
  const phaseOf = (name: string): keyof Phases => PHASE_OF[name] ?? (name.startsWith('V8.GC') ? 'gcMs' : 'otherMs');
  // Exclusive time: each event's duration minus its direct children's, charged to its phase; an
  // unnamed wrapper (RunTask) passes its children's phases through and keeps only its own remainder.
  const stack: { end: number; phase: keyof Phases; childUs: number; dur: number }[] = [];
  const close = (upTo: number): void => {
    while (stack.length && stack[stack.length - 1]!.end <= upTo) {
      const top = stack.pop()!;
      out[top.phase] += Math.max(0, top.dur - top.childUs) / 1000;
    }
  };
  for (const e of xs) {
    close(e.ts);
    const parent = stack[stack.length - 1];
    if (parent) parent.childUs += e.dur!;
    // Wrappers named after the work they wrap are charged like their parent (e.g. GC steps inside script).
    const own = phaseOf(e.name);
    const phase = own === 'otherMs' && parent ? parent.phase : own;
    stack.push({ end: e.ts + e.dur!, phase, childUs: 0, dur: e.dur! });
  }
  close(Infinity);
  for (const k of Object.keys(out) as (keyof Phases)[]) out[k] = Math.round(out[k] * 100) / 100;
  return out;
}
