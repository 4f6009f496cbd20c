/**
 * The pipeline every element action follows: resolve → actionability gate (which also starts the
 * effect observation) → dispatch once → settle → read back the effect → optional snapshot. An
 * action is never retried after dispatch.
 */
import { callRuntime, type CheckedState, type ReadKind, type RuntimeSettle, type Stale } from '../drivers/cdp/page-runtime.js';
import { MODIFIERS, click, clickOverlapped, hover, insertText, keyDefinition, pressKeyRaw, selectAllKey, typeText, type Modifier } from '../drivers/cdp/input.js';
import { PerfError, isPerfError } from '../errors.js';
import type { Effect, StepContext, StepOutput, TargetSpec } from '../steps/define.js';
import { snapshotAfter } from './snapshot.js';
import { addWarning, gateElement, locatorOf, noFramesWarning, resolveQuick, takeWarnings, type ActionabilityOptions, type GateResult } from './targets.js';

/** Gate switches shared by the pointer and text actions (JSON Schema fragments). */
export const GATE_ARGS = {
  checkStable: { type: 'boolean', description: 'Require the element to keep the same box across two animation frames before acting. Default true; false acts on a moving element at its live centre.' },
  checkReceivesEvents: { type: 'boolean', description: 'Require a hit test at the action point to reach the element (nothing covering it). Default true.' },
} as const;

export const MODIFIERS_ARG = {
  type: 'array',
  items: { type: 'string', enum: MODIFIERS, description: 'A modifier key.' },
  description: 'Modifier keys held during the action (control, shift, alt, meta); always released afterwards.',
} as const;

// Reading back needs the page's answer; past this the page is hung and the step times out anyway.
const SETTLE_TIMEOUT_MS = 2_000;

export interface TargetArgs {
  ref?: string;
  target?: TargetSpec;
  snapshot?: 'full' | 'diff' | 'none';
  checkStable?: boolean;
  checkReceivesEvents?: boolean;
}

export interface ActionRun {
  ref: string;
  role: string;
  name: string;
  reresolved: boolean;
  point: { x: number; y: number };
  settle: RuntimeSettle & { navigated?: boolean };
  /** Set when the action started a navigation of the page (link, form submission). */
  navigation?: { navigated: true; url: string; loaded: boolean };
}

/** "button "Save" [ref=e4]": how responses name the element acted on. */
export function describeEl(el: { ref: string; role: string; name: string }): string {
  return `${el.role}${el.name ? ` ${JSON.stringify(el.name)}` : ''} [ref=${el.ref}]`;
}

export function gateOptions(args: TargetArgs, extra: ActionabilityOptions = {}): ActionabilityOptions {
  return {
    ...(args.checkStable === false ? { checkStable: false } : {}),
    ...(args.checkReceivesEvents === false ? { checkReceivesEvents: false } : {}),
    ...extra,
  };
}

// Sent ahead of the dispatch's acknowledgement, the settle waits this long for the input to arrive.
const INPUT_ARRIVAL_MS = 500;

/** Wait for the action to settle (a frame, two when the first still changed the DOM) and read back. */
export async function settleAction(ctx: StepContext, opts: { inputInFlight?: boolean } = {}): Promise<RuntimeSettle & { navigated?: boolean }> {
  let s: RuntimeSettle;
  try {
    s = await callRuntime(ctx.page, 'settle', [opts.inputInFlight ? INPUT_ARRIVAL_MS : 0], { awaitPromise: true, timeoutMs: SETTLE_TIMEOUT_MS });
  } catch (e) {
    // The action navigated (a link, a form post): the old document is gone, which is its effect.
    if (isPerfError(e) && e.code === 'page_navigated') return { mutations: 1, noFrames: false, framesWaited: 0, detached: true, navigated: true };
    throw e;
  }
  if (s.noFrames) await noFramesWarning(ctx);
  return s;
}

/**
 * Watches the main frame while an action runs: a link or a form the action triggers starts a
 * navigation, and the step then waits for the new document to load (within its deadline), the
 * way a user waits for the next page.
 */
