import { POINTER_PROPS, runPointer } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';
import { terminalPointer } from './terminal.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS, ...POINTER_PROPS },
  additionalProperties: false,
} as const;

export const tap = defineStep({
  name: 'tap',
  description: 'Click an element like a user; returns the effect.',
  details:
    'Left button, at its live centre. The gate first scrolls it into view and checks it is visible, stable, ' +
    'enabled and not covered. The effect holds treeChanged, and checked for checkboxes/switches.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (text) => ({ target: { text } }),
  terminal: (ctx, args) => terminalPointer(ctx, 'tap', args, 1),
  async run(ctx, args) {
    return runPointer(ctx, 'tap', args, { kind: 'click', button: 'left', clickCount: 1 });
  },
});
