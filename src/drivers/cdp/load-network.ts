/**
 * What the network stack saw of each request of a measured load (CDP Network events), laid over the page's
 * Resource Timing entries: the bytes on the wire, the status, protocol, cache, initiator, priority and
 * render-blocking behaviour the page cannot read, and times that add up.
 *
 * Times: the first byte of a font answered 404 came after its end, in every load: Chromium's Resource Timing entry
 * for a response the font loader refuses ends ~1 ms after its start (start 65.8, first byte 88.6, end 66.3 ms on the
 * load fixture with its font missing), though its headers came 23 ms later and its body after them. The trace is no
 * better clock: it stamps ResourceReceiveResponse when the renderer's main thread handles it (63.2 ms for a stylesheet
 * whose headers the network had at 62.2 and whose last byte at 63.4 ms), and has no response event for that font.
 * The network stack stamps the request sent, its first header byte (response.timing) and its end (loadingFinished or
 * loadingFailed) on one monotonic clock, in that order: a bar keeps its start on the page's clock (Resource Timing's
 * startTime, where the milestones are) and takes its lengths from the network.
 */
import type { Page } from './browser.js';
import type { EventParams } from './connection.js';
import type { LoadRequest, LoadServedFrom } from '../measure.js';

// CDP's Network timestamps are seconds; a waterfall is ms.
const S_TO_MS = 1000;
// 0.1 ms: the probe's own rounding of Resource Timing.
const round1 = (ms: number): number => Math.round(ms * 10) / 10;

/** One request as the network stack reported it, ms on its monotonic clock. */
interface Seen {
  url: string;
  sentMs: number;
  headersMs?: number;
  endMs?: number;
  bytes?: number;
  status?: number;
  protocol?: string;
  servedFrom: LoadServedFrom;
  cacheControl?: string;
  initiator: { type: string; url?: string };
  priority: string;
  renderBlockingStatus?: string;
}

/** CDP's `InBodyParserBlocking` as the trace writes it, `in_body_parser_blocking` (what DevTools shows). */
const snake = (s: string): string => s.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toLowerCase();

function header(headers: Record<string, string>, name: string): string {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return '';
}

function initiatorOf(i: EventParams<'Network.requestWillBeSent'>['initiator']): Seen['initiator'] {
  const url = i.url || i.stack?.callFrames[0]?.url || '';
  return { type: i.type, ...(url ? { url } : {}) };
}

function servedFrom(r: EventParams<'Network.responseReceived'>['response'], memory: boolean): LoadServedFrom {
  if (memory) return 'memory-cache';
  if (r.fromServiceWorker) return 'service-worker';
  if (r.fromPrefetchCache) return 'prefetch-cache';
  if (r.fromDiskCache) return 'disk-cache';
  return 'network';
}

/** The network's facts for one Resource Timing request: lengths from the network on the entry's start. */
function merge(r: LoadRequest, s: Seen): LoadRequest {
  const out: LoadRequest = { ...r, servedFrom: s.servedFrom, initiator: s.initiator, priority: s.priority };
  if (s.status !== undefined) out.status = s.status;
  if (s.protocol !== undefined) out.protocol = s.protocol;
  if (s.cacheControl !== undefined) out.cacheControl = s.cacheControl;
  if (s.renderBlockingStatus !== undefined) out.renderBlockingStatus = s.renderBlockingStatus;
  // encodedDataLength: headers and body as received (Resource Timing's transferSize is the body plus a fixed 300 bytes
  // for headers it hides; Lighthouse's byte weight counts these). A cache hit keeps its 0: no byte crossed the wire.
  if (s.bytes !== undefined && s.servedFrom === 'network') out.transferBytes = s.bytes;
  if (s.endMs !== undefined) {
    // Clamped by the events' own order (sent, headers, end): what is left is the stamps' sub-ms rounding.
    const end = Math.max(s.endMs, s.sentMs);
    out.endMs = round1(r.startMs + end - s.sentMs);
    // No response at all (refused, failed): no first byte, rather than one made up.
    out.responseStartMs = s.headersMs === undefined ? null : round1(r.startMs + Math.min(Math.max(s.headersMs, s.sentMs), end) - s.sentMs);
  }
  return out;
}

export function loadNetwork(page: Page): { apply(requests: LoadRequest[]): LoadRequest[]; stop(): void } {
  const byId = new Map<string, Seen>();
  const memory = new Set<string>();
  const order: Seen[] = [];
  const offs = [
    page.on('Network.requestWillBeSent', (p) => {
      const seen: Seen = {
        url: p.request.url,
        sentMs: p.timestamp * S_TO_MS,
        servedFrom: 'network',
        initiator: initiatorOf(p.initiator),
        priority: p.request.initialPriority,
        ...(p.renderBlockingBehavior ? { renderBlockingStatus: snake(p.renderBlockingBehavior) } : {}),
      };
      // A redirect reuses its request id: the hop that answered is the one Resource Timing names by the first URL.
      const before = byId.get(p.requestId);
      if (before) seen.url = before.url;
      else order.push(seen);
      byId.set(p.requestId, before ? Object.assign(before, { ...seen, sentMs: before.sentMs }) : seen);
    }),
    page.on('Network.resourceChangedPriority', (p) => {
      const seen = byId.get(p.requestId);
      if (seen) seen.priority = p.newPriority;
    }),
    page.on('Network.requestServedFromCache', (p) => memory.add(p.requestId)),
    page.on('Network.responseReceived', (p) => {
      const seen = byId.get(p.requestId);
      if (!seen) return;
      const r = p.response;
      const t = r.timing;
      // The first header byte on the network's clock; a response with no timing (a cache hit) at its event.
      seen.headersMs = t ? t.requestTime * S_TO_MS + (t.receiveHeadersStart ?? t.receiveHeadersEnd) : p.timestamp * S_TO_MS;
      seen.status = r.status;
      if (r.protocol) seen.protocol = r.protocol;
      seen.servedFrom = servedFrom(r, memory.has(p.requestId));
      seen.cacheControl = header(r.headers, 'cache-control');
    }),
    // The network's own headers: sent even when the renderer drops the response (a font the loader refuses).
    page.on('Network.responseReceivedExtraInfo', (p) => {
      const seen = byId.get(p.requestId);
      if (!seen) return;
      seen.status ??= p.statusCode;
      seen.cacheControl ??= header(p.headers, 'cache-control');
    }),
    page.on('Network.loadingFinished', (p) => {
      const seen = byId.get(p.requestId);
      if (!seen) return;
      seen.endMs = p.timestamp * S_TO_MS;
      seen.bytes = p.encodedDataLength;
    }),
    page.on('Network.loadingFailed', (p) => {
      const seen = byId.get(p.requestId);
      if (seen) seen.endMs = p.timestamp * S_TO_MS;
    }),
  ];
  return {
    // The same URL fetched twice is matched in order: the first entry by start with the first request sent.
    apply: (requests) => {
      const left = new Map<string, Seen[]>();
      for (const s of order) left.set(s.url, [...(left.get(s.url) ?? []), s]);
      const matched = new Map<LoadRequest, Seen>();
      for (const r of [...requests].sort((a, b) => a.startMs - b.startMs)) {
        const s = left.get(r.url)?.shift();
        if (s) matched.set(r, s);
      }
      return requests.map((r) => {
        const s = matched.get(r);
        return s ? merge(r, s) : r;
      });
    },
    stop: () => offs.forEach((off) => off()),
  };
}
