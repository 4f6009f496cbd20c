/**
 * Navigation over CDP beyond Page.navigate: reload, one step back in the session history, and the
 * watch an action keeps on the main frame (a link or a form may start a navigation).
 */
import type { Page } from './browser.js';
import { PerfError } from '../../errors.js';
import type { CommitKind, NavigationWatch } from '../page-driver.js';

export async function reload(page: Page, opts: { ignoreCache: boolean; timeoutMs: number }): Promise<void> {
  // Released on every exit: a failed reload fires no load event, and a pending waiter would hold
  // its timer for the whole timeout.
  const stop = new AbortController();
  const loaded = page.waitForEvent('Page.loadEventFired', () => true, Math.max(1, opts.timeoutMs), stop.signal);
  loaded.catch(() => undefined);
  try {
    await page.send('Page.reload', { ignoreCache: opts.ignoreCache });
    await loaded;
  } finally {
    stop.abort();
  }
}

/**
 * Resolves when the main frame commits its next navigation: 'same-document' (history API, hash)
 * or 'new-document'. Subscribe BEFORE triggering the navigation.
 */
function waitForMainFrameCommit(page: Page, mainFrameId: string, timeoutMs: number): Promise<CommitKind> {
  return new Promise((resolve, reject) => {
    const offs: (() => void)[] = [];
    const finish = (fn: () => void): void => {
      clearTimeout(timer);
      for (const off of offs) off();
      fn();
    };
    const timer = setTimeout(
      () =>
        finish(() => reject(new PerfError({ code: 'timeout', kind: 'failed', message: `no navigation happened within ${timeoutMs} ms` }))),
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

/** One entry back in the session history (the Back button), resolved once the main frame committed it. */
export async function back(page: Page, timeoutMs: number): Promise<{ status: 'committed'; kind: CommitKind } | { status: 'no_history' }> {
  const [history, tree] = await Promise.all([page.send('Page.getNavigationHistory'), page.send('Page.getFrameTree')]);
  const previous = history.entries[history.currentIndex - 1];
  if (!previous) return { status: 'no_history' };
  const committed = waitForMainFrameCommit(page, tree.frameTree.frame.id, Math.max(1, timeoutMs));
  committed.catch(() => undefined);
  await page.send('Page.navigateToHistoryEntry', { entryId: previous.id });
  return { status: 'committed', kind: await committed };
}

/** Watch the main frame: a new-document navigation it requested, a same-document route change, a load. */
export function watchNavigation(page: Page): NavigationWatch {
  const w = { requested: undefined as string | undefined, sameDocument: false, loaded: false, stop: () => undefined as void };
  const offs = [
    page.on('Page.frameRequestedNavigation', (p) => {
      if (p.frameId === page.targetId && p.disposition === 'currentTab') w.requested = p.url;
    }),
    page.on('Page.navigatedWithinDocument', (p) => {
      if (p.frameId === page.targetId) w.sameDocument = true;
    }),
    page.on('Page.loadEventFired', () => {
      w.loaded = true;
    }),
  ];
  w.stop = () => {
    for (const off of offs.splice(0)) off();
  };
  return w;
}
