/**
 * One channel to the browser, flat sessions for pages (Target.attachToTarget with flatten): context
 * restarts then cost no new handshake. The channel is the pipe of a browser we launched (pipe.ts), or a
 * WebSocket (chrome-remote-interface) to an endpoint others can reach too: a `perf start` session's
 * port, a Grid, a user's `endpoint`. This file and its siblings are the only code that imports
 * chrome-remote-interface.
 */
import type { EventEmitter } from 'node:events';
import type CDP from 'chrome-remote-interface';
import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping.js';
import { PerfError } from '../../errors.js';
import { hideCredentials } from '../../url.js';
import { TargetClosedError } from '../errors.js';
import { PipeClient, type Callback, type DevToolsPipe } from './pipe.js';

export type Commands = ProtocolMapping.Commands;
export type Events = ProtocolMapping.Events;
export type CommandName = keyof Commands;
export type EventName = keyof Events;
export type ParamsOf<M extends CommandName> = Commands[M]['paramsType'] extends []
  ? Record<string, never> | undefined
  : Commands[M]['paramsType'][0];
export type ResultOf<M extends CommandName> = Commands[M]['returnType'];
export type EventParams<E extends EventName> = Events[E] extends [infer P] ? P : undefined;

/** A CDP error from the browser (method failed), not a transport problem. */
export class ProtocolError extends Error {
  constructor(
    readonly method: string,
    readonly protocolMessage: string,
  ) {
    super(`${method}: ${protocolMessage}`);
    this.name = 'ProtocolError';
  }
}

interface Pending {
  method: string;
  reject: (e: Error) => void;
}

/**
 * What CdpConnection needs of a client, chrome-remote-interface's way: `send` answers through a callback
 * (`true` and the protocol error, or `false` and the result, or an Error when the channel failed);
 * events are emitted by method (params, sessionId) and by `method.sessionId`; 'disconnect' when the
 * browser's end closed.
 */
interface CdpClient extends Pick<EventEmitter, 'on' | 'off'> {
  send(method: string, params: unknown, sessionId: string | undefined, callback: Callback): void;
  close(): Promise<void>;
  /** Drop the channel now, without a closing handshake. */
  terminate(): void;
}

type CriClient = Awaited<ReturnType<typeof CDP>>;
/** chrome-remote-interface's client as it is at run time: an EventEmitter with its `ws` WebSocket in `_ws` (not in its types). */
type CriRuntime = CriClient & EventEmitter & { _ws?: { terminate?: () => void } };

/** chrome-remote-interface's client over a WebSocket, as a CdpClient. */
function webSocketClient(client: CriRuntime): CdpClient {
  // One listener per page session and event is normal for us, not a leak.
  client.setMaxListeners(0);
  return {
    send: (method, params, sessionId, callback) =>
      // Its send(method, params, sessionId, callback) is typed per method; ours passes any method through.
      (client.send as (m: string, p: unknown, s: string | undefined, cb: Callback) => void)(method, params, sessionId, callback),
    on: (event, listener) => client.on(event, listener),
    off: (event, listener) => client.off(event, listener),
    close: () => client.close(),
    terminate: () => client._ws?.terminate?.(),
  };
}

// 30 s: longer than any sane single CDP command (a navigation waits separately), short enough that
// a hung renderer is reported rather than waited on forever.
const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
// 30 s to open the WebSocket: a local Chrome answers in milliseconds, a Grid's router in a second; a
// server that accepts the connection and never upgrades it must not hold the run.
const CONNECT_TIMEOUT_MS = 30_000;
// 5 s for the closing handshake: a peer that never answers our close frame (a Grid router whose node
// died) is then cut off rather than waited on.
const CLOSE_TIMEOUT_MS = 5000;
// 300 ms: a killed process is reaped within a few ms of its socket closing; the wait only bounds
// how late a failure is reported when the exit status never comes (an attached browser).
const EXIT_STATUS_WAIT_MS = 300;

export class CdpConnection {
  private closed: string | undefined;
  /** Set the moment the socket closes under us: resolves with why (how the browser ended, when known). */
  private lost: Promise<string> | undefined;
  private readonly pendingBySession = new Map<string, Set<Pending>>();
  private readonly disconnectHandlers = new Set<(reason: string) => void>();

  private constructor(
    private readonly client: CdpClient,
    exited: Promise<string> | undefined,
  ) {
    // The socket usually closes a moment before the process is reaped: wait briefly for the exit
    // status, so what failed says how the browser died rather than only that the socket closed.
    client.on('disconnect', () => {
      const plain = 'the connection to the browser closed (it exited or crashed)';
      this.lost ??= exited
        ? Promise.race([exited, new Promise<string>((r) => setTimeout(() => r(plain), EXIT_STATUS_WAIT_MS).unref())])
        : Promise.resolve(plain);
      void this.lost.then((reason) => this.markClosed(reason));
    });
    // A browser process that exits while its socket lingers (a child still holding it) is gone all
    // the same: fail everything now rather than at each command's timeout.
    void exited?.then((reason) => {
      if (this.closed) return;
      this.markClosed(reason);
      // The browser is gone: no closing handshake to wait for (ws would hold the process 30 s for one).
      this.terminate();
    });
    // A detached or crashed target never answers its pending commands: fail them now.
    client.on('Target.detachedFromTarget', (p: { sessionId: string }) => this.failSession(p.sessionId, 'page closed'));
  }

  /** Over the DevTools pipe of a browser we launched: `exited` as for connect(). */
  static overPipe(pipe: DevToolsPipe, exited: Promise<string>): CdpConnection {
    return new CdpConnection(new PipeClient(pipe), exited);
  }

