/**
 * The open pages of a session's browser (tabs, popups, window.open) and which one the steps act on.
 * Driver-neutral: a driver supplies a PageBackend (CDP: page targets of the browser context; WebDriver:
 * window handles; BiDi: the user context's browsing contexts) and this tracker does the choosing, so
 * `page: new | last | n | "text"` means the same on every driver. Index = position among the open pages in opening order (0 = the
 * app's page), the way Playwright's context.pages() numbers them.
 */
import { PerfError } from '../errors.js';
import type { HostPage } from './page-driver.js';

/** How a step names a page: `new`, `last`, an index, or a substring of its title or URL. */
export type PageSelector = string | number;

/** One open page as the driver reports it, in opening order. */
export interface RawPage {
  id: string;
  /** The page that opened it (window.open, target=_blank), when the driver knows. */
  openerId?: string;
  title: string;
  url: string;
}

/** What a driver gives the tracker: its open pages, and a driver for one of them. */
export interface PageBackend {
  /** Open pages in opening order, the app's page first; without `withText` other pages' titles and URLs may be empty (WebDriver). */
  pages(withText?: boolean): Promise<RawPage[]>;
  /** The page driver of `id`, attaching or switching to it. */
  open(id: string): Promise<HostPage>;
  close(id: string): Promise<void>;
  /** Whether page `id` is closed, for a driver that hears of no close (WebDriver); else the page's own alive() says. */
  gone?(id: string): Promise<boolean>;
  /** The browser's page events, for a driver that hears them (BiDi): the tracker then waits on them instead of a timer. */
  readonly events?: PageEvents;
}

/** Pages opened, closed and documents loaded, as the browser reports them. */
export interface PageEvents {
  /** Bumped by every page opened or closed and every document loaded. */
  readonly seq: number;
  /** Resolves at the first event after `seen` (at once if one came already), or at `deadline` (epoch ms). */
  next(seen: number, deadline: number): Promise<void>;
}

export interface PageRow {
  index: number;
  /** Index of the page that opened it, while that one is open. */
  opener?: number;
  title: string;
  url: string;
  selected: boolean;
}

/** The session's pages as hosts and steps see them. */
export interface PageTabs {
  /** The selected page's driver: what steps act on. */
  readonly driver: HostPage;
  /** The app's page (page 0), which only the session closes. */
  readonly main: HostPage;
  list(): Promise<PageRow[]>;
  /** The selected page and how many are open, without reading the others' titles. */
  selection(): Promise<{ page: PageRow; count: number }>;
  /** Select a page; `new` and the others wait for it until `deadline` (epoch ms). */
  select(sel: PageSelector, deadline: number): Promise<PageRow>;
  /** Close a page (default the selected one); a selection on it returns to its opener, else page 0. */
  close(sel?: PageSelector): Promise<{ closed: PageRow; selected: PageRow }>;
  /** When the selected page closed by itself (window.close()), move the selection to its opener. */
  settle(): Promise<void>;
  /** What happened to the selection on its own since last asked (the selected page closed), once. */
  takeNotice(): string | undefined;
  /** Close every page but the app's (a clean restart leaves one page). */
  closeOthers(): Promise<void>;
}

// 50 ms: a new tab's target appears within a frame or two of the click; polling faster only adds round trips.
const PAGE_POLL_MS = 50;

export class PageTracker implements PageTabs {
  private selectedId: string;
  private current: HostPage;
  private readonly seen = new Set<string>();
  /** Openers of pages ever listed: a closed page's opener is still known when its selection returns. */
  private readonly openers = new Map<string, string>();
  private notice: string | undefined;

  constructor(
    private readonly backend: PageBackend,
    readonly mainId: string,
    readonly main: HostPage,
  ) {
    this.selectedId = mainId;
    this.current = main;
    this.seen.add(mainId);
  }

  get driver(): HostPage {
    return this.current;
  }

  private async raw(withText = true): Promise<RawPage[]> {
    const pages = await this.backend.pages(withText);
    for (const p of pages) if (p.openerId) this.openers.set(p.id, p.openerId);
    return pages;
  }

  async list(): Promise<PageRow[]> {
    return rows(await this.raw(), this.selectedId);
  }

  async selection(): Promise<{ page: PageRow; count: number }> {
    const list = rows(await this.raw(false), this.selectedId);
    return { page: list.find((r) => r.selected) ?? list[0]!, count: list.length };
  }

  async select(sel: PageSelector, deadline: number): Promise<PageRow> {
    const events = this.backend.events;
    for (;;) {
      const seq = events?.seq;
      const pages = await this.raw(byText(sel));
      const hit = pick(pages, sel, this.seen, this.selectedId);
      if (hit) {
        this.current = await this.backend.open(hit.id);
        this.selectedId = hit.id;
        if (!this.seen.has(hit.id)) await loaded(this.current, deadline, events);
        this.seen.add(hit.id);
        const now = await this.raw(false);
        const at = now.findIndex((p) => p.id === hit.id);
        return at >= 0 ? rows(now, hit.id)[at]! : rows(pages, hit.id)[pages.indexOf(hit)]!;
      }
      if (Date.now() + PAGE_POLL_MS > deadline) throw notFound(sel, pages);
      // A title can change with no event (a script sets it): a text is looked for again on the timer.
      if (events && seq !== undefined && !byText(sel)) await events.next(seq, deadline);
      else await new Promise((r) => setTimeout(r, PAGE_POLL_MS));
    }
  }

