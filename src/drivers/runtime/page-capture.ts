/**
 * In-page capture of console messages, uncaught errors / unhandled rejections, and fetch/XHR
 * requests in flight, shared by the drivers: CDP runs it at document start in every document, so it
 * sees everything; WebDriver classic cannot, and runs it when it first reaches a document (after each
 * navigation it makes). Buffers live IN the page under Symbol.for('rehearse.capture'), so a later
 * connection or CLI invocation reads what happened before it attached; a navigation starts empty ones.
 * The read expressions are evaluated by the driver.
 */
import type { ConsoleEntry, ConsoleQuery, ExceptionEntry, ExceptionQuery, PendingRequest } from '../page-driver.js';

/** The Symbol.for key the buffers live under in the page. */
export const CAPTURE_KEY = 'rehearse.capture';
/** The Symbol.for key that marks a document whose network the harness watches from the browser. */
const WATCHED_KEY = 'rehearse.networkWatched';
// 500 console entries: enough for the recent history an agent asks about; bounded so a page that logs
// in a loop cannot grow the renderer's memory (the oldest are dropped and counted).
const CONSOLE_CAP = 500;
// 200 exceptions: a page throwing in every frame fills this in ~3 s; the newest are what matter.
const EXCEPTION_CAP = 200;
// 2000 characters per console message: a long JSON dump is still recognisable, a 10 MB one is not copied.
const TEXT_CAP = 2000;
// 5 stack lines: the throw site and its callers; deeper frames are framework noise.
const STACK_LINES = 5;

interface Store {
  console: ConsoleEntry[];
  consoleDropped: number;
  exceptions: ExceptionEntry[];
  exceptionsDropped: number;
  pending: Map<number, PendingRequest>;
  nextId: number;
  /** Put back what the request counter replaced (fetch, XMLHttpRequest's open/send). */
  unwrap: (() => void)[];
}

/**
 * The page-side program. Serialised with toString(), so it must be self-contained: no imports, no
 * closures over module variables, only the constants passed in.
 */
