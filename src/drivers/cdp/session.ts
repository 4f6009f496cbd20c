/**
 * A browser plus the page under test, and the three ways a repeat starts clean. Either launched
 * here (and owned: closed with the session) or attached to an existing Chrome via `endpoint`.
 */
import { Browser, type OpenPageOptions, type Page } from './browser.js';
import { cdpPageDriver } from './page-driver.js';
import { disableCache } from './network.js';
import type { HostPage } from '../page-driver.js';
import { PerfError } from '../../errors.js';
import { launchChrome, type ChromeProcess, type LaunchOptions, type WebSocketDevTools } from './chrome.js';
import { cdpTabs, closeExtraPages } from './tabs.js';
import type { PageTabs, PageTracker } from '../tabs.js';

import type { RestartMode } from '../define.js';
// Declared with the drivers (each says which it offers); re-exported for the runner.
export { RESTART_MODES, type RestartMode } from '../define.js';

export interface BrowserSessionOptions extends LaunchOptions {
  /** Attach to this Chrome (ws:// or http://127.0.0.1:PORT) instead of launching one. */
  endpoint?: string;
  /**
   * A remote Chrome (a Selenium Grid session): each browser is a new remote session instead of a local
   * launch, owned like one (a browser restart is a new session; closing ends it).
   */
  remote?: RemoteConnector;
  /**
   * What to prepare for the next context restart, in the background after each one (its own browser
   * context, so nothing is shared). `page`: a whole clean page, so the restart costs a swap instead of
   * a renderer start; right for interactive sessions, where the next restart comes after idle time.
   * `context`: only the empty browser context; right for back-to-back repeats, where a renderer
   * starting in the background would slow the app loading in the foreground by as much as it saves.
   * `browser`: for browser restarts, a whole new Chrome (own profile) launched and connected, with
   * an empty browser context; the runner asks for it once a measured window has ended, so its start
   * overlaps the end-of-repeat work and the old browser's exit instead of the next repeat.
   * Call settle() before measuring so that work never overlaps a measured window. Default `page`.
   */
  prewarm?: 'page' | 'context' | 'browser' | 'none';
}

/**
 * A Chrome this harness owns but does not run: a remote session reached over CDP at its WebSocket (`devtools`).
 * Declared here so that this driver needs no other one; the composition (src/session/grid.ts, over
 * WebDriver) implements it and the runner passes it in.
 */
export interface RemoteChrome extends ChromeProcess<WebSocketDevTools> {
  /** The error that must end the run: the session went away without close() (its node died), once it did. */
  lost(): PerfError | undefined;
  /** The CDP connection dropped: the session is gone unless we were closing it. */
  markLost(reason: string): void;
  /** The error when close() could not end the session (no answer in time), once it could not. */
  undeleted(): PerfError | undefined;
  /** The error to report when the CDP connection to its WebSocket failed. */
  connectError(cause: unknown): PerfError;
}

/** Starts remote Chromes for a session: the first one, and one per browser restart. */
export interface RemoteConnector {
  /** Where they run, as a scenario's `browser.endpoint` names it (the run's environment shows it). */
  endpoint: string;
  start(opts: LaunchOptions): Promise<RemoteChrome>;
}

/** The app page a restart opens at once (see restartOpen). */
export type OpenSpec = Pick<OpenPageOptions, 'url' | 'prepare' | 'prepareContext'>;

interface SpareBrowser {
  chrome: ChromeProcess;
  browser: Browser;
  /** An empty browser context in it, for the first page. */
  contextId: string;
}

type Spare =
  | { kind: 'page'; page: Promise<Page | undefined> }
  | { kind: 'context'; id: Promise<string | undefined> }
  | { kind: 'browser'; started: Promise<SpareBrowser | undefined> };

/** What a restart gets from the spare, once it is ready: a clean page, an empty browser context, or a whole browser. */
type Taken = { kind: 'page'; page: Page } | { kind: 'context'; id: string } | ({ kind: 'browser' } & SpareBrowser);

export class BrowserSession {
  private spare: Spare | undefined;
  private tracker: (PageTracker & { dispose(): void }) | undefined;

