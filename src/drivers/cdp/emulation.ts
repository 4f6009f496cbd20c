/**
 * Viewport and touch emulation, one implementation for the runner's clean restarts and the
 * resize_viewport / device_profile steps, and the read-back of what the page then sees.
 */
import type { Page } from './browser.js';
import type { ViewportReadBack, ViewportSpec } from '../page-driver.js';

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
    `({ width: innerWidth, height: innerHeight, dpr: devicePixelRatio, touch: navigator.maxTouchPoints > 0, screenWidth: screen.width, screenHeight: screen.height, userAgent: navigator.userAgent })`,
  );
}
