import { POINTER_PROPS, runPointer } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';
import { terminalPointer } from './terminal.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS, ...POINTER_PROPS },
  additionalProperties: false,
} as const;

export const hover = defineStep({
  name: 'hover',
  description: 'Move the mouse over an element (menus, tooltips); returns the effect.',
  details: 'Fires mouseover/mouseenter/pointermove. Checks visible, stable and not covered (not enabled). The effect holds treeChanged.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (text) => ({ target: { text } }),
  terminal: (ctx, args) => terminalPointer(ctx, 'hover', args, 'hover'),
  async run(ctx, args) {
    return runPointer(ctx, 'hover', args, { kind: 'hover' });
  },
});
