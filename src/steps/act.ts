/**
 * The element actions most steps are made of: tap / dblclick / right_click / triple_click / hover
 * (runPointer) and type / fill / clear (runTextEdit), over the pipeline in src/page/actions.ts, and
 * the step output every action returns (effect, warnings, the optional snapshot).
 */
import { PerfError } from '../errors.js';
import {
  GATE_ARGS,
  MODIFIERS_ARG,
  abortAction,
  asModifiers,
  checkedEffect,
  describeEl,
  gateElement,
  gateOptions,
  isCheckable,
  locatorOf,
  resolveTarget,
  runAction,
  settleAction,
  snapshotAfter,
  takeWarnings,
  treeEffect,
  type Effect,
  type GateResult,
  type Stale,
  type TargetArgs,
} from '../page/index.js';
import type { StepContext, StepOutput } from './define.js';

/** Assemble the step output: data, effect, reresolved, warnings and the optional snapshot. */
export async function actionOutput(
  ctx: StepContext,
  args: { snapshot?: 'full' | 'diff' | 'none' },
  out: { data: Record<string, unknown>; effect?: Effect; reresolved?: string | false },
): Promise<StepOutput> {
  const snapshot = await snapshotAfter(ctx, args.snapshot);
  const warnings = takeWarnings(ctx);
  return {
    data: { ...out.data, ...(snapshot !== undefined ? { snapshot } : {}) },
    ...(out.effect ? { effect: out.effect } : {}),
    ...(out.reresolved ? { reresolved: [out.reresolved] } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

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
    gate: gateOptions(args, opts.kind === 'hover' ? { checkEnabled: false } : opts.clickCount === 1 ? { settleOnInput: true } : {}),
    dispatch: async (p) => {
      if (opts.kind === 'hover') return ctx.page.input.hover(p.x, p.y);
      // A single click's settle can start once it is pressed (it waits for the mouseup in the page).
      if (opts.clickCount === 1) return ctx.page.input.clickOverlapped(p.x, p.y, { button: opts.button, clickCount: 1, modifiers });
      return ctx.page.input.click(p.x, p.y, { button: opts.button, clickCount: opts.clickCount, modifiers });
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
      ...(run.navigation
        ? { navigated: run.navigation.url }
        : run.settle.navigated
          ? { navigated: true }
          : run.settle.detached
            ? { detached: true }
            : {}),
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
export async function runTextEdit(
  ctx: StepContext,
  step: string,
  args: TargetArgs & { text?: string },
  mode: 'type' | 'fill' | 'clear',
): Promise<StepOutput> {
  const page = ctx.page;
  const locator = locatorOf(step, args);
  const text = mode === 'clear' ? '' : (args.text ?? '');
  let { r } = await resolveTarget(ctx, locator);
  let g: GateResult = await gateElement(ctx, r, gateOptions(args, { editable: true }), 'text');
  let reresolved = r.reresolved || g.reresolved;
  if (mode === 'type') {
    try {
      await page.input.click(g.x, g.y);
    } catch (e) {
      await abortAction(ctx);
      throw e;
    }
  }
  let sel = await page.call('selectContent', [g.ref]);
  if (sel.status === 'stale' && mode === 'fill') {
    // Nothing typed yet: the one retry fill allows, on the element the locator finds now.
    ({ r } = await resolveTarget(ctx, locator));
    g = await gateElement(ctx, r, gateOptions(args, { editable: true }), 'text');
    reresolved = true;
    sel = await page.call('selectContent', [g.ref]);
  }
  if (sel.status === 'stale') {
    await abortAction(ctx);
    throw staleError(sel);
  }
  const before = sel.value;
  let changeFired = false;
  try {
    if (before !== '') {
      await page.input.pressKey('Delete');
      const left = await page.call('readValue', [g.ref]);
      if (left.status === 'ok' && left.value !== '') {
        // Some fields ignore select(): the editing command selects everything, then delete.
        await page.input.selectAll();
        await page.input.pressKey('Delete');
      }
    }
    if (text !== '') {
      if (mode === 'type') await page.input.typeText(text);
      else await page.input.insertText(text);
    }
    const c = await page.call('commitChange', [g.ref, before]);
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
