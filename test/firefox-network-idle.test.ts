/**
 * wait_for_network_idle in the real Firefox (the bidi driver): each wait subscribes to BiDi's network events for its
 * tab and removes that subscription when it ends, so waits in a row, repeats and `perf start` verbs (all on one
 * shared Firefox session) leave no subscription and no listener behind. Counted on the socket's own traffic:
 * every subscription id Firefox handed out is unsubscribed, and Firefox no longer knows the ids.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { openFirefoxTab, startFirefoxSession, type FirefoxSession } from '../src/drivers/bidi/browser.js';
import { firefoxBinary } from '../src/drivers/bidi/firefox.js';
import { webdriverPageSource } from '../src/drivers/webdriver/tabs.js';
import { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { serveStatic, type StaticServer } from '../src/session/static-server.js';
import { firefoxPageDriver } from '../src/session/firefox-page.js';
import { DEMO_DIR } from './helpers.js';

const missingFirefox = firefoxBinary() ? false : 'Firefox not installed (apt-get install firefox-esr)';
// Firefox's start and two short waits, on a loaded 2-core machine.
const TIMEOUT_MS = 120_000;

let session: FirefoxSession | undefined;
let server: StaticServer | undefined;
after(async () => {
  await session?.close();
  await server?.close();
});

/** The socket's network subscriptions Firefox handed out and not yet removed, and its live network listeners. */
function countOn(s: FirefoxSession): { subscriptions: Set<string>; listeners: () => number; everSubscribed: string[] } {
  const sock = s.socket;
  const send = sock.send.bind(sock);
  const on = sock.on.bind(sock);
  const subscriptions = new Set<string>();
  const everSubscribed: string[] = [];
  let listeners = 0;
  sock.send = async <T>(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<T> => {
    const result = await send<T>(method, params, timeoutMs);
    const network = Array.isArray(params.events) && params.events.some((e) => String(e).startsWith('network.'));
    const id = (result as { subscription?: string } | undefined)?.subscription;
    if (method === 'session.subscribe' && network && id) {
      subscriptions.add(id);
      everSubscribed.push(id);
    }
    if (method === 'session.unsubscribe') for (const x of (params.subscriptions as string[] | undefined) ?? []) subscriptions.delete(x);
    return result;
  };
  sock.on = (method, fn) => {
    if (!method.startsWith('network.')) return on(method, fn);
    listeners++;
    const off = on(method, fn);
    return () => {
      listeners--;
      return off();
    };
  };
  return { subscriptions, listeners: () => listeners, everSubscribed };
}

test(
  'two wait_for_network_idle in a row leave no BiDi subscription and no listener behind',
  { skip: missingFirefox, timeout: TIMEOUT_MS },
  async () => {
    server = await serveStatic({ root: DEMO_DIR });
    session = await startFirefoxSession({ headless: true });
    const count = countOn(session);
    const tab = await openFirefoxTab(session, { newUserContext: true });
    const driver = await firefoxPageDriver(tab.client, { preload: true, firefoxPid: session.firefox.pid });
    const host = new SessionHost(webdriverPageSource(driver), server.url);
    await driver.navigation.navigate(`${server.url}/form.html`, 30_000);
    for (const k of [1, 2]) {
      const r = await runStep(host, 'wait_for_network_idle', { idleMs: 100 });
      assert.equal(r.status, 'ok', JSON.stringify(r));
      assert.equal((r.data as { idle: boolean }).idle, true, JSON.stringify(r.data));
      assert.equal(count.everSubscribed.length, k, `wait ${k} subscribed once`);
      assert.deepEqual([...count.subscriptions], [], `after wait ${k}: its subscription was removed`);
      assert.equal(count.listeners(), 0, `after wait ${k}: its listeners were removed`);
    }
    // Firefox itself no longer holds them: removing an id again is refused as unknown.
    for (const id of count.everSubscribed)
      await assert.rejects(session.socket.send('session.unsubscribe', { subscriptions: [id] }), /unknown ids/);
    await tab.close();
  },
);
