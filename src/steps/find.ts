import { nextQueryBase, rememberQueries } from '../page/index.js';
import { PerfError } from '../errors.js';
import { TARGET_SCHEMA, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: {
    ...TARGET_SCHEMA.properties,
    limit: { type: 'integer', minimum: 1, maximum: 200, description: 'Most matches listed (default 20); count is the total.' },
  },
  additionalProperties: false,
} as const;

// Twenty matches answer "which one?" without flooding an agent's context.
const DEFAULT_LIMIT = 20;

export const find = defineStep({
  name: 'find',
  description: 'Find elements by text, label, role+name, testId or css; each match gets a q ref, re-queried on use.',
  details:
    'Optionally within a container. Returns each match with its role, name, ' +
    'value, bounds and visibility. Zero matches is not an error (count: 0).',
  args: ARGS,
  readOnly: true,
  async run(ctx, args) {
    const { limit, ...target } = args;
    if (Object.keys(target).filter((k) => k !== 'within' && k !== 'nth').length === 0) {
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'find: give at least one of text, contains, label, role, name, testId, css',
      });
    }
    const r = await ctx.page.call('find', [{ ...target, limit: limit ?? DEFAULT_LIMIT, qBase: nextQueryBase(ctx) }]);
    if (r.status !== 'ok') throw new PerfError({ code: 'invalid_target', message: `find: ${r.detail}` });
    rememberQueries(ctx, r.items);
    return {
      data: {
        count: r.count,
        matches: r.items.map(({ locator: _l, ...item }) => item),
        ...(r.count === 0 && r.near.length ? { didYouMean: r.near } : {}),
      },
    };
  },
});
