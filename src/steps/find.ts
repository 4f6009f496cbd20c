import { nextQueryBase, rememberQueries } from '../page/index.js';
import { PerfError } from '../errors.js';
import { TARGET_SCHEMA, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: {
    ...TARGET_SCHEMA.properties,
    limit: { type: 'integer', minimum: 1, maximum: 200, description: 'At most this many matches are listed (default 20); count says how many there are.' },
  },
  additionalProperties: false,
} as const;

// Twenty matches answer "which one?" without flooding an agent's context.
const DEFAULT_LIMIT = 20;

export const find = defineStep({
  name: 'find',
  description:
    'Find elements by text, contains, label, role (+ name), testId or css, optionally within a container. Returns each match with a q<N> handle that re-runs the query on every use (so it survives re-renders), its role, name, value, bounds and visibility. Zero matches is not an error (count: 0).',
  args: ARGS,
  readOnly: true,
  async run(ctx, args) {
    const { limit, ...target } = args;
    if (Object.keys(target).filter((k) => k !== 'within' && k !== 'nth').length === 0) {
      throw new PerfError({ code: 'invalid_arguments', message: 'find: give at least one of text, contains, label, role, name, testId, css' });
    }
    const r = await ctx.page.call('find', [
      { ...target, limit: limit ?? DEFAULT_LIMIT, qBase: nextQueryBase(ctx) },
    ]);
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
