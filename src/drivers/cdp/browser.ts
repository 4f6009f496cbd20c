/**
 * Browser and Page over one CDP connection. A Page is a flat session on a target, optionally in
 * its own browser context (storage and cache isolated, disposed with the page).
 */
import { PerfError } from '../../errors.js';
import { TargetClosedError } from '../errors.js';
import type { NavigateResult } from '../page-driver.js';
import {
  CdpConnection,
  ProtocolError,
  type CommandName,
  type EventName,
  type EventParams,
  type ParamsOf,
  type ResultOf,
} from './connection.js';
import { launchFailed, START_TIMEOUT_MS, type ChromeProcess } from './chrome.js';

export { ProtocolError, TargetClosedError };

export interface BrowserVersion {
  product: string;
  userAgent: string;
  protocolVersion: string;
  revision: string;
  jsVersion: string;
}

/**
 * `ws://…` is used as is; `http://127.0.0.1:PORT` is asked for its browser WebSocket URL
 * (/json/version), the way DevTools discovers a running Chrome.
 */
export async function resolveEndpoint(endpoint: string, timeoutMs = 5000): Promise<string> {
  if (/^wss?:\/\//.test(endpoint)) return endpoint;
  if (!/^https?:\/\//.test(endpoint)) {
    throw new PerfError({
      code: 'endpoint_invalid',
      message: `endpoint "${endpoint}" is neither a ws:// URL nor http://HOST:PORT`,
      suggestion: 'pass ws://127.0.0.1:9222/devtools/browser/<id> or http://127.0.0.1:9222',
    });
  }
  const url = new URL('/json/version', endpoint);
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json()) as { webSocketDebuggerUrl?: string };
    if (!body.webSocketDebuggerUrl) throw new Error('no webSocketDebuggerUrl in /json/version');
    return body.webSocketDebuggerUrl;
  } catch (cause) {
    throw new PerfError({
      code: 'endpoint_unreachable',
      kind: 'environment',
      message: `no Chrome answers at ${url.href}: ${(cause as Error).message}`,
      suggestion:
        'start Chrome with --remote-debugging-port=PORT --remote-debugging-address=127.0.0.1, or drop `endpoint` to let perf launch one',
      cause,
    });
  }
}

/** A page to open at its URL with what its first document must see set up before it navigates (Browser.openPage). */
export interface OpenPageOptions {
  url: string;
  /** Emulation, init scripts…: everything the first document must already see. */
  prepare: (page: Page) => Promise<unknown>;
  /**
   * What the browser context must hold before the page's first request: the saved sign-in's cookies.
   * Called for whichever context the page ends up in (its own, a spare page's), so `prepare` need not
   * repeat it.
   */
  prepareContext?: (browser: Browser, browserContextId: string) => Promise<unknown>;
  /** Create the page in this (prepared, empty) browser context, which it then owns; default a new one. */
  browserContextId?: string;
  timeoutMs?: number;
}

export class Browser {
  private crashHandlers = new Set<(reason: string) => void>();
  private autoAttach: Promise<void> | undefined;
  /** Pages being created by newPage, by browser context: their auto-attached session is handed over. */
  private readonly claims = new Map<string, (p: EventParams<'Target.attachedToTarget'>) => void>();
  /** Targets attach() is attaching to: their attachedToTarget event is ours, not auto-attach's. */
  private readonly attaching = new Set<string>();

  private constructor(
    readonly conn: CdpConnection,
    /** Where others can attach too; undefined over a pipe, which only this process holds. */
    readonly wsEndpoint: string | undefined,
    readonly version: BrowserVersion,
  ) {
    conn.onDisconnect((reason) => {
      for (const fn of this.crashHandlers) fn(reason);
    });
  }

  /** `exited`: resolves with how the browser process ended, for a browser we launched. */
  static async connect(endpoint: string, exited?: Promise<string>): Promise<Browser> {
    const ws = await resolveEndpoint(endpoint);
    const conn = await CdpConnection.connect(ws, exited);
    const version = await conn.send('Browser.getVersion');
    return new Browser(conn, ws, version);
  }

