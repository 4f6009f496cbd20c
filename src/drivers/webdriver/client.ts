/**
 * A thin typed client for W3C WebDriver classic (https://www.w3.org/TR/webdriver2/) over fetch:
 * the dozen endpoints the page driver uses, each one call. Chosen over webdriverio or
 * selenium-webdriver: those pull in 100+ packages for protocol coverage we do not use, and add a
 * layer of retries and waits between us and the measurement.
 */
import { PerfError } from '../../errors.js';
import { hideCredentials, splitCredentials } from '../../url.js';
import { TargetClosedError, WebDriverError, WebDriverTimeoutError } from '../errors.js';
import type { WebDriverCookie } from '../storage.js';
import type { CommitKind, NavigationWatch } from '../page-driver.js';

export { WebDriverError };

/** W3C "no such window" and friends: the browser or its window went away. */
const GONE_ERRORS = new Set(['invalid session id', 'no such window', 'session not created']);
// 30 s per command: longer than any sane single command (a navigation waits separately in the page).
const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;

export interface NewSessionResult {
  sessionId: string;
  capabilities: Record<string, unknown> & { browserName?: string; browserVersion?: string };
}

/** One pointer or key input source of a performActions call (W3C Actions). */
export type ActionSource =
  | { type: 'pointer'; id: string; parameters: { pointerType: 'mouse' }; actions: PointerAction[] }
  | { type: 'key'; id: string; actions: KeyAction[] }
  | { type: 'wheel'; id: string; actions: WheelAction[] };
export type PointerAction =
  | { type: 'pointerMove'; x: number; y: number; duration?: number; origin?: 'viewport' | 'pointer' }
  | { type: 'pointerDown'; button: number }
  | { type: 'pointerUp'; button: number }
  | { type: 'pause'; duration: number };
export type KeyAction = { type: 'keyDown'; value: string } | { type: 'keyUp'; value: string } | { type: 'pause'; duration: number };
export type WheelAction =
  | { type: 'scroll'; x: number; y: number; deltaX: number; deltaY: number; duration?: number; origin?: 'viewport' }
  | { type: 'pause'; duration: number };

export class WebDriverClient {
  private constructor(
    readonly endpoint: string,
    readonly sessionId: string,
    readonly capabilities: NewSessionResult['capabilities'],
  ) {}

  /**
   * Start a session on the server at `endpoint` (http://127.0.0.1:PORT). `bidi`: ask for a BiDi
   * connection as a first choice, so a server without BiDi still matches the plain second one.
   */
  static async newSession(
    endpoint: string,
    alwaysMatch: Record<string, unknown>,
    opts: { bidi?: boolean; timeoutMs?: number } = {},
  ): Promise<WebDriverClient> {
    const capabilities = opts.bidi ? { alwaysMatch, firstMatch: [{ webSocketUrl: true }, {}] } : { alwaysMatch };
    const value = (await request(
      endpoint,
      'POST',
      '/session',
      { capabilities },
      'new session',
      opts.timeoutMs ?? 60_000,
    )) as NewSessionResult;
    return new WebDriverClient(endpoint, value.sessionId, value.capabilities);
  }

  /**
   * A client of a session that already runs (a `perf start` session, opened by its daemon): no
   * request is sent, so whether it is still alive is the caller's first command to find out.
   * Its close() ends that session: a caller that only borrows it must not call it.
   */
  static attach(endpoint: string, sessionId: string, capabilities: NewSessionResult['capabilities'] = {}): WebDriverClient {
    return new WebDriverClient(endpoint, sessionId, capabilities);
  }

  /**
   * The window this client's commands go to, once the session has several (tabs, popups): WebDriver acts on
   * the current window only, so a command of another window's client switches to its own first. `shared`
   * is the session's current window, one object for all its clients.
   */
  private window: { handle: string; shared: { current: string } } | undefined;

  /** Bind this client to `handle`; a client for another window of the same session, bound to it. */
  bindWindow(handle: string, shared: { current: string }): void {
    this.window = { handle, shared };
  }
  forWindow(handle: string): WebDriverClient {
    const c = new WebDriverClient(this.endpoint, this.sessionId, this.capabilities);
    if (this.window) c.bindWindow(handle, this.window.shared);
    return c;
  }

  private async cmd(method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, name: string, timeoutMs?: number): Promise<unknown> {
    const w = this.window;
    if (w && w.shared.current !== w.handle) {
      await request(this.endpoint, 'POST', `/session/${this.sessionId}/window`, { handle: w.handle }, 'switch to window', timeoutMs);
      w.shared.current = w.handle;
    }
    return request(this.endpoint, method, `/session/${this.sessionId}${path}`, body, name, timeoutMs);
  }

