import { nextQueryBase, rememberQueries } from '../page/index.js';
import { PerfError } from '../errors.js';
import { REF_SCHEMA, defineStep } from './define.js';

const ARGS = {
  type: 'object',
  properties: {
    within: { ...REF_SCHEMA, description: 'Only elements inside this container (ref).' },
    role: { type: 'string', description: 'Only elements with this role (button, link, textbox…).' },
    limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Most elements listed (default 100); total gives the count.' },
  },
  additionalProperties: false,
} as const;

// A hundred controls cover a dense page; past that `within`/`role` narrow better than a longer list.
const DEFAULT_LIMIT = 100;

export const observe = defineStep({
  name: 'observe',
  description:
    'List the interactive elements of the page or a container to act on: q<N> ' +
    'ref, role, label, value, bounds, isEnabled, inViewport, occluded.',
  details: 'A q<N> ref re-resolves on every use. occluded: something covers its centre.',
  args: ARGS,
  readOnly: true,
  async run(ctx, args) {
    const r = await ctx.page.call('observe', [
      {
        ...(args.within ? { within: args.within } : {}),
        ...(args.role ? { role: args.role } : {}),
        limit: args.limit ?? DEFAULT_LIMIT,
        qBase: nextQueryBase(ctx),
      },
    ]);
    if (r.status !== 'ok') {
      const res = r.resolve;
      throw new PerfError({
        code: 'stale_ref',
        kind: 'usage',
        message: `observe: within ${args.within}: ${'detail' in res ? res.detail : res.status}`,
        suggestion: 'run snap again for current refs',
      });
    }
    rememberQueries(ctx, r.items);
    return { data: { total: r.total, elements: r.items.map(({ locator: _l, ...item }) => item) } };
  },
});
