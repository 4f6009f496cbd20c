/**
 * The tabs and popups of a Firefox user context as pages, from BiDi browsingContext events: the session
 * subscribes once (startFirefoxSession) to contextCreated, contextDestroyed and load, so the opening order,
 * each page's opener (originalOpener: window.open, a target=_blank link) and each close are known as they
 * happen. Nothing polls: the tracker waits on these events, and "is the selected page still open" (asked
 * before every step) is answered without a round trip to Firefox.
 */
import { PageTracker, type PageBackend, type PageEvents, type RawPage } from '../tabs.js';
import type { HostPage } from '../page-driver.js';
import { BidiPageClient } from './client.js';
import type { BidiSocket } from '../bidi-socket.js';
import { NAVIGATION_EVENTS } from './navigation.js';

/**
 * The events the session subscribes to for every context (startFirefoxSession): what this file listens to, and the
 * navigation events of src/drivers/bidi/navigation.ts.
 */
export const CONTEXT_EVENTS = [
  'browsingContext.contextCreated',
  'browsingContext.contextDestroyed',
  'browsingContext.load',
  ...NAVIGATION_EVENTS,
];

// 2 s for a tab's title: a page that does not answer a one-line script in that time is listed untitled.
const TITLE_TIMEOUT_MS = 2000;

/** A browsingContext.Info as far as it is read here (contextCreated, contextDestroyed and getTree's rows). */
interface ContextInfo {
  context: string;
  parent?: string | null;
  originalOpener?: string | null;
  url: string;
  userContext?: string;
}

/** An event's params as a ContextInfo: what is not a string is left out. */
function contextInfo(p: Record<string, unknown>): ContextInfo {
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  return {
    context: text(p.context) ?? '',
    url: text(p.url) ?? '',
    parent: text(p.parent) ?? null,
    originalOpener: text(p.originalOpener) ?? null,
    ...(text(p.userContext) ? { userContext: text(p.userContext) } : {}),
  };
}

class BidiContexts implements PageBackend, PageEvents {
  /** The user context's open tabs, in the order they opened (a Map keeps insertion order). */
  private readonly tabs = new Map<string, RawPage>();
  /** Contexts destroyed, so a tree read in flight does not bring one back. */
  private readonly destroyed = new Set<string>();
  private readonly drivers = new Map<string, HostPage>();
  private readonly waiters = new Set<() => void>();
  private readonly offs: (() => void)[];
  private readonly ready: Promise<void>;
  seq = 0;

  constructor(
    private readonly main: BidiPageClient,
    private readonly mainPage: HostPage,
    private readonly pageOf: (client: BidiPageClient) => Promise<HostPage>,
  ) {
    const socket = main.socket;
    this.offs = [
      socket.on('browsingContext.contextCreated', (p) => this.add(contextInfo(p))),
      socket.on('browsingContext.contextDestroyed', (p) => this.remove(String(p.context))),
      socket.on('browsingContext.load', (p) => this.loadedDoc(String(p.context), String(p.url))),
    ];
    this.ready = this.start(socket);
    this.ready.catch(() => undefined);
  }

  get events(): PageEvents {
    return this;
  }

  /** Tabs opened before the tracker (an MCP connection to a session that has some): getTree lists them in opening order. */
  private async start(socket: BidiSocket): Promise<void> {
    const { contexts } = await socket.send<{ contexts: ContextInfo[] }>('browsingContext.getTree', { maxDepth: 0 });
    this.add({ context: this.main.context, url: contexts.find((c) => c.context === this.main.context)?.url ?? '' });
    for (const c of contexts) this.add(c);
  }

  private add(c: ContextInfo): void {
    const mine = c.context === this.main.context || (c.userContext ?? 'default') === this.main.userContext;
    if (c.parent || !mine || this.destroyed.has(c.context) || this.tabs.has(c.context)) return;
    const opener = c.originalOpener ?? undefined;
    this.tabs.set(c.context, { id: c.context, title: '', url: c.url, ...(opener ? { openerId: opener } : {}) });
    this.bump();
  }