  private constructor(
    private readonly opts: BrowserSessionOptions,
    public chrome: ChromeProcess | undefined,
    public browser: Browser,
    public page: Page,
  ) {}

  static async open(opts: BrowserSessionOptions = {}): Promise<BrowserSession> {
    const { chrome, browser } = await startBrowser(opts);
    try {
      const page = await browser.newPage({ isolated: true });
      return new BrowserSession(opts, chrome, browser, page);
    } catch (e) {
      await chrome?.close();
      // A remote session lost while the first page opened (its node died) is the Grid's problem: exit 3.
      throw (isRemote(chrome) ? chrome.lost() : undefined) ?? e;
    }
  }

  /** The current page as the steps drive it (a restart replaces it). */
  get driver(): HostPage {
    return cdpPageDriver(this.page);
  }

  /**
   * The pages of the app page's browser context, and the one steps act on. Made on first use (`create`):
   * a run that never names a page pays no target discovery. A restart's new page gets a new tracker.
   */
  tabs(create: boolean): PageTabs | undefined {
    if (this.tracker && this.tracker.main !== cdpPageDriver(this.page)) {
      this.tracker.dispose();
      this.tracker = undefined;
    }
    if (!this.tracker && create) this.tracker = cdpTabs(this.browser, this.page);
    return this.tracker;
  }

  /** A clean restart leaves one page: the tabs a repeat opened must not leak into the next (reload keeps the context). */
  private async leaveOnePage(mode: RestartMode): Promise<void> {
    const tracker = this.tabs(false);
    if (tracker) await tracker.closeOthers();
    else if (mode === 'reload' && this.browser.isConnected && !this.page.crashReason)
      await closeExtraPages(this.browser, this.page).catch(() => undefined);
  }

  get attached(): boolean {
    return this.opts.endpoint !== undefined;
  }

  /**
   * The error that must end the run: the remote (Grid) session went away under us (its node died, the
   * Grid dropped it). A new session would land on another node, and a run must not mix nodes.
   */
  gridLost(): PerfError | undefined {
    return isRemote(this.chrome) ? this.chrome.lost() : undefined;
  }

  /** Why the browser or page is unusable, or undefined when both are alive. */
  health(): string | undefined {
    if (this.chrome?.hasExited()) return `Chrome exited${this.chrome.stderrTail() ? ` (${lastLine(this.chrome.stderrTail())})` : ''}`;
    if (!this.browser.isConnected) return 'lost the connection to Chrome';
    return this.page.crashReason;
  }

  /**
   * Start clean by `mode` and return the new page (about:blank for context/browser; `url` reloaded
   * for reload). A dead page or browser is replaced whatever the mode, so a crash in one repeat
   * never takes the next one down with it.
   */
  async restart(mode: RestartMode, url?: string): Promise<Page> {
    await this.leaveOnePage(mode);
    const problem = this.health();
    if (problem && (this.chrome?.hasExited() || !this.browser.isConnected)) return restartBrowser(this);
    if (problem) return restartContext(this);
    switch (mode) {
      case 'reload':
        return restartReload(this, url);
      case 'context':
        return restartContext(this);
      case 'browser':
        return restartBrowser(this);
    }
  }

  /**
   * Start clean by `mode` (context or browser) with the app page already open: the new page gets
   * `open.prepareContext` and `open.prepare` before it navigates to `open.url` (Browser.openPage).
   * Returns the loaded page. A dead page or browser is replaced as in restart().
   */
  async restartOpen(mode: Exclude<RestartMode, 'reload'>, open: OpenSpec): Promise<Page> {
    await this.leaveOnePage(mode);
    const browserGone = this.chrome?.hasExited() || !this.browser.isConnected;
    if (mode === 'browser' || browserGone) return restartBrowser(this, open);
    return restartContext(this, open);
  }

