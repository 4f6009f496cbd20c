/**
 * switch_page: select another of the browser's open pages (a tab the app opened, a popup), so the
 * steps, snapshots and perf windows after it act there; `close` closes the page being left. A page
 * that closes by itself (window.close()) hands the selection back to its opener.
 */
import { PerfError } from '../errors.js';
import { PAGE_SELECT_SCHEMA } from '../page/page-schema.js';
import { defineStep } from './define.js';

export const switchPage = defineStep({
  name: 'switch_page',
  description:
    'Select an open page (tab, popup) for the steps after it: new, last, an index or a title/URL substring; close closes the page left.',
  details:
    'new waits (within timeoutMs) for a page the app opened and no step selected yet. Closing the selected page returns the ' +
    'selection to its opener (else page 0). Refs from the other page fail as stale: snap again.',
  args: {
    type: 'object',
    properties: {
      page: PAGE_SELECT_SCHEMA,
      close: { type: 'boolean', description: 'Close the page being left (not page 0).' },
    },
    required: ['page'],
  } as const,
  readOnly: false,
  needs: ['pages'],
  mcp: false,
  async run(ctx, args) {
    const tabs = ctx.host.pages?.();
    if (!tabs) throw new PerfError({ code: 'unsupported_on_driver', message: 'switch_page: this app has no browser pages' });
    const before = (await tabs.selection()).page;
    const page = await tabs.select(args.page, ctx.deadline);
    const leaving = before.index !== page.index && args.close ? before : undefined;
    if (args.close && !leaving) {
      throw new PerfError({
        code: 'invalid_arguments',
        message: `switch_page: close: true closes the page being left, and page ${page.index} is already selected`,
        suggestion: 'name another page to switch to',
      });
    }
    const closed = leaving ? await tabs.close(leaving.index) : undefined;
    const now = await tabs.selection();
    return {
      data: {
        page: { index: now.page.index, title: now.page.title, url: now.page.url },
        ...(closed ? { closed: { title: closed.closed.title, url: closed.closed.url } } : {}),
        pages: now.count,
      },
    };
  },
});
