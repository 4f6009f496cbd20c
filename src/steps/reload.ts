/** reload: reload the current document and wait for its load event. */
import { defineStep } from './define.js';
import { NAVIGATION_TIMEOUT_MS, readLocation } from './navigate.js';

export const reload = defineStep({
  name: 'reload',
  description:
    'Reload the current page and wait for the load event. Returns the url read ' +
    'back; in-page state (form input, scroll, console buffer) starts over.',
  args: {
    type: 'object',
    properties: {
      ignoreCache: { type: 'boolean', description: 'Bypass the HTTP cache (hard reload). Default false.' },
    },
  } as const,
  readOnly: false,
  defaultTimeoutMs: NAVIGATION_TIMEOUT_MS,
  async run(ctx, args) {
    const { page } = ctx;
    await page.navigation.reload({ ignoreCache: args.ignoreCache ?? false, timeoutMs: Math.max(1, ctx.deadline - Date.now()) });
    const loc = await readLocation(page);
    return { data: { url: loc.href, title: loc.title, ...(loc.status !== undefined ? { status: loc.status } : {}) } };
  },
});
