/**
 * What the in-page runtime (src/drivers/runtime/main.ts) answers, seen from Node: the RuntimeApi
 * every driver's call into the page is checked against, and the shapes it returns. Driver-neutral:
 * the same runtime runs over CDP's Runtime.evaluate and later over WebDriver's executeScript.
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What a target/ref resolved to, or why not. */
export type RuntimeResolve =
  | { status: 'ok'; ref: string; role: string; name: string; reresolved: boolean; hidden: boolean; docId: string; route: string }
  | { status: 'not_found'; detail: string; near: string[] }
  | { status: 'ambiguous'; count: number; candidates: string[] }
  | { status: 'stale'; detail: string }
  | { status: 'unknown_ref'; detail: string }
  | { status: 'invalid'; detail: string };

export type GateCheck = 'visible' | 'stable' | 'enabled' | 'editable' | 'receives events';

export type RuntimeGate =
  | { status: 'ok'; x: number; y: number; noFrames: boolean; scrolled: boolean }
  | { status: 'failed'; check: GateCheck; detail: string; noFrames: boolean }
  | { status: 'stale'; detail: string };

export type ReadKind = 'text' | 'checked' | 'selected' | 'none';
export type CheckedState = boolean | 'mixed' | null;

export interface RuntimeSettle {
  mutations: number;
  noFrames: boolean;
  framesWaited: number;
  detached: boolean;
  text?: string;
  checked?: CheckedState;
  selected?: string[];
  checkedBefore?: CheckedState;
  textBefore?: string;
  /** The action's input had not reached the page when the settle was asked to wait no longer for it (see settle). */
  pending?: true;
}

export interface SnapshotOptions {
  depth?: number;
  within?: string;
  interactiveOnly?: boolean;
  grep?: string;
  diff?: boolean;
  maxBytes: number;
}

export interface RuntimeSnapshot {
  status: 'ok';
  text: string;
  lines: number;
  shownLines: number;
  nodes: number;
  bytes: number;
  truncated: boolean;
  grepLiteral: boolean;
  diff?: { added: number; removed: number; total: number; baseline: boolean };
  refs: Record<string, [string, string]>;
  docId: string;
  route: string;
  url: string;
  title: string;
}

export interface ObservedItem {
  ref: string;
  role: string;
  label: string;
  value?: string;
  bounds: Rect;
  isEnabled: boolean;
  inViewport: boolean;
  occluded: boolean;
  checked?: CheckedState;
}

export interface FoundItem {
  ref: string;
  role: string;
  name: string;
  text: string;
  value?: string;
  bounds: Rect;
  visible: boolean;
  inViewport: boolean;
}

export interface ScrollInfo {
  ref: string;
  describe: string;
  isDocument: boolean;
  x: number;
  y: number;
  maxX: number;
  maxY: number;
  clientWidth: number;
  clientHeight: number;
  /** Where to put the wheel: the centre of the container's visible part, top-viewport CSS px. */
  point: { x: number; y: number };
}

export interface ExpectOutcome {
  pass: boolean;
  failures: { check: string; expected: unknown; actual: unknown }[];
  invalid?: string;
}

export type Stale = { status: 'stale'; detail: string };
export type NativeSelect =
  | { status: 'ok'; labels: string[]; values: string[] }
  | { status: 'not_select'; role: string }
  | { status: 'missing'; missing: string[]; available: string[] }
  | { status: 'single'; available: string[] }
  | { status: 'disabled_option'; option: string }
  | { status: 'is_select' }
  | Stale;
export interface AriaOption {
  ref: string;
  name: string;
  selected: boolean;
}
export type AriaOptions =
  { status: 'ok'; role: string; listbox: string | null; multi?: boolean; options: AriaOption[]; expanded: string | null } | Stale;
export type CheckState = { status: 'ok'; role: string; checkable: boolean; checked: CheckedState } | Stale;
/** A target or ref as the runtime resolves it (engine/targets.ts builds it). */
export type RuntimeLocator = { ref?: string; target?: object };
/** JSON-serialisable arguments of a runtime method the Node side builds (targets, expectations, query specs). */
type Spec = object;
/** A successful answer: status ok and its fields (the other statuses are listed beside it, e.g. Stale when a ref's element is gone). */
type Ok<T> = { status: 'ok' } & T;