  /**
   * A browser we launched (or a remote session), over its pipe or its WebSocket. Over the pipe its first
   * answer is the sign it has started: none within `startTimeoutMs` (or its exit first) is a failed launch.
   */
  static async launched(chrome: ChromeProcess, startTimeoutMs = START_TIMEOUT_MS): Promise<Browser> {
    const devtools = chrome.devtools;
    if (devtools.kind === 'websocket') return Browser.connect(devtools.wsEndpoint, chrome.exitReason);
    const conn = CdpConnection.overPipe(devtools, chrome.exitReason);
    try {
      return new Browser(conn, undefined, await conn.send('Browser.getVersion', undefined, undefined, startTimeoutMs));
    } catch (e) {
      await conn.close();
      const why = e instanceof TargetClosedError ? e.message.replace(/^Browser\.getVersion: /, '') : String(e);
      throw launchFailed(`Chrome did not answer on its DevTools pipe: ${why}`, chrome.executablePath, chrome.stderrTail());
    }
  }

  get isConnected(): boolean {
    return !this.conn.isClosed;
  }

  /** Called when the connection to the browser is lost (Chrome exited or crashed). */
  onDisconnect(fn: (reason: string) => void): () => void {
    this.crashHandlers.add(fn);
    return () => this.crashHandlers.delete(fn);
  }

  /**
   * A new page. `isolated`: in a fresh browser context, so it shares no storage, cookies or cache
   * with any earlier page; closing the page disposes the context (`browserContextId`: a prepared
   * empty one to use instead of creating it).
   */
  async newPage(opts: { isolated: boolean; url?: string; browserContextId?: string }): Promise<Page> {
    const url = opts.url ?? 'about:blank';
    if (!opts.isolated) {
      const { targetId } = await this.conn.send('Target.createTarget', { url });
      return this.attach(targetId);
    }
    // Auto-attach hands the new target's session over as it is created: its set-up is sent while
    // the renderer starts, instead of after one more round trip (attachToTarget) once it has.
    const [browserContextId] = await Promise.all([opts.browserContextId ?? this.newContext(), this.enableAutoAttach()]);
    let page: Page | undefined;
    try {
      const { info, created } = await this.createClaimed(url, browserContextId, NAVIGATION_TIMEOUT_MS);
      page = new Page(this, info.targetInfo.targetId, info.sessionId, browserContextId);
      await Promise.all([page.init(), created]);
      return page;
    } catch (e) {
      if (page) await page.close();
      else await this.disposeContext(browserContextId);
      throw e;
    } finally {
      this.claims.delete(browserContextId);
    }
  }

