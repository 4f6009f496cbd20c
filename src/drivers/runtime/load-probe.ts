/**
 * The in-page half of a measured page load: observers installed at the new document's start (before any
 * of the app's scripts) for the largest contentful paint, layout shifts and long tasks, and the read of
 * Navigation, Paint and Resource Timing when the load is over. Installed only for a measured load.
 *
 * `loadProbeMain` and `loadReadMain` are serialised with Function.prototype.toString and evaluated in
 * the page: they must not reference anything outside their own bodies.
 */
import { LOAD_PROBE_URL, type LoadReadings } from '../measure.js';

/** Runs in the page at document start. Idempotent per document. */
function loadProbeMain(): void {
  const KEY = Symbol.for('rehearse.load');
  const w = window as unknown as Record<symbol, unknown>;
  if (w[KEY]) return;
  // Chromium keeps 250 resource entries by default: a real app's load has more, and the rest would be lost.
  // 20k: more requests than any page load makes, and still bounded.
  try {
    performance.setResourceTimingBufferSize(20000);
  } catch {
    /* not offered by this browser: its default buffer then */
  }
  const state = {
    lastActivity: 0,
    lcp: null as null | { ms: number; element: string; url: string; sizePx: number },
    shifts: [] as { ms: number; value: number }[],
    longTasks: [] as { startMs: number; durationMs: number }[],
    support: { lcp: false, shift: false, longTask: false },
  };
  w[KEY] = state;
  const touch = (t: number): void => {
    if (t > state.lastActivity) state.lastActivity = t;
  };
  const describe = (el: Element | null | undefined): string => {
    if (!el) return '';
    const id = el.id ? `#${el.id}` : '';
    const cls = typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).slice(0, 2).join('.')}` : '';
    // A big container's text is no name (and reading it all would cost): 20 children at most.
    const text = el.getAttribute('alt') ?? el.getAttribute('aria-label') ?? (el.childElementCount > 20 ? '' : (el.textContent ?? ''));
    const name = text.trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${el.tagName.toLowerCase()}${id}${cls}${name ? ` "${name}"` : ''}`;
  };
  const observe = (type: string, take: (e: PerformanceEntry) => void): boolean => {
    try {
      if (!PerformanceObserver.supportedEntryTypes?.includes(type)) return false;
      new PerformanceObserver((list) => list.getEntries().forEach(take)).observe({ type, buffered: true });
      return true;
    } catch {
      return false;
    }
  };
  type Lcp = PerformanceEntry & { renderTime: number; loadTime: number; size: number; url: string; element: Element | null };
  state.support.lcp = observe('largest-contentful-paint', (entry) => {
    const e = entry as Lcp;
    state.lcp = { ms: e.renderTime || e.loadTime || e.startTime, element: describe(e.element), url: e.url || '', sizePx: e.size };
    touch(performance.now());
  });
  type Shift = PerformanceEntry & { value: number; hadRecentInput: boolean };
  state.support.shift = observe('layout-shift', (entry) => {
    const e = entry as Shift;
    if (e.hadRecentInput) return;
    state.shifts.push({ ms: e.startTime, value: e.value });
    touch(performance.now());
  });
  state.support.longTask = observe('longtask', (e) => {
    state.longTasks.push({ startMs: e.startTime, durationMs: e.duration });
    touch(e.startTime + e.duration);
  });
  observe('resource', (e) => touch((e as PerformanceResourceTiming).responseEnd));
}

/** Runs in the page: whether the load is over yet (the caller decides how long quiet must last). */
function loadQuietMain(): { complete: boolean; idleMs: number; probed: boolean } {
  const s = (window as unknown as Record<symbol, { lastActivity: number } | undefined>)[Symbol.for('rehearse.load')];
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  const last = Math.max(s?.lastActivity ?? 0, nav?.loadEventEnd ?? 0);
  return { complete: document.readyState === 'complete' && (nav?.loadEventEnd ?? 1) > 0, idleMs: performance.now() - last, probed: !!s };
}

type Read = Omit<LoadReadings, 'endedAt' | 'ended' | 'mainThreadMs'>;

