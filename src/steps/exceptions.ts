/**
 * exceptions: uncaught errors and unhandled promise rejections of the page, newest first, from the
 * in-page buffer (page-capture). `clear` empties it so the next call shows only new ones.
 */
import { defineStep } from './define.js';

// 20 exceptions: a page that throws repeatedly usually throws the same thing; 20 shows the pattern.
const DEFAULT_LIMIT = 20;

export const exceptions = defineStep({
  name: 'exceptions',
  description:
    "The page's uncaught errors and unhandled rejections since the document loaded, newest first: {kind, message, stack, time, url}.",
  details: 'stack holds the first 5 lines. since filters by time; clear empties the buffer after reading.',
  args: {
    type: 'object',
    properties: {
      since: { type: 'number', minimum: 0, description: 'Only exceptions at or after this time, ms since the epoch.' },
      clear: { type: 'boolean', description: 'Empty the buffer after reading, so later calls list only new ones. Default false.' },
      limit: { type: 'integer', minimum: 1, maximum: 200, description: `Most exceptions, newest first. Default ${DEFAULT_LIMIT}.` },
    },
  } as const,
  // clear empties the harness's own buffer, not anything the app can observe.
  needs: ['exceptions'],
  readOnly: true,
  async run(ctx, args) {
    const read = await ctx.page.capture.exceptions({
      limit: args.limit ?? DEFAULT_LIMIT,
      clear: args.clear ?? false,
      ...(args.since !== undefined ? { since: args.since } : {}),
    });
    return {
      data: {
        exceptions: read.exceptions,
        matched: read.matched,
        ...(read.dropped > 0 ? { dropped: read.dropped } : {}),
        ...(args.clear ? { cleared: read.cleared } : {}),
      },
      ...(read.captured
        ? {}
        : {
            warnings: [
              'exception capture is not active in this document (it loaded before the harness attached); reload to capture from the start',
            ],
          }),
    };
  },
});
