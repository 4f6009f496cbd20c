/**
 * The page contract (src/drivers/page-driver.ts) over W3C WebDriver classic: the in-page runtime
 * through executeScript (the same modules as over CDP: snapshot and refs, targets, actionability,
 * effect), input through the Actions API, navigation, screenshots, the window size. What WebDriver
 * classic cannot do yet here (device emulation beyond the window size, console capture from
 * document start) is refused with a PerfError naming the driver, never faked.
 */
import type { PageStorage } from '../storage.js';
import { webdriverStorage } from './storage.js';
import { bidiNetworkActivity } from './bidi-network.js';
import { PerfError } from '../../errors.js';
import { lackMessage, type DriverDefinition, type DriverFeature } from '../define.js';
import { webdriverDriver } from './driver.js';
import { TargetClosedError } from '../errors.js';
import { assertNotBrowserShortcut, keyDefinition, type Modifier } from '../keys.js';
import type {
  CaptureOptions,
  ConsoleRead,
  ExceptionRead,
  PendingRequest,
  ClickOptions,
  EvaluateOutcome,
  HostPage,
  NavigateResult,
  NavigationWatch,
  NetworkActivity,
  PageCapture,
  PageEmulation,
  PageInput,
  PageNavigation,
  PagePerf,
  Point,
  RuntimeCallOptions,
  ViewportReadBack,
  ViewportSpec,
} from '../page-driver.js';
import type { RuntimeApi, RuntimeMethod } from '../runtime/api.js';
import { PAGE_RUNTIME_SOURCE, RUNTIME_VERSION } from '../runtime/main.js';
import { SettleReports } from './settle-reports.js';
import { CAPTURE_SOURCE, PENDING_REQUESTS_SOURCE, readConsoleSource, readExceptionsSource } from '../runtime/page-capture.js';
import { markSource } from '../runtime/perf-probe.js';
import { WebDriverError, type W3CClient, type ActionSource, type KeyAction, type PointerAction } from './client.js';
import type { BidiChannel } from '../bidi-socket.js';
import { cropPng } from '../png.js';
import { WebDriverPerfSession } from './perf-session.js';
import { measureWebDriverLoad } from './load.js';
import type { LoadOptions, LoadReadings } from '../measure.js';

const MISSING = '__rehearse_runtime_missing__';
// W3C key codes (WebDriver "keyboard actions" table) for the named keys of src/drivers/keys.ts.
const W3C_KEYS: Record<string, string> = {
  Enter: '\uE007',
  Escape: '\uE00C',
  Tab: '\uE004',
  Backspace: '\uE003',
  Delete: '\uE017',
  Insert: '\uE016',
  ArrowUp: '\uE013',
  ArrowDown: '\uE015',
  ArrowLeft: '\uE012',
  ArrowRight: '\uE014',
  Home: '\uE011',
  End: '\uE010',
  PageUp: '\uE00E',
  PageDown: '\uE00F',
  ' ': ' ',
  Shift: '\uE008',
  Control: '\uE009',
  Alt: '\uE00A',
  Meta: '\uE03D',
  ContextMenu: '\uE03C',
  F1: '\uE031',
  F2: '\uE032',
  F3: '\uE033',
  F4: '\uE034',
  F5: '\uE035',
  F6: '\uE036',
  F7: '\uE037',
  F8: '\uE038',
  F9: '\uE039',
  F10: '\uE03A',
  F11: '\uE03B',
  F12: '\uE03C',
};
const MODIFIER_KEY: Record<Modifier, string> = { control: '\uE009', shift: '\uE008', alt: '\uE00A', meta: '\uE03D' };
const BUTTON: Record<NonNullable<ClickOptions['button']>, number> = { left: 0, middle: 1, right: 2 };
// Ten moves for a drag, as over CDP: smooth enough for libraries that track velocity.
const DEFAULT_DRAG_STEPS = 10;

