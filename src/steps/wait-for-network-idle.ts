/**
 * wait_for_network_idle: wait until no request has been in flight for idleMs. Two views are merged:
 * the browser's view of the network (every request type: over CDP from the first wait on, over BiDi from
 * this wait's start, its subscription released when the wait ends) and the page's own fetch/XHR counter
 * (page-capture, from document start), which covers requests that began before the harness was listening. A CDP
 * host that stays connected (a run, an MCP server) listens from before each document, and the counter stands down.
 */
import type { NetworkActivity } from '../page/index.js';
import { defineStep, type StepContext, type StepOutput } from './define.js';

// 500 ms of quiet, Playwright's "networkidle" window: long enough that a request chain (fetch → then
// fetch) is not mistaken for idle, short enough not to dominate a step.
const DEFAULT_IDLE_MS = 500;
// 50 ms between checks: a tenth of the idle window, so idleness is detected within ~10% of idleMs.
const POLL_MS = 50;
// 15 s default: idle needs the slowest request plus idleMs; shorter would fail on a cold dev server.
const DEFAULT_TIMEOUT_MS = 15_000;
// 20 URLs in the answer: enough to see what is hanging, bounded when a page polls hundreds.
const MAX_LISTED = 20;

export const waitForNetworkIdle = defineStep({
  name: 'wait_for_network_idle',
  description:
    'Wait until no network request has been in flight for idleMs (default 500). ' +
    'A timeout is an answer {idle: false, inFlight: [urls]}, not a failure.',
  details:
    'inFlight lists what is still loading; a response with nothing arriving for 2 s (an unread fetch body, an idle event ' +
    'stream) is not. Default timeout 15000 ms.',
  args: {
    type: 'object',
    properties: {
      idleMs: { type: 'integer', minimum: 0, description: `How long the network must stay quiet, in ms. Default ${DEFAULT_IDLE_MS}.` },
      ignore: {
        type: 'array',
        items: { type: 'string', minLength: 1, description: 'A substring of the URL.' },
        description: 'Ignore requests whose URL contains one of these (polling, beacons, streams).',
      },
    },
  } as const,
  needs: ['network'],
  readOnly: true,
  defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
  async run(ctx, args) {
    const ignore = args.ignore ?? [];
    const counts = (url: string): boolean => !url.startsWith('data:') && !url.startsWith('blob:') && !ignore.some((s) => url.includes(s));
    const started = Date.now();
    const network = await ctx.page.capture.network();
    try {
      return await untilIdle(ctx, network, { idleMs: args.idleMs ?? DEFAULT_IDLE_MS, counts, started });
    } finally {
      await network.release();
    }
  },
});

/** Poll both views until idleMs of quiet (idle) or the deadline (what is still in flight). */
async function untilIdle(
  ctx: StepContext,
  network: NetworkActivity,
  o: { idleMs: number; counts: (url: string) => boolean; started: number },
): Promise<StepOutput> {
  const { counts, started } = o;
  let lastBusy = started;
  for (;;) {
    // A navigation in progress destroys the page's context: count it as busy, not as an error.
    const fromPage = await ctx.page.capture.pendingRequests().catch(() => undefined);
    const pageUrls = fromPage?.map((r) => r.url).filter(counts);
    const netUrls = network.inFlight().filter(counts);
    const now = Date.now();
    if (netUrls.length > 0 || pageUrls === undefined || pageUrls.length > 0) lastBusy = now;
    for (const c of network.changes()) if (c.at > lastBusy && counts(c.url)) lastBusy = c.at;
    if (now - lastBusy >= o.idleMs) return { data: { idle: true, waitedMs: now - started } };
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
}
