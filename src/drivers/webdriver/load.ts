/**
 * A measured page load over WebDriver. With BiDi (chromedriver, Firefox) the load probe, and the open perf
 * session's frame probe, go into the new document before its first script as preload scripts, removed
 * once the document has started, and BiDi's network events tell the requests in flight (and, where the
 * channel says they count them, each response's bytes on the wire: bidi-network.ts). Without BiDi
 * (Debian's WebKitWebDriver 2.50) nothing can run before the page's own scripts: classic navigation
 * returns after the load event, and the probes go in then. The
 * browser's buffered entries (navigation, paint, resources) still give every milestone and request; what
 * needs an observer from the start (LCP candidates, shifts, long tasks) is missing on WebKit anyway
 * (measured: its PerformanceObserver offers mark, measure, navigation, paint and resource only).
 *
 * The HTTP cache: WebDriver cannot clear it (no such command, classic or BiDi). A repeat does not need
 * to: every repeat is a new session, and both servers give a new session a fresh profile (measured: a
 * cacheable script loaded in one session is fetched again, in full, by the next on the same server). So
 * over WebDriver `cache: cold` is the new session's empty cache, and `cache: warm` is the cache the
 * app's first opening in that session filled; a cold load asked for on a session that has already opened
 * pages (perf_load on a long-lived session) is measured on the cache it has, and says so.
 */
import { settleLoad } from '../load.js';
import type { LoadOptions, LoadReadings } from '../measure.js';
import { loadProbeSource } from '../runtime/load-probe.js';
import type { BidiChannel } from '../bidi-socket.js';
import { applyWireBytes, watchNetwork } from './bidi-network.js';

/** What a load needs of the page driver. */
export interface LoadDriverPage {
  evaluate<T>(expression: string, opts?: { timeoutMs?: number }): Promise<T>;
  /** Classic navigation: returns once the new document's load event has fired (page load strategy normal). */
  navigate(url: string, timeoutMs: number): Promise<unknown>;
  /** The session's BiDi connection, where the server offered one. */
  readonly bidi: BidiChannel | undefined;
  /** The open perf session's in-page probe, for the new document (the window spans the load); undefined with none open. */
  perfProbeSource(): string | undefined;
  /** Whether this session has opened anything but about:blank (its cache then holds the app's files). */
  readonly openedPages: boolean;
}

// Resource Timing's default buffer (250 entries) is full: a probe installed after the load cannot enlarge
// it in time, and the requests past it are lost.
const RESOURCE_BUFFER_DEFAULT = 250;

const MAIN_THREAD_NOTE =
  'load.mainThreadMs not measured: main-thread task time is read from the DevTools protocol (Performance.getMetrics), not over WebDriver';

export async function measureWebDriverLoad(page: LoadDriverPage, url: string, opts: LoadOptions): Promise<LoadReadings> {
  const notes = [MAIN_THREAD_NOTE];
  if (opts.clearCache && page.openedPages)
    notes.push('the HTTP cache was not cleared (WebDriver has no command for it): this session had opened pages before the load');
  const probes = [loadProbeSource(), page.perfProbeSource()].filter((s): s is string => s !== undefined);
  const network = page.bidi ? await watchNetwork(page.bidi) : undefined;
  let readings: LoadReadings;
  try {
    const startedAt = Date.now();
    if (page.bidi) {
      await loadWithPreload(page, page.bidi, probes, url, opts.timeoutMs);
    } else {
      await page.navigate(url, opts.timeoutMs);
      for (const source of probes) await page.evaluate(source);
      notes.push(
        'the load probe went in after the load event (this WebDriver server offers no BiDi preload scripts): ' +
          'milestones and requests come from the browser’s buffers, and requests in flight are not seen',
      );
    }
    readings = await settleLoad(
      { evaluate: (e, o) => page.evaluate(e, o), ...(network ? { inFlight: network.inFlight } : {}) },
      opts,
      startedAt,
    );
  } finally {
    await network?.stop();
  }
  if (network && page.bidi?.wireBytes) {
    const wire = applyWireBytes(readings.requests, network.requests());
    readings = { ...readings, requests: wire.requests };
    notes.push(...wire.notes);
  }
  // The document is the first request; the rest are Resource Timing's entries.
  const resources = readings.requests.length - 1;
  if (!page.bidi && resources >= RESOURCE_BUFFER_DEFAULT)
    notes.push(`${resources} resource entries: the browser's Resource Timing buffer filled before the probe could enlarge it`);
  return { ...readings, notes: [...notes, ...(readings.notes ?? [])] };
}

/** Navigate with `sources` run at the new document's start; the preload scripts are removed after. */
async function loadWithPreload(page: LoadDriverPage, bidi: BidiChannel, sources: string[], url: string, timeoutMs: number): Promise<void> {
  const ids: string[] = [];
  try {
    for (const s of sources) ids.push(await bidi.addPreloadScript(s));
    await page.navigate(url, timeoutMs);
  } finally {
    // The document has started: it keeps what they did; later documents are not the load's.
    await Promise.all(ids.map((id) => bidi.removePreloadScript(id).catch(() => undefined)));
  }
}
