import {
  GATE_ARGS,
  abortAction,
  checkedEffect,
  describeEl,
  gateOptions,
  settleAction,
  treeEffect,
  gateElement,
  locatorOf,
  resolveTarget,
  type GateResult,
} from '../page/index.js';
import { actionOutput } from './act.js';
import { PerfError, isPerfError } from '../errors.js';
import { TARGET_ARGS, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: {
    ...TARGET_ARGS,
    value: {
      type: ['boolean', 'string'],
      enum: [true, false, 'true', 'false'],
      description: 'Wanted state: true (checked/on) or false; "true"/"false" accepted.',
    },
    ...GATE_ARGS,
  },
  required: ['value'],
  additionalProperties: false,
} as const;

export const setCheckbox = defineStep({
  name: 'set_checkbox',
  description: 'Set a checkbox, radio or switch to value, clicking only if needed; the effect reads back checked.',
  details:
    'Idempotent: taps only when the state differs. Returns previousValue and toggled. ' +
    'A control hidden behind a styled label is toggled through its label.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  async run(ctx, args) {
    const want = args.value === true || args.value === 'true';
    const page = ctx.page;
    const { r } = await resolveTarget(ctx, locatorOf('set_checkbox', args));
    const s = await page.call('checkState', [r.ref]);
    if (s.status !== 'ok') throw new PerfError({ code: 'stale_ref', kind: 'usage', message: s.detail, suggestion: 'run snap again' });
    if (!s.checkable) {
      throw new PerfError({
        code: 'not_checkable',
        kind: 'usage',
        message: `${describeEl(r)} is a ${s.role}, not a checkbox, radio or switch`,
        suggestion: s.role === 'combobox' || s.role === 'listbox' ? 'use select_option' : 'use tap for other controls',
      });
    }
    const reresolved = r.reresolved && r.ref;
    if (s.checked === want) {
      return actionOutput(ctx, args, {
        data: { element: describeEl(r), previousValue: s.checked, toggled: false },
        effect: { checked: checkedEffect(s.checked, s.checked, true) },
        reresolved,
      });
    }
    if (!want && (s.role === 'radio' || s.role === 'menuitemradio')) {
      throw new PerfError({
        code: 'cannot_uncheck_radio',
        kind: 'usage',
        message: `${describeEl(r)} is a checked radio: a user cannot uncheck it, only check another option of its group`,
        suggestion: 'set_checkbox another radio of the group to true',
      });
    }
    let g: GateResult;
    let via: string | undefined;
    try {
      g = await gateElement(ctx, r, gateOptions(args), 'checked');
    } catch (e) {
      if (!isPerfError(e) || e.code !== 'not_actionable' || !/: visible: /.test(e.message)) throw e;
      // Custom checkboxes hide the input and style its label: a user clicks the label.
      const l = await page.call('labelFor', [r.ref]);
      if (l.status !== 'ok') throw e;
      g = await gateElement(ctx, { ref: l.ref }, gateOptions(args));
      await page.call('begin', [r.ref, 'checked']);
      via = 'label';
    }
    try {
      await page.input.click(g.x, g.y);
    } catch (e) {
      await abortAction(ctx);
      throw e;
    }
    const settle = await settleAction(ctx);
    const after = settle.checked ?? null;
    const before = settle.checkedBefore ?? s.checked;
    return actionOutput(ctx, args, {
      data: { element: describeEl(r), previousValue: before, toggled: after !== before, ...(via ? { via } : {}) },
      effect: { checked: checkedEffect(before, after, after === want), ...treeEffect(settle) },
      reresolved: reresolved || (g.reresolved && g.ref),
    });
  },
});