  navigate(url: string, timeoutMs?: number): Promise<unknown> {
    return this.cmd('POST', '/url', { url }, 'navigate to', timeoutMs);
  }
  async url(timeoutMs?: number): Promise<string> {
    return String(await this.cmd('GET', '/url', undefined, 'get current url', timeoutMs));
  }
  back(): Promise<unknown> {
    return this.cmd('POST', '/back', {}, 'back');
  }
  refresh(timeoutMs?: number): Promise<unknown> {
    return this.cmd('POST', '/refresh', {}, 'refresh', timeoutMs);
  }
  /** Run `body` (a function body: `return …;`) in the page with `args`; its JSON result. */
  execute<T>(body: string, args: unknown[] = [], timeoutMs?: number): Promise<T> {
    return this.cmd('POST', '/execute/sync', { script: body, args }, 'execute script', timeoutMs) as Promise<T>;
  }
  /** Like execute, for a body that calls `arguments[arguments.length - 1](result)` when done. */
  executeAsync<T>(body: string, args: unknown[] = [], timeoutMs?: number): Promise<T> {
    return this.cmd('POST', '/execute/async', { script: body, args }, 'execute async script', timeoutMs) as Promise<T>;
  }
  performActions(actions: ActionSource[]): Promise<unknown> {
    return this.cmd('POST', '/actions', { actions }, 'perform actions');
  }
  releaseActions(): Promise<unknown> {
    return this.cmd('DELETE', '/actions', undefined, 'release actions');
  }
  /** Windows (tabs, popups) of the session (W3C "Get Window Handle(s)", "Switch To Window", "Close Window", "Get Title"). */
  async windowHandle(): Promise<string> {
    return String(await this.cmd('GET', '/window', undefined, 'get window handle'));
  }
  async windowHandles(): Promise<string[]> {
    return (await this.cmd('GET', '/window/handles', undefined, 'get window handles')) as string[];
  }
  switchToWindow(handle: string): Promise<unknown> {
    return this.cmd('POST', '/window', { handle }, 'switch to window');
  }
  /** Close the current window; the handles left open. */
  async closeWindow(): Promise<string[]> {
    return (await this.cmd('DELETE', '/window', undefined, 'close window')) as string[];
  }
  async title(): Promise<string> {
    return String(await this.cmd('GET', '/title', undefined, 'get title'));
  }
  /** The current document's cookies, HttpOnly included (W3C "Get All Cookies"). */
  async cookies(): Promise<WebDriverCookie[]> {
    return (await this.cmd('GET', '/cookie', undefined, 'get all cookies')) as WebDriverCookie[];
  }
  /** Add a cookie for the current document's domain (W3C "Add Cookie"). */
  addCookie(cookie: WebDriverCookie): Promise<unknown> {
    return this.cmd('POST', '/cookie', { cookie }, 'add cookie');
  }
  async screenshot(): Promise<Buffer> {
    return Buffer.from(String(await this.cmd('GET', '/screenshot', undefined, 'take screenshot')), 'base64');
  }
  windowRect(): Promise<{ x: number; y: number; width: number; height: number }> {
    return this.cmd('GET', '/window/rect', undefined, 'get window rect') as Promise<{
      x: number;
      y: number;
      width: number;
      height: number;
    }>;
  }
  setWindowRect(r: { width: number; height: number }): Promise<unknown> {
    return this.cmd('POST', '/window/rect', r, 'set window rect');
  }
  setTimeouts(t: { script?: number; pageLoad?: number; implicit?: number }): Promise<unknown> {
    return this.cmd('POST', '/timeouts', t, 'set timeouts');
  }
  getTimeouts(timeoutMs?: number): Promise<unknown> {
    return this.cmd('GET', '/timeouts', undefined, 'get timeouts', timeoutMs);
  }
  /** End the session (DELETE), waiting at most `timeoutMs` (default 10 s): a failure is not an error here. */
  async close(timeoutMs = 10_000): Promise<void> {
    await this.delete(timeoutMs);
  }
  /** End the session; whether it is gone now (deleted, or the server no longer knows it). */
  async delete(timeoutMs: number): Promise<boolean> {
    try {
      await request(this.endpoint, 'DELETE', `/session/${this.sessionId}`, undefined, 'delete session', timeoutMs);
      return true;
    } catch (e) {
      return e instanceof TargetClosedError && /invalid session id/.test(e.message);
    }
  }
}

