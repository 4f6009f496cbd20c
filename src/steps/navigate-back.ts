/**
 * navigate_back: one step back in the session history, like the browser's Back button. Works for
 * both kinds of entries: a history.pushState route (same document, popstate) and a full page load
 * (which may come back from the back/forward cache without a load event).
 */
import { PerfError } from '../errors.js';
import type { CommitKind, PageDriver } from '../page/index.js';
import { defineStep } from './define.js';
import { NAVIGATION_TIMEOUT_MS, readLocation } from './navigate.js';

// 50 ms between readiness checks: a fraction of any real page load, cheap in CDP round trips.
const POLL_MS = 50;
// 100 ms cap on "two animation frames": a hidden page produces no frames and must not stall the step.
const FRAME_WAIT_CAP_MS = 100;

/**
 * After a commit: a new document is ready when readyState is complete (a bfcache restore fires no
 * load event, so the event alone is not enough); a same-document route gets two frames to render.
 * `loaded`: the driver already waited for the new document (BiDi's load event), nothing to read again.
 */
export async function settleAfterCommit(page: PageDriver, kind: CommitKind, deadline: number, loaded = false): Promise<void> {
  if (kind === 'same-document') {
    await page
      .evaluate(
        `new Promise((r) => { const t = setTimeout(r, ${FRAME_WAIT_CAP_MS}); requestAnimationFrame(() ` +
          `=> requestAnimationFrame(() => { clearTimeout(t); r(); })); })`,
      )
      .catch(() => undefined);
    return;
  }
  if (loaded) return;
  for (;;) {
    const state = await page.evaluate<string>('document.readyState').catch(() => 'loading');
    if (state === 'complete') return;
    if (Date.now() >= deadline) {
      throw new PerfError({
        code: 'timeout',
        kind: 'failed',
        message: `the previous page did not finish loading (readyState "${state}")`,
        suggestion: 'raise timeoutMs',
      });
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export const navigateBack = defineStep({
  name: 'navigate_back',
  description:
    'Go one entry back in the session history (the Back button). Returns the url read back; fails with no_history at the first entry.',
  details: 'Works for a pushState route or a previous page.',
  args: { type: 'object', properties: {} } as const,
  readOnly: false,
  defaultTimeoutMs: NAVIGATION_TIMEOUT_MS,
  async run(ctx) {
    const { page } = ctx;
    const went = await page.navigation.back(Math.max(1, ctx.deadline - Date.now()));
    if (went.status === 'no_history') {
      throw new PerfError({
        code: 'no_history',
        kind: 'failed',
        message: 'navigate_back: the page is at the start of its history; there is nothing to go back to',
        suggestion: 'use navigate with a path instead',
      });
    }
    const kind = went.kind;
    await settleAfterCommit(page, kind, ctx.deadline, went.loaded === true);
    const loc = await readLocation(page);
    return { data: { navigated: true, url: loc.href, title: loc.title, sameDocument: kind === 'same-document' } };
  },
});
