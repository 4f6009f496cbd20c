/**
 * How a step names an element, as JSON Schema: a ref from a snapshot or find, or a target resolved
 * on the live page. Declared once here; the step schemas, the MCP tools and the TargetSpec type all
 * come from it.
 */
import type { FromSchema } from '../schema-types.js';

const TARGET_FIELDS = {
  text: { type: 'string', description: 'Exact visible text or accessible name (trimmed, whitespace collapsed).' },
  contains: { type: 'string', description: 'Substring of the visible text or accessible name, case-insensitive.' },
  label: { type: 'string', description: 'Label of a form control (<label>, aria-label, aria-labelledby, placeholder).' },
  role: { type: 'string', description: 'ARIA role (explicit or implicit: button, link, textbox, checkbox, list, listitem, dialog…).' },
  name: { type: 'string', description: 'With role: the accessible name, exact (case-insensitive).' },
  testId: { type: 'string', description: 'data-testid attribute value.' },
  css: { type: 'string', description: 'CSS selector (pierces open shadow roots).' },
} as const;

/**
 * Fields for scenario files only: the MCP tool schemas leave them out (an agent reaches the same with
 * refs and text), which keeps every tool definition an agent pays for short. Marked by identity.
 */
export const SCENARIO_ONLY_FIELDS = new WeakSet<object>();
export function scenarioOnly<T extends object>(schema: T): T {
  SCENARIO_ONLY_FIELDS.add(schema);
  return schema;
}

/** A terminal cell (app.terminal): row and column from 0, both given. Scenario files only: agents use refs. */
export const CELL_FIELDS = {
  row: scenarioOnly({ type: 'integer', minimum: 0, description: 'Terminal only: screen row from 0 (with col).' } as const),
  col: scenarioOnly({ type: 'integer', minimum: 0, description: 'Terminal only: screen column from 0 (with row).' } as const),
} as const;

/** The target's meaning in one line, for the compact form MCP tools list (the fields speak for themselves). */
export const TARGET_BRIEF = 'Or found live (role+name…); within narrows, nth picks.';

export const TARGET_SCHEMA = {
  type: 'object',
  description:
    'Which element: resolved on the live page when the step runs. Strict: several matches are an error listing them, unless nth is given.',
  properties: {
    ...TARGET_FIELDS,
    ...CELL_FIELDS,
    within: {
      anyOf: [
        { type: 'string', description: 'A ref (e5, q2) of the container to search in.' },
        { type: 'object', properties: TARGET_FIELDS, additionalProperties: false, description: 'A target for the container to search in.' },
      ],
      description: 'Search only inside this container (a ref or a target).',
    },
    nth: { type: 'integer', minimum: 0, description: 'Pick the nth match (0-based) when several elements match.' },
  },
  additionalProperties: false,
} as const;

export const REF_SCHEMA = {
  type: 'string',
  pattern: '^[eqt][0-9]+$',
  description: 'From snap or find (e5).',
} as const;

/** The locator arguments of a step that acts on an element: exactly one of ref / target. */
export const TARGET_ARGS = {
  ref: REF_SCHEMA,
  target: TARGET_SCHEMA,
} as const;

export type TargetSpec = FromSchema<typeof TARGET_SCHEMA>;
