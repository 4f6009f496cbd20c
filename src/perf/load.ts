/**
 * Page-load figures from a load's readings: pure (numbers in, numbers out), tested in test/load-metrics.test.ts.
 *
 * CLS: the largest session window of layout shifts, a window closing after a 1 s gap or at 5 s (web.dev,
 * "Evolving the CLS metric", 2021; Chromium's and Lighthouse's definition since Lighthouse 8).
 * TBT: each long task's time over 50 ms, counting only its part after first contentful paint (Lighthouse's
 * total-blocking-time, which clips tasks at FCP the same way; we end at the load window's end, not at TTI).
 */
import { LOAD_RESOURCE_TYPES, type LoadReadings, type LoadRequest, type LoadResourceType } from '../drivers/measure.js';
import { DETAIL_MAX_BYTES } from './devtools-insights.js';
import type { InsightDetail } from './insights.js';

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

/** perf_insight's id for the requests of the last load: each one's status, cache, initiator, priority and party. */
export const REQUESTS_DETAIL = 'requests';
// perf_insight's reply wraps a detail in its token, id and title (~200 bytes): the whole reply stays within 2 KB.
const REQUESTS_DETAIL_BYTES = DETAIL_MAX_BYTES - 256;
// A path and file name, or another site's host and path: what an agent needs to name the request.
const REQUEST_URL_CHARS = 100;

/** The request's URL as short as it is clear: its path on the page's own origin, else host and path; cut past 100. */
function requestName(url: string, pageUrl: string): string {
  let s = url;
  try {
    const u = new URL(url);
    if (u.protocol === 'http:' || u.protocol === 'https:')
      s = u.origin === new URL(pageUrl).origin ? u.pathname + u.search : u.host + u.pathname + u.search;
  } catch {
    // Not a URL the parser takes: named as it is.
  }
  return s.length > REQUEST_URL_CHARS ? `${s.slice(0, REQUEST_URL_CHARS - 1)}…` : s;
}

/** What a diagnosis reads first: failed responses, then what held the first paint, then the heaviest. */
function diagnosisOrder(a: LoadRequest, b: LoadRequest): number {
  const failed = (r: LoadRequest): number => ((r.status ?? 0) >= 400 ? 1 : 0);
  const blocking = (r: LoadRequest): number => (r.renderBlocking ? 1 : 0);
  return failed(b) - failed(a) || blocking(b) - blocking(a) || b.transferBytes - a.transferBytes;
}

/**
 * The load's requests for perf_insight {id: 'requests'}: failed ones first, then render-blocking, then by bytes, each
 * with every fact the driver gave, within perf_insight's 2 KB (about seven; the rest counted in the note, all in the run file).
 */
export function requestsDetail(load: LoadReadings): InsightDetail {
  const all = [...load.requests].sort(diagnosisOrder);
  const failed = all.filter((r) => (r.status ?? 0) >= 400).length;
  const third = all.filter((r) => r.entity !== undefined && r.entity !== 'first-party').length;
  const blocking = all.filter((r) => r.renderBlocking).length;
  const rows = all.map((r) => {
    const { url, startMs, responseStartMs, endMs, initiator, ...facts } = r;
    const from = initiator?.url ? ` ← ${requestName(initiator.url, load.url)}` : '';
    return {
      url: requestName(url, load.url),
      ...facts,
      ...(initiator ? { initiator: `${initiator.type}${from}` } : {}),
      ms: [startMs, responseStartMs, endMs],
    };
  });
  const detail: InsightDetail = {
    id: REQUESTS_DETAIL,
    title: `${all.length} requests: ${failed} failed (HTTP 4xx/5xx), ${blocking} render-blocking, ${third} third-party`,
    rows,
    note: 'ms: [start, first byte, end] since the navigation start; failed first, then render-blocking, then by bytes',
  };
  // Bounded by dropping the last rows (the lightest): the loop is the guarantee whatever a request carries.
  while (detail.rows.length && Buffer.byteLength(JSON.stringify(detail)) > REQUESTS_DETAIL_BYTES) detail.rows.pop();
  if (detail.rows.length < all.length) detail.note += `; ${detail.rows.length} of ${all.length} shown, the run file has every one`;
  return detail;
}
