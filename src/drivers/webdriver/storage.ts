/**
 * The WebDriver half of a saved browser state (src/drivers/storage.ts). WebDriver classic sets a
 * cookie only for the current document's domain and storage only by a script in a document of that
 * origin, so a restore visits each origin first (a small path that needs no sign-in), adds its
 * cookies and storage there, and leaves the app page for the caller to open; sessionStorage
 * belongs to the tab, so it is still there when the app page of that origin loads.
 */
import {
  READ_ORIGIN_STORAGE,
  seedStorageSource,
  type OriginStorage,
  type PageStorage,
  type StateCookie,
  type StorageState,
  type WebDriverCookie,
} from '../storage.js';
import { PerfError } from '../../errors.js';
import { WebDriverError } from '../errors.js';
import type { W3CClient } from './client.js';

// A path of the origin that is no app page: most servers answer it quickly (often 404) without a
// sign-in redirect, which would move the document to another origin before the cookies are added.
const VISIT_PATH = '/robots.txt';
// 30 s, as for any WebDriver navigation here: a dev server may compile on first request.
const VISIT_TIMEOUT_MS = 30_000;

function matches(domain: string, hostname: string): boolean {
  const d = domain.replace(/^\./, '');
  return hostname === d || hostname.endsWith(`.${d}`);
}

/** Each origin to visit with the cookies to add there: a saved origin of the cookie's domain, else the domain itself. */
function visits(state: StorageState): Map<string, { cookies: StateCookie[]; storage?: OriginStorage }> {
  const out = new Map<string, { cookies: StateCookie[]; storage?: OriginStorage }>();
  for (const o of state.origins) out.set(o.origin, { cookies: [], storage: o });
  for (const c of state.cookies) {
    const known = state.origins.find((o) => matches(c.domain, new URL(o.origin).hostname));
    const origin = known?.origin ?? `${c.secure ? 'https' : 'http'}://${c.domain.replace(/^\./, '')}`;
    const v = out.get(origin) ?? { cookies: [] };
    v.cookies.push(c);
    out.set(origin, v);
  }
  return out;
}

function toWebDriver(c: StateCookie, hostname: string): WebDriverCookie {
  return {
    name: c.name,
    value: c.value,
    // A host-only cookie stays host-only: WebDriver makes any cookie given a domain a domain cookie.
    ...(c.domain.startsWith('.') || c.domain !== hostname ? { domain: c.domain } : {}),
    path: c.path,
    secure: c.secure,
    httpOnly: c.httpOnly,
    sameSite: c.sameSite,
    ...(c.expires > 0 ? { expiry: Math.floor(c.expires) } : {}),
  };
}

export function webdriverStorage(client: W3CClient): PageStorage {
  return {
    async cookies() {
      const cookies = await client.cookies();
      const host = await client
        .url()
        .then((u) => new URL(u).hostname)
        .catch(() => '');
      return cookies.map((c) => ({
        name: c.name,
        value: c.value,
        domain: c.domain ?? host,
        path: c.path ?? '/',
        expires: c.expiry ?? -1,
        httpOnly: c.httpOnly ?? false,
        secure: c.secure ?? false,
        sameSite: c.sameSite ?? 'Lax',
      }));
    },
    // Classic WebDriver reads storage only by a script in a document of that origin: another origin's would mean
    // navigating the session's page away (and its sessionStorage is the tab's anyway). The current one only.
    async origins() {
      const o = await client.execute<OriginStorage>(`return ${READ_ORIGIN_STORAGE};`).catch(() => undefined);
      return o && /^https?:\/\//.test(o.origin) ? [o] : [];
    },
    async restore(state) {
      for (const [origin, v] of visits(state)) {
        if (v.cookies.length === 0 && !v.storage?.localStorage.length && !v.storage?.sessionStorage.length) continue;
        await client.navigate(origin + VISIT_PATH, VISIT_TIMEOUT_MS).catch((e: unknown) => {
          // An origin no server answers (a state saved from an app on another port): the browser's refusal, said as such.
          if (!(e instanceof WebDriverError)) throw e;
          throw new PerfError({
            code: 'navigation_failed',
            kind: 'environment',
            message: `could not open ${origin} to restore its saved cookies and storage: ${e.detail.split('\n')[0]}`,
            suggestion: "check that the state file's origins are the app's (its host and port)",
          });
        });
        const hostname = new URL(origin).hostname;
        for (const c of v.cookies) await client.addCookie(toWebDriver(c, hostname));
        if (v.storage) await client.execute(`${seedStorageSource([v.storage])}; return null;`);
      }
    },
    // restore visits every saved origin and writes its storage there.
    load(state) {
      return this.restore(state);
    },
    // Storage was written once per origin, not on every document: nothing to stop.
    restored: async () => undefined,
  };
}
