/**
 * Screenshots and the page geometry they need, for the screenshot step and the runner's failure
 * screenshots: the one place that speaks Page.captureScreenshot.
 */
import type { Page } from './browser.js';
import type { CaptureOptions } from '../page-driver.js';

/** The encoded image. */
export async function captureScreenshot(page: Page, opts: CaptureOptions): Promise<Buffer> {
  const shot = await page.send(
    'Page.captureScreenshot',
    {
      format: opts.format,
      ...(opts.format === 'jpeg' && opts.quality !== undefined ? { quality: opts.quality } : {}),
      ...(opts.clip ? { clip: { ...opts.clip, scale: 1 }, captureBeyondViewport: true } : {}),
    },
    opts.timeoutMs,
  );
  return Buffer.from(shot.data, 'base64');
}

/** The document's size and the visual viewport's scroll offset, in CSS pixels. */
export async function pageGeometry(page: Page): Promise<{ contentWidth: number; contentHeight: number; scrollX: number; scrollY: number }> {
  const { cssContentSize, cssVisualViewport } = await page.send('Page.getLayoutMetrics');
  return {
    contentWidth: cssContentSize.width,
    contentHeight: cssContentSize.height,
    scrollX: cssVisualViewport.pageX,
    scrollY: cssVisualViewport.pageY,
  };
}
