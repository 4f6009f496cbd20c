import { settleAction, treeEffect, locatorOf, resolveTarget } from '../page/index.js';
import { actionOutput } from './act.js';
import { PerfError } from '../errors.js';
import { TARGET_ARGS, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS },
  additionalProperties: false,
} as const;

export const blur = defineStep({
  name: 'blur',
  description:
    'Take focus away from an element, or from whatever has focus. Returns ' +
    'hadFocus and the effect (validation messages often appear on blur).',
  details: 'Fires blur/focusout and, for an edited field, change. The effect holds treeChanged.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  async run(ctx, args) {
    let ref: string | null = null;
    let reresolved: string | false = false;
    if (args.ref !== undefined || args.target !== undefined) {
      const { r } = await resolveTarget(ctx, locatorOf('blur', args));
      ref = r.ref;
      if (r.reresolved) reresolved = r.ref;
      await ctx.page.call('begin', [r.ref, 'none']);
    } else {
      await ctx.page.call('beginActive', []);
    }
    const b = await ctx.page.call('blur', [ref]);
    if (b.status !== 'ok') throw new PerfError({ code: 'stale_ref', kind: 'usage', message: b.detail, suggestion: 'run snap again' });
    const settle = await settleAction(ctx);
    return actionOutput(ctx, args, {
      data: { hadFocus: b.hadFocus, ...(b.blurred ? { blurred: b.blurred } : {}) },
      effect: treeEffect(settle),
      reresolved,
    });
  },
});
