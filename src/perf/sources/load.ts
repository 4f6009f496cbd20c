/**
 * A measured page load (`measure: load`, perf_load): Navigation, Paint and Resource Timing, the largest
 * contentful paint, layout shifts and long tasks the load probe saw, and the main thread's task time.
 */
import type { LoadReadings, LoadRequest } from '../../drivers/measure.js';
import { bytesByType, clsOf, loadWindowMs, tbtOf } from '../load.js';
import * as M from '../metrics.js';
import { round } from '../profile.js';
import { defineSource, type Emit } from './source.js';

// Five: the requests a reader acts on first (Lighthouse's opportunities list the top few the same way).
export const LOAD_TOP_REQUESTS = 5;
// A score is a fraction of the viewport: four digits keep a single small shift visible.
const SCORE_DIGITS = 4;

/** What a report says of the load beyond its metrics: the milestones, the LCP element, the largest requests. */
export interface LoadSummary {
  url: string;
  ended: LoadReadings['ended'];
  ttfbMs: number | null;
  fcpMs: number | null;
  lcpMs: number | null;
  domContentLoadedMs: number | null;
  loadEventMs: number | null;
  /** The LCP element as tag#id.class "text"; null where the browser has no LCP. */
  lcpElement: string | null;
  lcpUrl: string | null;
  requestsTotal: number;
  /** The largest requests by transfer size. */
  top: LoadRequest[];
}

const r1 = (v: number | null): number | null => (v === null ? null : round(v, 1));

export const loadSource = defineSource<LoadSummary | null>({
  name: 'load',
  emits: M.LOAD_METRICS,
  cover: ({ raw }) => (raw.load ? { load: null } : {}),
  measure({ raw: { load } }) {
    if (!load) return { emits: [], findings: null };
    const { emits, warnings } = loadEmits(load);
    const top = [...load.requests]
      .sort((a, b) => b.transferBytes - a.transferBytes)
      .slice(0, LOAD_TOP_REQUESTS)
      .map(summaryRequest);
    const findings: LoadSummary = {
      url: load.url,
      ended: load.ended,
      ttfbMs: r1(load.ttfbMs),
      fcpMs: r1(load.fcpMs),
      lcpMs: r1(load.lcp?.ms ?? null),
      domContentLoadedMs: r1(load.domContentLoadedMs),
      loadEventMs: r1(load.loadEventMs),
      lcpElement: load.lcp?.element ?? null,
      lcpUrl: load.lcp?.url || null,
      requestsTotal: load.requests.length,
      top,
    };
    return { emits, findings, ...(warnings.length ? { warnings } : {}) };
  },
});

/**
 * A request as the report's top list shows it: what it is, its bar and its bytes. Its status, cache, initiator and
 * party are the run file's waterfall's (perf_end's and perf_load's replies stay within their bytes).
 */
function summaryRequest(r: LoadRequest): LoadRequest {
  const { url, type, startMs, responseStartMs, endMs, transferBytes, renderBlocking } = r;
  return { url, type, startMs, responseStartMs, endMs, transferBytes, renderBlocking };
}

function loadEmits(load: LoadReadings): { emits: Emit[]; warnings: string[] } {
  const emits: Emit[] = [];
  const warnings: string[] = [];
  const put = (def: M.MetricDefinition, value: number | null | undefined, digits?: number): void => {
    if (value !== null && value !== undefined && Number.isFinite(value)) emits.push({ def, value, ...(digits ? { digits } : {}) });
  };
  put(M.loadTtfbMs, load.ttfbMs);
  put(M.loadFcpMs, load.fcpMs);
  if (load.support.lcp) put(M.loadLcpMs, load.lcp?.ms);
  if (load.support.shift) put(M.loadClsScore, clsOf(load.shifts), SCORE_DIGITS);
  if (load.support.longTask && load.fcpMs !== null) put(M.loadTbtMs, tbtOf(load.longTasks, load.fcpMs, loadWindowMs(load)));
  put(M.loadDomContentLoadedMs, load.domContentLoadedMs);
  put(M.loadEventMs, load.loadEventMs);
  put(M.loadRequests, load.requests.length);
  put(
    M.loadTransferBytes,
    load.requests.reduce((s, r) => s + r.transferBytes, 0),
  );
  const byType = bytesByType(load.requests);
  for (const [type, def] of Object.entries(M.loadTransferBytesByType)) put(def, byType[type as keyof typeof byType]);
  put(M.loadMainThreadMs, load.mainThreadMs);
  if (load.ended === 'deadline') warnings.push('the page never went quiet: the load window ended at its deadline');
  if (load.support.paint && load.fcpMs === null)
    warnings.push('the page painted no content during the load (no first-contentful-paint entry)');
  if (load.support.lcp && !load.lcp) warnings.push('no largest-contentful-paint entry: the page painted no text or image');
  // What the browser has no entries for is said, not written as zeros.
  if (!load.support.paint) warnings.push('load.fcpMs not measured: this browser has no Paint Timing');
  if (!load.support.lcp) warnings.push('load.lcpMs not measured: this browser reports no largest-contentful-paint entries');
  if (!load.support.shift) warnings.push('load.clsScore not measured: this browser reports no layout shifts (Layout Instability API)');
  if (!load.support.longTask) warnings.push('load.tbtMs not measured: this browser reports no long tasks (Long Tasks API)');
  if (!load.support.renderBlocking)
    warnings.push(
      'render-blocking requests unknown: this browser has no Resource Timing renderBlockingStatus (only the document is marked)',
    );
  const unordered = unorderedNote(load);
  if (unordered) warnings.push(unordered);
  warnings.push(...(load.notes ?? []));
  return { emits, warnings };
}

/** The Resource Timing entries that had a first byte outside their bar, where no driver gave the request better times. */
export function unorderedNote(load: LoadReadings): string | undefined {
  const left = (load.unorderedFirstBytes ?? []).filter((u) => load.requests.some((r) => r.url === u.url && r.responseStartMs === null));
  if (!left.length) return undefined;
  const named = left.slice(0, 3).map((u) => `${u.url} (start ${u.startMs} ms, first byte ${u.firstByteMs} ms, end ${u.endMs} ms)`);
  return (
    `${left.length} request(s) had a first byte outside their start..end in the browser's Resource Timing, ` +
    `so their waterfall bars show no first byte: ${named.join('; ')}`
  );
}
