/**
 * Node-side API over the in-page runtime (src/drivers/runtime): resolve a ref or a
 * target to exactly one element, its box, and the actionability gate. Refs and handles live in the
 * page; this side keeps a small table of what each e-ref denoted (role, name, route, document) so a
 * ref from before a reload can be relocated safely or refused.
 */
import { StateSlot } from '../host-state.js';
import type { GateCheck, RuntimeResolve } from '../drivers/runtime/api.js';
import { PerfError } from '../errors.js';
import { addWarning, remaining, type PageContext } from './context.js';
import type { TargetSpec } from './target-schema.js';

export interface Locator {
  ref?: string;
  target?: TargetSpec;
}

export interface ActionabilityOptions {
  editable?: boolean;
  /** Hover and drop targets need not be enabled. Default true. */
  checkEnabled?: boolean;
  checkStable?: boolean;
  checkReceivesEvents?: boolean;
  /** The settle will start at the input (a single click): a driver may have the page report it. */
  settleOnInput?: boolean;
}

interface RefMemo {
  role: string;
  name: string;
  route: string;
  docId: string;
}

/** Per-host memory of refs and handles (host.state is cleared when the page is replaced). */
interface TargetsState {
  refs: Map<string, RefMemo>;
  queries: Map<string, unknown>;
  maxQ: number;
  objectSeq: number;
  frontTried: boolean;
  /** The page whose snapshots and finds minted these refs (a host may switch between tabs). */
  page?: object;
}
const TARGETS = new StateSlot<TargetsState>('targets');

/** The host's refs for this page: refs minted on another page (another tab) are forgotten here. */
export function targetsState(ctx: { host: PageContext['host']; page?: object }): TargetsState {
  let s = ctx.host.state.get(TARGETS);
  if (!s || (ctx.page && s.page && s.page !== ctx.page)) {
    s = { refs: new Map(), queries: new Map(), maxQ: 0, objectSeq: 0, frontTried: false };
    ctx.host.state.set(TARGETS, s);
  }
  if (ctx.page) s.page ??= ctx.page;
  return s;
}

/**
 * A ref names an element of the page whose snapshot minted it: once another page is selected, the
 * same name may exist there and mean something else, so it is refused rather than acted on.
 */
export function refusePageSwitchedRef(ctx: PageContext, locator: Locator): void {
  const within = locator.target?.within;
  const ref = locator.ref ?? (typeof within === 'string' ? within : undefined);
  const s = ctx.host.state.get(TARGETS);
  if (ref === undefined || !s?.page || s.page === ctx.page) return;
  throw new PerfError({
    code: 'stale_ref',
    kind: 'usage',
    message: `ref ${ref} is from a snapshot of another page; the selected page changed since (switch_page, page:, or a popup closed)`,
    suggestion: 'run snap on this page and use its refs, or select the page the ref came from',
  });
}

/** Remember what refs denote (from a snapshot's ref table or a resolve). */
export function rememberRefs(
  ctx: { host: PageContext['host']; page?: object },
  refs: Record<string, [string, string]>,
  route: string,
  docId: string,
): void {
  const s = targetsState(ctx);
  for (const [ref, [role, name]] of Object.entries(refs)) s.refs.set(ref, { role, name, route, docId });
}
/** Remember q handles minted by find/observe, to re-register them after a reload. */
export function rememberQueries(ctx: { host: PageContext['host']; page?: object }, items: { ref: string; locator: unknown }[]): void {
  const s = targetsState(ctx);
  for (const it of items) {
    s.queries.set(it.ref, it.locator);
    s.maxQ = Math.max(s.maxQ, Number(it.ref.slice(1)) || 0);
  }
}
export function nextQueryBase(ctx: { host: PageContext['host'] }): number {
  return targetsState(ctx).maxQ + 1;
}

/** Call timeout for an in-page wait of `ms`: the wait plus a margin for the round trip. */
const callTimeout = (ms: number): number => ms + 2000;

