/**
 * Viewport and touch emulation, one implementation for the runner's clean restarts and the
 * resize_viewport / device_profile steps, and the read-back of what the page then sees.
 */
import type { Page } from './browser.js';
import type { NetworkConditions, ViewportReadBack, ViewportSpec } from '../page-driver.js';

// Five touch points, what Chrome's device mode reports for phones and tablets.
const MAX_TOUCH_POINTS = 5;

/** Apply a viewport (Emulation.setDeviceMetricsOverride + touch). Does not touch the user agent. */
export async function applyViewport(page: Page, v: ViewportSpec): Promise<void> {
  await Promise.all([
    page.send('Emulation.setDeviceMetricsOverride', {
      width: v.width,
      height: v.height,
      deviceScaleFactor: v.dpr,
      mobile: v.mobile,
      screenWidth: v.screenWidth ?? v.width,
      screenHeight: v.screenHeight ?? v.height,
    }),
    page.send('Emulation.setTouchEmulationEnabled', v.touch ? { enabled: true, maxTouchPoints: MAX_TOUCH_POINTS } : { enabled: false }),
  ]);
}

/** Back to the browser's own viewport, no touch, its own user agent. */
export async function clearEmulation(page: Page): Promise<void> {
  await Promise.all([
    page.send('Emulation.clearDeviceMetricsOverride'),
    page.send('Emulation.setTouchEmulationEnabled', { enabled: false }),
    // An empty user agent removes the override (Chromium keeps none when it is empty).
    page.send('Emulation.setUserAgentOverride', { userAgent: '' }),
  ]);
}

export async function readViewport(page: Page): Promise<ViewportReadBack> {
  return page.evaluate<ViewportReadBack>(
    `({ width: innerWidth, height: innerHeight, dpr: devicePixelRatio, touch: navigator.maxTouchPoints ` +
      `> 0, screenWidth: screen.width, screenHeight: screen.height, userAgent: navigator.userAgent })`,
  );
}

// CDP counts throughput in bytes/s; the contract in kbit/s (1000 bits), as DevTools' presets are written.
const BYTES_PER_KBIT = 1000 / 8;

/**
 * Throttle the page's network (Network.emulateNetworkConditions), or turn it off with undefined.
 * Applies to this target's requests from the next one on, and survives its navigations.
 */
export async function applyNetwork(page: Page, c: NetworkConditions | undefined): Promise<void> {
  const params = c
    ? {
        offline: c.offline,
        latency: c.latencyMs,
        downloadThroughput: c.downloadKbps > 0 ? c.downloadKbps * BYTES_PER_KBIT : -1,
        uploadThroughput: c.uploadKbps > 0 ? c.uploadKbps * BYTES_PER_KBIT : -1,
      }
    : { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 };
  await page.send('Network.emulateNetworkConditions', params);
  await tellDocument(page, params);
  // The told state lasts one document (Chromium 150): every later one of the main frame is told anew.
  if (!toldOnNavigation.has(page)) {
    toldOnNavigation.add(page);
    page.on('Page.frameNavigated', (e) => {
      const now = page.emulation.network;
      if (!e.frame.parentId && now) void tellDocument(page, now).catch(() => undefined);
    });
  }
}

const toldOnNavigation = new WeakSet<Page>();

/**
 * What the document reads (navigator.onLine, navigator.connection): Chromium 150 and later no longer
 * derive it from Network.emulateNetworkConditions, and keep it for the current document only. Older
 * builds lack the command (the conditions told the page there).
 */
async function tellDocument(
  page: Page,
  params: { offline: boolean; latency: number; downloadThroughput: number; uploadThroughput: number },
): Promise<void> {
  await page.send('Network.overrideNetworkState', params).catch((e: Error) => {
    if (!/wasn't found|not found/i.test(e.message)) throw e;
  });
}

/** The conditions this page's target acknowledged, in the contract's units. */
export function currentNetwork(page: Page): NetworkConditions | undefined {
  const c = page.emulation.network;
  if (!c) return undefined;
  return {
    offline: c.offline,
    latencyMs: c.latency,
    downloadKbps: c.downloadThroughput > 0 ? c.downloadThroughput / BYTES_PER_KBIT : 0,
    uploadKbps: c.uploadThroughput > 0 ? c.uploadThroughput / BYTES_PER_KBIT : 0,
  };
}
