import { GATE_ARGS } from '../page/index.js';
import { runTextEdit } from './act.js';
import { TARGET_ARGS, defineStep } from './define.js';
import { terminalText } from './terminal.js';

const ARGS = {
  type: 'object',
  properties: {
    ...TARGET_ARGS,
    text: { type: 'string', description: "The field's new content (replaces it)." },
    ...GATE_ARGS,
  },
  required: ['text'],
  additionalProperties: false,
} as const;

export const fill = defineStep({
  name: 'fill',
  description: "Set a field's text in one edit, then fire change; the effect reads back the value.",
  details:
    'Focuses, clears, and enters the text as one edit. Refuses non-text controls, naming their role (use ' +
    'set_checkbox / select_option). Retries once only if the element was replaced before typing started.',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  terminal: (ctx, args) => terminalText(ctx, 'fill', args),
  async run(ctx, args) {
    return runTextEdit(ctx, 'fill', args, 'fill');
  },
});
