/**
 * navigate_back: one step back in the session history, like the browser's Back button. Works for
 * both kinds of entries: a history.pushState route (same document, popstate) and a full page load
 * (which may come back from the back/forward cache without a load event).
 */
import type { Page } from '../drivers/cdp/browser.js';
import { PerfError } from '../errors.js';
import { defineStep } from './define.js';
import { NAVIGATION_TIMEOUT_MS, readLocation } from './navigate.js';

// 50 ms between readiness checks: a fraction of any real page load, cheap in CDP round trips.
const POLL_MS = 50;
// 100 ms cap on "two animation frames": a hidden page produces no frames and must not stall the step.
const FRAME_WAIT_CAP_MS = 100;

export type CommitKind = 'same-document' | 'new-document';

/**
 * Resolves when the main frame commits its next navigation: 'same-document' (history API, hash)
 * or 'new-document'. Subscribe BEFORE triggering the navigation.
 */
export function waitForMainFrameCommit(page: Page, mainFrameId: string, timeoutMs: number): Promise<CommitKind> {
  return new Promise((resolve, reject) => {
    const offs: (() => void)[] = [];
    const finish = (fn: () => void): void => {
      clearTimeout(timer);
      for (const off of offs) off();
      fn();
    };
    const timer = setTimeout(
      () => finish(() => reject(new PerfError({ code: 'timeout', kind: 'failed', message: `no navigation happened within ${timeoutMs} ms` }))),
      timeoutMs,
    );
    offs.push(
      page.on('Page.frameNavigated', (p) => {
        if (p.frame.parentId === undefined) finish(() => resolve('new-document'));
      }),
      page.on('Page.navigatedWithinDocument', (p) => {
        if (p.frameId === mainFrameId) finish(() => resolve('same-document'));
      }),
      page.onCrash((reason) => finish(() => reject(new PerfError({ code: 'page_crashed', kind: 'environment', message: reason })))),
    );
  });
}

/**
 * After a commit: a new document is ready when readyState is complete (a bfcache restore fires no
 * load event, so the event alone is not enough); a same-document route gets two frames to render.
 */
export async function settleAfterCommit(page: Page, kind: CommitKind, deadline: number): Promise<void> {
  if (kind === 'same-document') {
    await page
      .evaluate(`new Promise((r) => { const t = setTimeout(r, ${FRAME_WAIT_CAP_MS}); requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(t); r(); })); })`)
      .catch(() => undefined);
    return;
  }
  for (;;) {
    const state = await page.evaluate<string>('document.readyState').catch(() => 'loading');
    if (state === 'complete') return;
    if (Date.now() >= deadline) {
      throw new PerfError({ code: 'timeout', kind: 'failed', message: `the previous page did not finish loading (readyState "${state}")`, suggestion: 'raise timeoutMs' });
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export const navigateBack = defineStep({
  name: 'navigate_back',
  description: 'Go one entry back in the session history (the Back button): a pushState route or a previous page. Returns the url read back after it settled. Fails with no_history at the first entry.',
  args: { type: 'object', properties: {} } as const,
  readOnly: false,
  defaultTimeoutMs: NAVIGATION_TIMEOUT_MS,
  async run(ctx) {
    const { page } = ctx;
    const [history, tree] = await Promise.all([page.send('Page.getNavigationHistory'), page.send('Page.getFrameTree')]);
    const previous = history.entries[history.currentIndex - 1];
    if (!previous) {
      throw new PerfError({
        code: 'no_history',
        kind: 'failed',
        message: 'navigate_back: the page is at the start of its history; there is nothing to go back to',
        suggestion: 'use navigate with a path instead',
      });
    }
    const committed = waitForMainFrameCommit(page, tree.frameTree.frame.id, Math.max(1, ctx.deadline - Date.now()));
    committed.catch(() => undefined);
    await page.send('Page.navigateToHistoryEntry', { entryId: previous.id });
    const kind = await committed;
    await settleAfterCommit(page, kind, ctx.deadline);
    const loc = await readLocation(page);
    return { data: { navigated: true, url: loc.href, title: loc.title, sameDocument: kind === 'same-document' } };
  },
});
