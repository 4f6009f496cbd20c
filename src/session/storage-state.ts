/**
 * A running session's browser state (`perf state save|load`, MCP storage_save / storage_load): what
 * the page's browser holds now, or a saved state put into it. Driver-neutral: each page driver's
 * storage half (src/drivers/<name>/storage.ts) does the protocol work.
 */
import type { HostPage } from '../drivers/page-driver.js';
import type { StorageState } from '../drivers/storage.js';

// 30 s: a reload of a dev server's page may compile it first.
const RELOAD_TIMEOUT_MS = 30_000;

/** The cookies the page's browser holds (HttpOnly included) and the web storage of the origins it visited (PageStorage.origins). */
export async function readSessionState(page: HostPage): Promise<StorageState> {
  const [cookies, origins] = await Promise.all([page.storage.cookies(), page.storage.origins()]);
  return { version: 1, cookies, origins };
}

/**
 * Put `state` into the session's browser and reload the current page so it starts from it (storage is
 * written as each saved origin's document starts). Returns the page's URL after the reload.
 */
export async function loadSessionState(page: HostPage, state: StorageState): Promise<string> {
  const url = await page.evaluate<string>('location.href');
  await page.storage.load(state);
  // WebDriver visits each saved origin to write it: the page then goes back where it was.
  await page.navigation.navigate(url, RELOAD_TIMEOUT_MS);
  await page.storage.restored();
  return url;
}

/** What a saved state holds, without a value: safe to print. */
export function describeState(state: StorageState): { cookies: number; origins: string[] } {
  return { cookies: state.cookies.length, origins: state.origins.map((o) => o.origin) };
}