  /** Start preparing what the next context restart needs (see `prewarm`), unless already on its way. */
  prepareSpare(): void {
    const kind = this.opts.prewarm ?? 'page';
    if (kind === 'none' || this.spare) return;
    const browser = this.browser;
    // A failed spare is not an error: the next restart simply builds its page the slow way.
    switch (kind) {
      case 'page':
        this.spare = { kind, page: browser.newPage({ isolated: true }).catch(() => undefined) };
        return;
      case 'context':
        this.spare = { kind, id: browser.newContext().catch(() => undefined) };
        return;
      case 'browser':
        // Only a browser we launch can be replaced by another. Not a remote (Grid) session: a spare would
        // queue for a slot the current session holds until the restart that waits for the spare.
        if (this.chrome && !this.opts.remote) this.spare = { kind, started: startSpareBrowser(this.opts) };
        return;
    }
  }

  /** @internal what was prepared, if usable, handed over exactly once. */
  async takeSpare(): Promise<Taken | undefined> {
    const spare = this.spare;
    this.spare = undefined;
    switch (spare?.kind) {
      case undefined:
        return undefined;
      case 'context': {
        const id = await spare.id;
        return id ? { kind: 'context', id } : undefined;
      }
      case 'browser': {
        const started = await spare.started;
        if (!started) return undefined;
        if (started.chrome.hasExited() || !started.browser.isConnected) {
          await started.chrome.close({ discard: true });
          return undefined;
        }
        return { kind: 'browser', ...started };
      }
      case 'page': {
        const page = await spare.page;
        if (!page) return undefined;
        if (page.crashReason || page.browser !== this.browser) {
          await page.close();
          return undefined;
        }
        return { kind: 'page', page };
      }
    }
  }

  /** Resolves when no background work (the spare) is in flight: call before a measured window. */
  async settle(): Promise<void> {
    switch (this.spare?.kind) {
      case undefined:
        return;
      case 'page':
        await this.spare.page;
        return;
      case 'context':
        await this.spare.id;
        return;
      case 'browser':
        await this.spare.started;
        return;
    }
  }

  /** @internal drop what was prepared (a browser restart, closing). */
  async dropSpare(): Promise<void> {
    await discardTaken(this.browser, await this.takeSpare());
  }

  async close(): Promise<void> {
    await this.dropSpare();
    if (this.chrome) {
      await this.browser.disconnect();
      await this.chrome.close();
    } else {
      // An attached Chrome is not ours to close: leave it as we found it, minus our page.
      await this.page.close();
      await this.browser.disconnect();
    }
  }

  /** @internal used by the restart functions */
  replace(parts: { chrome?: ChromeProcess; browser?: Browser; page: Page }): Page {
    if (parts.chrome) this.chrome = parts.chrome;
    if (parts.browser) this.browser = parts.browser;
    this.page = parts.page;
    return parts.page;
  }

  get options(): BrowserSessionOptions {
    return this.opts;
  }
}

function lastLine(s: string): string {
  const lines = s.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}

/** Give back what a spare held: its context, page or whole browser. */
async function discardTaken(browser: Browser, spare: Taken | undefined): Promise<void> {
  switch (spare?.kind) {
    case undefined:
      return;
    case 'context':
      return browser.disposeContext(spare.id);
    case 'page':
      return spare.page.close();
    case 'browser':
      await spare.browser.disconnect();
      return spare.chrome.close({ discard: true });
  }
}

async function startSpareBrowser(opts: BrowserSessionOptions): Promise<SpareBrowser | undefined> {
  try {
    const { chrome, browser } = await startBrowser({ ...opts, userDataDir: undefined });
    if (!chrome) return undefined;
    try {
      return { chrome, browser, contextId: await browser.newContext() };
    } catch {
      await browser.disconnect();
      await chrome.close({ discard: true });
      return undefined;
    }
  } catch {
    return undefined;
  }
}

function isRemote(chrome: ChromeProcess | undefined): chrome is RemoteChrome {
  return chrome !== undefined && 'markLost' in chrome;
}

