import { POINTER_PROPS, runPointer } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS, ...POINTER_PROPS },
  additionalProperties: false,
} as const;

export const tap = defineStep({
  name: 'tap',
  description: 'Click an element (ref or target) at its live centre with the left button, like a user. Passes the actionability gate first (scrolled into view, visible, stable, enabled, not covered) and returns the effect read back after the page settles (treeChanged; checked for checkboxes/switches). Takes snapshot: full | diff | none (default none) to embed the page after the action.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (text) => ({ target: { text } }),
  async run(ctx, args) {
    return runPointer(ctx, 'tap', args, { kind: 'click', button: 'left', clickCount: 1 });
  },
});
