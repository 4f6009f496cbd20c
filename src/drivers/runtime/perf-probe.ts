/**
 * The in-page half of a perf session: a requestAnimationFrame counter (liveness, and the frame
 * fallback when tracing is missing) and PerformanceObservers for Event Timing, long animation frames
 * and layout shifts. Installed by perf_begin only (never registered globally: a page that is not
 * measured pays nothing), on the current document and on every document a measured navigation opens.
 *
 * Entries leave the page as they arrive through a binding when the driver offers one (CDP
 * Runtime.addBinding), so a navigation inside the measured steps loses nothing: the old document's
 * frame count is sent on pagehide. Without a binding (WebDriver) they wait in the page and the final
 * flush returns them.
 *
 * `perfProbeMain` is serialised with Function.prototype.toString and evaluated in the page: it must not
 * reference anything outside its own body.
 */
import { PERF_PROBE_URL, type ProbeFrames, type ProbeMessage, type ProbeSupport } from '../measure.js';

/** The binding the probe calls with one JSON message per entry (Runtime.addBinding). */
export const PERF_BINDING = '__rehearsePerf';

/**
 * What a Chromium needs for the probe's soft-navigation and interaction-contentful-paint entries (softNavs.*): its
 * 139-14x builds had the feature on by default (their field-trial testing config), Debian's 150 lists neither
 * without it. Every Chromium a driver starts gets it (CDP, chromedriver, the Grid).
 */
export const SOFT_NAVIGATION_FLAG = '--enable-features=SoftNavigationHeuristics';

/** A Long Animation Frame entry (Chromium), as the probe reads it. */
type Loaf = PerformanceEntry & {
  blockingDuration: number;
  renderStart: number;
  styleAndLayoutStart: number;
  scripts: Array<
    PerformanceEntry & {
      sourceURL: string;
      sourceFunctionName: string;
      sourceCharPosition: number;
      invoker: string;
      forcedStyleAndLayoutDuration: number;
    }
  >;
};

/**
 * Runs in the page. Idempotent per token: a second run on the same document keeps the first probe.
 * `countFrames` runs a continuous rAF loop: only when the trace is missing, because a rAF loop makes
 * every frame a main-thread frame and changes what the compositor reports (measured on the janky list:
 * 149 dropped frames with the loop, 1 without).
 */