  async close(sel?: PageSelector): Promise<{ closed: PageRow; selected: PageRow }> {
    const pages = await this.raw(sel !== undefined && byText(sel));
    const target = sel === undefined ? pages.find((p) => p.id === this.selectedId) : pick(pages, sel, this.seen, this.selectedId);
    if (!target) throw notFound(sel ?? 'the selected page', pages);
    if (target.id === this.mainId)
      throw new PerfError({
        code: 'invalid_arguments',
        message: 'page 0 is the app page: it closes with the session, not by a step',
        suggestion: 'close a page the app opened (page 1 and up)',
      });
    const closed = rows(pages, this.selectedId)[pages.indexOf(target)]!;
    await this.backend.close(target.id);
    if (target.id === this.selectedId) await this.returnFrom(target.id, pages);
    const after = rows(await this.raw(false), this.selectedId);
    return { closed: { ...closed, selected: false }, selected: after.find((r) => r.selected) ?? after[0]! };
  }

  async settle(): Promise<void> {
    if (this.selectedId === this.mainId) return;
    if (this.backend.gone ? !(await this.backend.gone(this.selectedId)) : this.current.alive()) return;
    const pages = await this.raw(false);
    if (pages.some((p) => p.id === this.selectedId) && this.current.alive() && !this.backend.gone) return;
    const row = await this.returnFrom(this.selectedId, pages);
    this.notice = `the selected page closed; back on page ${row.index} (${cut(row.title || row.url)})`;
  }

  takeNotice(): string | undefined {
    const n = this.notice;
    this.notice = undefined;
    return n;
  }

  async closeOthers(): Promise<void> {
    const pages = await this.raw(false).catch(() => []);
    for (const p of pages) if (p.id !== this.mainId) await this.backend.close(p.id).catch(() => undefined);
    this.current = this.main;
    this.selectedId = this.mainId;
  }

  /** The selection leaves a closed page for its opener (its opener's, …), else the app's page. */
  private async returnFrom(id: string, before: RawPage[]): Promise<PageRow> {
    const open = (await this.raw(false)).filter((p) => p.id !== id);
    let to = this.openers.get(id);
    while (to !== undefined && !open.some((p) => p.id === to)) to = this.openers.get(to);
    const back = to ?? this.mainId;
    this.current = back === this.mainId ? this.main : await this.backend.open(back).catch(() => this.main);
    this.selectedId = this.current === this.main ? this.mainId : back;
    const list = rows(open.length ? open : before, this.selectedId);
    return list.find((r) => r.selected) ?? list[0]!;
  }
}

/**
 * A page selected for the first time has just opened: wait (until the deadline) for its document to load, as
 * Playwright's popup handling does, so its title is its own and the step after finds its content. A page that
 * never finishes is left to the next step's own wait.
 */
async function loaded(page: HostPage, deadline: number, events: PageEvents | undefined): Promise<void> {
  while (Date.now() + PAGE_POLL_MS < deadline) {
    const seq = events?.seq;
    const state = await page.evaluate<string>('document.readyState', { timeoutMs: Math.max(1, deadline - Date.now()) }).catch(() => '');
    if (state === 'complete') return;
    // With events the next look is at the next document loaded (a page's load event), not the next tick.
    if (events && seq !== undefined) await events.next(seq, deadline);
    else await new Promise((r) => setTimeout(r, PAGE_POLL_MS));
  }
}

function rows(pages: RawPage[], selectedId: string): PageRow[] {
  const index = new Map(pages.map((p, i) => [p.id, i]));
  return pages.map((p, i) => {
    const opener = p.openerId === undefined ? undefined : index.get(p.openerId);
    return { index: i, ...(opener !== undefined ? { opener } : {}), title: p.title, url: p.url, selected: p.id === selectedId };
  });
}

/** The page `sel` names, or undefined while none does; several pages matching a text is an error. */
function pick(pages: RawPage[], sel: PageSelector, seen: ReadonlySet<string>, selectedId: string): RawPage | undefined {
  if (typeof sel === 'number') return pages[sel];
  if (sel === 'last') return pages[pages.length - 1];
  if (sel === 'new') return pages.filter((p) => !seen.has(p.id) && p.id !== selectedId).pop();
  const needle = sel.toLowerCase();
  const hits = pages.filter((p) => p.title.toLowerCase().includes(needle) || p.url.toLowerCase().includes(needle));
  if (hits.length > 1)
    throw new PerfError({
      code: 'ambiguous_page',
      message: `page "${sel}" matches ${hits.length} pages: ${describe(pages, hits)}`,
      suggestion: 'name it by index, or by a longer part of its title or URL',
    });
  return hits[0];
}

/** Whether choosing by `sel` reads titles and URLs (a text does; new, last and an index do not). */
function byText(sel: PageSelector): boolean {
  return typeof sel === 'string' && sel !== 'new' && sel !== 'last';
}

/** `index (title)` of each of `some`, for a message. */
function describe(pages: RawPage[], some: RawPage[]): string {
  return some.map((p) => `${pages.indexOf(p)} (${cut(p.title || p.url)})`).join(', ');
}

function notFound(sel: PageSelector, pages: RawPage[]): PerfError {
  const what = sel === 'new' ? 'no new page opened' : `no page ${typeof sel === 'number' ? sel : `"${sel}"`}`;
  return new PerfError({
    code: 'page_not_found',
    message: `${what}; open pages: ${describe(pages, pages)}`,
    suggestion: sel === 'new' ? 'the step before must open it (a target=_blank link, window.open); raise timeoutMs' : 'list the pages',
  });
}

// 80 characters: a title or URL stays on one line of a message or a list row.
export const PAGE_TEXT_MAX = 80;
export function cut(s: string): string {
  return s.length > PAGE_TEXT_MAX ? `${s.slice(0, PAGE_TEXT_MAX - 1)}…` : s;
}
