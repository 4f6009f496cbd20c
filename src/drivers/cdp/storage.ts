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
import { seedStorageSource, type PageStorage, type StateCookie, type StorageState } from '../storage.js';

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
