import { GATE_ARGS } from '../page/index.js';
import { runTextEdit } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';
import { terminalText } from './terminal.js';

const ARGS = {
  type: 'object',
  properties: {
    ...TARGET_ARGS,
    text: { type: 'string', description: 'Text the field should hold afterwards (replaces its content).' },
    ...GATE_ARGS,
  },
  required: ['text'],
  additionalProperties: false,
} as const;

export const typeStep = defineStep({
  name: 'type',
  description: 'Type into a field key by key, replacing its content; the effect reads back the value.',
  details:
    'Clicks into the field first, sends keydown/keypress/input/keyup per character, then fires change ' +
    'as a user moving on would. text.verified is false e.g. for letters in a number field.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  terminal: (ctx, args) => terminalText(ctx, 'type', args),
  async run(ctx, args) {
    return runTextEdit(ctx, 'type', args, 'type');
  },
});
