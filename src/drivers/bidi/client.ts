/**
 * The W3C page driver's commands (navigate, execute, perform actions, cookies, screenshot, …) over WebDriver
 * BiDi for one top-level browsing context: the same page driver then serves Firefox, which speaks BiDi only.
 * Each command is one BiDi command; what differs from WebDriver classic is said where it happens.
 */
import { within } from '../../deadline.js';
import { bidiChannel, type BidiChannel, type BidiSocket } from '../bidi-socket.js';
import { WebDriverError } from '../errors.js';
import type { WebDriverCookie } from '../storage.js';
import { BidiNavigation } from './navigation.js';
import { FollowedEmulation } from './emulation.js';

/** A BiDi RemoteValue (script.evaluate's result), as far as it is read here. */
interface RemoteValue {
  type: string;
  value?: unknown;
}

type EvaluateResult = { type: 'success'; result: RemoteValue } | { type: 'exception'; exceptionDetails: { text?: string } };

// 300 s: WebDriver classic's default page load timeout; the page driver sets its own per navigation.
const DEFAULT_PAGE_LOAD_MS = 300_000;
// 30 s: WebDriver classic's default script timeout; the page driver raises it for waiting runtime calls.
const DEFAULT_SCRIPT_MS = 30_000;
// 5 s past a command's own deadline: the socket's timeout is for a browser that stopped answering at all.
const SOCKET_SLACK_MS = 5000;

/** A JSON value as a BiDi LocalValue (the arguments of script.callFunction). */
export function toLocalValue(v: unknown): Record<string, unknown> {
  if (v === undefined) return { type: 'undefined' };
  if (v === null) return { type: 'null' };
  if (typeof v === 'string') return { type: 'string', value: v };
  if (typeof v === 'boolean') return { type: 'boolean', value: v };
  if (typeof v === 'number')
    return {
      type: 'number',
      value: Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : Number.isFinite(v) ? v : v > 0 ? 'Infinity' : '-Infinity',
    };
  if (Array.isArray(v)) return { type: 'array', value: v.map(toLocalValue) };
  if (typeof v === 'object') return { type: 'object', value: Object.entries(v).map(([k, x]) => [k, toLocalValue(x)]) };
  return { type: 'undefined' };
}

/** A BiDi RemoteValue as WebDriver classic's JSON clone: undefined and non-finite numbers become null. */
export function fromRemoteValue(r: RemoteValue): unknown {
  switch (r.type) {
    case 'string':
    case 'boolean':
      return r.value;
    case 'number':
      return typeof r.value === 'number' ? r.value : r.value === '-0' ? 0 : null;
    case 'bigint':
      return Number(r.value);
    case 'date':
      return r.value;
    case 'array':
    case 'set':
      return Array.isArray(r.value) ? r.value.map((x) => fromRemoteValue(x as RemoteValue)) : null;
    case 'object':
    case 'map': {
      if (!Array.isArray(r.value)) return null;
      const o: Record<string, unknown> = {};
      for (const [k, x] of r.value as [string | RemoteValue, RemoteValue][])
        o[typeof k === 'string' ? k : String(fromRemoteValue(k))] = fromRemoteValue(x);
      return o;
    }
    case 'undefined':
    case 'null':
      return null;
    default:
      // A node, window, function, promise, error, …: classic clones these to a reference or {}; nothing here reads one.
      return {};
  }
}

/** A command's wait, its timeout the WebDriverError a W3C command times out with, saying what did not finish. */
const notIn = (command: string, error: string, what: string, ms: number) => (): WebDriverError =>
  new WebDriverError(command, error, `${what} did not finish in ${ms} ms`);

export class BidiPageClient {
  private timeouts = { script: DEFAULT_SCRIPT_MS, pageLoad: DEFAULT_PAGE_LOAD_MS };
  private nav: BidiNavigation | undefined;
  private followed: FollowedEmulation | undefined;

  constructor(
    readonly socket: BidiSocket,
    /** The top-level browsing context (tab) this client drives. */
    readonly context: string,
    /** Its user context (`default`, or the repeat's own): preload scripts are scoped to it. */
    readonly userContext: string,
    readonly capabilities: { browserName?: string; browserVersion?: string },
  ) {}

  async navigate(url: string, timeoutMs?: number): Promise<unknown> {
    const ms = Math.min(timeoutMs ?? this.timeouts.pageLoad, this.timeouts.pageLoad);
    const go = this.socket.send('browsingContext.navigate', { context: this.context, url, wait: 'complete' }, ms + SOCKET_SLACK_MS);
    return within(go, ms, notIn('navigate to', 'timeout', `the load of ${url}`, ms));
  }

