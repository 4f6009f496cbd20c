/**
 * A measured load's requests as BiDi's network events tell them (network.beforeRequestSent,
 * responseCompleted, fetchError): the requests in flight, for the quiet rule, and the bytes each response
 * took on the wire, for the load's byte figures. Resource Timing's transferSize is the encoded body plus a
 * fixed 300 bytes for the headers (the spec hides their real size from the page); BiDi's bytesReceived is
 * what the network stack received, headers and encoded body (measured on Firefox 153: 586 B for a 412 B page
 * with 174 B of headers, where Resource Timing said 712), as CDP's encodedDataLength is on the cdp driver.
 */
import type { LoadRequest } from '../measure.js';
import type { NetworkActivity } from '../page-driver.js';
import type { BidiChannel } from '../bidi-socket.js';

const EVENTS = ['network.beforeRequestSent', 'network.responseCompleted', 'network.fetchError'];

/** One request as its events told it; a redirect's hops are one request (one id), their bytes summed. */
export interface WireRequest {
  /** The first URL (Resource Timing names a redirected request by it) and the last. */
  url: string;
  finalUrl: string;
  done: boolean;
  fromCache: boolean;
  /** Headers and encoded body received, all hops; undefined when a completed hop gave no size. */
  bytes: number | undefined;
}

interface BidiRequestEvent {
  navigation?: string | null;
  request?: { request?: string; url?: string };
  response?: { fromCache?: boolean; bytesReceived?: number };
}

export interface NetworkWatch {
  inFlight(): number;
  /** The load's requests in the order they started, from the first navigation request on. */
  requests(): WireRequest[];
  stop(): Promise<void>;
}

/**
 * Watch `bidi`'s network events (the channel's subscription: Firefox's is this tab's context alone, made
 * anew for every repeat's tab). Requests are recorded from the first one that starts a navigation: a request
 * of the page before it is not the load's. A request seen ending but never starting is not counted.
 */
export async function watchNetwork(bidi: BidiChannel): Promise<NetworkWatch> {
  const byId = new Map<string, WireRequest>();
  let recording = false;
  const idOf = (p: BidiRequestEvent): string => String(p.request?.request ?? '');
  const started = (p: BidiRequestEvent): void => {
    recording ||= typeof p.navigation === 'string';
    const url = p.request?.url ?? '';
    const known = byId.get(idOf(p));
    if (known) Object.assign(known, { finalUrl: url, done: false });
    else if (recording) byId.set(idOf(p), { url, finalUrl: url, done: false, fromCache: false, bytes: 0 });
  };
  const completed = (p: BidiRequestEvent): void => {
    const r = byId.get(idOf(p));
    if (!r) return;
    const got = p.response?.bytesReceived;
    r.done = true;
    r.fromCache = p.response?.fromCache === true;
    r.bytes = r.bytes === undefined || typeof got !== 'number' ? undefined : r.bytes + got;
  };
  const offs = [
    bidi.on('network.beforeRequestSent', (p) => started(p as BidiRequestEvent)),
    bidi.on('network.responseCompleted', (p) => completed(p as BidiRequestEvent)),
    // A failed request ends without a response: it is not in flight, and nothing came over the wire for it.
    bidi.on('network.fetchError', (p) => byId.delete(idOf(p as BidiRequestEvent))),
  ];
  const unsubscribe = await bidi.subscribe(EVENTS).catch((e: unknown) => {
    offs.forEach((off) => off());
    throw e;
  });
  return {
    inFlight: () => [...byId.values()].filter((r) => !r.done).length,
    requests: () => [...byId.values()],
    stop: async () => {
      offs.forEach((off) => off());
      await unsubscribe().catch(() => undefined);
    },
  };
}

/** What BiDi saw that the page's list does not hold, and what it could not size. */
export interface WireBytesResult {
  requests: LoadRequest[];
  notes: string[];
}

// The browser's own favicon fetch races the window's end: the load probe leaves it out, and so does the note.
const FAVICON = /\/favicon\.ico$/;

/**
 * The page's requests (Resource Timing, which gives the waterfall and the type) with the bytes BiDi counted
 * for each, matched by URL in start order (the same URL twice: first with first). A cache hit is 0. A
 * request BiDi gave no size for keeps Resource Timing's figure, and a note says how many. Completed http(s)
 * requests the page's list lacks (a frame's own resources are in the frame's Resource Timing, not the page's)
 * are not added, so the list means the same on every engine; a note gives their count and bytes.
 */
