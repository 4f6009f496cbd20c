import { POINTER_PROPS, runPointer } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS, ...POINTER_PROPS },
  additionalProperties: false,
} as const;

export const tripleClick = defineStep({
  name: 'triple_click',
  description: 'Triple-click an element (selects its text), after the actionability checks; returns the effect.',
  details:
    'Selects a paragraph, or the whole line of a field. The gate first scrolls it ' +
    'into view. The effect holds treeChanged, and checked for checkboxes/switches.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (text) => ({ target: { text } }),
  async run(ctx, args) {
    return runPointer(ctx, 'triple_click', args, { kind: 'click', button: 'left', clickCount: 3 });
  },
});
