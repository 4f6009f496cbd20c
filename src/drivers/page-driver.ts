/**
 * The page contract every driver implements (CDP today; WebDriver and a terminal next): what the
 * steps may do to a page, in the steps' own terms, with no protocol type in sight. src/page builds
 * target resolution, actions and snapshots on it; steps see nothing else (chrome-devtools-mcp's rule:
 * a narrow context holding only what the tools use). It sits at the bottom, beside the drivers, so a
 * driver states `implements PageDriver` without importing anything above it.
 */
import type { RuntimeApi, RuntimeMethod } from './runtime/api.js';
import type { Modifier, MouseButton } from './keys.js';
import type { LoadOptions, LoadReadings, PerfBeginOptions, PerfRecorder } from './measure.js';
import type { PageStorage } from './storage.js';

/**
 * What a step may need beyond driving the page, which not every driver has. A scenario whose driver
 * lacks a step's need (its entry's `lacks`, src/drivers/<name>/driver.ts) is refused when it loads.
 */
export type PageFeature =
  | 'console'
  | 'exceptions'
  | 'network'
  | 'networkEmulation'
  | 'userAgent'
  | 'trace'
  /** Several open pages (tabs, popups): switch_page and a step's `page`. */
  | 'pages';

export interface PageDriver {
  /** Why the page is gone (renderer crash, closed, browser lost), or undefined while it lives. */
  readonly crashReason: string | undefined;
  /** Hear when the page goes away; returns the unsubscribe. */
  onCrash(fn: (reason: string) => void): () => void;
  /** Call a method of the in-page runtime (src/drivers/runtime), installing it first when the document has none. */
  call<M extends RuntimeMethod>(
    method: M,
    args: Parameters<RuntimeApi[M]>,
    opts?: RuntimeCallOptions,
  ): Promise<Awaited<ReturnType<RuntimeApi[M]>>>;
  /** Evaluate a harness-written expression (a promise is awaited) and return its JSON value; PerfError evaluate_failed when it throws. */
  evaluate<T>(expression: string, opts?: { timeoutMs?: number }): Promise<T>;
  /** Evaluate a user's expression as a console would (top-level await), stopped at the deadline; evaluate_failed / timeout as PerfError. */
  evaluateUser(expression: string, opts: { deadline: number; timeoutMs: number }): Promise<EvaluateOutcome>;
  readonly input: PageInput;
  readonly emulation: PageEmulation;
  readonly navigation: PageNavigation;
  readonly capture: PageCapture;
  readonly perf: PagePerf;
  /** Make a hidden or background page produce frames again (bring it to front, emulate focus). */
  bringToFront(): Promise<void>;
}

/** What a step host needs beyond the steps' view: put the harness scripts on the page, check it lives. */
export interface HostPage extends PageDriver {
  /**
   * Put the harness scripts on the page; `future` only: for a page paused before its first document. `watchNetwork`:
   * the caller stays connected, so the driver may watch requests from the browser for the page's life instead of
   * counting fetch/XHR in the page (CDP: the counter's wrapper would be every fetch's initiator); a driver without
   * network events ignores it.
   */
  installScripts(opts?: { future?: boolean; watchNetwork?: boolean }): Promise<void>;
  /** A clean repeat's environment: viewport and touch, CPU throttling, focus emulation, and the network (none: not throttled). */
  emulateEnvironment(env: { viewport: ViewportSpec; cpuThrottle: number; network?: NetworkConditions | undefined }): Promise<void>;
  /** False once the page or its browser is gone. */
  alive(): boolean;
  /** Save and restore the browser's sign-in state (cookies, web storage) around clean restarts. */
  readonly storage: PageStorage;
}

export interface RuntimeCallOptions {
  /** The method returns a promise: wait for it. */
  awaitPromise?: boolean;
  /** How long the call may take, round trip included. */
  timeoutMs?: number;
}