  private remove(context: string): void {
    this.destroyed.add(context);
    this.drivers.delete(context);
    if (this.tabs.delete(context)) this.bump();
  }

  private loadedDoc(context: string, url: string): void {
    const row = this.tabs.get(context);
    if (!row) return;
    row.url = url;
    this.bump();
  }

  private bump(): void {
    this.seq++;
    for (const wake of [...this.waiters]) wake();
  }

  next(seen: number, deadline: number): Promise<void> {
    if (this.seq !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
      this.waiters.add(done);
    });
  }

  /** The app's tab first, then the rest in opening order; with text, each one's title and current URL read from Firefox. */
  async pages(withText = false): Promise<RawPage[]> {
    await this.ready;
    const rows = [...this.tabs.values()];
    const ordered = [...rows.filter((r) => r.id === this.main.context), ...rows.filter((r) => r.id !== this.main.context)];
    if (!withText) return ordered.map((r) => ({ ...r }));
    const { contexts } = await this.main.socket.send<{ contexts: ContextInfo[] }>('browsingContext.getTree', { maxDepth: 0 });
    const urls = new Map(contexts.map((c) => [c.context, c.url]));
    const titles = await Promise.all(ordered.map((r) => this.title(r.id)));
    return ordered.map((r, i) => ({ ...r, url: urls.get(r.id) ?? r.url, title: titles[i]! }));
  }

  private async title(context: string): Promise<string> {
    const r = await this.main.socket
      .send<{ type: string; result?: { value?: unknown } }>(
        'script.evaluate',
        { expression: 'document.title', target: { context }, awaitPromise: false, resultOwnership: 'none' },
        TITLE_TIMEOUT_MS,
      )
      .catch(() => undefined);
    return r?.type === 'success' && typeof r.result?.value === 'string' ? r.result.value : '';
  }

  async open(id: string): Promise<HostPage> {
    // The selected tab is the one in front, producing frames (a background tab's requestAnimationFrame is throttled).
    await this.main.socket.send('browsingContext.activate', { context: id }).catch(() => undefined);
    if (id === this.main.context) return this.mainPage;
    // A popup gets the app tab's emulation as it opens: a step waits until it has it.
    await this.main.newTabs.ready(id);
    let page = this.drivers.get(id);
    if (!page) {
      const m = this.main;
      // Its own page driver: per-document state (the runtime, refs) is the tab's, so a ref check tells pages apart.
      page = await this.pageOf(new BidiPageClient(m.socket, id, m.userContext, m.capabilities));
      this.drivers.set(id, page);
    }
    return page;
  }

  async close(id: string): Promise<void> {
    await this.main.socket.send('browsingContext.close', { context: id }).catch(() => undefined);
    this.remove(id);
  }

  async gone(id: string): Promise<boolean> {
    await this.ready;
    return !this.tabs.has(id);
  }

  dispose(): void {
    for (const off of this.offs.splice(0)) off();
    for (const wake of [...this.waiters]) wake();
  }
}

/**
 * The tracker of the tabs in `main`'s user context, `main` (the app's tab) selected. `pageOf` makes the page
 * driver of another tab (the composition's: this driver speaks BiDi, the page driver is the W3C one).
 */
export function bidiTabs(
  main: BidiPageClient,
  mainPage: HostPage,
  pageOf: (client: BidiPageClient) => Promise<HostPage>,
): PageTracker & { dispose(): void } {
  const backend = new BidiContexts(main, mainPage, pageOf);
  const tracker = new PageTracker(backend, main.context, mainPage);
  return Object.assign(tracker, { dispose: () => backend.dispose() });
}

/** Close the tabs of `main`'s user context other than `main` (a reload restart keeps the tab, and must not keep its popups). */
export async function closeOtherTabs(main: BidiPageClient): Promise<void> {
  const { contexts } = await main.socket.send<{ contexts: ContextInfo[] }>('browsingContext.getTree', { maxDepth: 0 });
  const others = contexts.filter((c) => c.context !== main.context && (c.userContext ?? 'default') === main.userContext);
  await Promise.all(others.map((c) => main.socket.send('browsingContext.close', { context: c.context }).catch(() => undefined)));
}