export function watchNavigation(ctx: StepContext): { finish(): Promise<{ navigated: true; url: string; loaded: boolean } | undefined> } {
  const page = ctx.page;
  let requested: string | undefined;
  let loaded = false;
  let sameDocument = false;
  const offs = [
    page.on('Page.frameRequestedNavigation', (p) => {
      if (p.frameId === page.targetId && p.disposition === 'currentTab') requested = p.url;
    }),
    page.on('Page.navigatedWithinDocument', (p) => {
      if (p.frameId === page.targetId) sameDocument = true;
    }),
    page.on('Page.loadEventFired', () => {
      loaded = true;
    }),
  ];
  return {
    async finish() {
      try {
        if (requested === undefined || sameDocument) return undefined;
        const deadline = ctx.deadline - Math.min(100, ctx.timeoutMs / 5);
        while (!loaded && Date.now() < deadline && !page.crashReason) await new Promise((r) => setTimeout(r, NAV_POLL_MS));
        if (!loaded) addWarning(ctx, `the action started a navigation to ${requested} that had not loaded when the step's time ran out; wait_for what the next page shows`);
        return { navigated: true, url: requested, loaded };
      } finally {
        for (const off of offs) off();
      }
    },
  };
}
// How often to check for the load event of a navigation an action started.
const NAV_POLL_MS = 10;

/** Stop observing after a failed dispatch (best effort: the page may be gone). */
export async function abortAction(ctx: StepContext): Promise<void> {
  await callRuntime(ctx.page, 'abortAction', []).catch(() => undefined);
}

/**
 * Resolve, gate (starting the observation of `read`), dispatch once at the live point, settle.
 */
export async function runAction(
  ctx: StepContext,
  step: string,
  args: TargetArgs,
  spec: {
    read: ReadKind | ((role: string) => ReadKind);
    gate: ActionabilityOptions;
    /** Dispatch once. May return `{ pressed, done }`: the settle then starts at `pressed`, overlapping the rest. */
    dispatch: (point: { x: number; y: number }, ref: string) => Promise<void | { pressed: Promise<void>; done: Promise<void> }>;
  },
): Promise<ActionRun> {
  const { r } = await resolveQuick(ctx, locatorOf(step, args));
  const read = typeof spec.read === 'function' ? spec.read(r.role) : spec.read;
  const g = await gateElement(ctx, r, spec.gate, read);
  const nav = watchNavigation(ctx);
  let settle: RuntimeSettle & { navigated?: boolean };
  try {
    const d = await spec.dispatch({ x: g.x, y: g.y }, g.ref);
    if (d) {
      await d.pressed;
      const settling = settleAction(ctx, { inputInFlight: true });
      settling.catch(() => undefined);
      await d.done;
      settle = await settling;
    } else settle = await settleAction(ctx);
  } catch (e) {
    await abortAction(ctx);
    await nav.finish();
    throw e;
  }
  const navigation = await nav.finish();
  if (navigation) settle = { ...settle!, mutations: Math.max(1, settle!.mutations), navigated: true };
  return { ref: g.ref, role: r.role, name: r.name, reresolved: r.reresolved || g.reresolved, point: { x: g.x, y: g.y }, settle: settle!, ...(navigation ? { navigation } : {}) };
}

export function treeEffect(s: RuntimeSettle): Effect {
  return { treeChanged: { changed: s.mutations > 0 } };
}

export function checkedEffect(before: CheckedState, after: CheckedState, verified: boolean): NonNullable<Effect['checked']> {
  return { verified, before, after };
}

