/**
 * A measured page load over CDP: the load probe is added to the new document before its first script,
 * the network is watched for requests in flight, and Performance.getMetrics' task time is read at both
 * ends (the main thread's work during the load).
 */
import type { Page } from './browser.js';
import { settleLoad } from '../load.js';
import type { LoadOptions, LoadReadings } from '../measure.js';
import { loadNetwork } from './load-network.js';
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
  const wire = loadNetwork(page);
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