/** Trusted input at CSS px in the top frame's viewport; modifiers pressed are always released. */
export interface PageInput {
  click(x: number, y: number, opts?: ClickOptions): Promise<void>;
  /** A click whose settle may start once the last press is taken (`pressed`); `done` when all of it was delivered. */
  clickOverlapped(x: number, y: number, opts?: ClickOptions): { pressed: Promise<void>; done: Promise<void> };
  hover(x: number, y: number): Promise<void>;
  /** Press at `from`, move in `steps`, release at `to`; `html5` when the page started an HTML5 drag. */
  drag(from: Point, to: Point, opts?: { steps?: number; modifiers?: readonly Modifier[] }): Promise<{ html5: boolean }>;
  wheel(x: number, y: number, deltaX: number, deltaY: number): Promise<void>;
  /** A key (src/drivers/keys.ts names) with modifiers held around it, `repeat` times. */
  pressKey(key: string, modifiers?: readonly Modifier[], repeat?: number): Promise<void>;
  /** Key by key, like a user on a US keyboard; characters without a key are inserted. */
  typeText(text: string): Promise<void>;
  /** One edit, no key events (IME commit). */
  insertText(text: string): Promise<void>;
  /** Select the focused field's content with the platform's select-all command. */
  selectAll(): Promise<void>;
}

export interface Point {
  x: number;
  y: number;
}

export interface ClickOptions {
  button?: MouseButton;
  clickCount?: number;
  modifiers?: readonly Modifier[];
}

export interface PageEmulation {
  /** Viewport and touch (not the user agent). */
  applyViewport(v: ViewportSpec): Promise<void>;
  /** Back to the browser's own viewport, no touch, its own user agent. */
  clear(): Promise<void>;
  /** What the page sees now. */
  readViewport(): Promise<ViewportReadBack>;
  /** Whether a viewport override this harness applied is in effect. */
  viewportOverridden(): boolean;
  /** The browser's own user agent, without a headless marker. */
  browserUserAgent(): string;
  setUserAgent(ua: UserAgentSpec): Promise<void>;
  /** Network throttling, on drivers that can (CDP); absent elsewhere, where a scenario using it is refused when it loads. */
  readonly network?: NetworkEmulation;
}

export interface NetworkEmulation {
  /** Throttle (or cut) the page's network; undefined turns throttling off. */
  apply(conditions: NetworkConditions | undefined): Promise<void>;
  /** What the page's target last acknowledged (the browser offers no getter); undefined when not throttled. */
  current(): NetworkConditions | undefined;
}

/** Network conditions in the steps' units: kbit/s (1000 bits) and ms. */
export interface NetworkConditions {
  offline: boolean;
  /** Added to every request, from sent to response headers. */
  latencyMs: number;
  /** 0 with offline, or for no limit. */
  downloadKbps: number;
  uploadKbps: number;
}

export interface UserAgentSpec {
  userAgent: string;
  mobile: boolean;
  /** Client hints platform (navigator.userAgentData), when the preset names one. */
  platform?: { name: string; version: string; model: string };
}

export interface ViewportSpec {
  width: number;
  height: number;
  dpr: number;
  mobile: boolean;
  touch: boolean;
  screenWidth?: number;
  screenHeight?: number;
}

/** What the page reports after emulation: the read-back half of resize_viewport / device_profile. */
export interface ViewportReadBack {
  width: number;
  height: number;
  dpr: number;
  touch: boolean;
  screenWidth: number;
  screenHeight: number;
  userAgent: string;
}

export interface PageNavigation {
  /** Open `url` and wait for the new document's load event (a same-document navigation has none). */
  navigate(url: string, timeoutMs: number): Promise<NavigateResult>;
  /** Reload and wait for the load event. */
  reload(opts: { ignoreCache: boolean; timeoutMs: number }): Promise<void>;
  /**
   * One history entry back, resolved when the main frame committed it; `no_history` at the first entry. `loaded`: the
   * driver already waited for the new document's load (from the protocol's events), so nothing has to look again.
   */
  back(timeoutMs: number): Promise<{ status: 'committed'; kind: CommitKind; loaded?: true } | { status: 'no_history' }>;
  /** Watch the main frame while an action runs (a link or a form may start a navigation). */
  watch(): NavigationWatch;
}

export type CommitKind = 'same-document' | 'new-document';

export interface NavigationWatch {
  /** The URL of a new-document navigation of the main frame the page asked for, if any. */
  readonly requested: string | undefined;
  /** The main frame changed route within its document (history API, hash). */
  readonly sameDocument: boolean;
  /** A load event fired since the watch began. */
  readonly loaded: boolean;
  stop(): void;
}

export interface NavigateResult {
  url: string;
  /** False for a same-document navigation (hash or history API), which fires no load event. */
  newDocument: boolean;
}