function perfProbeMain(token: string, binding: string, sinceEpoch: number, countFrames: boolean): void {
  const KEY = Symbol.for('rehearse.perf');
  type Probe = { token: string; stop: () => void; flush: () => unknown; support: Record<string, boolean> };
  const w = window as unknown as Record<symbol, Probe | undefined> & Record<string, unknown>;
  const prev = w[KEY];
  if (prev && prev.token === token) return;
  prev?.stop();
  // 20k intervals is over 5 minutes at 60 Hz: enough for any measured interaction, bounded memory.
  const MAX_INTERVALS = 20000;
  const origin = performance.timeOrigin;
  const doc = Math.random().toString(36).slice(2, 10);
  // A new document gets the binding only once the session re-adds it after the navigation commits:
  // entries produced before that wait here, and go out with the next send or the final flush.
  // 5000 entries: far more than a document produces before its binding arrives, bounded all the same.
  const MAX_QUEUE = 5000;
  const queue: string[] = [];
  const send = (msg: Record<string, unknown>): void => {
    const json = JSON.stringify({ ...msg, token, doc });
    const fn = w[binding];
    if (typeof fn !== 'function') {
      if (queue.length < MAX_QUEUE) queue.push(json);
      return;
    }
    try {
      for (const q of queue.splice(0)) (fn as (s: string) => void)(q);
      (fn as (s: string) => void)(json);
    } catch {
      /* the binding went away with the session */
    }
  };
  let stopped = false;
  let frames = 0;
  let firstAt = 0;
  let lastT = 0;
  const intervals: number[] = [];
  let raf = 0;
  // The counter's own requests go uncounted by the runtime's frame-request watch (the settle skips a
  // frame only when the page itself asked for none); the watch may come before or after the probe.
  const frame = (cb: FrameRequestCallback): number =>
    (
      (Reflect.get(window, Symbol.for('rehearse.raf')) as { raw?: (cb: FrameRequestCallback) => number } | undefined)?.raw ??
      requestAnimationFrame
    )(cb);
  const tick = (t: number): void => {
    if (stopped) return;
    frames++;
    if (lastT) {
      if (intervals.length < MAX_INTERVALS) intervals.push(t - lastT);
    } else firstAt = origin + t;
    lastT = t;
    raf = frame(tick);
  };
  if (countFrames) raf = frame(tick);
  // performance.interactionCount counts every interaction, also those under Event Timing's 16 ms floor.
  const perf = performance as Performance & { interactionCount?: number };
  const baseInteractions = perf.interactionCount ?? 0;
  // Whether the document stayed on screen: a hidden or frozen page paints nothing, so a window with one painted
  // frame is believed only on a page that says it was shown throughout (frames.ts refusalOf).
  let shown = document.visibilityState === 'visible';
  // Any visibility change means the page was hidden at some moment (hidden, or shown again after it was).
  const onHidden = (): boolean => (shown = false);
  for (const type of ['visibilitychange', 'freeze']) document.addEventListener(type, onHidden);
  const docEnd = (): Record<string, unknown> => ({
    kind: 'docEnd',
    frames: countFrames ? framesNow() : null,
    interactionCount: perf.interactionCount === undefined ? null : perf.interactionCount - baseInteractions,
    shown: shown && document.visibilityState === 'visible',
  });
  const framesNow = (): Record<string, unknown> => ({
    count: frames,
    firstAt,
    lastAt: lastT ? origin + lastT : 0,
    intervalsMs: intervals.slice(),
  });

  const describe = (node: Node | null | undefined): string => {
    if (!node || node.nodeType !== 1) return '';
    const el = node as Element;
    const id = el.id ? `#${el.id}` : '';
    // A big container's text is not a name (and reading it all would cost): 20 children at most.
    const text = el.getAttribute('aria-label') ?? (el.childElementCount > 20 ? '' : (el.textContent ?? ''));
    const name = text.trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${el.tagName.toLowerCase()}${id}${name ? ` "${name}"` : ''}`;
  };
  const after = (t: number): boolean => origin + t >= sinceEpoch;
  // One interaction fires several entries (pointerdown, pointerup, click): each goes out, the report
  // groups them by interactionId.
  const handleEvents = (entries: PerformanceEntryList): void => {
    for (const e of entries as unknown as Array<PerformanceEventTiming & { interactionId?: number }>) {
      if (!e.interactionId || !after(e.startTime)) continue;
      const end = e.startTime + e.duration;
      send({
        kind: 'interaction',
        id: e.interactionId,
        name: e.name,
        target: describe(e.target),
        startAt: origin + e.startTime,
        durationMs: e.duration,
        inputDelayMs: Math.max(0, e.processingStart - e.startTime),
        processingMs: Math.max(0, e.processingEnd - e.processingStart),
        presentationMs: Math.max(0, end - e.processingEnd),
      });
    }
  };
  const handleLoaf = (entries: PerformanceEntryList): void => {
    for (const e of entries as unknown as Loaf[]) {
      if (!after(e.startTime)) continue;
      send({
        kind: 'loaf',
        startAt: origin + e.startTime,
        durationMs: e.duration,
        blockingMs: e.blockingDuration,
        renderStartAt: e.renderStart ? origin + e.renderStart : 0,
        styleAndLayoutStartAt: e.styleAndLayoutStart ? origin + e.styleAndLayoutStart : 0,
        scripts: (e.scripts ?? []).map((s) => ({
          sourceURL: s.sourceURL,
          sourceFunctionName: s.sourceFunctionName,
          sourceCharPosition: s.sourceCharPosition,
          invoker: s.invoker,
          durationMs: s.duration,
          forcedStyleAndLayoutMs: s.forcedStyleAndLayoutDuration,
        })),
      });
    }
  };
  const handleShift = (entries: PerformanceEntryList): void => {
    for (const e of entries as unknown as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>) {
      if (e.hadRecentInput || !after(e.startTime)) continue;
      send({ kind: 'shift', startAt: origin + e.startTime, value: e.value });
    }
  };
  type SoftNav = PerformanceEntry & { navigationId: number; paintTime?: number; presentationTime?: number };
  const paintOf = (e: SoftNav): number => e.presentationTime || e.paintTime || 0;
  const handleSoftNav = (entries: PerformanceEntryList): void => {
    for (const e of entries as unknown as SoftNav[]) {
      if (!after(e.startTime)) continue;
      const paint = paintOf(e);
      send({ kind: 'softNav', id: e.navigationId, url: e.name, startAt: origin + e.startTime, paintAt: paint ? origin + paint : 0 });
    }
  };
  const handleSoftPaint = (entries: PerformanceEntryList): void => {
    for (const e of entries as unknown as Array<SoftNav & { largestContentfulPaint?: SoftNav & { renderTime?: number } }>) {
      if (!after(e.startTime)) continue;
      const lcp = e.largestContentfulPaint;
      const at = (lcp && (paintOf(lcp) || lcp.renderTime || lcp.startTime)) || paintOf(e);
      if (at) send({ kind: 'softLcp', id: e.navigationId, at: origin + at });
    }
  };
  const supported = (PerformanceObserver.supportedEntryTypes ?? []) as readonly string[];
  const observers: Array<{ o: PerformanceObserver; handle: (l: PerformanceEntryList) => void }> = [];
  const watch = (type: string, handle: (l: PerformanceEntryList) => void, extra: Record<string, unknown>): boolean => {
    if (!supported.includes(type)) return false;
    const o = new PerformanceObserver((list) => handle(list.getEntries()));
    // buffered: a probe installed at document start (a measured navigation) must see the entries the
    // document produced before the script ran; `after()` drops anything older than the session.
    o.observe({ type, buffered: true, ...extra } as PerformanceObserverInit);
    observers.push({ o, handle });
    return true;
  };
  // 16 ms, the smallest threshold Event Timing allows: every interaction that took a frame or more.
  const support = {
    event: watch('event', handleEvents, { durationThreshold: 16 }),
    loaf: watch('long-animation-frame', handleLoaf, {}),
    shift: watch('layout-shift', handleShift, {}),
    softNav: watch('soft-navigation', handleSoftNav, {}) && watch('interaction-contentful-paint', handleSoftPaint, {}),
  };
  const takeAll = (): void => {
    for (const { o, handle } of observers) handle(o.takeRecords());
  };
  const onHide = (): void => {
    takeAll();
    send(docEnd());
  };
  addEventListener('pagehide', onHide);
  w[KEY] = {
    token,
    support,
    stop(): void {
      stopped = true;
      cancelAnimationFrame(raf);
      removeEventListener('pagehide', onHide);
      for (const type of ['visibilitychange', 'freeze']) document.removeEventListener(type, onHidden);
      for (const { o } of observers) o.disconnect();
      if (w[KEY]?.token === token) delete w[KEY];
    },
    flush(): unknown {
      takeAll();
      return { doc, end: docEnd(), support, queued: queue.splice(0) };
    },
  };
}

/** Source that installs the probe for `token`, entries after `sinceEpoch` only. */
export function perfProbeSource(token: string, sinceEpoch: number, countFrames: boolean): string {
  return (
    `(${perfProbeMain.toString()})(${JSON.stringify(token)}, ${JSON.stringify(PERF_BINDING)}, ${sinceEpoch}, ${countFrames});` +
    `\n//# sourceURL=${PERF_PROBE_URL}`
  );
}