/** A refusal derived from the driver's entry (its `lacks`, the one place a lack is said). */
function unsupportedOn(feature: DriverFeature, what: string, driver: DriverDefinition = webdriverDriver): PerfError {
  return new PerfError({
    code: 'unsupported_on_driver',
    kind: 'usage',
    message: lackMessage(driver, feature, what) ?? `${what} is not available on the ${driver.name} driver`,
    suggestion: 'run this on the cdp driver (browser.driver: cdp)',
  });
}

/** The W3C key value of a key name ("Enter", "a", "F5"). */
function w3cKey(name: string): string {
  const def = keyDefinition(name);
  return W3C_KEYS[def.key] ?? W3C_KEYS[name] ?? def.key;
}

export class WebDriverPageDriver implements HostPage {
  readonly input: PageInput;
  readonly emulation: PageEmulation;
  readonly navigation: PageNavigation;
  readonly capture: PageCapture;
  readonly perf: PagePerf;
  readonly storage: PageStorage;
  private crashed: string | undefined;
  /** Where the last pointer action left the pointer (viewport pixels); unknown after a navigation or resize. */
  private pointerAt: Point | undefined;
  /** The WebDriver server's pid when the harness started it here: process metrics read its web processes. */
  serverPid: number | undefined;
  /** Capture and the runtime run at every document's start (BiDi preload scripts), as over CDP. */
  private atDocumentStart = false;
  /** The session's BiDi connection, where the server offered one (a measured load preloads its probe over it). */
  bidi: BidiChannel | undefined;
  /** The last perf session begun here: a measured load puts its probe in the new document while it is open. */
  private perfSession: WebDriverPerfSession | undefined;
  /** This session has opened something other than about:blank: its HTTP cache is no longer the new profile's empty one. */
  openedPages = false;
  private readonly crashHandlers = new Set<(reason: string) => void>();
  /** Where the page reports a click's settle itself (WebKit): see settle-reports.ts. Started at the first single click. */
  private reports: SettleReports | undefined;
  private reportsStarting: Promise<SettleReports | undefined> | undefined;
  private reportSeq = 0;
  /** The action the last gate call armed a report for: the settle that follows may take it. */
  private armedSeq: number | undefined;
  /** The viewport was set through the client's device emulation (BiDi), so a reset has something to clear. */
  private viewportSet = false;

