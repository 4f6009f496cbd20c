/**
 * mark: a user-timing mark (performance.mark) in the page, and a marker in the open perf session so
 * the report (summary.marks) and the trace show where it fell.
 */
import { openSession } from '../perf/state.js';
import { defineStep } from './define.js';

export const mark = defineStep({
  name: 'mark',
  description: 'Place a performance.mark in the page; inside a perf session it shows in the report and the trace.',
  details: 'In the report: summary.marks, in ms since perf_begin; in the trace: blink.user_timing.',
  args: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, description: 'Mark name, e.g. "list-filled".' },
    },
    required: ['name'],
    additionalProperties: false,
  } as const,
  // A mark adds a performance-timeline entry; it changes nothing the user or the app's logic sees.
  readOnly: true,
  shorthand: (name) => ({ name }),
  async run(ctx, args) {
    const at = await ctx.page.perf.mark(args.name);
    const session = openSession(ctx.host);
    session?.addMark({ name: args.name, at });
    return {
      data: {
        name: args.name,
        atMs: session ? Math.round((at - session.startedAt) * 10) / 10 : null,
        sessionToken: session?.token ?? null,
      },
    };
  },
});
