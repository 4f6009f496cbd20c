/**
 * wait_for_network_idle: wait until no request has been in flight for idleMs. Two views are merged:
 * the Network domain (every request type, from the moment it is enabled here) and the page's own
 * fetch/XHR counter (page-capture, from document start), which covers requests that began before
 * the harness was listening.
 */
import type { Page } from '../drivers/cdp/browser.js';
import { pendingPageRequests } from '../drivers/cdp/page-capture.js';
import { defineStep } from './define.js';

// 500 ms of quiet, Playwright's "networkidle" window: long enough that a request chain (fetch → then
// fetch) is not mistaken for idle, short enough not to dominate a step.
const DEFAULT_IDLE_MS = 500;
// 50 ms between checks: a tenth of the idle window, so idleness is detected within ~10% of idleMs.
const POLL_MS = 50;
// 15 s default: idle needs the slowest request plus idleMs; shorter would fail on a cold dev server.
const DEFAULT_TIMEOUT_MS = 15_000;
// 100 recent changes: far more than can happen between two polls 50 ms apart on a real page.
const CHANGE_LOG = 100;
// 20 URLs in the answer: enough to see what is hanging, bounded when a page polls hundreds.
const MAX_LISTED = 20;

/**
 * Requests in flight on one page, as the Network domain reports them. Kept for the page's lifetime
 * once started: a request sent between two steps must still be known to the next one. The domain
 * stays enabled (other probes on the page may rely on it too).
 */
interface NetworkTracker {
  page: Page;
  inFlight: Map<string, string>;
  /** Recent request starts and ends (url, ms since the epoch): a request that came and went between two polls is still activity. */
  changes: { url: string; at: number }[];
  stop: () => void;
}
const trackers = new Map<Page, NetworkTracker>();

async function networkTracker(page: Page): Promise<NetworkTracker> {
  // Pages replaced by a restart never report closing: drop their listeners here.
  for (const [p, t] of trackers) {
    if (p.isClosed || p.crashReason) {
      t.stop();
      trackers.delete(p);
    }
  }
  const existing = trackers.get(page);
  if (existing) return existing;
  const t: NetworkTracker = { page, inFlight: new Map(), changes: [], stop: () => undefined };
  const changed = (url: string): void => {
    t.changes.push({ url, at: Date.now() });
    if (t.changes.length > CHANGE_LOG) t.changes.shift();
  };
  const ended = (requestId: string): void => {
    const url = t.inFlight.get(requestId);
    if (url === undefined) return;
    t.inFlight.delete(requestId);
    changed(url);
  };
  const offs = [
    page.on('Network.requestWillBeSent', (p) => {
      t.inFlight.set(p.requestId, p.request.url);
      changed(p.request.url);
    }),
    page.on('Network.loadingFinished', (p) => ended(p.requestId)),
    page.on('Network.loadingFailed', (p) => ended(p.requestId)),
  ];
  t.stop = () => offs.forEach((off) => off());
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

export const waitForNetworkIdle = defineStep({
  name: 'wait_for_network_idle',
  description:
    'Wait until the page has had no network request in flight for idleMs (default 500). A timeout is a normal answer {idle: false, inFlight: [urls]} listing what is still loading.',
  args: {
    type: 'object',
    properties: {
      idleMs: { type: 'integer', minimum: 0, description: `How long the network must stay quiet, in ms. Default ${DEFAULT_IDLE_MS}.` },
      ignore: {
        type: 'array',
        items: { type: 'string', minLength: 1, description: 'A substring of the URL.' },
        description: 'Requests whose URL contains one of these substrings do not count (long polling, analytics beacons, event streams).',
      },
    },
  } as const,
  readOnly: true,
  defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
  async run(ctx, args) {
    const { page } = ctx;
    const idleMs = args.idleMs ?? DEFAULT_IDLE_MS;
    const ignore = args.ignore ?? [];
    const counts = (url: string): boolean => !url.startsWith('data:') && !url.startsWith('blob:') && !ignore.some((s) => url.includes(s));
    const started = Date.now();
    const tracker = await networkTracker(page);
    let lastBusy = started;
    for (;;) {
      // A navigation in progress destroys the page's context: count it as busy, not as an error.
      const fromPage = await pendingPageRequests(page).catch(() => undefined);
      const pageUrls = fromPage?.map((r) => r.url).filter(counts);
      const netUrls = [...tracker.inFlight.values()].filter(counts);
      const now = Date.now();
      if (netUrls.length > 0 || pageUrls === undefined || pageUrls.length > 0) lastBusy = now;
      for (const c of tracker.changes) if (c.at > lastBusy && counts(c.url)) lastBusy = c.at;
      if (now - lastBusy >= idleMs) return { data: { idle: true, waitedMs: now - started } };
      if (now + POLL_MS > ctx.deadline || ctx.signal.aborted) {
        const urls = [...new Set([...netUrls, ...(pageUrls ?? [])])];
        return {
          data: {
            idle: false,
            waitedMs: now - started,
            inFlight: urls.slice(0, MAX_LISTED),
            ...(urls.length > MAX_LISTED ? { inFlightTotal: urls.length } : {}),
          },
        };
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  },
});
