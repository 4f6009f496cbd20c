/**
 * A small typed WebDriver BiDi client over `ws` (https://w3c.github.io/webdriver-bidi/): commands with
 * ids and a deadline each, events to listeners, error answers as WebDriverError (BiDi's error names are
 * WebDriver's), a connection gone as TargetClosedError. Ours rather than a library's: puppeteer-core and
 * webdriverio each bring a browser-download and a protocol layer for the twenty commands used here.
 */
import type WebSocket from 'ws';
import { TargetClosedError, WebDriverError, WebDriverTimeoutError } from '../errors.js';

// 30 s: a BiDi command answers in milliseconds; one that waits in the page passes its own deadline.
const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
// 10 s to open the socket: the server is already listening when Firefox prints its port.
const CONNECT_TIMEOUT_MS = 10_000;

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

type Listener = (params: Record<string, unknown>) => void;

export class BidiSocket {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly closeHandlers = new Set<(reason: string) => void>();
  private readonly anyEvent = new Set<(event: { method: string; params: unknown }) => void>();
  private closedReason: string | undefined;

  private constructor(
    private readonly ws: WebSocket,
    readonly url: string,
  ) {
    ws.on('message', (data) => this.onMessage(String(data)));
    ws.on('close', () => this.fail('the BiDi connection closed (Firefox exited?)'));
    ws.on('error', (e) => this.fail(`the BiDi connection failed: ${e.message}`));
  }

  static async connect(url: string): Promise<BidiSocket> {
    const { default: Ws } = await import('ws');
    return new Promise((resolve, reject) => {
      // Firefox refuses a WebSocket upgrade that names a foreign Origin; ws sends none.
      const ws = new Ws(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new TargetClosedError(`BiDi: no connection to ${url} in ${CONNECT_TIMEOUT_MS} ms`));
      }, CONNECT_TIMEOUT_MS);
      ws.once('open', () => {
        clearTimeout(timer);
        resolve(new BidiSocket(ws, url));
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
  send<T>(method: string, params: Record<string, unknown>, timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS): Promise<T> {
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

  /** Have the browser send `events`; returns the unsubscribe. */
  async subscribe(events: string[], contexts?: string[]): Promise<() => Promise<void>> {
    const { subscription } = await this.send<{ subscription?: string }>('session.subscribe', { events, ...(contexts ? { contexts } : {}) });
    return async () => {
      await this.send('session.unsubscribe', subscription ? { subscriptions: [subscription] } : { events });
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
    if (msg.type === 'error') {
      const error = msg.error ?? 'unknown error';
      const detail = msg.message ?? '';
      // A context or session gone is the page gone, as over WebDriver classic.
      if (error === 'invalid session id' || (error === 'no such frame' && /closed|discarded/i.test(detail)))
        p.reject(new TargetClosedError(`BiDi ${p.method}: ${error}: ${detail}`));
      else p.reject(new WebDriverError(`BiDi ${p.method}`, error, detail));
    } else p.resolve(msg.result);
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