/** Exactly one of ref / target, as every target step requires. */
export function locatorOf(step: string, args: { ref?: string; target?: TargetSpec }): Locator {
  if (args.ref !== undefined && args.target !== undefined) {
    throw new PerfError({
      code: 'invalid_arguments',
      message: `${step}: give either ref or target, not both`,
      suggestion: 'a ref (e5 from snap, q2 from find) already names one element',
    });
  }
  if (args.ref === undefined && args.target === undefined) {
    throw new PerfError({
      code: 'invalid_arguments',
      message:
        `${step}: missing the element: give ref (e5 from snap, q2 from find) ` +
        `or target ({ text | role+name | label | testId | css … })`,
      suggestion: `e.g. ${step}: { target: { role: button, name: Save } }`,
    });
  }
  if (args.target && Object.keys(args.target).filter((k) => k !== 'within' && k !== 'nth').length === 0) {
    throw new PerfError({
      code: 'invalid_arguments',
      message: `${step}: target needs at least one of text, contains, label, role, name, testId, css`,
    });
  }
  return args.ref !== undefined ? { ref: args.ref } : { target: args.target! };
}

function describeLocator(l: Locator): string {
  if (l.ref) return `ref=${l.ref}`;
  return `target ${JSON.stringify(l.target)}`;
}

type OkResolve = Extract<RuntimeResolve, { status: 'ok' }>;

function expectationFor(ctx: PageContext, locator: Locator): RefMemo | undefined {
  return locator.ref?.startsWith('e') ? targetsState(ctx).refs.get(locator.ref) : undefined;
}

/** Make the page produce frames again when it is hidden/backgrounded (once per host). */
export async function bringToFront(ctx: PageContext): Promise<boolean> {
  const s = targetsState(ctx);
  if (s.frontTried) return false;
  s.frontTried = true;
  await ctx.page.bringToFront();
  return true;
}

/**
 * Resolve a ref or target to exactly one element. Strict: several matches → `ambiguous_target`
 * with the candidates (unless nth); none → waits, polling in the page, until the step's deadline,
 * then `target_not_found`; a stale e-ref is relocated when one element has its role+name on the
 * same route (`reresolved`), else `stale_ref`.
 */
export async function resolveTarget(ctx: PageContext, locator: Locator): Promise<{ r: OkResolve }> {
  refusePageSwitchedRef(ctx, locator);
  const page = ctx.page;
  const expect = expectationFor(ctx, locator);
  for (let attempt = 0; ; attempt++) {
    let r = await page.call('resolve', [locator, expect, remaining(ctx) === 0]);
    if (r.status === 'not_found' && remaining(ctx) > 0) {
      const wait = remaining(ctx);
      r = await page.call('waitResolve', [locator, expect, wait], { awaitPromise: true, timeoutMs: callTimeout(wait) });
    }
    if (r.status === 'unknown_ref' && attempt === 0 && locator.ref?.startsWith('q')) {
      const known = targetsState(ctx).queries.get(locator.ref);
      if (known) {
        await page.call('defineQuery', [locator.ref, known]);
        continue;
      }
    }
    const ok = checkResolve(ctx, locator, r);
    if (ok.hidden && (await bringToFront(ctx))) {
      // A background or hidden page produces no frames: the gate and the settle would stall.
      addWarning(
        ctx,
        'the page was hidden (a background tab or a minimised window) and produced no frames: it was brought to front with focus emulation',
      );
    }
    targetsState(ctx).refs.set(ok.ref, { role: ok.role, name: ok.name, route: ok.route, docId: ok.docId });
    return { r: ok };
  }
}

function checkResolve(ctx: PageContext, locator: Locator, r: RuntimeResolve): OkResolve {
  switch (r.status) {
    case 'ok':
      return r;
    case 'not_found':
      throw new PerfError({
        code: 'target_not_found',
        kind: 'failed',
        message: `${r.detail} (waited ${ctx.timeoutMs} ms)`,
        suggestion: r.near.length
          ? `did you mean ${r.near.join(' or ')}? run snap to see the page`
          : 'run snap (or find) to see what the page holds; raise timeoutMs if it appears later',
        ...(r.near.length ? { candidates: r.near } : {}),
      });
    case 'ambiguous':
      throw new PerfError({
        code: 'ambiguous_target',
        kind: 'usage',
        message:
          `${describeLocator(locator)} matches ${r.count} elements: ${r.candidates.join(', ')}` +
          `${r.count > r.candidates.length ? `, and ${r.count - r.candidates.length} more` : ''}`,
        suggestion: 'use one of the refs, or narrow the target (role + name, within, testId) or pick one with nth',
        candidates: r.candidates,
      });
    case 'stale':
    case 'unknown_ref':
      throw new PerfError({
        code: 'stale_ref',
        kind: 'usage',
        message: r.detail,
        suggestion: 'run snap again and use a ref from the new snapshot',
      });
    case 'invalid':
      throw new PerfError({ code: 'invalid_target', kind: 'usage', message: `${describeLocator(locator)}: ${r.detail}` });
  }
}