  /**
   * `client` sends the W3C commands (over WebDriver classic, or over BiDi for Firefox); `definition` is the
   * driver whose `lacks` a refusal quotes.
   */
  constructor(
    readonly client: W3CClient,
    private readonly userAgent: string,
    readonly definition: DriverDefinition = webdriverDriver,
  ) {
    this.input = {
      click: (x, y, opts) => this.click(x, y, opts),
      // On WebKit the settle's script goes out while the Actions command is still in flight:
      // WebKitWebDriver runs the two side by side (the script waits in the page for the mouseup),
      // so the tap costs the longer of the two, not their sum. A server that runs one command at a
      // time (chromedriver) could take the script first and hold the click behind it: not there.
      clickOverlapped: (x, y, opts) => {
        const done = this.click(x, y, opts);
        return { pressed: this.runsCommandsAtOnce ? Promise.resolve() : done, done };
      },
      hover: (x, y) => this.pointerActions([], this.moveTo(x, y)),
      drag: (from, to, opts) => this.drag(from, to, opts?.steps ?? DEFAULT_DRAG_STEPS, opts?.modifiers ?? []),
      wheel: (x, y, deltaX, deltaY) =>
        this.actions([
          {
            type: 'wheel',
            id: 'wheel',
            actions: [
              {
                type: 'scroll',
                x: Math.round(x),
                y: Math.round(y),
                deltaX: Math.round(deltaX),
                deltaY: Math.round(deltaY),
                origin: 'viewport',
              },
            ],
          },
        ]),
      pressKey: (key, modifiers = [], repeat = 1) => this.pressKey(key, modifiers, repeat),
      typeText: (text) =>
        this.keys(
          [...text].flatMap((ch): KeyAction[] => [
            { type: 'keyDown', value: ch },
            { type: 'keyUp', value: ch },
          ]),
        ),
      // One edit with its input events, like an IME commit.
      insertText: (text) => this.evaluate(`document.execCommand('insertText', false, ${JSON.stringify(text)})`).then(() => undefined),
      selectAll: () => this.pressKey('a', ['control'], 1),
    };
    this.emulation = {
      applyViewport: (v) => this.applyViewport(v),
      clear: () => this.clearEmulation(),
      readViewport: () =>
        this.evaluate<ViewportReadBack>(
          `({ width: innerWidth, height: innerHeight, dpr: devicePixelRatio, touch: navigator.maxTouchPoints ` +
            `> 0, screenWidth: screen.width, screenHeight: screen.height, userAgent: navigator.userAgent })`,
        ),
      viewportOverridden: () => this.viewportSet,
      browserUserAgent: () => this.userAgent.replace('HeadlessChrome/', 'Chrome/'),
      setUserAgent: (ua) => this.setUserAgent(ua.userAgent),
    };
    this.navigation = {
      navigate: (url, timeoutMs) => this.navigate(url, timeoutMs),
      reload: (opts) => {
        this.pointerAt = undefined;
        return this.guard(this.client.refresh(opts.timeoutMs)).then(() => this.hookDocument());
      },
      back: (timeoutMs) =>
        this.back(timeoutMs).then(async (r) => {
          this.pointerAt = undefined;
          await this.hookDocument();
          return r;
        }),
      // WebDriver classic reports no navigation events: an action that leaves the document shows as
      // a detached settle instead (page_navigated), and the next step sees the new page. BiDi reports them.
      watch: (): NavigationWatch =>
        this.client.navigationEvents?.watch() ?? { requested: undefined, sameDocument: false, loaded: true, stop: () => undefined },
    };
    this.capture = {
      screenshot: (opts) => this.screenshot(opts),
      geometry: () =>
        this.evaluate(
          `({ contentWidth: document.documentElement.scrollWidth, contentHeight: document.documentElement.scrollHeight, ` +
            `scrollX: scrollX, scrollY: scrollY })`,
        ),
      console: (q) => this.readCapture<ConsoleRead>(readConsoleSource(q)),
      exceptions: (q) => this.readCapture<ExceptionRead>(readExceptionsSource(q)),
      pendingRequests: () => this.evaluate<PendingRequest[]>(PENDING_REQUESTS_SOURCE),
      network: () => this.networkActivity(),
    };
    this.storage = webdriverStorage(client);
    this.perf = {
      mark: (name) => this.evaluate<number>(markSource(name)),
      begin: (opts) => WebDriverPerfSession.begin(this, opts).then((s) => (this.perfSession = s)),
      load: (url, opts) => this.measureLoad(url, opts),
    };
  }

  /** Over BiDi where the driver declares the read (the bidi driver), one subscription per wait; WebDriver classic sees no requests. */
  private networkActivity(): Promise<NetworkActivity> {
    if (!this.bidi || this.definition.lacks.network !== undefined) return Promise.reject(this.refuse('network', 'network activity'));
    return bidiNetworkActivity(this.bidi);
  }

  /** A refusal quoting this driver's `lacks`. */
  private refuse(feature: DriverFeature, what: string): PerfError {
    return unsupportedOn(feature, what, this.definition);
  }

  private measureLoad(url: string, opts: LoadOptions): Promise<LoadReadings> {
    const page = {
      evaluate: <T>(e: string, o?: { timeoutMs?: number }) => this.evaluate<T>(e, o),
      navigate: (u: string, t: number) => this.navigate(u, t),
      bidi: this.bidi,
      perfProbeSource: () => this.perfSession?.documentProbeSource(),
      openedPages: this.openedPages,
    };
    return measureWebDriverLoad(page, url, opts);
  }

  /** WebKit (MiniBrowser, a Tauri app on Linux): its WebDriver server answers commands concurrently. */
  private get runsCommandsAtOnce(): boolean {
    return /AppleWebKit\//.test(this.userAgent) && !/Chrome\//.test(this.userAgent);
  }

  get capabilities(): { browserName?: string; browserVersion?: string } {
    return this.client.capabilities;
  }

  get crashReason(): string | undefined {
    return this.crashed;
  }

  onCrash(fn: (reason: string) => void): () => void {
    this.crashHandlers.add(fn);
    return () => this.crashHandlers.delete(fn);
  }

