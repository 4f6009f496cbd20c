/** Shared bits of the perf tests: step runners that assert the status, and a real wheel scroll. */
import assert from 'node:assert/strict';
import type { Page } from '../src/drivers/cdp/browser.js';
import { runStep, type StepResult } from '../src/engine/run-step.js';
import type { StepHost } from '../src/steps/define.js';

export type Ok = Extract<StepResult, { status: 'ok' }>;

export async function ok(host: StepHost, name: string, args: unknown = {}): Promise<Record<string, any>> {
  const r = await runStep(host, name, args);
  assert.equal(r.status, 'ok', `${name} failed: ${JSON.stringify(r.status === 'ok' ? '' : r.error)}`);
  return (r as Ok).data ?? {};
}

export async function failed(
  host: StepHost,
  name: string,
  args: unknown = {},
): Promise<{ kind: string; code: string; message: string; suggestion?: string; candidates?: string[] }> {
  const r = await runStep(host, name, args);
  assert.equal(r.status, 'failed', `${name} should have failed, got ${JSON.stringify(r).slice(0, 300)}`);
  return (r as Extract<StepResult, { status: 'failed' }>).error;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Scroll the demo list with real mouse-wheel events, one per frame, so the page's scroll handlers run
 * across many frames (one `scroll` step of 3000 px lands in a single frame).
 */
export async function wheelList(page: Page, ticks = 30, dy = 100): Promise<void> {
  const c = await page.evaluate<{ x: number; y: number }>(
    `(() => { const r = document.getElementById('list').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + Math.min(r.height, innerHeight - r.y) / 2 }; })()`,
  );
  for (let i = 0; i < ticks; i++) {
    await page.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x: c.x, y: c.y, deltaX: 0, deltaY: dy });
    // One wheel per 60 Hz frame, like a real wheel or trackpad.
    await sleep(16);
  }
  // Let the last scroll's frames be presented inside the session.
  await sleep(250);
}
