/**
 * navigate: open a path of the app or a URL, wait for load, and report where the page actually is
 * (read from location after load, so a redirect or a router rewrite shows as exactPath: false).
 */
import { PerfError } from '../errors.js';
import type { PageDriver } from '../page/index.js';
import { joinUrl } from '../url.js';
import { defineStep } from './define.js';

// 30 s, like Playwright's navigation timeout: a dev server may compile the page on first request.
export const NAVIGATION_TIMEOUT_MS = 30_000;

export interface PageLocation {
  href: string;
  pathname: string;
  search: string;
  hash: string;
  title: string;
  /** HTTP status of the document's response, when the browser exposes it (0 for cached / unknown). */
  status?: number;
}

/** Where the page is now, as the page itself reports it. */
export async function readLocation(page: PageDriver): Promise<PageLocation> {
  return page.evaluate<PageLocation>(
    `(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const status = nav && typeof nav.responseStatus === 'number' && nav.responseStatus > 0 ? nav.responseStatus : undefined;
    return { href: location.href, pathname: location.pathname, search: location.search, ` +
      `hash: location.hash, title: document.title, ...(status ? { status } : {}) };
  })()`,
  );
}

/**
 * The URL to open. Absolute http(s) URLs as given; `?query` and `#hash` against the current page
 * when it belongs to the app (so `?page=products` stays on the router page); any other path against
 * the app's base URL.
 */
export function resolveNavigationUrl(input: string, appUrl: string | undefined, current: string | undefined): string {
  const trimmed = input.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) {
    if (/^https?:\/\//i.test(trimmed) || trimmed === 'about:blank') return trimmed;
    throw new PerfError({
      code: 'unsupported_url',
      message: `navigate: only http(s) URLs and app paths can be opened, not "${trimmed}"`,
      suggestion: 'pass a path of the app such as "/form.html", or an http:// or https:// URL',
    });
  }
  const base = appUrl?.replace(/\/+$/, '');
  const currentUrl = current && /^https?:/i.test(current) ? current : undefined;
  if (
    (trimmed.startsWith('?') || trimmed.startsWith('#')) &&
    currentUrl &&
    (!base || new URL(currentUrl).origin === new URL(base).origin)
  ) {
    return new URL(trimmed, currentUrl).href;
  }
  if (base) return joinUrl(base, trimmed);
  if (currentUrl) return new URL(trimmed, currentUrl).href;
  throw new PerfError({
    code: 'no_base_url',
    message: `navigate: "${trimmed}" is a path, but the app's base URL is unknown`,
  });
}

export const navigate = defineStep({
  name: 'navigate',
  description: 'Open a URL and wait for the load; returns the URL.',
  details:
    'An app path, query or hash, e.g. "/form.html", "?page=products", "#section", or an http(s) URL. ' +
    'Returns navigated, the url read back from location after load, and exactPath (false when a redirect ' +
    'or router changed the path or query).',
  args: {
    type: 'object',
    properties: {
      url: {
        type: 'string',
        minLength: 1,
        description: 'App path (/form.html), ?query, #hash or absolute http(s) URL.',
      },
    },
    required: ['url'],
  } as const,
  readOnly: false,
  defaultTimeoutMs: NAVIGATION_TIMEOUT_MS,
  shorthand: (url) => ({ url }),
  async run(ctx, args) {
    const before = await ctx.page.evaluate<string>('location.href').catch(() => undefined);
    const target = resolveNavigationUrl(args.url, ctx.host.appUrl(), before);
    const res = await ctx.page.navigation.navigate(target, Math.max(1, ctx.deadline - Date.now()));
    const loc = await readLocation(ctx.page);
    const wanted = new URL(target);
    return {
      data: {
        navigated: res.newDocument || loc.href !== before,
        url: loc.href,
        requested: target,
        exactPath: loc.pathname + loc.search === wanted.pathname + wanted.search,
        newDocument: res.newDocument,
        title: loc.title,
        ...(loc.status !== undefined ? { status: loc.status } : {}),
      },
    };
  },
});