  /** Every command goes through here: a server or browser that went away marks the page gone. */
  private async guard<T>(p: Promise<T>): Promise<T> {
    if (this.crashed) {
      // The command is already on its way to a dead session: its rejection is expected, not unhandled.
      p.catch(() => undefined);
      throw new TargetClosedError(this.crashed);
    }
    try {
      return await p;
    } catch (e) {
      if (e instanceof TargetClosedError && !this.crashed) {
        this.crashed = e.message;
        for (const fn of this.crashHandlers) fn(e.message);
      }
      throw e;
    }
  }

  /**
   * Where the page reports a single click's settle (WebKit only, where the settle command goes out
   * beside the click and its answer waits for the page's rendering); started once, when first needed.
   */
  private settleReports(): Promise<SettleReports | undefined> {
    if (!this.runsCommandsAtOnce) return Promise.resolve(undefined);
    // No loopback port to listen on: the settle command answers, as on any other engine.
    this.reportsStarting ??= SettleReports.start().then(
      (r) => (this.reports = r),
      () => undefined,
    );
    return this.reportsStarting;
  }

  async stopSettleReports(): Promise<void> {
    const r = await this.reportsStarting;
    this.reports = undefined;
    this.reportsStarting = undefined;
    await r?.close();
  }

  /** Settle reports received from the page so far. */
  get settleReportsReceived(): number {
    return this.reports?.received ?? 0;
  }

  async call<M extends RuntimeMethod>(
    method: M,
    args: Parameters<RuntimeApi[M]>,
    opts: RuntimeCallOptions = {},
  ): Promise<Awaited<ReturnType<RuntimeApi[M]>>> {
    const body =
      `const r = globalThis[Symbol.for('rehearse.runtime')]; if (!r || r.version !== arguments[0]) ` +
      `return ${JSON.stringify(MISSING)}; return r.call(arguments[1], arguments[2]);`;
    const armed = this.armedSeq;
    this.armedSeq = undefined;
    let sent: readonly unknown[] = args;
    let arming: number | undefined;
    const gateOpts: unknown = sent[1];
    const settleOnInput =
      method === 'gate' &&
      typeof gateOpts === 'object' &&
      gateOpts !== null &&
      (gateOpts as { settleOnInput?: boolean }).settleOnInput === true;
    const reports = settleOnInput ? await this.settleReports() : this.reports;
    if (settleOnInput && reports) {
      arming = ++this.reportSeq;
      sent = [sent[0], { ...(gateOpts as object), report: reports.url(arming) }];
    }
    // The settle names its action: answered by the report, it may still run after the next gate.
    const racing = method === 'settle' && armed !== undefined && reports ? { reports, seq: armed } : undefined;
    if (racing) sent = [sent[0], racing.reports.url(racing.seq), ...sent.slice(2)];
    for (let attempt = 0; ; attempt++) {
      let value: unknown;
      try {
        const callArgs = [RUNTIME_VERSION, method, sent];
        value = await this.guard(
          racing
            ? this.raceReport(racing.reports, racing.seq, body, callArgs, opts.timeoutMs)
            : this.client.execute<unknown>(body, callArgs, opts.timeoutMs),
        );
      } catch (e) {
        if (e instanceof WebDriverError && /unload|navigat|detached|no such frame/i.test(e.detail)) {
          throw new PerfError({
            code: 'page_navigated',
            kind: 'failed',
            message: `the page navigated or reloaded while ${method} was running`,
            suggestion: 'wait for the navigation (wait_for) and run snap again',
            cause: e,
          });
        }
        throw e;
      }
      if (value === MISSING) {
        if (attempt > 0)
          throw new PerfError({
            code: 'runtime_missing',
            kind: 'environment',
            message: 'could not install the page runtime in this document',
          });
        await this.installRuntime();
        continue;
      }
      if (value && typeof value === 'object' && (value as { status?: string }).status === 'runtime_error') {
        throw new PerfError({
          code: 'runtime_error',
          kind: 'failed',
          message: `page runtime ${method} failed: ${String((value as { detail?: string }).detail).split('\n')[0]}`,
        });
      }
      if (arming !== undefined) this.armedSeq = arming;
      return value as Awaited<ReturnType<RuntimeApi[M]>>;
    }
  }