function captureRuntime(
  key: string,
  watchedKey: string,
  consoleCap: number,
  exceptionCap: number,
  textCap: number,
  stackLines: number,
): void {
  const w = window as unknown as Record<symbol, Store | undefined> & Window;
  const sym = Symbol.for(key);
  // Idempotent: the injector may run this twice in one document; a second copy must not wipe the buffers.
  if (w[sym]) return;
  const store: Store = { console: [], consoleDropped: 0, exceptions: [], exceptionsDropped: 0, pending: new Map(), nextId: 1, unwrap: [] };
  Object.defineProperty(w, sym, { value: store, enumerable: false, configurable: false, writable: false });

  const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…` : s);
  const firstLines = (s: string | undefined): string | undefined => (s ? s.split('\n').slice(0, stackLines).join('\n') : undefined);
  const show = (v: unknown): string => {
    if (typeof v === 'string') return v;
    if (v instanceof Error) return v.stack ?? `${v.name}: ${v.message}`;
    if (typeof v === 'function') return `[function ${v.name || 'anonymous'}]`;
    if (typeof v === 'symbol' || typeof v === 'bigint') return v.toString();
    if (v instanceof Element) return `<${v.tagName.toLowerCase()}${v.id ? `#${v.id}` : ''}>`;
    try {
      const json = JSON.stringify(v);
      return json === undefined ? String(v) : json;
    } catch {
      return String(v);
    }
  };
  /** console's own formatting: %s %d %i %f %o %O %j substitute, %c (CSS) is dropped. */
  const format = (args: unknown[]): string => {
    const [first, ...rest] = args;
    let head = '';
    if (typeof first === 'string' && /%[sdifoOjc%]/.test(first)) {
      head = first.replace(/%([sdifoOjc%])/g, (m, f: string) => {
        if (f === '%') return '%';
        if (rest.length === 0) return m;
        const v = rest.shift();
        switch (f) {
          case 's':
            return typeof v === 'string' ? v : show(v);
          case 'd':
          case 'i':
            return String(parseInt(String(v), 10));
          case 'f':
            return String(Number(v));
          case 'c':
            return '';
          default:
            return show(v);
        }
      });
      return [head, ...rest.map(show)].join(' ');
    }
    return args.map(show).join(' ');
  };

  const push = <T>(list: T[], item: T, cap: number): boolean => {
    list.push(item);
    if (list.length <= cap) return false;
    list.shift();
    return true;
  };

  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level];
    if (typeof original !== 'function') continue;
    console[level] = function (this: unknown, ...args: unknown[]): void {
      try {
        if (push(store.console, { level, text: clip(format(args), textCap), time: Date.now(), url: location.href }, consoleCap))
          store.consoleDropped++;
      } catch {
        // Capture must never break the page's own logging.
      }
      original.apply(this, args);
    };
  }

  const recordException = (e: ExceptionEntry): void => {
    if (push(store.exceptions, e, exceptionCap)) store.exceptionsDropped++;
  };
  w.addEventListener(
    'error',
    (event) => {
      // Resource load failures also bubble as plain Events in the capture phase: not exceptions.
      if (!(event instanceof ErrorEvent)) return;
      const err: unknown = event.error;
      const message = err instanceof Error ? `${err.name}: ${err.message}` : event.message;
      const stack =
        err instanceof Error
          ? firstLines(err.stack)
          : event.filename
            ? `    at ${event.filename}:${event.lineno}:${event.colno}`
            : undefined;
      recordException({
        kind: 'error',
        message: clip(message, textCap),
        ...(stack ? { stack } : {}),
        time: Date.now(),
        url: location.href,
      });
    },
    true,
  );
  w.addEventListener('unhandledrejection', (event) => {
    const reason: unknown = event.reason;
    const message = reason instanceof Error ? `${reason.name}: ${reason.message}` : `Unhandled rejection: ${show(reason)}`;
    const stack = reason instanceof Error ? firstLines(reason.stack) : undefined;
    recordException({
      kind: 'unhandledrejection',
      message: clip(message, textCap),
      ...(stack ? { stack } : {}),
      time: Date.now(),
      url: location.href,
    });
  });

  // Requests the page started before the harness enabled the Network domain are invisible to CDP;
  // counting fetch/XHR here from document start closes that gap for wait_for_network_idle. A harness that
  // watches the network from before the document says so (WATCHED_KEY): then the page keeps its own fetch, so
  // the request's initiator is the page's code, not this wrapper (DevTools' initiator chains, LCPDiscovery).
  if (w[Symbol.for(watchedKey)]) return;
  const track = (url: string): number => {
    const id = store.nextId++;
    store.pending.set(id, { url, startedAt: Date.now() });
    return id;
  };
  const absolute = (u: unknown): string => {
    try {
      return new URL(u instanceof Request ? u.url : String(u), location.href).href;
    } catch {
      return String(u);
    }
  };
  const nativeFetch = w.fetch;
  if (typeof nativeFetch === 'function') {
    const wrapped = function (this: unknown, input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
      const id = track(absolute(input));
      const done = (): void => void store.pending.delete(id);
      try {
        const p = nativeFetch.call(this ?? w, input, init);
        p.then(done, done);
        return p;
      } catch (e) {
        done();
        throw e;
      }
    };
    // Libraries that test for a native fetch via toString() keep working.
    Object.defineProperty(wrapped, 'toString', { value: () => nativeFetch.toString(), enumerable: false });
    w.fetch = wrapped as typeof fetch;
    store.unwrap.push(() => {
      // A page that wrapped fetch after us keeps its wrapper (ours inside it): replacing it would drop the page's.
      if (w.fetch === wrapped) w.fetch = nativeFetch;
    });
  }
  const xhrUrl = new WeakMap<XMLHttpRequest, string>();
  const proto = XMLHttpRequest.prototype;
  const nativeOpen = proto.open;
  const nativeSend = proto.send;
  const open = function (this: XMLHttpRequest, ...args: unknown[]): void {
    xhrUrl.set(this, absolute(args[1]));
    (nativeOpen as (...a: unknown[]) => void).apply(this, args);
  };
  const send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null): void {
    const id = track(xhrUrl.get(this) ?? '(xhr)');
    this.addEventListener('loadend', () => store.pending.delete(id), { once: true });
    try {
      nativeSend.call(this, body);
    } catch (e) {
      store.pending.delete(id);
      throw e;
    }
  };
  proto.open = open;
  proto.send = send;
  store.unwrap.push(() => {
    if (proto.open === open) proto.open = nativeOpen;
    if (proto.send === send) proto.send = nativeSend;
  });
}

/**
 * The page-side half of a harness that watches the network from the browser (CDP's Network domain) from before
 * the document: marks the document so the capture program leaves fetch/XHR alone, and puts back the native ones
 * when the capture ran first (two connections' document-start scripts run in no promised order). Requests the
 * wrapper already counts stay counted until they end.
 */
function networkWatchedRuntime(captureKey: string, watchedKey: string): void {
  const w = window as unknown as Record<symbol, unknown> & Window;
  w[Symbol.for(watchedKey)] = true;
  const store = w[Symbol.for(captureKey)] as Store | undefined;
  for (const put of store?.unwrap.splice(0) ?? []) put();
}

/** The capture program as one script; idempotent in a document. */
export const CAPTURE_SOURCE =
  `try { (${captureRuntime.toString()})(${JSON.stringify(CAPTURE_KEY)}, ${JSON.stringify(WATCHED_KEY)}, ` +
  `${CONSOLE_CAP}, ${EXCEPTION_CAP}, ${TEXT_CAP}, ${STACK_LINES}); } catch (e) {}`;

/** The program a harness watching the page's network from the browser runs in every document (idempotent). */
export const NETWORK_WATCHED_SOURCE =
  `try { (${networkWatchedRuntime.toString()})(${JSON.stringify(CAPTURE_KEY)}, ` + `${JSON.stringify(WATCHED_KEY)}); } catch (e) {}`;

/** The expression that yields the store (or undefined when the document has none). */
const STORE = `globalThis[Symbol.for(${JSON.stringify(CAPTURE_KEY)})]`;

/** An expression yielding the console entries matching `q` (a ConsoleRead). */
export function readConsoleSource(q: ConsoleQuery): string {
  return `(() => {
    const s = ${STORE};
    if (!s) return { entries: [], matched: 0, dropped: 0, captured: false };
    const q = ${JSON.stringify(q)};
    const all = s.console.filter((e) => (q.level === undefined || e.level === q.level) && (q.since === undefined || e.time >= q.since));
    return { entries: all.slice(-q.limit).reverse(), matched: all.length, dropped: s.consoleDropped, captured: true };
  })()`;
}

/** An expression yielding the exceptions matching `q` (an ExceptionRead), emptying the buffer when asked. */
export function readExceptionsSource(q: ExceptionQuery): string {
  return `(() => {
    const s = ${STORE};
    if (!s) return { exceptions: [], matched: 0, dropped: 0, cleared: 0, captured: false };
    const q = ${JSON.stringify(q)};
    const all = s.exceptions.filter((e) => q.since === undefined || e.time >= q.since);
    const out = { exceptions: all.slice(-q.limit).reverse(), matched: all.length, dropped: s.exceptionsDropped,
      cleared: 0, captured: true };
    if (q.clear) { out.cleared = s.exceptions.length; s.exceptions.length = 0; s.exceptionsDropped = 0; }
    return out;
  })()`;
}

/** An expression yielding the fetch/XHR requests the page has started and not yet received a response for. */
export const PENDING_REQUESTS_SOURCE = `(() => { const s = ${STORE}; return s ? [...s.pending.values()] : []; })()`;
