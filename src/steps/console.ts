/**
 * console: the page's recent console messages, newest first, read from the in-page buffer
 * (page-capture), so messages logged before this connection attached are included.
 */
import { CONSOLE_LEVELS } from '../page/index.js';
import { defineStep } from './define.js';
import { terminalConsole } from './terminal.js';

// 50 messages: the recent past an agent can read in one response; `limit` raises it.
const DEFAULT_LIMIT = 50;

export const consoleStep = defineStep({
  name: 'console',
  description: "The page's console messages since the document loaded, newest first: {level, text, time, url}.",
  details: 'Filter by level and since; at most limit (default 50). The page keeps the last 500.',
  args: {
    type: 'object',
    properties: {
      level: { type: 'string', enum: CONSOLE_LEVELS, description: 'Only messages of this level.' },
      limit: { type: 'integer', minimum: 1, maximum: 500, description: `Most messages, newest first. Default ${DEFAULT_LIMIT}.` },
      since: { type: 'number', minimum: 0, description: 'Only messages at or after this time, ms since the epoch.' },
    },
  } as const,
  needs: ['console'],
  readOnly: true,
  terminal: async (ctx) => terminalConsole(ctx),
  async run(ctx, args) {
    const read = await ctx.page.capture.console({
      limit: args.limit ?? DEFAULT_LIMIT,
      ...(args.level !== undefined ? { level: args.level } : {}),
      ...(args.since !== undefined ? { since: args.since } : {}),
    });
    return {
      data: {
        messages: read.entries,
        matched: read.matched,
        ...(read.dropped > 0 ? { dropped: read.dropped } : {}),
      },
      ...(read.captured
        ? {}
        : {
            warnings: [
              'console capture is not active in this document (it loaded before the harness attached); reload to capture from the start',
            ],
          }),
    };
  },
});
