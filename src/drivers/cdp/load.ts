/**
 * A measured page load over CDP: the load probe is added to the new document before its first script,
 * the network is watched for requests in flight, and Performance.getMetrics' task time is read at both
 * ends (the main thread's work during the load).
 */
import type { Page } from './browser.js';
import { settleLoad } from '../load.js';
import type { LoadOptions, LoadReadings, LoadRequest } from '../measure.js';
import { loadProbeSource } from '../runtime/load-probe.js';
import { networkActivity } from './network.js';

// Performance.getMetrics reports seconds; the readings are ms.
const S_TO_MS = 1000;

export async function measureLoad(page: Page, url: string, opts: LoadOptions): Promise<LoadReadings> {
  const network = await networkActivity(page);
  if (opts.clearCache) await page.send('Network.clearBrowserCache');
  // A reload restart bypasses the cache (session.ts restartReload); a load measures it as a user meets it.
  await page.send('Network.setCacheDisabled', { cacheDisabled: false });
  const { identifier } = await page.send('Page.addScriptToEvaluateOnNewDocument', { source: loadProbeSource() });
  const wire = wireBytes(page);
  try {
    const before = await taskSeconds(page);
    const startedAt = Date.now();
    await page.navigate(url, opts.timeoutMs);
    const watched = {
      evaluate: <T>(e: string, o?: { timeoutMs?: number }) => page.evaluate<T>(e, o ?? {}),
      inFlight: () => network.inFlight().length,
      gone: () => page.crashReason ?? (page.isClosed ? 'the page was closed' : undefined),
    };
    const readings = await settleLoad(watched, opts, startedAt);
    const after = await taskSeconds(page);
    // Per-document counters restart with the new document: a value that went down is the new one's own.
    const mainThread = before === undefined || after === undefined ? undefined : after >= before ? after - before : after;
    const requests = wire.apply(readings.requests);
    return { ...readings, requests, ...(mainThread === undefined ? {} : { mainThreadMs: mainThread * S_TO_MS }) };
  } finally {
    wire.stop();
    await page.send('Page.removeScriptToEvaluateOnNewDocument', { identifier }).catch(() => undefined);
  }
}

/** The page's main-thread task time so far, s; undefined when the Performance domain is off (no measured window). */
async function taskSeconds(page: Page): Promise<number | undefined> {
  try {
    const { metrics } = await page.send('Performance.getMetrics');
    return metrics.find((m) => m.name === 'TaskDuration')?.value;
  } catch {
    return undefined;
  }
}

/**
 * Bytes on the wire per request, as the network stack counted them (Network.loadingFinished
 * encodedDataLength: headers and body as received). Resource Timing's transferSize is the body plus a
 * fixed 300 bytes for the headers (the spec hides their real size from the page); Lighthouse's byte weight
 * counts these, and so do we where the protocol sees the request. A cache hit keeps its 0.
 */
function wireBytes(page: Page): { apply(requests: LoadRequest[]): LoadRequest[]; stop(): void } {
  const urls = new Map<string, string>();
  const finished = new Map<string, number[]>();
  const offs = [
    page.on('Network.requestWillBeSent', (p) => urls.set(p.requestId, p.request.url)),
    page.on('Network.loadingFinished', (p) => {
      const url = urls.get(p.requestId);
      if (url === undefined) return;
      const list = finished.get(url) ?? [];
      list.push(p.encodedDataLength);
      finished.set(url, list);
    }),
  ];
  return {
    // The same URL fetched twice is matched in order: the first entry by start with the first to finish.
    apply: (requests) =>
      requests.map((r) => {
        const bytes = r.transferBytes > 0 ? finished.get(r.url)?.shift() : undefined;
        return bytes === undefined ? r : { ...r, transferBytes: bytes };
      }),
    stop: () => offs.forEach((off) => off()),
  };
}
