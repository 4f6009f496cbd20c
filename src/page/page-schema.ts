/**
 * How a step names one of the browser's open pages (tabs, popups), as JSON Schema: declared once
 * here; switch_page's `page`, every page step's `page` and the MCP `pages` tool derive from it.
 */
import { scenarioOnly } from './target-schema.js';

export const PAGE_SELECT_SCHEMA = {
  // minimum applies to the integer, minLength to the string (JSON Schema applies each to its own type).
  type: ['integer', 'string'],
  minimum: 0,
  minLength: 1,
  description: 'new (latest opened, not yet selected; waited for), last, an index (0 = app page), or a title/URL substring.',
} as const;

/**
 * A page step's `page`: select that page, then act there (the selection stays). Scenario files only:
 * an agent selects with the `pages` tool, which keeps every step's MCP definition as short as before.
 */
export const PAGE_ARG = scenarioOnly({
  ...PAGE_SELECT_SCHEMA,
  description: `Act on this page, which stays selected: ${PAGE_SELECT_SCHEMA.description}`,
} as const);