export function applyWireBytes(requests: readonly LoadRequest[], wire: readonly WireRequest[]): WireBytesResult {
  const left = wire.filter((w) => w.done && /^https?:/.test(w.url));
  const unsized: string[] = [];
  const out = requests.map((r) => {
    const i = left.findIndex((x) => x.url === r.url || x.finalUrl === r.url);
    const w = i < 0 ? undefined : left.splice(i, 1)[0];
    if (!w) return r;
    if (w.fromCache) return { ...r, transferBytes: 0 };
    // 0 bytes for a response the page saw bytes of: the browser did not count it, which is not the same as none.
    if (w.bytes === undefined || (w.bytes === 0 && r.transferBytes > 0)) {
      unsized.push(r.url);
      return r;
    }
    return { ...r, transferBytes: w.bytes };
  });
  const notes: string[] = [];
  if (unsized.length)
    notes.push(
      `${unsized.length} request(s) had no size in BiDi's network events (response.bytesReceived): their bytes are ` +
        `Resource Timing's (encoded body + 300 B for headers), e.g. ${unsized.slice(0, 3).join(', ')}`,
    );
  const extra = left.filter((w) => !FAVICON.test(w.finalUrl.split('?')[0] ?? ''));
  if (extra.length) {
    const bytes = extra.reduce((s, w) => s + (w.fromCache ? 0 : (w.bytes ?? 0)), 0);
    notes.push(
      `${extra.length} request(s) BiDi saw are not in the page's Resource Timing (a frame's own, or past its buffer), ` +
        `so not in the list or its bytes: ${bytes} B, e.g. ${extra
          .slice(0, 3)
          .map((w) => w.finalUrl)
          .join(', ')}`,
    );
  }
  return { requests: out, notes };
}

// 100 recent changes: far more than can happen between two polls 50 ms apart on a real page (as over CDP).
const CHANGE_LOG = 100;
// A response whose body has sent nothing for 2 s is waiting on the page, not the network (the CDP tracker's rule and
// reason: an unread fetch body, an idle event stream). BiDi has no per-chunk event, so "last byte" is the headers.
const STALLED_BODY_MS = 2000;

/**
 * The browser's own request for the site's icon: not the page's work (a CDP page target never reports it), and Firefox
 * 153 sometimes sends no completion for it, which kept wait_for_network_idle waiting its full timeout on
 * `/favicon.ico` (test/firefox-network-idle, 3 of 7 runs on 2026-12-07).
 */
function browserIcon(url: string): boolean {
  try {
    return new URL(url).pathname === '/favicon.ico';
  } catch {
    return false;
  }
}

/**
 * Every request the browser sends for the page from this call on (the step `wait_for_network_idle`), over BiDi's
 * network events: the same reading as the cdp driver's Network-domain tracker. The subscription is the
 * channel's (Firefox's: this tab's context alone) and lasts until release(): Firefox's BiDi session is shared
 * by every repeat of a run and every verb of a `perf start` session, and a subscription outlives its tab
 * (Firefox 153 still holds it after the user context is removed), so each wait removes its own.
 */
export async function bidiNetworkActivity(bidi: BidiChannel): Promise<NetworkActivity> {
  const inFlight = new Map<string, { url: string; headersAt?: number }>();
  const changes: { url: string; at: number }[] = [];
  const changed = (url: string): void => {
    changes.push({ url, at: Date.now() });
    if (changes.length > CHANGE_LOG) changes.shift();
  };
  const idOf = (p: BidiRequestEvent): string => String(p.request?.request ?? '');
  const ended = (p: BidiRequestEvent): void => {
    const f = inFlight.get(idOf(p));
    if (!f) return;
    inFlight.delete(idOf(p));
    changed(f.url);
  };
  const offs = [
    bidi.on('network.beforeRequestSent', (p) => {
      const url = (p as BidiRequestEvent).request?.url ?? '';
      if (browserIcon(url)) return;
      inFlight.set(idOf(p as BidiRequestEvent), { url });
      changed(url);
    }),
    bidi.on('network.responseStarted', (p) => {
      const f = inFlight.get(idOf(p as BidiRequestEvent));
      if (f) f.headersAt = Date.now();
    }),
    bidi.on('network.responseCompleted', (p) => ended(p as BidiRequestEvent)),
    bidi.on('network.fetchError', (p) => ended(p as BidiRequestEvent)),
  ];
  const unsubscribe = await bidi
    .subscribe(['network.beforeRequestSent', 'network.responseStarted', 'network.responseCompleted', 'network.fetchError'])
    .catch((e: unknown) => {
      offs.forEach((off) => off());
      throw e;
    });
  return {
    release: async () => {
      offs.forEach((off) => off());
      // A tab already gone (the page closed during the wait) may refuse it: nothing is left to remove then but the id.
      await unsubscribe().catch(() => undefined);
    },
    inFlight: () => {
      const now = Date.now();
      return [...inFlight.values()].filter((f) => f.headersAt === undefined || now - f.headersAt < STALLED_BODY_MS).map((f) => f.url);
    },
    changes: () => changes,
  };
}