  /** The settle command, or the page's own report of the same settle when that comes first. */
  private async raceReport(
    reports: SettleReports,
    seq: number,
    body: string,
    args: unknown[],
    timeoutMs: number | undefined,
  ): Promise<unknown> {
    const reply = this.client.execute<unknown>(body, args, timeoutMs);
    const wait = reports.wait(seq);
    try {
      return await Promise.race([reply, wait.report]);
    } finally {
      wait.cancel();
      // Answered by the report, the command still runs to its end in the page: its answer is not needed.
      reply.catch(() => undefined);
    }
  }

  async evaluate<T>(expression: string, opts: { timeoutMs?: number } = {}): Promise<T> {
    try {
      // Indirect eval: the expression runs in the page's global scope; a promise it yields is awaited.
      return await this.guard(this.client.execute<T>('return (0, eval)(arguments[0]);', [expression], opts.timeoutMs));
    } catch (e) {
      if (e instanceof WebDriverError && e.error === 'javascript error')
        throw new PerfError({ code: 'evaluate_failed', kind: 'failed', message: `page script threw: ${e.detail.split('\n')[0]}` });
      throw e;
    }
  }

  async evaluateUser(expression: string, opts: { deadline: number; timeoutMs: number }): Promise<EvaluateOutcome> {
    const body =
      `const v = await (0, eval)(arguments[0]); if (v === undefined) return { kind: 'undefined' }; const t = typeof v;
      if (t === 'function' || t === 'symbol' || (v && typeof v === 'object' && 'nodeType' in v)) return ` +
      `{ kind: 'opaque', type: t === 'object' ? 'node' : t, description: String(v).slice(0, 200) };
      return { kind: 'value', value: v, type: t };`;
    try {
      return await this.guard(
        this.client.execute<EvaluateOutcome>(`return (async () => { ${body} })();`, [expression], Math.max(1, opts.deadline - Date.now())),
      );
    } catch (e) {
      if (e instanceof WebDriverError && e.error === 'javascript error')
        throw new PerfError({
          code: 'evaluate_failed',
          kind: 'failed',
          message: `evaluate: the expression threw: ${e.detail.split('\n')[0]}`,
        });
      if (e instanceof WebDriverError && e.error === 'script timeout')
        throw new PerfError({ code: 'timeout', kind: 'failed', message: `evaluate: the expression still ran after ${opts.timeoutMs} ms` });
      throw e;
    }
  }

  async bringToFront(): Promise<void> {
    // A WebDriver session's window is the one in front; nothing to do.
  }

  /**
   * Nothing to do ahead of time: WebDriver classic cannot add a script to future documents, and the
   * host asks for this before every step. The runtime goes in on the first call that finds it
   * missing in the current document (call()), instead of being sent with every step.
   */
  async installScripts(): Promise<void> {}

  private async installRuntime(): Promise<void> {
    // Capture goes in with the runtime: the first moment the harness reaches a document it did not open.
    await this.guard(this.client.execute(`${CAPTURE_SOURCE}; ${PAGE_RUNTIME_SOURCE}; return true;`));
  }

  /**
   * After a navigation the harness made, put capture and the runtime in the new document at once:
   * WebDriver classic cannot run a script before the page's own, so this is the earliest moment, and
   * console messages and exceptions from then on are kept. A document gone again meanwhile is left to
   * the next call.
   */
  private async hookDocument(): Promise<void> {
    if (this.atDocumentStart) return;
    await this.installRuntime().catch((e: unknown) => {
      if (e instanceof TargetClosedError) throw e;
    });
  }

  /**
   * With BiDi (the server offered it): capture and the runtime go into every document before the
   * page's own scripts, so nothing a page logs while it loads is missed, and no call has to install
   * the runtime first. The current document gets them now.
   */
  async useBidi(bidi: BidiChannel): Promise<void> {
    await bidi.addPreloadScript(`${CAPTURE_SOURCE}; ${PAGE_RUNTIME_SOURCE};`);
    await this.installRuntime();
    this.atDocumentStart = true;
    this.bidi = bidi;
  }

