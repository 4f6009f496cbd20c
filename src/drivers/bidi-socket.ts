/**
 * The one WebDriver BiDi socket (https://w3c.github.io/webdriver-bidi/), over `ws`, for both drivers that
 * speak BiDi: the bidi driver (Firefox, which speaks BiDi only) and the webdriver driver (the session's
 * `webSocketUrl` when the server offers one: chromedriver does, Debian's WebKitWebDriver 2.50 does not).
 * Commands with ids and a deadline each, events to listeners, error answers as WebDriverError (BiDi's
 * error names are WebDriver's), a connection gone as TargetClosedError. Ours rather than a library's:
 * puppeteer-core and webdriverio each bring a browser-download and a protocol layer for the twenty
 * commands used here. It sits beside the driver contract because a driver may not import another
 * driver; only src/drivers may import it, and only it and src/drivers/bidi import `ws`
 * (.dependency-cruiser.cjs).
 */
import type WebSocket from 'ws';
import { TargetClosedError, WebDriverError, WebDriverTimeoutError } from './errors.js';

// 30 s: a BiDi command answers in milliseconds; one that waits in the page passes its own deadline.
const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
// 10 s to open the socket: the server is already listening when it hands out the URL.
const CONNECT_TIMEOUT_MS = 10_000;
// 256 MiB: a screenshot of a large page comes back as one base64 message (ws's own cap is 100 MiB).
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

type Listener = (params: Record<string, unknown>) => void;

export interface BidiSocketOptions {
  /** Who answers at the other end ("Firefox", "the WebDriver server"): named when the connection closes. */
  peer: string;
  /** The deadline of a command whose caller names none (default 30 s). */
  commandTimeoutMs?: number;
}

export class BidiSocket {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly closeHandlers = new Set<(reason: string) => void>();
  private readonly anyEvent = new Set<(event: { method: string; params: unknown }) => void>();
  private closedReason: string | undefined;
  private readonly commandTimeoutMs: number;

  private constructor(
    private readonly ws: WebSocket,
    readonly url: string,
    opts: BidiSocketOptions,
  ) {
    this.commandTimeoutMs = opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    ws.on('message', (data) => this.onMessage(String(data)));
    ws.on('close', () => this.fail(`the BiDi connection closed (${opts.peer} exited?)`));
    ws.on('error', (e) => this.fail(`the BiDi connection failed: ${e.message}`));
  }

  static async connect(url: string, opts: BidiSocketOptions): Promise<BidiSocket> {
    // ws loads with the first BiDi connection, not with every CLI command (~25 ms of each process's start).
    const { default: Ws } = await import('ws');
    return new Promise((resolve, reject) => {
      // Firefox refuses a WebSocket upgrade that names a foreign Origin; ws sends none.
      const ws = new Ws(url, { perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new TargetClosedError(`BiDi: no connection to ${url} in ${CONNECT_TIMEOUT_MS} ms`));
      }, CONNECT_TIMEOUT_MS);
      ws.once('open', () => {
        clearTimeout(timer);
        resolve(new BidiSocket(ws, url, opts));
      });
      ws.once('error', (e) => {
        clearTimeout(timer);
        reject(new TargetClosedError(`BiDi: could not connect to ${url}: ${e.message}`));
      });
    });
  }

  get closed(): string | undefined {
    return this.closedReason;
  }

  /** One command; its result, or a WebDriverError with BiDi's error name, or TargetClosedError past `timeoutMs`. */
  send<T>(method: string, params: Record<string, unknown>, timeoutMs = this.commandTimeoutMs): Promise<T> {
    if (this.closedReason) return Promise.reject(new TargetClosedError(this.closedReason));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new WebDriverTimeoutError(`BiDi ${method}`, this.url, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { method, resolve: (v) => resolve(v as T), reject, timer });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Call `fn` with the params of every `method` event (once subscribed); returns the switch that stops it. */
  on(method: string, fn: Listener): () => void {
    const set = this.listeners.get(method) ?? new Set();
    this.listeners.set(method, set.add(fn));
    return () => set.delete(fn);
  }

  /** Every event, whatever its method (a relay passes them on). */
  onEvent(fn: (event: { method: string; params: unknown }) => void): () => void {
    this.anyEvent.add(fn);
    return () => this.anyEvent.delete(fn);
  }

  onClose(fn: (reason: string) => void): () => void {
    this.closeHandlers.add(fn);
    return () => this.closeHandlers.delete(fn);
  }

  /** Have the browser send `events` (for `contexts`, or every context of the session); returns the unsubscribe. */
  async subscribe(events: string[], contexts?: string[]): Promise<() => Promise<void>> {
    const { subscription } = await this.send<{ subscription?: string }>('session.subscribe', { events, ...(contexts ? { contexts } : {}) });
    // Servers before the subscription ids (BiDi 2024) unsubscribe by event name, and by the contexts subscribed for:
    // events alone do not match a subscription for contexts (Firefox 153: "Failed to unsubscribe from events").
    return async () => {
      await this.send(
        'session.unsubscribe',
        subscription ? { subscriptions: [subscription] } : { events, ...(contexts ? { contexts } : {}) },
      );
    };
  }

  close(): void {
    this.fail('the BiDi connection was closed');
    this.ws.terminate();
  }

  private onMessage(text: string): void {
    let msg: { id?: number; type?: string; result?: unknown; error?: string; message?: string; method?: string; params?: unknown };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return;
    }
    if (msg.id === undefined || msg.id === null) {
      if (msg.type !== 'event' || !msg.method) return;
      for (const fn of this.listeners.get(msg.method) ?? []) fn((msg.params ?? {}) as Record<string, unknown>);
      for (const fn of this.anyEvent) fn({ method: msg.method, params: msg.params ?? {} });
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.type === 'error') p.reject(errorAnswer(p.method, msg.error ?? 'unknown error', msg.message ?? ''));
    else p.resolve(msg.result);
  }

  private fail(reason: string): void {
    const first = this.closedReason === undefined;
    this.closedReason ??= reason;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new TargetClosedError(reason));
    }
    this.pending.clear();
    if (first) for (const fn of this.closeHandlers) fn(reason);
  }
}

