/**
 * Requests in flight on one page, as the Network domain reports them (every request type, from the
 * moment it is enabled), less responses stalled with nothing arriving (STALLED_BODY_MS). Kept for the
 * page's lifetime once started: a request sent between two steps must still be known to the next one.
 * The domain stays enabled (other probes on the page may rely on it too).
 */
import type { Page } from './browser.js';
import type { NetworkActivity } from '../page-driver.js';
import { NETWORK_WATCHED_SOURCE } from '../runtime/page-capture.js';

// 100 recent changes: far more than can happen between two polls 50 ms apart on a real page.
const CHANGE_LOG = 100;
// A response whose body has had no byte for 2 s is waiting on the page, not on the network: Chromium reports a fetch
// whose body the page never reads as loading until the page reads it (seen with a body sent after its headers), and an
// event stream idles between events. 2 s: forty times the longest gap between a body's chunks measured under the slow-3g
// profile (49 ms, 400 KB at 400 kbps).
const STALLED_BODY_MS = 2000;

/** A request not yet finished: its URL, and when its response last delivered anything (headers or bytes). */
interface Flight {
  url: string;
  lastByteAt?: number;
}

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
  const inFlight = new Map<string, Flight>();
  const changes: { url: string; at: number }[] = [];
  const changed = (url: string): void => {
    changes.push({ url, at: Date.now() });
    if (changes.length > CHANGE_LOG) changes.shift();
  };
  const ended = (requestId: string): void => {
    const flight = inFlight.get(requestId);
    if (flight === undefined) return;
    inFlight.delete(requestId);
    changed(flight.url);
  };
  const delivered = (requestId: string): void => {
    const flight = inFlight.get(requestId);
    if (flight) flight.lastByteAt = Date.now();
  };
  const offs = [
    page.on('Network.requestWillBeSent', (p) => {
      inFlight.set(p.requestId, { url: p.request.url });
      changed(p.request.url);
    }),
    page.on('Network.responseReceived', (p) => delivered(p.requestId)),
    page.on('Network.dataReceived', (p) => delivered(p.requestId)),
    page.on('Network.loadingFinished', (p) => ended(p.requestId)),
    page.on('Network.loadingFailed', (p) => ended(p.requestId)),
  ];
  // Still waiting for its response, or its body still arriving; a response stalled past STALLED_BODY_MS is not.
  const active = (f: Flight, now: number): boolean => f.lastByteAt === undefined || now - f.lastByteAt < STALLED_BODY_MS;
  const t: NetworkTracker = {
    inFlight: () => {
      const now = Date.now();
      return [...inFlight.values()].filter((f) => active(f, now)).map((f) => f.url);
    },
    changes: () => changes,
    // Kept for the page's lifetime (a request sent between two steps is known to the next wait); stop() ends it.
    release: () => Promise.resolve(),
    stop: () => offs.forEach((off) => off()),
  };
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

const watched = new WeakSet<Page>();

/**
 * Watch this page's requests from the browser from now on, for the page's life, and tell every document so
 * (NETWORK_WATCHED_SOURCE): the in-page fetch/XHR counter then stands down, and the page's own code stays the
 * initiator of its requests (the counter's wrapper was the top frame of every fetch's initiator stack, all a
 * trace keeps). For a connection that stays (a run, an MCP server): one that leaves would leave documents no
 * one counts. `future` only: for a page paused before its first document.
 */
export async function watchNetwork(page: Page, opts: { future?: boolean } = {}): Promise<void> {
  if (watched.has(page)) return;
  watched.add(page);
  // The domain first: a document that skips the counter must already be seen from the browser.
  await networkActivity(page);
  await Promise.all([
    page.send('Page.addScriptToEvaluateOnNewDocument', { source: NETWORK_WATCHED_SOURCE }),
    ...(opts.future ? [] : [page.send('Runtime.evaluate', { expression: NETWORK_WATCHED_SOURCE, returnByValue: true })]),
  ]);
}

/** Bypass the HTTP cache for this page's requests from now on (a `reload` restart's fresh navigation). */
export async function disableCache(page: Page): Promise<void> {
  await page.send('Network.enable', {});
  await page.send('Network.setCacheDisabled', { cacheDisabled: true });
}
