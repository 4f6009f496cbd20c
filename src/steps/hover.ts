import { POINTER_PROPS, runPointer } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS, ...POINTER_PROPS },
  additionalProperties: false,
} as const;

export const hover = defineStep({
  name: 'hover',
  description: 'Move the mouse over an element (mouseover/mouseenter/pointermove), e.g. to open a menu or tooltip. Checks visible, stable and not covered (not enabled). Returns treeChanged. Takes snapshot: full | diff | none (default none).',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (text) => ({ target: { text } }),
  async run(ctx, args) {
    return runPointer(ctx, 'hover', args, { kind: 'hover' });
  },
});
