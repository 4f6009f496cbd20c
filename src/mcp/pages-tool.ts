/**
 * pages (cap `core`): the browser's open pages (tabs, popups) — list them, select the one the step
 * tools act on, close one. The MCP form of switch_page; replies are bounded (MAX_PAGE_ROWS rows,
 * titles and URLs cut to PAGE_TEXT_MAX characters, with counts of what was cut).
 */
import { PerfError } from '../errors.js';
import { cut, type PageRow } from '../drivers/tabs.js';
import { PAGE_SELECT_SCHEMA } from '../page/page-schema.js';
import { DEFAULT_STEP_TIMEOUT_MS } from '../steps/define.js';
import { okReply } from './format.js';
import { defineTool } from './core.js';

// 20 rows: more open tabs than an agent can tell apart; the count says how many were left out.
const MAX_PAGE_ROWS = 20;

export const pagesTool = defineTool({
  name: 'pages',
  description: 'Tabs and popups: list, select (steps act there) or close.',
  inputSchema: {
    type: 'object',
    properties: {
      action: { enum: ['list', 'select', 'close'] },
      // The one fragment's type, its constraints left to the tracker (a bad index or text is page_not_found): fewer bytes per turn.
      page: { type: PAGE_SELECT_SCHEMA.type, description: 'new, last, index or title/URL text' },
    },
    required: ['action'],
    additionalProperties: false,
  },
  readOnly: false,
  async run(core, args) {
    const t0 = performance.now();
    const tabs = (await core.host()).pages?.();
    if (!tabs) throw new PerfError({ code: 'unsupported_on_driver', message: 'pages: this app has no browser pages' });
    const done: Record<string, unknown> = {};
    switch (args.action) {
      case 'list':
        break;
      case 'select':
        if (args.page === undefined)
          throw new PerfError({
            code: 'invalid_arguments',
            message: 'pages: select needs page',
            suggestion: 'e.g. {"action":"select","page":"new"}',
          });
        done.selected = (await tabs.select(args.page, Date.now() + DEFAULT_STEP_TIMEOUT_MS)).index;
        break;
      case 'close': {
        const r = await tabs.close(args.page);
        done.closed = r.closed.index;
        done.selected = r.selected.index;
        break;
      }
    }
    const durationMs = Math.round(performance.now() - t0);
    return okReply({ tool: 'pages', status: 'ok', durationMs, data: { ...done, ...boundedPages(await tabs.list()) } });
  },
});

/** At most MAX_PAGE_ROWS rows, each title and URL at most PAGE_TEXT_MAX characters; what was cut is counted. */
export function boundedPages(rows: PageRow[]): Record<string, unknown> {
  let cutTexts = 0;
  const short = (s: string): string => {
    const c = cut(s);
    if (c !== s) cutTexts++;
    return c;
  };
  const shown = rows.slice(0, MAX_PAGE_ROWS).map((r) => ({
    index: r.index,
    title: short(r.title),
    url: short(r.url),
    ...(r.opener !== undefined ? { opener: r.opener } : {}),
    ...(r.selected ? { selected: true } : {}),
  }));
  const selected = rows.find((r) => r.selected)?.index;
  return {
    count: rows.length,
    selected,
    pages: shown,
    ...(rows.length > shown.length ? { pagesNotShown: rows.length - shown.length } : {}),
    ...(cutTexts ? { textsCut: cutTexts } : {}),
  };
}