  async url(timeoutMs?: number): Promise<string> {
    const { contexts } = await this.socket.send<{ contexts: { url: string }[] }>(
      'browsingContext.getTree',
      { root: this.context, maxDepth: 0 },
      timeoutMs,
    );
    return contexts[0]?.url ?? '';
  }

  back(): Promise<unknown> {
    return this.socket.send('browsingContext.traverseHistory', { context: this.context, delta: -1 });
  }

  /** Navigation told by browsingContext events (src/drivers/bidi/navigation.ts): the page driver then never polls. */
  get navigationEvents(): BidiNavigation {
    this.nav ??= new BidiNavigation(this.socket, this.context);
    return this.nav;
  }

  refresh(timeoutMs?: number): Promise<unknown> {
    const ms = timeoutMs ?? this.timeouts.pageLoad;
    const go = this.socket.send('browsingContext.reload', { context: this.context, wait: 'complete' }, ms + SOCKET_SLACK_MS);
    return within(go, ms, notIn('refresh', 'timeout', 'the reload', ms));
  }

  /** WebDriver classic's Execute Script: `body` is a function body reading `arguments`; a promise it returns is awaited. */
  async execute<T>(body: string, args: unknown[] = [], timeoutMs?: number): Promise<T> {
    const ms = timeoutMs ?? this.timeouts.script;
    const call = this.socket.send<EvaluateResult>(
      'script.callFunction',
      {
        functionDeclaration: `function () {\n${body}\n}`,
        arguments: args.map(toLocalValue),
        target: { context: this.context },
        awaitPromise: true,
        resultOwnership: 'none',
        serializationOptions: { maxDomDepth: 0 },
      },
      ms + SOCKET_SLACK_MS,
    );
    const r = await within(call, ms, notIn('execute script', 'script timeout', 'the script', ms));
    if (r.type === 'exception') throw new WebDriverError('execute script', 'javascript error', r.exceptionDetails.text ?? 'an exception');
    return fromRemoteValue(r.result) as T;
  }

  performActions(actions: readonly object[]): Promise<unknown> {
    return this.socket.send('input.performActions', { context: this.context, actions });
  }

  releaseActions(): Promise<unknown> {
    return this.socket.send('input.releaseActions', { context: this.context });
  }

  async windowHandle(): Promise<string> {
    return this.context;
  }

  /** The tabs of this client's user context. */
  async windowHandles(): Promise<string[]> {
    const { contexts } = await this.socket.send<{ contexts: { context: string; userContext?: string }[] }>('browsingContext.getTree', {
      maxDepth: 0,
    });
    return contexts.filter((c) => (c.userContext ?? 'default') === this.userContext).map((c) => c.context);
  }

  switchToWindow(handle: string): Promise<unknown> {
    return this.socket.send('browsingContext.activate', { context: handle });
  }

  async closeWindow(): Promise<string[]> {
    await this.socket.send('browsingContext.close', { context: this.context });
    return (await this.windowHandles()).filter((h) => h !== this.context);
  }

  title(): Promise<string> {
    return this.execute<string>('return document.title;');
  }

  async cookies(): Promise<WebDriverCookie[]> {
    const { cookies } = await this.socket.send<{ cookies: BidiCookie[] }>('storage.getCookies', {
      partition: { type: 'context', context: this.context },
    });
    return cookies.map(fromBidiCookie);
  }

  async addCookie(cookie: WebDriverCookie): Promise<unknown> {
    // BiDi needs the domain; classic defaults it to the current document's.
    const domain = cookie.domain ?? new URL(await this.url()).hostname;
    return this.socket.send('storage.setCookie', {
      cookie: {
        name: cookie.name,
        value: { type: 'string', value: cookie.value },
        domain,
        ...(cookie.path !== undefined ? { path: cookie.path } : {}),
        ...(cookie.secure !== undefined ? { secure: cookie.secure } : {}),
        ...(cookie.httpOnly !== undefined ? { httpOnly: cookie.httpOnly } : {}),
        ...(cookie.sameSite !== undefined ? { sameSite: cookie.sameSite.toLowerCase() } : {}),
        ...(cookie.expiry !== undefined ? { expiry: cookie.expiry } : {}),
      },
      partition: { type: 'context', context: this.context },
    });
  }

