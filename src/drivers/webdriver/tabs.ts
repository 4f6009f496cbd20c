/**
 * The open windows of a WebDriver session (tabs, popups) as pages: GET /window/handles, POST /window
 * to switch, DELETE /window to close. WebDriver classic acts on the current window only and reports
 * neither openers nor closes: a window's opener is the window selected when it first appeared, and a
 * closed one is noticed when its handle is gone.
 */
import { PageTracker, type PageBackend, type PageTabs, type RawPage } from '../tabs.js';
import type { HostPage } from '../page-driver.js';
import { WebDriverPageDriver } from './page-driver.js';
import { WebDriverClient } from './client.js';

class WebDriverWindows implements PageBackend {
  /** Handles in the order first seen, with their opener. */
  private readonly order = new Map<string, string | undefined>();
  private readonly drivers = new Map<string, WebDriverPageDriver>();
  /** The session's current window, shared by every window's client (each switches to its own before a command). */
  private readonly shared: { current: string };
  /** Unbound: lists, visits and closes windows without switching back to any. */
  private readonly client: WebDriverClient;

  constructor(
    private readonly main: WebDriverPageDriver,
    private readonly mainClient: WebDriverClient,
    private readonly mainHandle: string,
  ) {
    this.shared = { current: mainHandle };
    this.client = WebDriverClient.attach(mainClient.endpoint, mainClient.sessionId, mainClient.capabilities);
    // From now on the app page's commands (a perf window begun there, the runner's) reach its own window.
    mainClient.bindWindow(mainHandle, this.shared);
    this.order.set(mainHandle, undefined);
    this.drivers.set(mainHandle, main);
  }

  private async handles(): Promise<string[]> {
    const open = await this.client.windowHandles();
    for (const h of open) if (!this.order.has(h)) this.order.set(h, this.shared.current);
    return [...this.order.keys()].filter((h) => open.includes(h));
  }

  async pages(withText = true): Promise<RawPage[]> {
    const handles = await this.handles();
    const rows: RawPage[] = [];
    const back = this.shared.current;
    // Only the current window answers: each other one is visited for its title and URL, then left.
    for (const h of handles) {
      const visit = withText || h === back;
      if (visit && h !== this.shared.current) await this.switchTo(h);
      const [title, url] = visit ? await Promise.all([this.client.title(), this.client.url()]) : ['', ''];
      const opener = this.order.get(h);
      rows.push({ id: h, title, url, ...(opener !== undefined && h !== this.mainHandle ? { openerId: opener } : {}) });
    }
    if (this.shared.current !== back && handles.includes(back)) await this.switchTo(back);
    return rows;
  }

  private async switchTo(h: string): Promise<void> {
    await this.client.switchToWindow(h);
    this.shared.current = h;
  }

  async open(id: string): Promise<HostPage> {
    // The selected window is the current one: in front, producing frames.
    if (this.shared.current !== id) await this.switchTo(id);
    let d = this.drivers.get(id);
    if (!d) {
      // Its own driver: per-document state (the runtime, settle reports) is the window's, and a ref check can tell pages apart.
      d = new WebDriverPageDriver(this.mainClient.forWindow(id), this.main.emulation.browserUserAgent());
      if (this.main.serverPid !== undefined) d.serverPid = this.main.serverPid;
      this.drivers.set(id, d);
    }
    return d;
  }

  async close(id: string): Promise<void> {
    const back = this.shared.current;
    if (back !== id) await this.switchTo(id);
    await this.client.closeWindow();
    this.drivers.delete(id);
    // The tracker selects the opener next when the selected window closed; another closed window leaves the selection.
    await this.switchTo(back === id ? this.mainHandle : back);
  }

  async gone(id: string): Promise<boolean> {
    const gone = !(await this.client.windowHandles()).includes(id);
    // Commands to a closed current window fail: the app's page answers until the tracker picks the opener.
    if (gone && this.shared.current === id) await this.switchTo(this.mainHandle);
    return gone;
  }
}

/**
 * A page source over one WebDriver session: its app page, and its windows, tracked from first use
 * (the current window then is the app's page).
 */
export function webdriverPageSource(main: WebDriverPageDriver): { driver: HostPage; tabs(create: boolean): PageTabs | undefined } {
  const client = main.client;
  // A BiDi client (Firefox) has its own tracker, from browsingContext events (src/session/firefox-page.ts).
  if (!(client instanceof WebDriverClient)) return { driver: main, tabs: () => undefined };
  let tracker: Promise<PageTracker> | undefined;
  let ready: PageTracker | undefined;
  return {
    driver: main,
    tabs(create) {
      if (ready || !create) return ready;
      tracker ??= client.windowHandle().then((h) => (ready = new PageTracker(new WebDriverWindows(main, client, h), h, main)));
      return lazyTabs(main, tracker);
    },
  };
}

/** The tracker before its first handle is known: every call waits for it (the driver is the app page's till then). */
function lazyTabs(main: HostPage, tracker: Promise<PageTracker>): PageTabs {
  return {
    main,
    get driver() {
      return main;
    },
    list: async () => (await tracker).list(),
    selection: async () => (await tracker).selection(),
    select: async (sel, deadline) => (await tracker).select(sel, deadline),
    close: async (sel) => (await tracker).close(sel),
    settle: async () => (await tracker).settle(),
    takeNotice: () => undefined,
    closeOthers: async () => (await tracker).closeOthers(),
  };
}
