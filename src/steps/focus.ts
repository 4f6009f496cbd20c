import { abortAction, describeEl, settleAction, treeEffect, locatorOf, resolveTarget } from '../page/index.js';
import { actionOutput } from './act.js';
import { PerfError } from '../errors.js';
import { TARGET_ARGS, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS },
  additionalProperties: false,
} as const;

export const focus = defineStep({
  name: 'focus',
  description:
    'Move keyboard focus to an element without clicking; fails if it cannot take focus. Returns focused (read back) and the effect.',
  details: 'Fires focus/focusin. The effect holds treeChanged.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (text) => ({ target: { text } }),
  async run(ctx, args) {
    const { r } = await resolveTarget(ctx, locatorOf('focus', args));
    await ctx.page.call('begin', [r.ref, 'none']);
    const f = await ctx.page.call('focus', [r.ref]);
    if (f.status !== 'ok' || !f.focused) {
      await abortAction(ctx);
      if (f.status !== 'ok') throw new PerfError({ code: 'stale_ref', kind: 'usage', message: f.detail, suggestion: 'run snap again' });
      throw new PerfError({
        code: 'not_focusable',
        kind: 'failed',
        message: `${describeEl(r)} cannot take focus (not a control, no tabindex, or disabled)`,
        suggestion: 'focus a control inside it, or tap it',
      });
    }
    const settle = await settleAction(ctx);
    return actionOutput(ctx, args, {
      data: { element: describeEl(r), focused: true, alreadyFocused: f.was },
      effect: treeEffect(settle),
      reresolved: r.reresolved && r.ref,
    });
  },
});
