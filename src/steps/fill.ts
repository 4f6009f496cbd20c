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

export const fill = defineStep({
  name: 'fill',
  description: 'Fill a text field: focus, clear, and enter the text as one edit (fast), then fire change. Refuses non-text controls, naming their role (use set_checkbox / select_option). Retries once only if the element was replaced before typing started. The effect reads back the value: text.verified false means the field did not take the text. Takes snapshot: full | diff | none (default none).',
  args: ARGS,
  readOnly: false,
  actsOnTarget: true,
  async run(ctx, args) {
    return runTextEdit(ctx, 'fill', args, 'fill');
  },
});
