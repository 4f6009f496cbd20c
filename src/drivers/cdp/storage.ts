/**
 * The CDP half of a saved browser state (src/drivers/storage.ts). Cookies through the page's own
 * session: Network.getAllCookies and Network.setCookies act on the page's browser context, so a
 * context restart's fresh context gets them before its first request. Storage cannot be written
 * for an origin that has no document yet, so a script seeds it as each document of a saved origin
 * starts (Page.addScriptToEvaluateOnNewDocument), before the app's own scripts; it is removed once
 * the app page has opened, so the repeat's later documents keep what the app wrote.
 */
import type { Protocol } from 'devtools-protocol';
import type { Browser, Page } from './browser.js';
import {
  READ_ORIGIN_STORAGE,
  seedStorageSource,
  type OriginStorage,
  type PageStorage,
  type StateCookie,
  type StorageState,
} from '../storage.js';

const seeds = new WeakMap<Page, string>();

function sameSite(s: Protocol.Network.CookieSameSite | undefined): StateCookie['sameSite'] {
  return s ?? 'Lax';
}

function cookieParams(state: StorageState): Protocol.Network.CookieParam[] {
  return state.cookies.map((c) => ({
    name: c.name,
    value: c.value,
    domain: c.domain,
    path: c.path,
    httpOnly: c.httpOnly,
    secure: c.secure,
    sameSite: c.sameSite,
    ...(c.expires > 0 ? { expires: c.expires } : {}),
  }));
}

/**
 * The state's cookies into a browser context before its first page exists: a page created at the app
 * URL sends its request as the target is created, before any command reaches the page's session.
 */
export async function setContextCookies(browser: Browser, browserContextId: string, state: StorageState): Promise<void> {
  if (state.cookies.length) await browser.conn.send('Storage.setCookies', { cookies: cookieParams(state), browserContextId });
}

// A blank page served from memory loads in milliseconds; 10 s covers a loaded host, and bounds a stuck one.
const READER_NAVIGATION_TIMEOUT_MS = 10_000;
const BLANK_PAGE_BASE64 = Buffer.from('<!doctype html><title></title>').toString('base64');

function originOf(url: string): string | undefined {
  return /^https?:\/\//.test(url) ? new URL(url).origin : undefined;
}

/** The http(s) origins of the tab's history and of the other tabs of its browser context (their current documents). */
async function visitedOrigins(page: Page): Promise<Set<string>> {
  const conn = page.browser.conn;
  const [{ entries }, { targetInfos }, { targetInfo }] = await Promise.all([
    page.send('Page.getNavigationHistory'),
    conn.send('Target.getTargets', {}),
    conn.send('Target.getTargetInfo', { targetId: page.targetId }),
  ]);
  const tabs = targetInfos.filter((t) => t.type === 'page' && t.browserContextId === targetInfo.browserContextId);
  const urls = [...entries.map((e) => e.url), ...tabs.map((t) => t.url)];
  return new Set(urls.flatMap((u) => originOf(u) ?? []));
}

/**
 * `script` evaluated at each origin in a background tab of the page's browser context (localStorage is
 * the context's, shared by its tabs) that loads a blank document there from memory: its requests are
 * fulfilled by Fetch here, so nothing reaches a server and the page itself does not move.
 */
