import { POINTER_PROPS, runPointer } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';
import { terminalPointer } from './terminal.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS, ...POINTER_PROPS },
  additionalProperties: false,
} as const;

export const dblclick = defineStep({
  name: 'dblclick',
  description: 'Double-click an element like a user, after the actionability checks; returns the effect.',
  details:
    'Two clicks and a dblclick event. The gate first scrolls it into view. ' +
    'The effect holds treeChanged, and checked for checkboxes/switches.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (text) => ({ target: { text } }),
  terminal: (ctx, args) => terminalPointer(ctx, 'dblclick', args, 2),
  async run(ctx, args) {
    return runPointer(ctx, 'dblclick', args, { kind: 'click', button: 'left', clickCount: 2 });
  },
});
