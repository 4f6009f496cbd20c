import {
  MIN_DRAG_STEPS,
  GATE_ARGS,
  MODIFIERS_ARG,
  abortAction,
  asModifiers,
  describeEl,
  gateOptions,
  settleAction,
  treeEffect,
  gateElement,
  locatorOf,
  resolveTarget,
} from '../page/index.js';
import { actionOutput } from './act.js';
import { PerfError } from '../errors.js';
import { REF_SCHEMA, TARGET_ARGS, TARGET_SCHEMA, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: {
    ...TARGET_ARGS,
    toRef: { ...REF_SCHEMA, description: 'Drop on this element (ref), at its centre.' },
    toTarget: { ...TARGET_SCHEMA, description: 'Drop on the element this target finds, at its centre.' },
    dx: { type: 'number', description: 'Or drop this many CSS px right (negative: left).' },
    dy: { type: 'number', description: 'Or drop this many CSS px down (negative: up).' },
    steps: {
      type: 'integer',
      minimum: MIN_DRAG_STEPS,
      maximum: 200,
      description: `Mouse moves between press and release (default 10, at least ${MIN_DRAG_STEPS}).`,
    },
    modifiers: MODIFIERS_ARG,
    ...GATE_ARGS,
  },
  additionalProperties: false,
} as const;

export const drag = defineStep({
  name: 'drag',
  description: 'Drag an element onto another (toRef/toTarget) or by dx/dy: press, move in steps, release.',
  details:
    'Presses at its live centre and moves in steps (at least 5) to the end. HTML5 ' +
    'draggable elements get real drag events. Returns the effect (treeChanged).',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  async run(ctx, args) {
    const byElement = args.toRef !== undefined || args.toTarget !== undefined;
    const byOffset = args.dx !== undefined || args.dy !== undefined;
    if (byElement === byOffset) {
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'drag: give the end either as toRef / toTarget or as dx / dy',
        suggestion: 'e.g. drag: { ref: e4, toRef: e9 } or drag: { ref: e4, dy: 120 }',
      });
    }
    const page = ctx.page;
    const modifiers = asModifiers(args.modifiers);
    const { r } = await resolveTarget(ctx, locatorOf('drag', args));
    let endRef: string | undefined;
    if (byElement) {
      const end = await resolveTarget(
        ctx,
        locatorOf('drag', {
          ...(args.toRef !== undefined ? { ref: args.toRef } : {}),
          ...(args.toTarget !== undefined ? { target: args.toTarget } : {}),
        }),
      );
      endRef = end.r.ref;
      // The drop target is scrolled into view first, so that the start stays in view afterwards.
      await gateElement(ctx, end.r, { checkEnabled: false, checkReceivesEvents: false, checkStable: args.checkStable !== false });
    }
    const g = await gateElement(ctx, r, gateOptions(args), 'none');
    let to: { x: number; y: number };
    if (endRef) {
      const b = await page.call('box', [endRef, false]);
      if (b.status !== 'ok') {
        await abortAction(ctx);
        throw new PerfError({ code: 'stale_ref', kind: 'usage', message: b.detail, suggestion: 'run snap again' });
      }
      to = { x: b.rect.x + b.rect.width / 2, y: b.rect.y + b.rect.height / 2 };
    } else {
      to = { x: g.x + (args.dx ?? 0), y: g.y + (args.dy ?? 0) };
    }
    let html5 = false;
    try {
      ({ html5 } = await page.input.drag({ x: g.x, y: g.y }, to, {
        ...(args.steps !== undefined ? { steps: args.steps } : {}),
        modifiers,
      }));
    } catch (e) {
      await abortAction(ctx);
      throw e;
    }
    const settle = await settleAction(ctx);
    const round = (p: { x: number; y: number }): { x: number; y: number } => ({ x: Math.round(p.x), y: Math.round(p.y) });
    return actionOutput(ctx, args, {
      data: { element: describeEl(r), from: round(g), to: round(to), ...(html5 ? { html5: true } : {}) },
      effect: treeEffect(settle),
      reresolved: (r.reresolved || g.reresolved) && g.ref,
    });
  },
});
