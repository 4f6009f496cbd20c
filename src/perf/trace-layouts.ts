/**
 * Layout work from the trace (devtools.timeline Layout events on the page's main thread), split into
 * forced (synchronous: run inside a script, because it read geometry after writing styles) and the
 * frame's own. The spans of forced layouts let the CPU profile name the function that forced them.
 */
import { pageRendererPids } from './frames.js';
import { BEGIN_MARK, END_MARK } from './session.js';
import type { TraceEvent, TraceResult } from './trace.js';

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
}

/** Main-thread events that run page script: a Layout nested in one of them was forced by it. */
const SCRIPT_EVENTS = new Set(['FunctionCall', 'FireAnimationFrame', 'EventDispatch', 'TimerFire', 'EvaluateScript', 'v8.callFunction', 'RunMicrotasks', 'FireIdleCallback', 'v8.run']);

export function layoutsFromTrace(trace: TraceResult, window: { startAt: number; endAt: number }, offsetMs: number): TraceLayouts | undefined {
  const pids = pageRendererPids(trace);
  // The main thread is the one that ran our marks.
  const mains = new Set<string>();
  for (const e of trace.events) if (e.cat === 'blink.user_timing' && (e.name === BEGIN_MARK || e.name === END_MARK)) mains.add(`${e.pid}:${e.tid}`);
  if (mains.size === 0) return undefined;
  const onMain = (e: TraceEvent): boolean => pids.has(e.pid) && mains.has(`${e.pid}:${e.tid}`);
  const inWindow = (e: TraceEvent): boolean => {
    const at = e.ts / 1000 + offsetMs;
    return at >= window.startAt && at <= window.endAt;
  };
  const scripts: { start: number; end: number }[] = [];
  const layouts: TraceEvent[] = [];
  for (const e of trace.events) {
    if (e.ph !== 'X' || !onMain(e) || !inWindow(e)) continue;
    if (e.name === 'Layout') layouts.push(e);
    else if (SCRIPT_EVENTS.has(e.name)) scripts.push({ start: e.ts, end: e.ts + (e.dur ?? 0) });
  }
  scripts.sort((a, b) => a.start - b.start);
  const out: TraceLayouts = { layouts: layouts.length, layoutMs: 0, forced: 0, forcedMs: 0, forcedSpans: [] };
  let j = 0;
  let openEnd = -Infinity;
  layouts.sort((a, b) => a.ts - b.ts);
  for (const l of layouts) {
    const ms = (l.dur ?? 0) / 1000;
    out.layoutMs += ms;
    // Script intervals that started before this layout: the latest-ending one decides whether it encloses it.
    while (j < scripts.length && scripts[j]!.start <= l.ts) openEnd = Math.max(openEnd, scripts[j++]!.end);
    if (openEnd >= l.ts + (l.dur ?? 0)) {
      out.forced++;
      out.forcedMs += ms;
      out.forcedSpans.push({ at: l.ts / 1000 + offsetMs, ms });
    }
  }
  out.layoutMs = Math.round(out.layoutMs * 100) / 100;
  out.forcedMs = Math.round(out.forcedMs * 100) / 100;
  return out;
}