/** A BiDi error answer as the typed error: a context or session gone is the page gone, as over WebDriver classic. */
function errorAnswer(method: string, error: string, detail: string): Error {
  if (error === 'invalid session id' || (error === 'no such frame' && /closed|discarded/i.test(detail)))
    return new TargetClosedError(`BiDi ${method}: ${error}: ${detail}`);
  return new WebDriverError(`BiDi ${method}`, error, detail);
}

/**
 * What the webdriver page driver and a measured load use of BiDi: commands, events, and scripts that run at the
 * start of every document (`script.addPreloadScript`), which WebDriver classic has no way to do.
 */
export interface BidiChannel {
  send: BidiSocket['send'];
  on: BidiSocket['on'];
  /** Have the browser send `events` for the channel's pages; returns the unsubscribe. */
  subscribe(events: string[]): Promise<() => Promise<void>>;
  /**
   * Run `source` (statements) at the start of every document of the channel's pages, before the page's own
   * scripts; returns the script's id for removePreloadScript.
   */
  addPreloadScript(source: string): Promise<string>;
  /** Stop running a preload script in new documents (the documents it already ran in keep what it did). */
  removePreloadScript(script: string): Promise<void>;
  /**
   * Its network events' response.bytesReceived is what came over the wire, headers and encoded body (measured
   * on Firefox 153): a measured load's bytes are then BiDi's. Not set for chromedriver's, whose figure is unchecked.
   */
  readonly wireBytes?: boolean;
}

/**
 * The channel over `socket`: for every context of the session (chromedriver's, one page per session), or for one
 * tab and its user context (Firefox's shared session: a preload script reaches that repeat's documents only, and
 * goes with the user context).
 */
export function bidiChannel(socket: BidiSocket, scope?: { context: string; userContext: string }): BidiChannel {
  return {
    send: (method, params, timeoutMs) => socket.send(method, params, timeoutMs),
    on: (method, fn) => socket.on(method, fn),
    subscribe: (events) => socket.subscribe(events, scope ? [scope.context] : undefined),
    addPreloadScript: async (source) => {
      // The body on lines of its own: a source ending in a `//# sourceURL` comment would comment out the brace.
      const { script } = await socket.send<{ script: string }>('script.addPreloadScript', {
        functionDeclaration: `() => {\n${source}\n}`,
        ...(scope ? { userContexts: [scope.userContext] } : {}),
      });
      return script;
    },
    removePreloadScript: async (script) => {
      await socket.send('script.removePreloadScript', { script });
    },
  };
}
