/**
 * The pipeline every element action follows: resolve → actionability gate (which also starts the
 * effect observation) → dispatch once → settle → read back the effect → optional snapshot. An
 * action is never retried after dispatch.
 */
import type { CheckedState, ReadKind, RuntimeSettle } from '../drivers/runtime/api.js';
import { MODIFIERS, type Modifier } from '../drivers/keys.js';
import { PerfError, isPerfError } from '../errors.js';
import { addWarning, type PageContext } from './context.js';
import type { TargetSpec } from './target-schema.js';
import { gateElement, locatorOf, noFramesWarning, resolveTarget, type ActionabilityOptions } from './targets.js';

/** What a side-effect step read back from the page after the action settled (DESIGN.md "effect"). */
export interface Effect {
  text?: { verified: boolean; value: string; expected?: string };
  checked?: { verified: boolean; before: boolean | 'mixed' | null; after: boolean | 'mixed' | null };
  selected?: { verified: boolean; value: string | string[] };
  scrollOffset?: { changed: boolean; before: { x: number; y: number }; after: { x: number; y: number } };
  treeChanged?: { changed: boolean };
}

/** Gate switches shared by the pointer and text actions (JSON Schema fragments). */
export const GATE_ARGS = {
  checkStable: { type: 'boolean', description: 'Default true: wait until it stops moving.' },
  checkReceivesEvents: { type: 'boolean', description: 'Default true: nothing may cover it.' },
} as const;

export const MODIFIERS_ARG = {
  type: 'array',
  items: { type: 'string', enum: MODIFIERS },
  description: 'Keys held during it, released after.',
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
export async function settleAction(
  ctx: PageContext,
  opts: { inputInFlight?: boolean; pendingOk?: boolean } = {},
): Promise<RuntimeSettle & { navigated?: boolean }> {
  let s: RuntimeSettle;
  try {
    const args: [number, undefined, boolean] | [number] = opts.pendingOk
      ? [INPUT_ARRIVAL_MS, undefined, true]
      : [opts.inputInFlight ? INPUT_ARRIVAL_MS : 0];
    s = await ctx.page.call('settle', args, { awaitPromise: true, timeoutMs: SETTLE_TIMEOUT_MS });
  } catch (e) {
    // The action navigated (a link, a form post): the old document is gone, which is its effect.
    if (isPerfError(e) && e.code === 'page_navigated')
      return { mutations: 1, noFrames: false, framesWaited: 0, detached: true, navigated: true };
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
export function watchNavigation(ctx: PageContext): { finish(): Promise<{ navigated: true; url: string; loaded: boolean } | undefined> } {
  const page = ctx.page;
  const watch = page.navigation.watch();
  return {
    async finish() {
      try {
        const requested = watch.requested;
        if (requested === undefined || watch.sameDocument) return undefined;
        const deadline = ctx.deadline - Math.min(100, ctx.timeoutMs / 5);
        while (!watch.loaded && Date.now() < deadline && !page.crashReason) await new Promise((r) => setTimeout(r, NAV_POLL_MS));
        if (!watch.loaded)
          addWarning(
            ctx,
            `the action started a navigation to ${requested} that had not loaded ` +
              `when the step's time ran out; wait_for what the next page shows`,
          );
        return { navigated: true, url: requested, loaded: watch.loaded };
      } finally {
        watch.stop();
      }
    },
  };
}
// How often to check for the load event of a navigation an action started.
const NAV_POLL_MS = 10;

/** Stop observing after a failed dispatch (best effort: the page may be gone). */
export async function abortAction(ctx: PageContext): Promise<void> {
  await ctx.page.call('abortAction', []).catch(() => undefined);
}

/**
 * Resolve, gate (starting the observation of `read`), dispatch once at the live point, settle.
 */
export async function runAction(
  ctx: PageContext,
  step: string,
  args: TargetArgs,
  spec: {
    read: ReadKind | ((role: string) => ReadKind);
    gate: ActionabilityOptions;
    /** Dispatch once. May return `{ pressed, done }`: the settle then starts at `pressed`, overlapping the rest. */
    dispatch: (point: { x: number; y: number }, ref: string) => Promise<void | { pressed: Promise<void>; done: Promise<void> }>;
  },
): Promise<ActionRun> {
  const { r } = await resolveTarget(ctx, locatorOf(step, args));
  const read = typeof spec.read === 'function' ? spec.read(r.role) : spec.read;
  const g = await gateElement(ctx, r, spec.gate, read);
  const nav = watchNavigation(ctx);
  let settle: RuntimeSettle & { navigated?: boolean };
  try {
    const d = await spec.dispatch({ x: g.x, y: g.y }, g.ref);
    if (d) {
      await d.pressed;
      const settling = settleAction(ctx, { inputInFlight: true, pendingOk: true });
      settling.catch(() => undefined);
      await d.done;
      settle = await settling;
      // The input had not reached the page in time (a loaded machine): the dispatch is acknowledged
      // now, so the input is there or on its way; settle on it.
      if (settle.pending) settle = await settleAction(ctx, { inputInFlight: true });
    } else settle = await settleAction(ctx);
  } catch (e) {
    await abortAction(ctx);
    await nav.finish();
    throw e;
  }
  const navigation = await nav.finish();
  if (navigation) settle = { ...settle!, mutations: Math.max(1, settle!.mutations), navigated: true };
  return {
    ref: g.ref,
    role: r.role,
    name: r.name,
    reresolved: r.reresolved || g.reresolved,
    point: { x: g.x, y: g.y },
    settle: settle!,
    ...(navigation ? { navigation } : {}),
  };
}

export function treeEffect(s: RuntimeSettle): Effect {
  return { treeChanged: { changed: s.mutations > 0 } };
}

export function checkedEffect(before: CheckedState, after: CheckedState, verified: boolean): NonNullable<Effect['checked']> {
  return { verified, before, after };
}

export function asModifiers(list: readonly string[] | undefined): Modifier[] {
  return (list ?? []).map((m) => {
    if (!(MODIFIERS as readonly string[]).includes(m))
      throw new PerfError({
        code: 'invalid_arguments',
        message: `unknown modifier "${m}"`,
        suggestion: 'modifiers are control, shift, alt, meta',
      });
    return m as Modifier;
  });
}

export const isCheckable = (role: string): boolean =>
  role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio';