/**
 * Every method of the in-page runtime with its arguments and result (promises for the async ones):
 * callRuntime is checked against it at each call site, and the runtime's own \`api\` object against it
 * too, so a renamed or missing method, or a result read with the wrong shape, fails \`tsc\`.
 */
export interface RuntimeApi {
  resolve(locator: RuntimeLocator, expect: Spec | undefined, final: boolean): RuntimeResolve;
  waitResolve(locator: RuntimeLocator, expect: Spec | undefined, timeoutMs: number): Promise<RuntimeResolve>;
  /**
   * `begin`: start observing the action (what to read back). `settleOnInput`: the settle will start
   * at the input (a single click); the driver may then give `report`, a URL the page sends the
   * settle to as soon as it is known (see effect.ts armReport).
   */
  gate(
    ref: string,
    opts: {
      editable?: boolean;
      checkEnabled?: boolean;
      checkStable?: boolean;
      checkReceivesEvents?: boolean;
      timeoutMs: number;
      begin?: string;
      settleOnInput?: boolean;
      report?: string;
    },
  ): Promise<RuntimeGate>;
  /**
   * `report`: the URL the action's gate was given, naming the action this settle is for. `pendingOk`:
   * when the input has not arrived within `waitInputMs`, answer `{ pending: true }` at once and keep
   * observing (the caller asks again once its dispatch is acknowledged) rather than settle on a page
   * the input has not reached yet.
   */
  settle(waitInputMs: number, report?: string, pendingOk?: boolean): Promise<RuntimeSettle>;
  abortAction(): Ok<object>;
  snapshot(opts: SnapshotOptions): RuntimeSnapshot | { status: 'error'; resolve: RuntimeResolve };
  find(
    spec: Spec & { limit: number; qBase: number },
  ): Ok<{ count: number; items: (FoundItem & { locator: unknown })[]; near: string[] }> | { status: 'invalid'; detail: string };
  observe(spec: {
    within?: string;
    role?: string;
    limit: number;
    qBase: number;
  }): Ok<{ total: number; items: (ObservedItem & { locator: unknown })[] }> | { status: 'error'; resolve: RuntimeResolve };
  box(ref: string, scroll: boolean): Ok<{ rect: Rect; visible: boolean }> | Stale;
  focus(ref: string): Ok<{ focused: boolean; was: boolean }> | Stale;
  blur(ref: string | null): Ok<{ hadFocus: boolean; blurred: string | null; focusedNow?: string; stillFocused?: boolean }> | Stale;
  selectContent(ref: string): Ok<{ value: string; focused: boolean }> | Stale;
  commitChange(ref: string, before: string): Ok<{ fired: boolean }> | Stale;
  checkState(ref: string): CheckState;
  selectNative(ref: string, wanted: string[]): NativeSelect;
  ariaOptions(ref: string): AriaOptions;
  scrollContainer(ref: string | null, axis: 'x' | 'y'): Ok<ScrollInfo> | Stale;
  awaitScroll(ref: string, x: number, y: number, timeoutMs: number): Promise<Ok<{ x: number; y: number }> | Stale>;
  scrollByFallback(ref: string, x: number, y: number): Ok<{ x: number; y: number }> | Stale;
  scrollIntoView(
    ref: string,
  ):
    | Ok<{ before: { x: number; y: number }; after: { x: number; y: number }; inView: boolean; wasInView: boolean; container: string }>
    | Stale;
  expect(spec: Spec, timeoutMs: number): Promise<ExpectOutcome & { waitedMs: number }>;
  visibleText(text: string | null, gone: string | null): Ok<{ hasText: boolean; hasGone: boolean }>;
  framesAlive(ms: number): Promise<{ framed: boolean; visibilityState: string; hasFocus: boolean }>;
  defineQuery(q: string, locator: unknown): Ok<object>;
  begin(ref: string, read: ReadKind): Ok<object> | Stale;
  beginActive(): Ok<{ ref: string }>;
  labelFor(ref: string): Ok<{ ref: string }> | { status: 'none' } | Stale;
  readValue(ref: string): Ok<{ value: string; focused: boolean }> | Stale;
  activeInfo(): Ok<{ active: string | null; value?: string }>;
}
export type RuntimeMethod = keyof RuntimeApi;