  async screenshot(): Promise<Buffer> {
    const { data } = await this.socket.send<{ data: string }>('browsingContext.captureScreenshot', { context: this.context });
    return Buffer.from(data, 'base64');
  }

  /**
   * The "window" is the viewport here: BiDi sets the viewport itself (browsingContext.setViewport), so the page
   * driver's frame arithmetic (window minus viewport) comes out as zero and the size set is the CSS viewport asked for.
   */
  async windowRect(): Promise<{ x: number; y: number; width: number; height: number }> {
    const v = await this.execute<{ width: number; height: number }>('return { width: innerWidth, height: innerHeight };');
    return { x: 0, y: 0, ...v };
  }

  /**
   * Firefox 153 answers browsingContext.setViewport's devicePixelRatio and emulation.setUserAgentOverride, each for
   * this tab; it has no touch or mobile emulation (emulation.setTouchOverride is an unknown command): the driver's lacks.
   */
  readonly deviceEmulation = {
    setViewport: async (size: { width: number; height: number } | undefined, dpr: number | undefined): Promise<unknown> => {
      if (!size) await this.narrowToWindow();
      const r = await this.socket.send('browsingContext.setViewport', {
        context: this.context,
        viewport: size ?? null,
        devicePixelRatio: dpr ?? null,
      });
      this.newTabs.viewport(size, dpr);
      return r;
    },
    setUserAgent: async (userAgent: string | undefined): Promise<unknown> => {
      const r = await this.socket.send('emulation.setUserAgentOverride', { userAgent: userAgent ?? null, contexts: [this.context] });
      this.newTabs.userAgent(userAgent);
      return r;
    },
  };

  /** This tab's emulation, given also to the tabs and popups its user context opens later (src/drivers/bidi/emulation.ts). */
  get newTabs(): FollowedEmulation {
    this.followed ??= new FollowedEmulation(this.socket, this.context, this.userContext);
    return this.followed;
  }

  /**
   * Firefox 153 never answers a viewport reset from a viewport wider than its window (measured headless: 1400 px in
   * the 1366 px window hangs, 1000 px resets in 20 ms), though the reset happens: narrow it to the window first.
   */
  private async narrowToWindow(): Promise<void> {
    const v = await this.execute<{ inner: number; outer: number; height: number }>(
      'return { inner: innerWidth, outer: outerWidth, height: innerHeight };',
    );
    if (v.inner > v.outer && v.outer > 0)
      await this.socket.send('browsingContext.setViewport', { context: this.context, viewport: { width: v.outer, height: v.height } });
  }

  setWindowRect(r: { width: number; height: number }): Promise<unknown> {
    return this.socket.send('browsingContext.setViewport', { context: this.context, viewport: { width: r.width, height: r.height } });
  }

  async setTimeouts(t: { script?: number; pageLoad?: number; implicit?: number }): Promise<unknown> {
    this.timeouts = { script: t.script ?? this.timeouts.script, pageLoad: t.pageLoad ?? this.timeouts.pageLoad };
    return null;
  }

  /** What the page driver's BiDi side uses (preload scripts, network events), scoped to this client's tab and user context. */
  channel(): BidiChannel {
    // Firefox's response.bytesReceived is headers plus encoded body as received (measured on 153: 586 B for a
    // 412 B page with 174 B of headers); a cache hit says fromCache.
    return { ...bidiChannel(this.socket, { context: this.context, userContext: this.userContext }), wireBytes: true };
  }
}

interface BidiCookie {
  name: string;
  value: { type: string; value: string };
  domain: string;
  path?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: string;
  expiry?: number;
}

function fromBidiCookie(c: BidiCookie): WebDriverCookie {
  const same = c.sameSite === 'strict' ? 'Strict' : c.sameSite === 'none' ? 'None' : c.sameSite === 'lax' ? 'Lax' : undefined;
  return {
    name: c.name,
    // A base64 value (bytes that are not text) is kept as written: the page driver round-trips it unchanged.
    value: c.value.value,
    domain: c.domain,
    ...(c.path !== undefined ? { path: c.path } : {}),
    ...(c.secure !== undefined ? { secure: c.secure } : {}),
    ...(c.httpOnly !== undefined ? { httpOnly: c.httpOnly } : {}),
    ...(same ? { sameSite: same } : {}),
    ...(c.expiry !== undefined ? { expiry: c.expiry } : {}),
  };
}