/** Screenshots, the page's console / exceptions / requests, network activity. */
export interface PageCapture {
  screenshot(opts: CaptureOptions): Promise<Buffer>;
  /** The document's size and the visual viewport's scroll offset, CSS px. */
  geometry(): Promise<{ contentWidth: number; contentHeight: number; scrollX: number; scrollY: number }>;
  console(q: ConsoleQuery): Promise<ConsoleRead>;
  exceptions(q: ExceptionQuery): Promise<ExceptionRead>;
  /** fetch/XHR requests the page started (from document start) and has no response for yet. */
  pendingRequests(): Promise<PendingRequest[]>;
  /** Every request the browser sends for the page, from the first call on, kept for the page's lifetime. */
  network(): Promise<NetworkActivity>;
}

export interface NetworkActivity {
  /** URLs of the requests in flight now. */
  inFlight(): string[];
  /** Recent request starts and ends (url, epoch ms): a request that came and went between two polls is activity too. */
  changes(): readonly { url: string; at: number }[];
  /**
   * The wait is over: let go of what this view holds in the browser (BiDi's event subscription, which would
   * otherwise outlive the wait in a session shared by every repeat and verb). A page-lifetime view keeps going.
   */
  release(): Promise<void>;
}

export interface CaptureOptions {
  format: 'png' | 'jpeg';
  /** JPEG quality, 0-100. */
  quality?: number;
  /** A region in page (document) CSS pixels; beyond the viewport is captured too. */
  clip?: { x: number; y: number; width: number; height: number };
  timeoutMs?: number;
}

export type ConsoleLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';
export const CONSOLE_LEVELS: readonly ConsoleLevel[] = ['log', 'info', 'warn', 'error', 'debug'];

export interface ConsoleEntry {
  level: ConsoleLevel;
  text: string;
  /** ms since the epoch. */
  time: number;
  /** The document URL when the message was logged (changes with history navigation). */
  url?: string;
}

export interface ExceptionEntry {
  kind: 'error' | 'unhandledrejection';
  message: string;
  /** The first lines of the stack (at most STACK_LINES). */
  stack?: string;
  time: number;
  url?: string;
}

export interface PendingRequest {
  url: string;
  /** ms since the epoch. */
  startedAt: number;
}

export interface ConsoleQuery {
  level?: ConsoleLevel;
  limit: number;
  /** Only entries at or after this time (ms since the epoch). */
  since?: number;
}

export interface ConsoleRead {
  /** Newest first, at most `limit`. */
  entries: ConsoleEntry[];
  /** Entries matching the filter, before the limit. */
  matched: number;
  /** Entries the ring buffer dropped since the document loaded. */
  dropped: number;
  /** False when the capture runtime is not in this document (it loaded before the harness attached). */
  captured: boolean;
}

export interface ExceptionQuery {
  since?: number;
  limit: number;
  /** Empty the buffer after reading. */
  clear: boolean;
}

export interface ExceptionRead {
  /** Newest first, at most `limit`. */
  exceptions: ExceptionEntry[];
  matched: number;
  dropped: number;
  /** How many entries `clear` removed. */
  cleared: number;
  captured: boolean;
}

export interface PagePerf {
  /** A user-timing mark in the page; its epoch ms. */
  mark(name: string): Promise<number>;
  /** Open a measured window on the page. */
  begin(opts: PerfBeginOptions): Promise<PerfRecorder>;
  /**
   * Navigate to `url` with the load probe at the new document's start, wait until the page is quiet
   * (or the deadline), and read the load back. Absent on drivers that cannot watch a document from its start.
   */
  load?(url: string, opts: LoadOptions): Promise<LoadReadings>;
  /** Force a full garbage collection of the page's heap (perf leaks). Absent on drivers with no view of the heap. */
  collectGarbage?(): Promise<void>;
  /**
   * Write a V8 heap snapshot of the page to `file`, streamed chunk by chunk (never whole in memory); its size in
   * bytes. Absent on drivers with no view of the heap (WebDriver, terminal).
   */
  heapSnapshot?(file: string): Promise<{ bytes: number }>;
}

/** What the expression produced. */
export type EvaluateOutcome =
  | { kind: 'value'; value: unknown; type: string }
  /** A DOM node, a function or a symbol: no JSON form. */
  | { kind: 'opaque'; type: string; description?: string }
  | { kind: 'undefined' };