  /** `exited`: resolves with how the browser process ended, when we launched it (see markClosed). */
  static async connect(wsEndpoint: string, exited?: Promise<string>, timeoutMs = CONNECT_TIMEOUT_MS): Promise<CdpConnection> {
    let timer: NodeJS.Timeout | undefined;
    // An empty protocol descriptor: we only use send() and raw events, so skip both the HTTP fetch
    // of /json/protocol and building a wrapper object for every domain (tens of ms per connect).
    // The library (and ws under it) loads with the first connection, not with every CLI command: ~55 ms of each start.
    const connecting = import('chrome-remote-interface').then(({ default: connectCdp }) =>
      connectCdp({ target: wsEndpoint, protocol: { version: { major: '1', minor: '3' }, domains: [] } } as unknown as Parameters<
        typeof CDP
      >[0]),
    );
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no WebSocket connection within ${timeoutMs} ms`)), timeoutMs);
      });
      const client = await Promise.race([connecting, late]);
      return new CdpConnection(webSocketClient(client as CriRuntime), exited);
    } catch (cause) {
      // A connection that opens after the deadline is closed, not leaked.
      void connecting.then((c) => c.close()).catch(() => undefined);
      throw new PerfError({
        code: 'cdp_connect_failed',
        kind: 'environment',
        message: hideCredentials(`could not connect to Chrome at ${wsEndpoint}: ${(cause as Error).message}`),
        suggestion: 'check that Chrome is running with --remote-debugging-port and the endpoint is current',
        cause,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  get isClosed(): boolean {
    return this.closed !== undefined || this.lost !== undefined;
  }

  /** Why the connection is gone, once known (immediately when the harness closed it). */
  private whyGone(): Promise<string> | undefined {
    return this.closed !== undefined ? Promise.resolve(this.closed) : this.lost;
  }

  onDisconnect(fn: (reason: string) => void): () => void {
    this.disconnectHandlers.add(fn);
    return () => this.disconnectHandlers.delete(fn);
  }

  private markClosed(reason: string): void {
    if (this.closed) return;
    this.closed = reason;
    for (const sessionId of [...this.pendingBySession.keys()]) this.failSession(sessionId, reason);
    for (const fn of this.disconnectHandlers) fn(reason);
  }

  failSession(sessionId: string, reason: string): void {
    const set = this.pendingBySession.get(sessionId);
    if (!set) return;
    this.pendingBySession.delete(sessionId);
    for (const p of set) p.reject(new TargetClosedError(`${p.method}: ${reason}`));
  }

  send<M extends CommandName>(
    method: M,
    params?: ParamsOf<M>,
    sessionId?: string,
    timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
  ): Promise<ResultOf<M>> {
    const gone = this.whyGone();
    if (gone) return gone.then((reason) => Promise.reject(new TargetClosedError(`${method}: ${reason}`)));
    const key = sessionId ?? '';
    return new Promise<ResultOf<M>>((resolve, reject) => {
      let set = this.pendingBySession.get(key);
      if (!set) this.pendingBySession.set(key, (set = new Set()));
      const pending: Pending = { method, reject };
      set.add(pending);
      const timer = setTimeout(() => {
        set!.delete(pending);
        reject(new TargetClosedError(`${method}: no answer from Chrome in ${timeoutMs} ms (page hung or crashed)`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        set!.delete(pending);
      };
      pending.reject = (e) => {
        done();
        reject(e);
      };
      const cb = (error: unknown, response: unknown): void => {
        done();
        if (error === true) {
          const msg = (response as { message?: string; data?: string } | undefined) ?? {};
          reject(new ProtocolError(method, [msg.message, msg.data].filter(Boolean).join(': ')));
        } else if (error) {
          // The client fails pending commands just before it reports the socket closed: wait for that
          // report, so the failure says how the browser ended rather than "WebSocket connection closed".
          const message = (error as Error).message ?? String(error);
          setImmediate(() => {
            const gone = this.whyGone();
            if (gone) void gone.then((reason) => reject(new TargetClosedError(`${method}: ${reason}`)));
            else reject(new TargetClosedError(`${method}: ${message}`));
          });
        } else {
          resolve(response as ResultOf<M>);
        }
      };
      this.client.send(method, params ?? {}, sessionId, cb);
    });
  }

  /** Subscribe to an event, optionally for one session only. Returns the unsubscribe function. */
  on<E extends EventName>(event: E, handler: (params: EventParams<E>) => void, sessionId?: string): () => void {
    const name = sessionId ? `${event}.${sessionId}` : event;
    const listener = (p: unknown): void => handler(p as EventParams<E>);
    this.client.on(name, listener);
    return () => this.client.off(name, listener);
  }

  /** Subscribe to an event of the browser session itself (not one relayed from a page session). */
  onBrowserEvent<E extends EventName>(event: E, handler: (params: EventParams<E>) => void): () => void {
    const listener = (p: unknown, sessionId?: string): void => {
      if (!sessionId) handler(p as EventParams<E>);
    };
    this.client.on(event, listener);
    return () => this.client.off(event, listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.markClosed('connection closed by the harness');
    let timer: NodeJS.Timeout | undefined;
    const cutOff = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)));
    await Promise.race([this.client.close().catch(() => undefined), cutOff]);
    clearTimeout(timer);
    // Past the handshake's deadline the socket is dropped: nothing keeps waiting on the peer.
    this.terminate();
  }

  private terminate(): void {
    this.client.terminate();
  }
}
