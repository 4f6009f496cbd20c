/**
 * A measured page load, whatever the driver: after the navigation, wait until the page is quiet, then
 * read what the load probe (runtime/load-probe.ts) gathered. Quiet is Lighthouse's rule (its
 * `networkQuietThresholdMs`, `cpuQuietThresholdMs` and `pauseAfterLoadMs`, 1 s each by default): the load
 * event fired, then `quietMs` with no request ending, no long task, no layout shift and no new LCP
 * candidate, and no request in flight where the driver can see them.
 */
import type { LoadOptions, LoadReadings } from './measure.js';
import { loadQuietSource, loadReadSource } from './runtime/load-probe.js';

// Ten polls a second: the window's end is known to 100 ms, and a poll is one small evaluate.
const POLL_MS = 100;
// A poll that takes longer than this means the renderer is busy: it counts as activity, not quiet.
const POLL_TIMEOUT_MS = 5000;

export interface LoadPage {
  evaluate<T>(expression: string, opts?: { timeoutMs?: number }): Promise<T>;
  /** Requests in flight now, where the driver sees the network; undefined elsewhere. */
  inFlight?(): number;
}

/** Wait for quiet (or the deadline, counted from `startedAt`, epoch ms), then read the load. */
export async function settleLoad(page: LoadPage, opts: LoadOptions, startedAt: number): Promise<LoadReadings> {
  const deadline = startedAt + opts.timeoutMs;
  let ended: LoadReadings['ended'] = 'deadline';
  let busySince = performance.now();
  while (Date.now() < deadline) {
    const q = await page
      .evaluate<{ complete: boolean; idleMs: number }>(loadQuietSource(), { timeoutMs: POLL_TIMEOUT_MS })
      .catch(() => ({ complete: false, idleMs: 0 }));
    // Requests in flight keep the page busy: the quiet time restarts when the last one ends.
    if ((page.inFlight?.() ?? 0) > 0) busySince = performance.now();
    const idleMs = Math.min(q.idleMs, performance.now() - busySince);
    if (q.complete && idleMs >= opts.quietMs) {
      ended = 'quiet';
      break;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const endedAt = Date.now();
  const read = await page.evaluate<Omit<LoadReadings, 'endedAt' | 'ended'>>(loadReadSource(), { timeoutMs: POLL_TIMEOUT_MS });
  return { ...read, endedAt, ended };
}
