/**
 * Page-load figures from a load's readings: pure (numbers in, numbers out), tested in test/load-metrics.test.ts.
 *
 * CLS: the largest session window of layout shifts, a window closing after a 1 s gap or at 5 s (web.dev,
 * "Evolving the CLS metric", 2021; Chromium's and Lighthouse's definition since Lighthouse 8).
 * TBT: each long task's time over 50 ms, counting only its part after first contentful paint (Lighthouse's
 * total-blocking-time, which clips tasks at FCP the same way; we end at the load window's end, not at TTI).
 */
import { LOAD_RESOURCE_TYPES, type LoadReadings, type LoadRequest, type LoadResourceType } from '../drivers/measure.js';

// Session windows: a gap of 1 s between shifts, or 5 s of window, starts a new one (web.dev CLS).
const CLS_GAP_MS = 1000;
const CLS_WINDOW_MS = 5000;
// A task is long past 50 ms (the Long Tasks API's and RAIL's threshold): only the excess blocks input.
const LONG_TASK_MS = 50;

export function clsOf(shifts: readonly { ms: number; value: number }[]): number {
  let best = 0;
  let sum = 0;
  let first = -Infinity;
  let last = -Infinity;
  for (const s of [...shifts].sort((a, b) => a.ms - b.ms)) {
    if (s.ms - last >= CLS_GAP_MS || s.ms - first >= CLS_WINDOW_MS) {
      sum = 0;
      first = s.ms;
    }
    sum += s.value;
    last = s.ms;
    best = Math.max(best, sum);
  }
  return best;
}

/** Blocking time between `fromMs` (FCP) and `toMs` (the window's end), ms. */
export function tbtOf(tasks: readonly { startMs: number; durationMs: number }[], fromMs: number, toMs: number): number {
  let total = 0;
  for (const t of tasks) {
    const start = Math.max(t.startMs, fromMs);
    const end = Math.min(t.startMs + t.durationMs, toMs);
    // Lighthouse clips a task straddling FCP and counts its blocking only if the clipped part is long.
    if (end - start > LONG_TASK_MS) total += end - start - LONG_TASK_MS;
  }
  return total;
}

/** Transfer bytes per resource type, every type present (0 when none). */
export function bytesByType(requests: readonly LoadRequest[]): Record<LoadResourceType, number> {
  const out = Object.fromEntries(LOAD_RESOURCE_TYPES.map((t) => [t, 0])) as Record<LoadResourceType, number>;
  for (const r of requests) out[r.type] += r.transferBytes;
  return out;
}

/** The load window's length on the page's clock (navigation start → the window's end), ms. */
export function loadWindowMs(load: LoadReadings): number {
  return Math.max(0, load.endedAt - load.navigationStartAt);
}

/** `http/1.1` → h1, `h3-29` → h3: the names a reader compares; others (data, blob) as the browser says them. */
export function protocolName(p: string): string {
  const s = p.toLowerCase();
  if (/^http\/1(\.\d)?$/.test(s)) return 'h1';
  if (/^(h3|quic)/.test(s)) return 'h3';
  return s;
}
