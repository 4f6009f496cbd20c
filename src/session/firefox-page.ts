/**
 * A Firefox tab as a page: the bidi driver's BiDi command client under the W3C page driver (the runtime,
 * Actions input, the in-page perf probe), composed here because a driver may not import another
 * (src/drivers/bidi speaks the protocol; src/drivers/webdriver holds the page driver both use).
 */
import { bidiDriver } from '../drivers/bidi/driver.js';
import type { BidiPageClient } from '../drivers/bidi/client.js';
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