  /**
   * Create a page target in `browserContextId` and resolve with its auto-attached session (paused
   * until released); `created` settles when Chrome answers createTarget. The caller deletes the claim.
   */
  private async createClaimed(
    url: string,
    browserContextId: string,
    timeoutMs: number,
  ): Promise<{ info: EventParams<'Target.attachedToTarget'>; created: Promise<unknown> }> {
    const attached = new Promise<EventParams<'Target.attachedToTarget'>>((resolve) => this.claims.set(browserContextId, resolve));
    const created = this.conn.send('Target.createTarget', { url, browserContextId });
    created.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new PerfError({
              code: 'timeout',
              kind: 'environment',
              message: `the new page for ${url} was not attached within ${timeoutMs} ms`,
            }),
          ),
        timeoutMs,
      );
    });
    const info = await Promise.race([attached, created.then(() => attached), late]).finally(() => clearTimeout(timer));
    return { info, created };
  }

  /** An empty browser context, for openPage (creating one ahead keeps it off a restart's path). */
  async newContext(): Promise<string> {
    return (await this.conn.send('Target.createBrowserContext', {})).browserContextId;
  }

  async disposeContext(browserContextId: string): Promise<void> {
    await this.conn.send('Target.disposeBrowserContext', { browserContextId }).catch(() => undefined);
  }

  /**
   * A new isolated page at `url` whose first document sees its set-up: created on about:blank (in
   * `opts.browserContextId` or a new context), given `prepareContext`'s context state and `prepare`'s
   * set-up, then navigated. Resolves after the load event.
   *
   * Creating the target at `url` paused and setting it up while the renderer booted was measured and
   * dropped: Chrome does not hold such a target, and its document committed before the set-up in 9 of
   * 18 restarts with a saved sign-in (bench:signin's app) and 1 of 15 without one; each was replaced by a
   * second page (+180 ms). The open phase of 15 context restarts: mean 194-209 ms that way, 167-175 ms
   * this way (medians 164-169 against 172-179).
   */
  async openPage(opts: OpenPageOptions): Promise<Page> {
    const page = await this.newPage({ isolated: true, ...(opts.browserContextId ? { browserContextId: opts.browserContextId } : {}) });
    try {
      await this.openOn(page, opts);
      return page;
    } catch (e) {
      await page.close();
      throw e;
    }
  }

  /** Open `opts.url` on `page`, still on its about:blank: its context's state and its set-up first, then the navigation. */
  async openOn(page: Page, opts: Omit<OpenPageOptions, 'browserContextId'>): Promise<void> {
    const context = page.browserContextId;
    await Promise.all([context && opts.prepareContext?.(this, context), opts.prepare(page)]);
    await page.navigate(opts.url, opts.timeoutMs ?? NAVIGATION_TIMEOUT_MS);
  }

  /**
   * Browser-wide auto-attach, enabled on first use and kept: switching it off would detach the
   * pages it attached. A target nobody claimed (a popup, a worker, a page that existed before) is
   * released at once and left alone, so nothing waits on us.
   */
  private enableAutoAttach(): Promise<void> {
    this.autoAttach ??= (async () => {
      this.conn.onBrowserEvent('Target.attachedToTarget', (p) => {
        if (this.attaching.has(p.targetInfo.targetId)) return;
        const claim =
          p.targetInfo.type === 'page' && p.targetInfo.browserContextId ? this.claims.get(p.targetInfo.browserContextId) : undefined;
        if (claim) {
          this.claims.delete(p.targetInfo.browserContextId!);
          claim(p);
          return;
        }
        const release = p.waitingForDebugger ? this.conn.send('Runtime.runIfWaitingForDebugger', {}, p.sessionId) : Promise.resolve();
        void release
          .catch(() => undefined)
          .then(() => this.conn.send('Target.detachFromTarget', { sessionId: p.sessionId }).catch(() => undefined));
      });
      await this.conn.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
    })();
    return this.autoAttach;
  }

  /** Pages (type "page") currently open, for attaching to an existing one. */
  async pageTargets(): Promise<{ targetId: string; url: string; browserContextId?: string }[]> {
    const { targetInfos } = await this.conn.send('Target.getTargets', {});
    return targetInfos
      .filter((t) => t.type === 'page')
      .map((t) => ({ targetId: t.targetId, url: t.url, ...(t.browserContextId ? { browserContextId: t.browserContextId } : {}) }));
  }

  async attach(targetId: string, ownedContextId?: string): Promise<Page> {
    this.attaching.add(targetId);
    const { sessionId } = await this.conn
      .send('Target.attachToTarget', { targetId, flatten: true })
      .finally(() => this.attaching.delete(targetId));
    const page = new Page(this, targetId, sessionId, ownedContextId);
    await page.init();
    return page;
  }

  async close(): Promise<void> {
    await this.conn.send('Browser.close', {}, undefined, 3000).catch(() => undefined);
    await this.conn.close();
  }

  /** Drop the connection without closing the browser (an attached or session browser). */
  async disconnect(): Promise<void> {
    await this.conn.close();
  }
}

// 30 s, like Playwright's default navigation timeout: slow dev servers compile on first request.
const NAVIGATION_TIMEOUT_MS = 30_000;