/** The element's box in CSS px, top-level viewport coordinates (scrolled into view first when needed). */
export async function elementBox(ctx: PageContext, locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const { r } = await resolveTarget(ctx, locator);
  const b = await ctx.page.call('box', [r.ref, true]);
  if (b.status !== 'ok') throw new PerfError({ code: 'stale_ref', kind: 'usage', message: b.detail, suggestion: 'run snap again' });
  if (b.rect.width === 0 || b.rect.height === 0) {
    throw new PerfError({
      code: 'empty_box',
      kind: 'failed',
      message:
        `ref=${r.ref} (${r.role}${r.name ? ` "${r.name}"` : ''}) has an empty ` +
        `box (${Math.round(b.rect.width)}×${Math.round(b.rect.height)})`,
      suggestion: 'pick a rendered element; snap shows what is visible',
    });
  }
  return b.rect;
}

const CHECK_HINT: Record<GateCheck, string> = {
  visible: 'wait for it to be shown (wait_for / expect visible), or pick the visible element (snap)',
  stable: 'wait for the animation to end, or pass checkStable: false to act on the moving element',
  enabled: 'the control is disabled; do what enables it first',
  editable: 'text actions need a text field; use set_checkbox, select_option or tap for other controls',
  'receives events': 'close what covers it (dismiss_modals, press_key Escape), or pass checkReceivesEvents: false',
};

export interface GateResult {
  x: number;
  y: number;
  /** The ref actually gated (the element may have been relocated when it went stale). */
  ref: string;
  reresolved: boolean;
}

/**
 * The actionability gate. `begin` starts the effect observation in the same round trip (what to
 * read back after the action: text, checked, selected or nothing).
 */
export async function gateElement(ctx: PageContext, el: { ref: string }, opts: ActionabilityOptions, begin?: string): Promise<GateResult> {
  let ref = el.ref;
  let reresolved = false;
  for (let attempt = 0; ; attempt++) {
    const wait = remaining(ctx);
    const g = await ctx.page.call('gate', [ref, { ...opts, timeoutMs: wait, ...(begin ? { begin } : {}) }], {
      awaitPromise: true,
      timeoutMs: callTimeout(wait),
    });
    if (g.status === 'ok') {
      if (g.noFrames) await noFramesWarning(ctx);
      return { x: g.x, y: g.y, ref, reresolved };
    }
    if (g.status === 'stale' && attempt === 0) {
      // Nothing was dispatched yet: relocating the element is safe here.
      const { r } = await resolveTarget(ctx, { ref });
      ref = r.ref;
      reresolved = reresolved || r.reresolved;
      continue;
    }
    if (g.status === 'stale') throw new PerfError({ code: 'stale_ref', kind: 'usage', message: g.detail, suggestion: 'run snap again' });
    if (g.noFrames) await noFramesWarning(ctx);
    throw new PerfError({
      code: 'not_actionable',
      kind: 'failed',
      message: `ref=${ref} is not actionable: ${g.check}: ${g.detail}`,
      suggestion: CHECK_HINT[g.check],
    });
  }
}

/** The page produced no animation frames within 100 ms: try to bring it to front, else warn. */
export async function noFramesWarning(ctx: PageContext): Promise<void> {
  const tried = await bringToFront(ctx);
  if (tried) {
    const alive = await ctx.page
      .call('framesAlive', [100], { awaitPromise: true, timeoutMs: callTimeout(100) })
      .catch(() => ({ framed: false, visibilityState: 'unknown' }));
    if (alive.framed) {
      addWarning(
        ctx,
        'the page produced no animation frames (hidden or in the background); it ' +
          'was brought to front with focus emulation, later steps will see frames',
      );
      return;
    }
  }
  addWarning(
    ctx,
    'the page produces no animation frames (document hidden, minimised or in a background tab): ' +
      'stability and settle checks ran without frames; run headless or keep the window in front',
  );
}
