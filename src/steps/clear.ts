import { GATE_ARGS } from '../page/index.js';
import { runTextEdit } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: { ...TARGET_ARGS, ...GATE_ARGS },
  additionalProperties: false,
} as const;

export const clear = defineStep({
  name: 'clear',
  description: 'Empty a text field as a user would (select all, Delete, input and change events). The effect reads back the value.',
  details: 'text.verified is true when the field is empty.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  shorthand: (label) => ({ target: { label } }),
  async run(ctx, args) {
    return runTextEdit(ctx, 'clear', args, 'clear');
  },
});
