/**
 * get_routes: the client-side routes an agent can navigate to. Two sources: the app's own list
 * (window.__routes, when it exposes one) and the same-origin links on the page (what a crawler sees).
 * A named app route is paired with the link that opens it, so it comes back as a usable path.
 */
import { defineStep } from './define.js';

// 200 routes: more than any menu an agent can reason about; the rest is counted, not listed.
const DEFAULT_LIMIT = 200;
// 80 characters of link text: a label, not a paragraph.
const TEXT_CAP = 80;

export interface RouteInfo {
  /** pathname + search (+ hash for hash routers), same origin: pass it to navigate. */
  path: string;
  /** The link's visible text or aria-label. */
  text?: string;
  /** The app's own name for the route (from window.__routes). */
  name?: string;
  source: 'app' | 'link';
}

interface Collected {
  routes: RouteInfo[];
  hasAppRoutes: boolean;
  linkCount: number;
  total: number;
}

/** Page-side collector; serialised with toString(), so self-contained. */
function collectRoutes(limit: number, textCap: number): Collected {
  const clean = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim().slice(0, textCap);
  const pathOf = (u: URL): string => u.pathname + u.search + (/^#[/!]/.test(u.hash) ? u.hash : '');
  const anchors: HTMLAnchorElement[] = [];
  const walk = (root: Document | ShadowRoot): void => {
    for (const el of root.querySelectorAll('*')) {
      if (el instanceof HTMLAnchorElement && el.hasAttribute('href')) anchors.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  const links: { url: URL; path: string; text: string; el: HTMLAnchorElement }[] = [];
  for (const a of anchors) {
    let url: URL;
    try {
      url = new URL(a.getAttribute('href') ?? '', location.href);
    } catch {
      continue;
    }
    if (url.origin !== location.origin || !/^https?:$/.test(url.protocol)) continue;
    links.push({ url, path: pathOf(url), text: clean(a.getAttribute('aria-label') || a.innerText || a.textContent), el: a });
  }

  const routes: RouteInfo[] = [];
  const seen = new Set<string>();
  const add = (r: RouteInfo): void => {
    if (seen.has(r.path)) return;
    seen.add(r.path);
    routes.push(r);
  };
  const declared: unknown = (window as unknown as { __routes?: unknown }).__routes;
  const appRoutes = Array.isArray(declared) ? declared : [];
  for (const entry of appRoutes) {
    const obj = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : undefined;
    const name = typeof entry === 'string' ? entry : typeof obj?.name === 'string' ? obj.name : undefined;
    const explicitPath = typeof obj?.path === 'string' ? obj.path : typeof entry === 'string' && /^[/?#]/.test(entry) ? entry : undefined;
    if (explicitPath !== undefined) {
      const url = new URL(explicitPath, location.href);
      const link = links.find((l) => l.path === pathOf(url));
      add({
        path: pathOf(url),
        source: 'app',
        ...(name && name !== explicitPath ? { name } : {}),
        ...(link?.text ? { text: link.text } : {}),
      });
      continue;
    }
    if (!name) continue;
    // A bare route name: find the link that opens it (data-route, a query value, the last path segment, a hash route).
    const link = links.find(
      (l) =>
        l.el.dataset.route === name ||
        [...l.url.searchParams.values()].includes(name) ||
        l.url.pathname
          .split('/')
          .pop()
          ?.replace(/\.html?$/, '') === name ||
        l.url.hash === `#/${name}` ||
        l.url.hash === `#${name}`,
    );
    add({ path: link ? link.path : name, name, source: 'app', ...(link?.text ? { text: link.text } : {}) });
  }
  for (const l of links) add({ path: l.path, source: 'link', ...(l.text ? { text: l.text } : {}) });
  return { routes: routes.slice(0, limit), hasAppRoutes: appRoutes.length > 0, linkCount: links.length, total: routes.length };
}

export const getRoutes = defineStep({
  name: 'get_routes',
  description:
    "List the app's routes (window.__routes if exposed) and the same-origin " +
    'links on the page, with their text; each path can be given to navigate.',
  details: 'App routes are each paired with the link that opens it; the list is deduplicated.',
  args: {
    type: 'object',
    properties: {
      limit: {
        type: 'integer',
        minimum: 1,
        description: `Most routes (app routes first, then links in page order). Default ${DEFAULT_LIMIT}.`,
      },
    },
  } as const,
  readOnly: true,
  async run(ctx, args) {
    const limit = args.limit ?? DEFAULT_LIMIT;
    const found = await ctx.page.evaluate<Collected>(`(${collectRoutes.toString()})(${limit}, ${TEXT_CAP})`);
    const source = found.hasAppRoutes ? (found.linkCount > 0 ? 'window.__routes+links' : 'window.__routes') : 'links';
    return {
      data: {
        routes: found.routes,
        source,
        ...(found.total > found.routes.length
          ? { truncated: `${found.total - found.routes.length} more routes not listed; raise limit to see them` }
          : {}),
      },
    };
  },
});
