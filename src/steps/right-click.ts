import { POINTER_PROPS, runPointer } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS, ...POINTER_PROPS },
  additionalProperties: false,
} as const;

export const rightClick = defineStep({
  name: 'right_click',
  description: 'Right-click (contextmenu) an element, after the actionability checks; returns the effect.',
  details: 'The gate first scrolls it into view. The effect holds treeChanged, and checked for checkboxes/switches.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (text) => ({ target: { text } }),
  async run(ctx, args) {
    return runPointer(ctx, 'right_click', args, { kind: 'click', button: 'right', clickCount: 1 });
  },
});
