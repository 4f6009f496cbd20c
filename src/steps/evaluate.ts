/**
 * evaluate: run one JavaScript expression in the page and return its JSON value. It can do
 * anything the page can, so it is not read-only (and the MCP server denies it unless allowed).
 */
import { defineStep } from './define.js';

// 256 KiB of JSON: a generous result for an agent, a quarter of the MCP response cap (1 MiB).
export const MAX_VALUE_CHARS = 256 * 1024;

export const evaluate = defineStep({
  name: 'evaluate',
  description:
    'Evaluate a JavaScript expression in the page (await allowed) and return ' +
    '{value} as JSON; a thrown exception fails with evaluate_failed.',
  details: 'A returned promise is awaited. Values that are not JSON (DOM nodes, functions) come back as their type and description.',
  args: {
    type: 'object',
    properties: {
      expression: { type: 'string', minLength: 1, description: 'JavaScript expression, e.g. "document.title".' },
    },
    required: ['expression'],
  } as const,
  readOnly: false,
  shorthand: (expression) => ({ expression }),
  async run(ctx, args) {
    const out = await ctx.page.evaluateUser(args.expression, { deadline: ctx.deadline, timeoutMs: ctx.timeoutMs });
    switch (out.kind) {
      case 'undefined':
        return { data: { value: null, type: 'undefined' } };
      case 'opaque':
        // A DOM node or a function has no JSON form: say what it is instead.
        return { data: { value: null, type: out.type, ...(out.description ? { description: out.description } : {}) } };
      case 'value': {
        const json = JSON.stringify(out.value) ?? 'null';
        if (json.length > MAX_VALUE_CHARS) {
          return {
            data: {
              value: json.slice(0, MAX_VALUE_CHARS),
              type: out.type,
              truncated: `the JSON value is ${json.length} characters; only the first ${MAX_VALUE_CHARS} are returned (as a string)`,
            },
          };
        }
        return { data: { value: out.value, type: out.type } };
      }
    }
  },
});