/** Runs in the page: everything the load produced, in ms since the navigation started. */
function loadReadMain(): Read {
  type State = {
    lcp: Read['lcp'];
    shifts: Read['shifts'];
    longTasks: Read['longTasks'];
    support: { lcp: boolean; shift: boolean; longTask: boolean };
  };
  const s = (window as unknown as Record<symbol, State | undefined>)[Symbol.for('rehearse.load')];
  const nav = performance.getEntriesByType('navigation')[0] as (PerformanceNavigationTiming & { responseStatus?: number }) | undefined;
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const ext = (url: string): string => {
    try {
      return (/\.([a-z0-9]+)$/i.exec(new URL(url).pathname)?.[1] ?? '').toLowerCase();
    } catch {
      return '';
    }
  };
  type Res = PerformanceResourceTiming & { contentType?: string; renderBlockingStatus?: string; responseStatus?: number };
  // What the page can say of a response itself (a driver that sees the network says more): 0 and '' are unknown.
  const said = (e: { responseStatus?: number; nextHopProtocol?: string }): { status?: number; protocol?: string } => ({
    ...(e.responseStatus ? { status: e.responseStatus } : {}),
    ...(e.nextHopProtocol ? { protocol: e.nextHopProtocol } : {}),
  });
  const typeOf = (e: Res): Read['requests'][number]['type'] => {
    const it = e.initiatorType;
    if (it === 'fetch' || it === 'xmlhttprequest' || it === 'beacon') return 'fetch';
    if (it === 'iframe' || it === 'frame') return 'document';
    const ct = e.contentType ?? '';
    if (/javascript|ecmascript/.test(ct)) return 'script';
    if (/css/.test(ct)) return 'stylesheet';
    if (/^image\//.test(ct)) return 'image';
    if (/^font\/|woff|opentype|truetype/.test(ct)) return 'font';
    if (/html/.test(ct)) return 'document';
    const x = ext(e.name);
    if (it === 'script' || x === 'js' || x === 'mjs') return 'script';
    if (x === 'css') return 'stylesheet';
    if (it === 'img' || it === 'image' || /^(png|jpe?g|gif|webp|avif|svg|ico|bmp)$/.test(x)) return 'image';
    if (/^(woff2?|ttf|otf|eot)$/.test(x)) return 'font';
    return 'other';
  };
  // 0.1 ms: Resource Timing's own resolution in a cross-origin-isolated page is coarser; more digits are noise.
  const t = (ms: number): number => Math.round(ms * 10) / 10;
  // A first byte outside its request's start..end is not one this waterfall can draw: Chromium's entry for a font
  // answered 404 ends ~1 ms after its start, before its headers. Left out (null) and listed: a driver that sees the
  // network gives such a request its times (cdp/load-network.ts), and the report names those still without one.
  const outside: NonNullable<Read['unorderedFirstBytes']> = [];
  const firstByte = (url: string, startMs: number, responseStart: number, responseEnd: number): number | null => {
    if (!responseStart) return null;
    if (t(responseStart) >= t(startMs) && t(responseStart) <= t(responseEnd)) return t(responseStart);
    outside.push({ url, startMs: t(startMs), firstByteMs: t(responseStart), endMs: t(responseEnd) });
    return null;
  };
  const requests: Read['requests'] = [];
  if (nav) {
    requests.push({
      url: nav.name,
      type: 'document',
      startMs: 0,
      responseStartMs: firstByte(nav.name, 0, nav.responseStart, nav.responseEnd),
      endMs: t(nav.responseEnd),
      transferBytes: nav.transferSize,
      renderBlocking: true,
      ...said(nav),
    });
  }
  for (const e of performance.getEntriesByType('resource') as Res[]) {
    // The browser's own favicon fetch races the end of the window (in some loads, not others): it is not
    // the page's work, and counting it would make the request count flicker between repeats.
    if (e.initiatorType === 'other' && /\/favicon\.ico$/.test(e.name.split('?')[0] ?? '')) continue;
    requests.push({
      url: e.name,
      type: typeOf(e),
      startMs: t(e.startTime),
      responseStartMs: firstByte(e.name, e.startTime, e.responseStart, e.responseEnd),
      endMs: t(e.responseEnd),
      transferBytes: e.transferSize,
      renderBlocking: e.renderBlockingStatus === 'blocking',
      ...said(e),
    });
  }
  return {
    url: location.href,
    status: nav?.responseStatus ?? 0,
    navigationStartAt: performance.timeOrigin,
    ttfbMs: nav ? nav.responseStart : null,
    fcpMs: fcp ? fcp.startTime : null,
    domContentLoadedMs: nav?.domContentLoadedEventEnd || null,
    loadEventMs: nav?.loadEventEnd || null,
    lcp: s?.lcp ?? null,
    shifts: s?.shifts ?? [],
    longTasks: s?.longTasks ?? [],
    requests,
    support: {
      paint: PerformanceObserver.supportedEntryTypes?.includes('paint') ?? false,
      lcp: s?.support.lcp ?? false,
      shift: s?.support.shift ?? false,
      longTask: s?.support.longTask ?? false,
      renderBlocking: 'renderBlockingStatus' in PerformanceResourceTiming.prototype,
    },
    ...(outside.length ? { unorderedFirstBytes: outside } : {}),
  };
}

/** Source to install the probe (at document start: CDP addScriptToEvaluateOnNewDocument, BiDi preload). */
export function loadProbeSource(): string {
  return `(${loadProbeMain.toString()})();\n//# sourceURL=${LOAD_PROBE_URL}`;
}

// Serialised once: the quiet check is evaluated ten times a second while a load settles.
const QUIET_SOURCE = `(${loadQuietMain.toString()})()\n//# sourceURL=${LOAD_PROBE_URL}`;
const READ_SOURCE = `(${loadReadMain.toString()})()\n//# sourceURL=${LOAD_PROBE_URL}`;

export function loadQuietSource(): string {
  return QUIET_SOURCE;
}

export function loadReadSource(): string {
  return READ_SOURCE;
}