/**
 * The page-side state at the end of a session: waits two frames first so Event Timing entries of the
 * last interaction (delivered after its presentation) are queued, then takes them.
 */
export function perfProbeFlushSource(token: string): string {
  return `//# sourceURL=${PERF_PROBE_URL}
(async () => {
    const p = window[Symbol.for('rehearse.perf')];
    if (!p || p.token !== ${JSON.stringify(token)}) return null;
    // A hidden page runs no rAF: the timer bounds the wait so a background page is answered at once.
    if (document.visibilityState === 'visible') {
      await Promise.race([
        new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
        new Promise((r) => setTimeout(r, 200)),
      ]);
    }
    return p.flush();
  })()`;
}

// 250 ms for both frames: two come in 33 ms on a live page, and a renderer that a busy host keeps off its core for a
// while still gets them in (only then does the wait last); a hidden page runs none and must not hold perf_end.
const NEXT_FRAME_CAP_MS = 250;

/**
 * Waits until the frame that shows the last input's result has left the page's main thread: two animation frames (the
 * second begins only after the first one's style, layout, paint and commit), at most NEXT_FRAME_CAP_MS, and not at all
 * on a hidden page. A window that ends right after an input's handler ran would otherwise close before that frame:
 * `wait_for` sees the new DOM before it is painted, and on a busy host the frame's begin, or the frame that finally
 * carries the update when the first one missed its deadline, can fall after the end mark.
 */