  /** Whether capture and the runtime run at every document's start (BiDi), or from when the harness reaches it. */
  get capturesFromDocumentStart(): boolean {
    return this.atDocumentStart;
  }

  /** A capture read; a document without capture (reached by a navigation the harness did not make) gets it now. */
  private async readCapture<T extends { captured: boolean }>(source: string): Promise<T> {
    const read = await this.evaluate<T>(source);
    if (!read.captured) await this.hookDocument();
    return read;
  }

  async emulateEnvironment(env: { viewport: ViewportSpec; cpuThrottle: number }): Promise<void> {
    if (env.cpuThrottle !== 1) throw this.refuse('cpuThrottle', 'CPU throttling');
    await this.applyViewport(env.viewport);
  }

  alive(): boolean {
    return this.crashed === undefined;
  }

  private actions(sources: ActionSource[]): Promise<void> {
    return this.guard(this.client.performActions(sources)).then(() => undefined);
  }

  private keys(actions: KeyAction[]): Promise<void> {
    return this.actions([{ type: 'key', id: 'keyboard', actions }]);
  }

  /** Modifiers down, the pointer's own actions, modifiers up, in one performActions call. */
  private withModifiers(modifiers: readonly Modifier[], pointer: PointerAction[]): ActionSource[] {
    // No modifiers, no key source: its idle ticks cost a round of the server's action dispatch each.
    if (modifiers.length === 0) return [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions: pointer }];
    const down: KeyAction[] = modifiers.map((m) => ({ type: 'keyDown', value: MODIFIER_KEY[m] }));
    const up: KeyAction[] = [...modifiers].reverse().map((m) => ({ type: 'keyUp', value: MODIFIER_KEY[m] }));
    const pause = (n: number): { type: 'pause'; duration: number }[] => Array.from({ length: n }, () => ({ type: 'pause', duration: 0 }));
    return [
      { type: 'key', id: 'keyboard', actions: [...down, ...pause(pointer.length), ...up] },
      { type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions: [...pause(down.length), ...pointer] },
    ];
  }

  /**
   * The move to (x, y), or none when the pointer is already there: the WebDriver input state keeps
   * the pointer between commands, and a user clicking twice in one place does not move the mouse.
   * On WebKitGTK a move costs 15-65 ms (a motion event waits for the page's next rendering); down
   * and up cost ~6 ms.
   */
  private moveTo(x: number, y: number): PointerAction[] {
    const to = { x: Math.round(x), y: Math.round(y) };
    if (this.pointerAt && this.pointerAt.x === to.x && this.pointerAt.y === to.y) return [];
    return [{ type: 'pointerMove', ...to, origin: 'viewport' }];
  }

  /** One performActions call for the pointer; where it ends is remembered, forgotten if it fails. */
  private async pointerActions(modifiers: readonly Modifier[], pointer: PointerAction[]): Promise<void> {
    const moves = pointer.filter((a): a is Extract<PointerAction, { type: 'pointerMove' }> => a.type === 'pointerMove');
    const last = moves[moves.length - 1];
    const at = last ? { x: last.x, y: last.y } : this.pointerAt;
    // A hover where the pointer already is: nothing to send.
    if (pointer.length === 0) return;
    this.pointerAt = undefined;
    await this.actions(this.withModifiers(modifiers, pointer));
    this.pointerAt = at;
  }

  private click(x: number, y: number, opts: ClickOptions = {}): Promise<void> {
    const button = BUTTON[opts.button ?? 'left'];
    const pointer: PointerAction[] = this.moveTo(x, y);
    for (let i = 0; i < (opts.clickCount ?? 1); i++) pointer.push({ type: 'pointerDown', button }, { type: 'pointerUp', button });
    return this.pointerActions(opts.modifiers ?? [], pointer);
  }

  private async drag(from: Point, to: Point, steps: number, modifiers: readonly Modifier[]): Promise<{ html5: boolean }> {
    const pointer: PointerAction[] = [
      { type: 'pointerMove', x: Math.round(from.x), y: Math.round(from.y), origin: 'viewport' },
      { type: 'pointerDown', button: 0 },
    ];
    for (let i = 1; i <= steps; i++)
      pointer.push({
        type: 'pointerMove',
        x: Math.round(from.x + ((to.x - from.x) * i) / steps),
        y: Math.round(from.y + ((to.y - from.y) * i) / steps),
        origin: 'viewport',
      });
    pointer.push({ type: 'pointerUp', button: 0 });
    await this.pointerActions(modifiers, pointer);
    return { html5: false };
  }

  private async pressKey(key: string, modifiers: readonly Modifier[], repeat: number): Promise<void> {
    const def = keyDefinition(key);
    assertNotBrowserShortcut(def.key.length === 1 ? def.key : key, modifiers);
    const value = w3cKey(key);
    const actions: KeyAction[] = modifiers.map((m) => ({ type: 'keyDown', value: MODIFIER_KEY[m] }));
    for (let i = 0; i < repeat; i++) actions.push({ type: 'keyDown', value }, { type: 'keyUp', value });
    for (const m of [...modifiers].reverse()) actions.push({ type: 'keyUp', value: MODIFIER_KEY[m] });
    await this.keys(actions);
  }

  /**
   * The viewport and pixel ratio through the client's device emulation where it has one (BiDi), else the window sized so
   * the page's viewport is the wanted CSS size (the browser's frame measured once) at the browser's own ratio.
   */
  private async applyViewport(v: ViewportSpec): Promise<void> {
    this.pointerAt = undefined;
    const emulation = this.client.deviceEmulation;
    if (emulation) {
      if (v.mobile || v.touch) throw this.refuse('deviceEmulation', `emulating ${v.mobile ? 'a mobile device' : 'touch'}`);
      await this.guard(emulation.setViewport({ width: v.width, height: v.height }, v.dpr));
      this.viewportSet = true;
      return;
    }
    const now = await this.evaluate<{ dpr: number }>('({ dpr: devicePixelRatio })');
    if (v.mobile || v.touch || Math.abs(now.dpr - v.dpr) > 1e-6)
      throw this.refuse('deviceEmulation', `emulating ${v.mobile ? 'a mobile device' : v.touch ? 'touch' : `pixel ratio ${v.dpr}`}`);
    const rect = await this.guard(this.client.windowRect());
    const inner = await this.evaluate<{ w: number; h: number }>('({ w: innerWidth, h: innerHeight })');
    await this.guard(this.client.setWindowRect({ width: v.width + (rect.width - inner.w), height: v.height + (rect.height - inner.h) }));
  }

  private async setUserAgent(userAgent: string): Promise<void> {
    const emulation = this.client.deviceEmulation;
    if (!emulation || this.definition.lacks.userAgent !== undefined) throw this.refuse('userAgent', 'a user agent override');
    await this.guard(emulation.setUserAgent(userAgent));
  }

  /** Back to the browser's own viewport, pixel ratio and user agent (nothing to undo over WebDriver classic). */
  private async clearEmulation(): Promise<void> {
    const emulation = this.client.deviceEmulation;
    if (!emulation) return;
    this.pointerAt = undefined;
    await this.guard(emulation.setViewport(undefined, undefined));
    if (this.definition.lacks.userAgent === undefined) await this.guard(emulation.setUserAgent(undefined));
    this.viewportSet = false;
  }

  private async navigate(url: string, timeoutMs: number): Promise<NavigateResult> {
    this.pointerAt = undefined;
    const events = this.client.navigationEvents;
    // Without events, a same-document navigation is told from the URL before and after.
    const before = events ? '' : await this.client.url().catch(() => '');
    await this.guard(this.client.setTimeouts({ pageLoad: Math.max(1, timeoutMs) }));
    let reported: { newDocument: boolean } | undefined;
    try {
      if (events) reported = await this.guard(events.navigate(url, timeoutMs));
      else await this.guard(this.client.navigate(url, timeoutMs + 2000));
    } catch (e) {
      if (e instanceof WebDriverError)
        throw new PerfError({
          code: 'navigation_failed',
          kind: 'environment',
          message: `could not open ${url}: ${e.detail.split('\n')[0]}`,
          suggestion: 'check that the app is running and the path exists',
        });
      throw e;
    }
    const sameDocument = reported
      ? !reported.newDocument
      : before !== '' && before.split('#')[0] === url.split('#')[0] && url.includes('#');
    if (!url.startsWith('about:')) this.openedPages = true;
    if (!sameDocument) await this.hookDocument();
    return { url, newDocument: !sameDocument };
  }

  private async back(
    timeoutMs: number,
  ): Promise<{ status: 'committed'; kind: 'same-document' | 'new-document'; loaded?: true } | { status: 'no_history' }> {
    const events = this.client.navigationEvents;
    if (events) return this.guard(events.traverse(-1, timeoutMs));
    // WebDriver classic: no events, so the step back is seen by reading location until it changes.
    // A marker on the current document tells a same-document step back (it survives) from a new one.
    const marker = `__rehearse_doc_${Math.random().toString(36).slice(2)}`;
    const { url, length } = await this.evaluate<{ url: string; length: number }>(
      `(globalThis[${JSON.stringify(marker)}] = true, { url: location.href, length: history.length })`,
    );
    if (length <= 1) return { status: 'no_history' };
    await this.guard(this.client.back());
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = await this.evaluate<{ url: string; same: boolean }>(
        `({ url: location.href, same: globalThis[${JSON.stringify(marker)}] === true })`,
      ).catch(() => undefined);
      if (now && (!now.same || now.url !== url)) return { status: 'committed', kind: now.same ? 'same-document' : 'new-document' };
      if (Date.now() > deadline) return { status: 'no_history' };
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * WebDriver captures the viewport: a clip is cut from it, after scrolling the page so the clip is
   * in view when it fits in one viewport (then scrolled back). A larger clip (fullPage) would need
   * stitching, and is refused.
   */
  private async screenshot(opts: CaptureOptions): Promise<Buffer> {
    if (opts.format !== 'png') throw this.refuse('jpegScreenshot', 'a JPEG screenshot');
    if (!opts.clip) return this.guard(this.client.screenshot());
    const c = opts.clip;
    const view = await this.evaluate<{ sx: number; sy: number; w: number; h: number; dpr: number }>(
      '({ sx: scrollX, sy: scrollY, w: innerWidth, h: innerHeight, dpr: devicePixelRatio })',
    );
    if (c.width > view.w || c.height > view.h)
      throw this.refuse(
        'largeScreenshot',
        `a screenshot of ${Math.round(c.width)}×${Math.round(c.height)} px, larger than the ${view.w}×${view.h} viewport (fullPage)`,
      );
    const inView = c.x >= view.sx && c.y >= view.sy && c.x + c.width <= view.sx + view.w && c.y + c.height <= view.sy + view.h;
    const sx = inView ? view.sx : Math.max(0, c.x + c.width - view.w);
    const sy = inView ? view.sy : Math.max(0, c.y + c.height - view.h);
    if (!inView) await this.evaluate(`window.scrollTo(${sx}, ${sy})`);
    try {
      // Where the page really went (it may not scroll that far): the clip is cut relative to it.
      const at = inView ? { sx, sy } : await this.evaluate<{ sx: number; sy: number }>('({ sx: scrollX, sy: scrollY })');
      const png = await this.guard(this.client.screenshot());
      const cut = cropPng(png, {
        x: (c.x - at.sx) * view.dpr,
        y: (c.y - at.sy) * view.dpr,
        width: c.width * view.dpr,
        height: c.height * view.dpr,
      });
      if (!cut)
        throw new PerfError({
          code: 'unsupported_on_driver',
          kind: 'usage',
          message: 'cannot cut this screenshot: the browser wrote a PNG other than 8-bit RGB/RGBA',
          suggestion: 'take the screenshot without a clip, or run this on the cdp driver (browser.driver: cdp)',
        });
      return cut;
    } finally {
      if (!inView) await this.evaluate(`window.scrollTo(${view.sx}, ${view.sy})`).catch(() => undefined);
    }
  }
}