async function startBrowser(opts: BrowserSessionOptions): Promise<{ chrome: ChromeProcess | undefined; browser: Browser }> {
  if (opts.endpoint) return { chrome: undefined, browser: await Browser.connect(opts.endpoint) };
  if (opts.remote) {
    const chrome = await opts.remote.start(opts);
    try {
      // A remote endpoint (a Grid's se:cdp, through its router) is the browser's own ws:// endpoint:
      // connected to directly, as there is no /json/version to discover it from.
      const browser = await Browser.launched(chrome);
      browser.onDisconnect((reason) => chrome.markLost(reason));
      return { chrome, browser };
    } catch (e) {
      await chrome.close();
      // Whatever failed (the router refused, the node went away), it is the remote session's: say so.
      throw chrome.connectError(e);
    }
  }
  const chrome = await launchChrome(opts);
  try {
    return { chrome, browser: await Browser.launched(chrome, opts.startTimeoutMs) };
  } catch (e) {
    await chrome.close();
    throw e;
  }
}

/**
 * `reload`: the same page and context, HTTP cache disabled, a fresh navigation (not Page.reload, so
 * no form or scroll state is restored). Storage survives: that is what distinguishes it.
 */
export async function restartReload(s: BrowserSession, url?: string): Promise<Page> {
  const target = url ?? (await s.page.evaluate<string>('location.href'));
  await disableCache(s.page);
  await s.page.navigate(target);
  return s.page;
}

/**
 * `context`: a new browser context and target; the old context (storage, cache, cookies) is
 * disposed. With `open`, the new page is opened at the app URL (see restartOpen).
 */
export async function restartContext(s: BrowserSession, open?: OpenSpec): Promise<Page> {
  const old = s.page;
  // Dispose first: the old renderer must not compete for the CPU while the new one starts.
  await old.close();
  let spare = await s.takeSpare();
  if (spare?.kind === 'browser') {
    // Prepared for a browser restart, but this one keeps the browser.
    await discardTaken(s.browser, spare);
    spare = undefined;
  }
  const page = await newCleanPage(s.browser, spare, open);
  s.replace({ page });
  s.prepareSpare();
  return page;
}

async function newCleanPage(browser: Browser, spare: Taken | undefined, open: OpenSpec | undefined): Promise<Page> {
  switch (spare?.kind) {
    case undefined:
      return open ? browser.openPage(open) : browser.newPage({ isolated: true });
    case 'context':
      return open
        ? browser.openPage({ ...open, browserContextId: spare.id })
        : browser.newPage({ isolated: true, browserContextId: spare.id });
    case 'browser':
      // Never handed here: restartContext discards it, restartBrowser takes its parts.
      throw new Error('a spare browser reached newCleanPage');
    case 'page':
      if (!open) return spare.page;
      // A page prepared ahead is already past its about:blank start: set it up, then navigate.
      await browser.openOn(spare.page, open);
      return spare.page;
  }
}

/** `browser`: kill Chrome and relaunch it with a new profile folder. With `open`, see restartOpen. */
export async function restartBrowser(s: BrowserSession, open?: OpenSpec): Promise<Page> {
  if (!s.chrome) {
    throw new PerfError({
      code: 'restart_browser_attached',
      message: 'restart mode "browser" needs a Chrome that perf launched; this session is attached to an existing one (endpoint)',
      suggestion: 'use browser.restart: context (or --restart context) with an endpoint',
    });
  }
  const spare = await s.takeSpare();
  if (spare?.kind !== 'browser') await discardTaken(s.browser, spare);
  // Read before disconnecting: our own disconnect is not a lost session.
  const lost = s.gridLost();
  const old = s.chrome;
  await s.browser.disconnect();
  await old.close({ discard: true });
  // A Grid session lost, or one the Grid did not delete, ends the run here: a new session would land
  // on another node, or wait for a slot the old one still holds.
  const ended = lost ?? (isRemote(old) ? old.undeleted() : undefined);
  if (ended) throw ended;
  const { chrome, browser } = spare?.kind === 'browser' ? spare : await startBrowser({ ...s.options, userDataDir: undefined });
  try {
    const page = await newCleanPage(browser, spare?.kind === 'browser' ? { kind: 'context', id: spare.contextId } : undefined, open);
    return s.replace({ chrome, browser, page });
  } catch (e) {
    // The old browser is gone: keep the new one as the session's, so close() still ends it.
    if (chrome) s.chrome = chrome;
    s.browser = browser;
    throw e;
  }
}
