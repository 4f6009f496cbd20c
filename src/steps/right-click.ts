import { POINTER_PROPS, runPointer } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS, ...POINTER_PROPS },
  additionalProperties: false,
} as const;

export const rightClick = defineStep({
  name: 'right_click',
  description: 'Right-click an element (contextmenu event). Passes the actionability gate first (scrolled into view, visible, stable, enabled, not covered) and returns the effect read back after the page settles (treeChanged; checked for checkboxes/switches). Takes snapshot: full | diff | none (default none) to embed the page after the action.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (text) => ({ target: { text } }),
  async run(ctx, args) {
    return runPointer(ctx, 'right_click', args, { kind: 'click', button: 'right', clickCount: 1 });
  },
});
