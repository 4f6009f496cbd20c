import { GATE_ARGS } from '../page/index.js';
import { runTextEdit } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: {
    ...TARGET_ARGS,
    text: { type: 'string', description: 'The text the field should hold afterwards (what it held before is replaced).' },
    ...GATE_ARGS,
  },
  required: ['text'],
  additionalProperties: false,
} as const;

export const typeStep = defineStep({
  name: 'type',
  description: 'Type text into a text field key by key (keydown/keypress/input/keyup per character) after clicking into it, replacing what it held, then fire change as a user moving on would. The effect reads back what the field holds: text.verified is false when the field refused or reformatted it (e.g. letters in a number field). Takes snapshot: full | diff | none (default none).',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  async run(ctx, args) {
    return runTextEdit(ctx, 'type', args, 'type');
  },
});