export class Page {
  private crashed: string | undefined;
  private closed = false;
  private readonly crashHandlers = new Set<(reason: string) => void>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    readonly browser: Browser,
    readonly targetId: string,
    readonly sessionId: string,
    /** The browser context this page owns (disposed on close), if isolated. */
    readonly browserContextId: string | undefined,
  ) {}

  async init(): Promise<void> {
    this.unsubscribe.push(
      this.on('Inspector.targetCrashed', () => this.markCrashed('the page crashed (renderer process died)')),
      this.browser.conn.on('Target.detachedFromTarget', (p) => {
        if (p.sessionId === this.sessionId && !this.closed) this.markCrashed('the page was closed or its renderer died');
      }),
      // Whatever waits on this page (a load, an event, a step) learns at once that the browser is gone.
      this.browser.onDisconnect((reason) => this.markCrashed(reason)),
    );
    // In parallel: each is one round trip; sequentially they would add up on every restart.
    await Promise.all([this.send('Page.enable'), this.send('Inspector.enable'), this.send('Runtime.runIfWaitingForDebugger')]);
  }

  private markCrashed(reason: string): void {
    if (this.crashed || this.closed) return;
    this.crashed = reason;
    this.browser.conn.failSession(this.sessionId, reason);
    for (const fn of this.crashHandlers) fn(reason);
  }

  /** Why the page is gone, if it crashed or was closed under us. */
  get crashReason(): string | undefined {
    return this.crashed;
  }

  onCrash(fn: (reason: string) => void): () => void {
    this.crashHandlers.add(fn);
    return () => this.crashHandlers.delete(fn);
  }

  send<M extends CommandName>(method: M, params?: ParamsOf<M>, timeoutMs?: number): Promise<ResultOf<M>> {
    if (this.crashed) return Promise.reject(new TargetClosedError(`${method}: ${this.crashed}`));
    const sent = this.browser.conn.send(method, params, this.sessionId, timeoutMs);
    // Chromium has no getter for these: keep what this target acknowledged. The throttling rate, so
    // perf reports state the rate in effect instead of assuming the scenario's; whether a device
    // metrics override is on, so a reset knows to wait for the page to see it go; the network
    // conditions, which run files record.
    switch (method) {
      case 'Emulation.setCPUThrottlingRate':
        return sent.then((r) => {
          this.emulation.cpuThrottlingRate = (params as { rate: number }).rate;
          return r;
        });
      case 'Network.emulateNetworkConditions':
        return sent.then((r) => {
          const c = params as { offline: boolean; latency: number; downloadThroughput: number; uploadThroughput: number };
          const throttled = c.offline || c.latency > 0 || c.downloadThroughput > 0 || c.uploadThroughput > 0;
          this.emulation.network = throttled ? c : undefined;
          return r;
        });
      case 'Emulation.setDeviceMetricsOverride':
      case 'Emulation.clearDeviceMetricsOverride':
        return sent.then((r) => {
          this.emulation.deviceMetricsOverride = method === 'Emulation.setDeviceMetricsOverride';
          return r;
        });
      default:
        return sent;
    }
  }

  /** Emulation this page's target acknowledged through send() (Chromium cannot be asked for it). */
  readonly emulation: {
    cpuThrottlingRate?: number;
    deviceMetricsOverride?: boolean;
    network?: { offline: boolean; latency: number; downloadThroughput: number; uploadThroughput: number } | undefined;
  } = {};

  on<E extends EventName>(event: E, handler: (params: EventParams<E>) => void): () => void {
    return this.browser.conn.on(event, handler, this.sessionId);
  }

  /** Resolve with the first `event` whose params satisfy `predicate`; reject on timeout or crash. */
  waitForEvent<E extends EventName>(
    event: E,
    predicate: (p: EventParams<E>) => boolean = () => true,
    timeoutMs = NAVIGATION_TIMEOUT_MS,
    /** Stop waiting early (listener and timer released; the promise rejects). */
    signal?: AbortSignal,
  ): Promise<EventParams<E>> {
    return new Promise((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        off();
        offCrash();
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        cleanup();
        reject(new PerfError({ code: 'interrupted', kind: 'failed', message: `stopped waiting for ${event}` }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => {
        cleanup();
        reject(new PerfError({ code: 'timeout', kind: 'failed', message: `timed out after ${timeoutMs} ms waiting for ${event}` }));
      }, timeoutMs);
      const off = this.on(event, (p) => {
        if (!predicate(p)) return;
        cleanup();
        resolve(p);
      });
      const offCrash = this.onCrash((reason) => {
        cleanup();
        reject(new TargetClosedError(reason));
      });
    });
  }

  /** Navigate and wait for the load event of the new document. */
  async navigate(url: string, timeoutMs = NAVIGATION_TIMEOUT_MS): Promise<NavigateResult> {
    if (url === 'about:blank') return this.navigateBlank(timeoutMs);
    // Released on every exit: a same-document or failed navigation fires no load event, and a
    // pending waiter would hold its timer (and the process) for the whole timeout.
    const stop = new AbortController();
    const loaded = this.waitForEvent('Page.loadEventFired', () => true, timeoutMs, stop.signal);
    loaded.catch(() => undefined);
    try {
      const res = await this.send('Page.navigate', { url });
      if (res.errorText) {
        throw new PerfError({
          code: 'navigation_failed',
          kind: 'environment',
          message: `could not open ${url}: ${res.errorText}`,
          suggestion: 'check that the app is running and the path exists',
        });
      }
      if (!res.loaderId) return { url, newDocument: false };
      await loaded;
      return { url, newDocument: true };
    } finally {
      stop.abort();
    }
  }

  /**
   * about:blank from a page that may already show it (a fresh target's first document): Chromium then
   * fires no load event, so the new document is awaited by asking it.
   */
  private async navigateBlank(timeoutMs: number): Promise<NavigateResult> {
    const deadline = Date.now() + timeoutMs;
    await this.send('Page.navigate', { url: 'about:blank' }, timeoutMs);
    // 20 ms: about:blank commits within a frame or two; polling faster only adds round trips.
    const BLANK_POLL_MS = 20;
    while (Date.now() < deadline) {
      const here = await this.evaluate<boolean>("location.href === 'about:blank' && document.readyState === 'complete'").catch(() => false);
      if (here) return { url: 'about:blank', newDocument: true };
      await new Promise((r) => setTimeout(r, BLANK_POLL_MS));
    }
    throw new PerfError({
      code: 'timeout',
      kind: 'environment',
      message: `timed out after ${timeoutMs} ms waiting for about:blank to open`,
      suggestion: 'the browser is stuck: check `perf doctor`',
    });
  }

  /** Evaluate an expression in the page (promises awaited), returning its JSON value. */
  async evaluate<T = unknown>(expression: string, opts: { awaitPromise?: boolean; timeoutMs?: number } = {}): Promise<T> {
    const res = await this.send(
      'Runtime.evaluate',
      { expression, returnByValue: true, awaitPromise: opts.awaitPromise ?? true, userGesture: true },
      opts.timeoutMs,
    );
    if (res.exceptionDetails) {
      const d = res.exceptionDetails;
      const text = d.exception?.description ?? d.exception?.value ?? d.text;
      throw new PerfError({ code: 'evaluate_failed', kind: 'failed', message: `page script threw: ${String(text).split('\n')[0]}` });
    }
    return res.result.value as T;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Close the target and dispose its context, if it owns one. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const off of this.unsubscribe.splice(0)) off();
    if (this.browserContextId) {
      // Disposing the context closes its targets too: one round trip instead of two.
      await this.browser.conn.send('Target.disposeBrowserContext', { browserContextId: this.browserContextId }).catch(() => undefined);
    } else {
      await this.browser.conn.send('Target.closeTarget', { targetId: this.targetId }).catch(() => undefined);
    }
  }
}