export function nextFrameSource(): string {
  return `//# sourceURL=${PERF_PROBE_URL}
(document.visibilityState !== 'visible' ? null : new Promise((r) => {
    const t = setTimeout(() => r(null), ${NEXT_FRAME_CAP_MS});
    requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(t); r(null); }));
  }))`;
}

export function perfProbeStopSource(token: string): string {
  return `(() => { const p = window[Symbol.for('rehearse.perf')]; if (p && p.token === ${JSON.stringify(token)}) p.stop(); })()`;
}

/** A user-timing mark in the page, as an expression yielding its epoch time. */
export function markSource(name: string): string {
  return `(() => { const m = performance.mark(${JSON.stringify(name)}); return performance.timeOrigin + m.startTime; })()`;
}

/** What the final flush returns: the document's totals and the entries still queued in it. */
export interface ProbeFlush {
  doc: string;
  end: Record<string, unknown>;
  support: ProbeSupport;
  queued: string[];
}

/**
 * What the probe of one session sent, sorted as it arrives (through a binding, or in the final
 * flush): entries, each document's frame counter, the interaction count summed over documents.
 */
export class ProbeReadings {
  readonly messages: ProbeMessage[] = [];
  readonly docFrames: ProbeFrames[] = [];
  interactionCount: number | null = null;
  /** The current document stayed visible, never hidden or frozen (its final flush says); undefined when not read. */
  shown: boolean | undefined;

  constructor(private readonly token: string) {}

  /** One JSON message from the probe; another session's, or a malformed one, is ignored. */
  take(json: string): void {
    let msg: ProbeMessage;
    try {
      msg = JSON.parse(json) as ProbeMessage;
    } catch {
      return;
    }
    if (msg.token !== this.token) return;
    if (msg.kind === 'docEnd') {
      if (msg.frames) this.docFrames.push(msg.frames);
      if (msg.interactionCount !== null) this.interactionCount = (this.interactionCount ?? 0) + msg.interactionCount;
    } else this.messages.push(msg);
  }

  /** The final flush: the entries still queued in the page, then the document's totals. */
  takeFlush(flush: ProbeFlush): void {
    for (const q of flush.queued) this.take(q);
    this.take(JSON.stringify({ ...flush.end, token: this.token, doc: flush.doc }));
    // Only the current document's: an earlier one's pagehide comes as it is hidden by the navigation itself.
    if (typeof flush.end.shown === 'boolean') this.shown = flush.end.shown;
  }
}
