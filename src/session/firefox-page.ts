/**
 * A Firefox tab as a page: the bidi driver's BiDi command client under the W3C page driver (the runtime,
 * Actions input, the in-page perf probe), composed here because a driver may not import another
 * (src/drivers/bidi speaks the protocol; src/drivers/webdriver holds the page driver both use).
 */
import { bidiDriver } from '../drivers/bidi/driver.js';
import type { BidiPageClient } from '../drivers/bidi/client.js';
import { bidiTabs } from '../drivers/bidi/tabs.js';
import type { HostPage } from '../drivers/page-driver.js';
import type { PageTabs } from '../drivers/tabs.js';
import { WebDriverPageDriver } from '../drivers/webdriver/page-driver.js';

// Long enough for a runtime call that waits (expect, the gate): each caps its own wait below this.
const SCRIPT_TIMEOUT_MS = 120_000;

/**
 * The page driver of `client`'s tab. `preload`: capture and the runtime go into every document of the tab's
 * user context before the page's own scripts (BiDi preload scripts), as over CDP; a borrowed tab (a verb
 * of a `perf start` session) installs them in the current document only, so its calls leave nothing behind.
 */
export async function firefoxPageDriver(
  client: BidiPageClient,
  opts: { preload: boolean; firefoxPid?: number; userAgent?: string },
): Promise<WebDriverPageDriver> {
  await client.setTimeouts({ script: SCRIPT_TIMEOUT_MS });
  const ua = opts.userAgent ?? (await client.execute<string>('return navigator.userAgent;'));
  const driver = new WebDriverPageDriver(client, ua, bidiDriver);
  driver.serverPid = opts.firefoxPid;
  if (opts.preload) await driver.useBidi(client.channel());
  else driver.bidi = client.channel();
  return driver;
}

/**
 * A Firefox tab as a page source: its page driver, and its user context's tabs and popups, tracked from first use
 * (BiDi events, src/drivers/bidi/tabs.ts). Another tab's driver borrows its document as a verb does (no preload
 * script of its own: the repeat's user context already has one where the runner added it).
 */
export function firefoxPageSource(
  driver: WebDriverPageDriver,
  client: BidiPageClient,
  firefoxPid: number | undefined,
): { driver: HostPage; tabs(create: boolean): PageTabs | undefined; dispose(): void } {
  let tracker: ReturnType<typeof bidiTabs> | undefined;
  const userAgent = driver.emulation.browserUserAgent();
  return {
    driver,
    tabs(create) {
      if (!tracker && create)
        tracker = bidiTabs(client, driver, (tab) =>
          firefoxPageDriver(tab, { preload: false, userAgent, ...(firefoxPid !== undefined ? { firefoxPid } : {}) }),
        );
      return tracker;
    },
    dispose: () => tracker?.dispose(),
  };
}