/**
 * The commands the W3C page driver sends, as a type: WebDriver classic over HTTP (this client) or the same
 * commands over WebDriver BiDi (src/drivers/bidi/client.ts, Firefox), so one page driver serves both.
 */
export type W3CClient = Pick<
  WebDriverClient,
  | 'capabilities'
  | 'navigate'
  | 'url'
  | 'back'
  | 'refresh'
  | 'execute'
  | 'performActions'
  | 'releaseActions'
  | 'windowHandle'
  | 'windowHandles'
  | 'switchToWindow'
  | 'closeWindow'
  | 'title'
  | 'cookies'
  | 'addCookie'
  | 'screenshot'
  | 'windowRect'
  | 'setWindowRect'
  | 'setTimeouts'
> & {
  /** Device emulation beyond the window size, where the protocol has it (BiDi: Firefox); WebDriver classic has none. */
  readonly deviceEmulation?: W3CDeviceEmulation;
  /** Navigation told by the protocol's events (BiDi: Firefox); WebDriver classic has none, and reads location after a step back. */
  readonly navigationEvents?: W3CNavigationEvents;
};

/** Navigation where the protocol reports it: each wait ends on an event (or a deadline that says what it waited for). */
export interface W3CNavigationEvents {
  /** Open `url` and wait for its load; `newDocument` false when the browser reported a same-document (fragment) navigation. */
  navigate(url: string, timeoutMs: number): Promise<{ newDocument: boolean }>;
  /** `delta` entries through the session history, resolved once committed (a new document: loaded); no_history past the end. */
  traverse(delta: number, timeoutMs: number): Promise<{ status: 'committed'; kind: CommitKind; loaded?: true } | { status: 'no_history' }>;
  /** What the page does while an action runs (a link or a form may start a navigation). */
  watch(): NavigationWatch;
}

/** What a client emulates of a device: every override is for its own tab, and undefined means the browser's own. */
export interface W3CDeviceEmulation {
  /** The CSS viewport and the device pixel ratio. */
  setViewport(size: { width: number; height: number } | undefined, dpr: number | undefined): Promise<unknown>;
  /** The user agent the page reads (navigator.userAgent) and sends. */
  setUserAgent(userAgent: string | undefined): Promise<unknown>;
}

/** GET /status: whether the server is up and ready for a new session. */
export async function serverReady(endpoint: string): Promise<boolean> {
  try {
    const r = (await request(endpoint, 'GET', '/status', undefined, 'status', 2000)) as { ready?: boolean };
    return r?.ready !== false;
  } catch {
    return false;
  }
}

/**
 * One command. `endpoint` may carry credentials (a cloud Selenium Grid: https://user:key@host): they
 * go as HTTP Basic auth, and every message shows the URL as user:***@. The deadline covers the answer's
 * body too: a server that sends headers and then stalls is given up on as well.
 */
async function request(
  endpoint: string,
  method: string,
  path: string,
  body: unknown,
  name: string,
  timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
): Promise<unknown> {
  const { url, headers } = splitCredentials(endpoint);
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
    });
    text = await res.text();
  } catch (e) {
    const err = e as Error;
    if (err.name === 'TimeoutError' || signal.aborted) throw new WebDriverTimeoutError(name, hideCredentials(endpoint), timeoutMs);
    throw new TargetClosedError(
      `${name}: the WebDriver server at ${hideCredentials(endpoint)} is unreachable (${hideCredentials(err.message)})`,
    );
  }
  let json: { value?: unknown };
  try {
    json = JSON.parse(text) as { value?: unknown };
  } catch {
    throw new PerfError({
      code: 'webdriver_protocol',
      kind: 'environment',
      message: `${name}: the WebDriver server answered HTTP ${res.status} with no JSON: ${hideCredentials(text.slice(0, 200))}`,
    });
  }
  const value = json.value as { error?: string; message?: string } | null | undefined;
  // W3C WebDriver answers errors with a 4xx/5xx status; a 200 whose value has an `error` key is a
  // script's own result (e.g. { error: "…" } returned by the page), not a failed command.
  if (!res.ok) {
    const error = value?.error ?? `HTTP ${res.status}`;
    const detail = value?.message ?? text.slice(0, 200);
    if (GONE_ERRORS.has(error)) throw new TargetClosedError(`${name}: ${error}: ${detail.split('\n')[0]}`);
    throw new WebDriverError(name, error, detail);
  }
  return json.value;
}