/** Assemble the step output: data, effect, reresolved, warnings and the optional snapshot. */
export async function actionOutput(ctx: StepContext, args: { snapshot?: 'full' | 'diff' | 'none' }, out: { data: Record<string, unknown>; effect?: Effect; reresolved?: string | false }): Promise<StepOutput> {
  const snapshot = await snapshotAfter(ctx, args.snapshot);
  const warnings = takeWarnings(ctx);
  return {
    data: { ...out.data, ...(snapshot !== undefined ? { snapshot } : {}) },
    ...(out.effect ? { effect: out.effect } : {}),
    ...(out.reresolved ? { reresolved: [out.reresolved] } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

export function asModifiers(list: readonly string[] | undefined): Modifier[] {
  return (list ?? []).map((m) => {
    if (!(MODIFIERS as readonly string[]).includes(m)) throw new PerfError({ code: 'invalid_arguments', message: `unknown modifier "${m}"`, suggestion: 'modifiers are control, shift, alt, meta' });
    return m as Modifier;
  });
}

export const isCheckable = (role: string): boolean => role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio';

/** Args of the click-like steps (JSON Schema). */
export const POINTER_PROPS = {
  modifiers: MODIFIERS_ARG,
  ...GATE_ARGS,
} as const;

/**
 * tap / dblclick / right_click / triple_click / hover: the gate, one dispatch at the live centre,
 * then the effect (tree changed; checked state too when the element is a checkbox, radio or switch).
 */
export async function runPointer(
  ctx: StepContext,
  step: string,
  args: TargetArgs & { modifiers?: string[] },
  opts: { kind: 'click'; button: 'left' | 'right'; clickCount: number } | { kind: 'hover' },
): Promise<StepOutput> {
  const modifiers = asModifiers(args.modifiers);
  const run = await runAction(ctx, step, args, {
    read: (role) => (opts.kind === 'click' && isCheckable(role) ? 'checked' : 'none'),
    gate: gateOptions(args, opts.kind === 'hover' ? { checkEnabled: false } : {}),
    dispatch: async (p) => {
      if (opts.kind === 'hover') return hover(ctx.page, p.x, p.y);
      // A single click's settle can start once it is pressed (it waits for the mouseup in the page).
      if (opts.clickCount === 1) return clickOverlapped(ctx.page, p.x, p.y, { button: opts.button, clickCount: 1, modifiers });
      return click(ctx.page, p.x, p.y, { button: opts.button, clickCount: opts.clickCount, modifiers });
    },
  });
  const effect: Effect = treeEffect(run.settle);
  if (run.settle.checked !== undefined) {
    const before = run.settle.checkedBefore ?? null;
    const after = run.settle.checked;
    // A click on a checkbox or switch flips it; on a radio it selects it.
    const verified = run.role === 'radio' || run.role === 'menuitemradio' ? after === true : after !== before;
    effect.checked = checkedEffect(before, after, verified);
  }
  return actionOutput(ctx, args, {
    data: {
      element: describeEl(run),
      at: { x: Math.round(run.point.x), y: Math.round(run.point.y) },
      ...(run.navigation ? { navigated: run.navigation.url } : run.settle.navigated ? { navigated: true } : run.settle.detached ? { detached: true } : {}),
    },
    effect,
    reresolved: run.reresolved && run.ref,
  });
}

function staleError(s: Stale): PerfError {
  return new PerfError({ code: 'stale_ref', kind: 'usage', message: s.detail, suggestion: 'run snap again' });
}

/**
 * type / fill / clear: gate (editable), focus and select the content, delete it, enter the text
 * (type: key by key after a click, like a user; fill: one insertText edit), fire `change` when
 * the value changed, settle, and read back what the field holds.
 */
export async function runTextEdit(ctx: StepContext, step: string, args: TargetArgs & { text?: string }, mode: 'type' | 'fill' | 'clear'): Promise<StepOutput> {
  const page = ctx.page;
  const locator = locatorOf(step, args);
  const text = mode === 'clear' ? '' : (args.text ?? '');
  let { r } = await resolveQuick(ctx, locator);
  let g: GateResult = await gateElement(ctx, r, gateOptions(args, { editable: true }), 'text');
  let reresolved = r.reresolved || g.reresolved;
  if (mode === 'type') {
    try {
      await click(page, g.x, g.y);
    } catch (e) {
      await abortAction(ctx);
      throw e;
    }
  }
  let sel = await callRuntime(page, 'selectContent', [g.ref]);
  if (sel.status === 'stale' && mode === 'fill') {
    // Nothing typed yet: the one retry fill allows, on the element the locator finds now.
    ({ r } = await resolveQuick(ctx, locator));
    g = await gateElement(ctx, r, gateOptions(args, { editable: true }), 'text');
    reresolved = true;
    sel = await callRuntime(page, 'selectContent', [g.ref]);
  }
  if (sel.status === 'stale') {
    await abortAction(ctx);
    throw staleError(sel);
  }
  const before = sel.value;
  let changeFired = false;
  try {
    if (before !== '') {
      await pressKeyRaw(page, keyDefinition('Delete'), 0);
      const left = await callRuntime(page, 'readValue', [g.ref]);
      if (left.status === 'ok' && left.value !== '') {
        // Some fields ignore select(): the editing command selects everything, then delete.
        await selectAllKey(page);
        await pressKeyRaw(page, keyDefinition('Delete'), 0);
      }
    }
    if (text !== '') {
      if (mode === 'type') await typeText(page, text);
      else await insertText(page, text);
    }
    const c = await callRuntime(page, 'commitChange', [g.ref, before]);
    changeFired = c.status === 'ok' && c.fired;
  } catch (e) {
    await abortAction(ctx);
    throw e;
  }
  const settle = await settleAction(ctx);
  const value = settle.text ?? '';
  return actionOutput(ctx, args, {
    data: { element: describeEl({ ...r, ref: g.ref }), value, previousValue: before, changeFired },
    effect: { text: { verified: value === text, value, expected: text }, ...treeEffect(settle) },
    reresolved: reresolved && g.ref,
  });
}
