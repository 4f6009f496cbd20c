/**
 * The open pages of the app page's browser context over CDP: its page targets, learnt from
 * Target.setDiscoverTargets (targetCreated / targetInfoChanged / targetDestroyed, so the opening
 * order and each opener are known), attached on selection (Target.attachToTarget, flat).
 */
import { PageTracker, type PageBackend, type RawPage } from '../tabs.js';
import type { Browser, Page } from './browser.js';
import { cdpPageDriver } from './page-driver.js';
import type { HostPage } from '../page-driver.js';

class CdpPages implements PageBackend {
  /** Page targets of the context, in the order they were first seen. */
  private readonly targets = new Map<string, RawPage>();
  private readonly attached = new Map<string, Page>();
  private contextId: string | undefined;
  private readonly ready: Promise<void>;
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly browser: Browser,
    private readonly main: Page,
  ) {
    this.ready = this.start();
    this.ready.catch(() => undefined);
  }

  private async start(): Promise<void> {
    const conn = this.browser.conn;
    const keep = (t: {
      targetId: string;
      type: string;
      browserContextId?: string;
      openerId?: string;
      title: string;
      url: string;
    }): void => {
      if (t.type !== 'page' || t.browserContextId !== this.contextId) return;
      const known = this.targets.get(t.targetId);
      const row = { id: t.targetId, title: t.title, url: t.url, ...(t.openerId ? { openerId: t.openerId } : {}) };
      // A known target keeps its place in the opening order (a Map keeps insertion order).
      if (known) Object.assign(known, row);
      else this.targets.set(t.targetId, row);
    };
    const { targetInfo } = await conn.send('Target.getTargetInfo', { targetId: this.main.targetId });
    this.contextId = targetInfo.browserContextId;
    keep(targetInfo);
    this.offs.push(
      conn.onBrowserEvent('Target.targetCreated', (p) => keep(p.targetInfo)),
      conn.onBrowserEvent('Target.targetInfoChanged', (p) => keep(p.targetInfo)),
      conn.onBrowserEvent('Target.targetDestroyed', (p) => this.targets.delete(p.targetId)),
    );
    await conn.send('Target.setDiscoverTargets', { discover: true });
    // Pages opened before discovery began (an MCP connection to a session that has tabs already).
    const { targetInfos } = await conn.send('Target.getTargets', {});
    for (const t of targetInfos) keep(t);
  }

  async pages(): Promise<RawPage[]> {
    await this.ready;
    // Titles and URLs as they are now (targetInfoChanged may trail a load); the order stays the events'.
    const { targetInfos } = await this.browser.conn.send('Target.getTargets', {});
    for (const t of targetInfos)
      if (this.targets.has(t.targetId)) Object.assign(this.targets.get(t.targetId)!, { title: t.title, url: t.url });
    const main = this.targets.get(this.main.targetId);
    const rest = [...this.targets.values()].filter((t) => t.id !== this.main.targetId);
    return main ? [main, ...rest] : rest;
  }

  async open(id: string): Promise<HostPage> {
    if (id === this.main.targetId) return cdpPageDriver(this.main);
    let page = this.attached.get(id);
    if (!page || page.crashReason || page.isClosed) {
      page = await this.browser.attach(id);
      this.attached.set(id, page);
    }
    return cdpPageDriver(page);
  }

  async close(id: string): Promise<void> {
    const page = this.attached.get(id);
    this.attached.delete(id);
    this.targets.delete(id);
    // Not through page.close() for a page it does not own: closeTarget closes just this tab.
    if (page) await page.close();
    else await this.browser.conn.send('Target.closeTarget', { targetId: id }).catch(() => undefined);
  }

  dispose(): void {
    for (const off of this.offs.splice(0)) off();
  }
}

/** The tracker of the pages in `main`'s browser context, `main` (the app page) selected. */
export function cdpTabs(browser: Browser, main: Page): PageTracker & { dispose(): void } {
  const backend = new CdpPages(browser, main);
  const tracker = new PageTracker(backend, main.targetId, cdpPageDriver(main));
  return Object.assign(tracker, { dispose: () => backend.dispose() });
}

/** Close the pages the app opened beside `main` (a reload restart keeps the context, and its tabs with it). */
export async function closeExtraPages(browser: Browser, main: Page): Promise<void> {
  const conn = browser.conn;
  const contextId =
    main.browserContextId ?? (await conn.send('Target.getTargetInfo', { targetId: main.targetId })).targetInfo.browserContextId;
  const { targetInfos } = await conn.send('Target.getTargets', {});
  const extra = targetInfos.filter((t) => t.type === 'page' && t.browserContextId === contextId && t.targetId !== main.targetId);
  await Promise.all(extra.map((t) => conn.send('Target.closeTarget', { targetId: t.targetId }).catch(() => undefined)));
}
