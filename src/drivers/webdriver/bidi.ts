/**
 * The little of WebDriver BiDi the driver uses, over the session's `webSocketUrl` when the server
 * offers one (chromedriver does; Debian's WebKitWebDriver 2.50 does not): scripts that run at the
 * start of every document (`script.addPreloadScript`, removed again with `script.removePreloadScript`),
 * which WebDriver classic has no way to do, and the network events a measured load watches.
 * A thin typed client over `ws`: one command at a time, answers matched by id.
 */
import type WebSocket from 'ws';
import { TargetClosedError } from '../errors.js';

// 10 s: a BiDi command answers in milliseconds; beyond this the browser is gone or hung.
const COMMAND_TIMEOUT_MS = 10_000;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export class BidiConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(params: Record<string, unknown>) => void>>();
  private closedReason: string | undefined;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => this.onMessage(String(data)));
    ws.on('close', () => this.fail('the BiDi connection closed'));
    ws.on('error', (e) => this.fail(`the BiDi connection failed: ${e.message}`));
  }

  static async connect(url: string): Promise<BidiConnection> {
    // ws loads with the first BiDi connection, not with every CLI command (~25 ms of each process's start).
    const { default: Ws } = await import('ws');
    return new Promise((resolve, reject) => {
      const ws = new Ws(url, { perMessageDeflate: false });
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new TargetClosedError(`BiDi: no connection to ${url} in ${COMMAND_TIMEOUT_MS} ms`));
      }, COMMAND_TIMEOUT_MS);
      ws.once('open', () => {
        clearTimeout(timer);
        resolve(new BidiConnection(ws));
      });
      ws.once('error', (e) => {
        clearTimeout(timer);
        reject(new TargetClosedError(`BiDi: could not connect to ${url}: ${e.message}`));
      });
    });
  }

  send<T>(method: string, params: Record<string, unknown>): Promise<T> {
    if (this.closedReason) return Promise.reject(new TargetClosedError(this.closedReason));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new TargetClosedError(`BiDi ${method}: no answer in ${COMMAND_TIMEOUT_MS} ms`));
      }, COMMAND_TIMEOUT_MS);
      this.pending.set(id, { resolve: (v) => resolve(v as T), reject, timer });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /**
   * Run `source` (statements) at the start of every document of the session, before the page's own
   * scripts; returns the script's id for removePreloadScript. The body goes on lines of its own: a
   * source that ends in a `//# sourceURL` comment would otherwise comment out the closing brace.
   */
  async addPreloadScript(source: string): Promise<string> {
    const { script } = await this.send<{ script: string }>('script.addPreloadScript', { functionDeclaration: `() => {\n${source}\n}` });
    return script;
  }

  /** Stop running a preload script in new documents (the documents it already ran in keep what it did). */
  async removePreloadScript(script: string): Promise<void> {
    await this.send('script.removePreloadScript', { script });
  }

  /** Call `fn` with the params of every `method` event (sent once subscribed to); returns the switch that stops it. */
  on(method: string, fn: (params: Record<string, unknown>) => void): () => void {
    const set = this.listeners.get(method) ?? new Set();
    this.listeners.set(method, set.add(fn));
    return () => set.delete(fn);
  }

  /** Have the browser send `events` (for every context of the session); returns the unsubscribe. */
  async subscribe(events: string[]): Promise<() => Promise<void>> {
    const { subscription } = await this.send<{ subscription?: string }>('session.subscribe', { events });
    // Servers before the subscription ids (BiDi 2024) unsubscribe by event name.
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
    if (msg.id === undefined) {
      if (msg.type === 'event' && msg.method)
        for (const fn of this.listeners.get(msg.method) ?? []) fn((msg.params ?? {}) as Record<string, unknown>);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.type === 'error') p.reject(new Error(`BiDi: ${msg.error ?? 'error'}: ${msg.message ?? ''}`));
    else p.resolve(msg.result);
  }

  private fail(reason: string): void {
    this.closedReason ??= reason;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new TargetClosedError(reason));
    }
    this.pending.clear();
  }
}

/** What the page driver and a measured load use of a BiDi connection: this one, or the bidi driver's (Firefox). */
export type BidiChannel = Pick<BidiConnection, 'send' | 'on' | 'subscribe' | 'addPreloadScript' | 'removePreloadScript'> & {
  /**
   * Its network events' response.bytesReceived is what came over the wire, headers and encoded body (measured
   * on Firefox 153): a measured load's bytes are then BiDi's. Not set for chromedriver's, whose figure is unchecked.
   */
  readonly wireBytes?: boolean;
};