async function atEachOrigin<T>(page: Page, origins: readonly string[], script: (origin: string) => string): Promise<T[]> {
  const conn = page.browser.conn;
  const [{ targetInfo }, { browserContextIds }] = await Promise.all([
    conn.send('Target.getTargetInfo', { targetId: page.targetId }),
    conn.send('Target.getBrowserContexts', {}),
  ]);
  // The default context is not in the list and is created into by naming none.
  const ctx = targetInfo.browserContextId;
  const inContext = ctx !== undefined && browserContextIds.includes(ctx) ? { browserContextId: ctx } : {};
  const { targetId } = await conn.send('Target.createTarget', { url: 'about:blank', background: true, ...inContext });
  const tab = await page.browser.attach(targetId).catch(async (e: unknown) => {
    await conn.send('Target.closeTarget', { targetId }).catch(() => undefined);
    throw e;
  });
  const off = tab.on('Fetch.requestPaused', (p) => {
    const responseHeaders = [{ name: 'content-type', value: 'text/html' }];
    void tab
      .send('Fetch.fulfillRequest', { requestId: p.requestId, responseCode: 200, responseHeaders, body: BLANK_PAGE_BASE64 })
      .catch(() => undefined);
  });
  try {
    // A service worker of the origin would answer the navigation itself (and may fetch): bypassed.
    await Promise.all([
      tab.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }),
      tab.send('Network.enable', {}).then(() => tab.send('Network.setBypassServiceWorker', { bypass: true })),
    ]);
    const out: T[] = [];
    for (const origin of origins) {
      await tab.navigate(`${origin}/`, READER_NAVIGATION_TIMEOUT_MS);
      out.push(await tab.evaluate<T>(script(origin)));
    }
    return out;
  } finally {
    off();
    await tab.close();
  }
}

/** The current document's storage (sessionStorage included), then the localStorage of every other origin visited. */
async function readOrigins(page: Page): Promise<OriginStorage[]> {
  const [here, visited] = await Promise.all([
    page.evaluate<OriginStorage>(READ_ORIGIN_STORAGE).catch(() => undefined),
    visitedOrigins(page),
  ]);
  const current = here && originOf(here.origin) ? [here] : [];
  const others = [...visited].filter((o) => o !== here?.origin);
  const read = others.length ? await atEachOrigin<OriginStorage>(page, others, () => READ_ORIGIN_STORAGE) : [];
  const kept = read.filter((o) => others.includes(o.origin) && o.localStorage.length > 0);
  return [...current, ...kept.map((o) => ({ origin: o.origin, localStorage: o.localStorage, sessionStorage: [] }))];
}

/** Each saved origin's localStorage written now (the context's, for every later tab and document); sessionStorage is the tab's. */
async function writeLocalStorage(page: Page, state: StorageState): Promise<void> {
  const origins = state.origins.filter((o) => o.localStorage.length > 0);
  if (!origins.length) return;
  const script = (origin: string): string =>
    seedStorageSource(origins.filter((o) => o.origin === origin).map((o) => ({ ...o, sessionStorage: [] })));
  await atEachOrigin<unknown>(
    page,
    origins.map((o) => o.origin),
    script,
  );
}

export function cdpStorage(page: Page): PageStorage {
  const restored = async (): Promise<void> => {
    const identifier = seeds.get(page);
    if (identifier === undefined) return;
    seeds.delete(page);
    await page.send('Page.removeScriptToEvaluateOnNewDocument', { identifier }).catch(() => undefined);
  };
  return {
    async cookies() {
      const { cookies } = await page.send('Network.getAllCookies');
      return cookies.map((c) => ({
        name: c.name,
        value: c.value,
        domain: c.domain,
        path: c.path,
        expires: c.session ? -1 : c.expires,
        httpOnly: c.httpOnly,
        secure: c.secure,
        sameSite: sameSite(c.sameSite),
      }));
    },
    origins: () => readOrigins(page),
    async load(state: StorageState) {
      // The seed covers the page's next document (sessionStorage included); every other origin's localStorage is written now.
      await Promise.all([this.restore(state), writeLocalStorage(page, state)]);
    },
    async restore(state: StorageState) {
      // A reload restart restores onto the same page: the last repeat's seed goes first.
      await restored();
      const cookies = cookieParams(state);
      const origins = state.origins.filter((o) => o.localStorage.length + o.sessionStorage.length > 0);
      await Promise.all([
        cookies.length ? page.send('Network.setCookies', { cookies }) : undefined,
        origins.length
          ? page
              .send('Page.addScriptToEvaluateOnNewDocument', { source: seedStorageSource(origins) })
              .then(({ identifier }) => void seeds.set(page, identifier))
          : undefined,
      ]);
    },
    restored,
  };
}
