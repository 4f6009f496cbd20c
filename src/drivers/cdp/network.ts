/**
 * Requests in flight on one page, as the Network domain reports them (every request type, from the
 * moment it is enabled). Kept for the page's lifetime once started: a request sent between two
 * steps must still be known to the next one. The domain stays enabled (other probes on the page
 * may rely on it too).
 */
import type { Page } from './browser.js';
import type { NetworkActivity } from '../page-driver.js';

// 100 recent changes: far more than can happen between two polls 50 ms apart on a real page.
const CHANGE_LOG = 100;

interface NetworkTracker extends NetworkActivity {
  stop: () => void;
}
const trackers = new Map<Page, NetworkTracker>();

export async function networkActivity(page: Page): Promise<NetworkActivity> {
  // Pages replaced by a restart never report closing: drop their listeners here.
  for (const [p, t] of trackers) {
    if (p.isClosed || p.crashReason) {
      t.stop();
      trackers.delete(p);
    }
  }
  const existing = trackers.get(page);
  if (existing) return existing;
  const inFlight = new Map<string, string>();
  const changes: { url: string; at: number }[] = [];
  const changed = (url: string): void => {
    changes.push({ url, at: Date.now() });
    if (changes.length > CHANGE_LOG) changes.shift();
  };
  const ended = (requestId: string): void => {
    const url = inFlight.get(requestId);
    if (url === undefined) return;
    inFlight.delete(requestId);
    changed(url);
  };
  const offs = [
    page.on('Network.requestWillBeSent', (p) => {
      inFlight.set(p.requestId, p.request.url);
      changed(p.request.url);
    }),
    page.on('Network.loadingFinished', (p) => ended(p.requestId)),
    page.on('Network.loadingFailed', (p) => ended(p.requestId)),
  ];
  const t: NetworkTracker = { inFlight: () => [...inFlight.values()], changes: () => changes, stop: () => offs.forEach((off) => off()) };
  trackers.set(page, t);
  try {
    await page.send('Network.enable', {});
  } catch (e) {
    t.stop();
    trackers.delete(page);
    throw e;
  }
  return t;
}

/** Bypass the HTTP cache for this page's requests from now on (a `reload` restart's fresh navigation). */
export async function disableCache(page: Page): Promise<void> {
  await page.send('Network.enable', {});
  await page.send('Network.setCacheDisabled', { cacheDisabled: true });
}
