/**
 * Driving a page over WebDriver, side by side in one run on the demo list (2,000 rows): our tap
 * (the full actionability gate, the effect read back) and snap over WebDriver against webdriverio's
 * `$(css).click()` on the same server (alone, and followed by a read of the count it changes, which
 * is what our tap's effect read-back does), and against the same steps over CDP. Rounds are interleaved
 * so drift on this shared machine hits all alike. Engines: WebKit (MiniBrowser through
 * WebKitWebDriver) and Chromium (chromedriver), each when installed.
 *
 * Usage: npm run bench:webdriver [ROUNDS]
 */
import { fileURLToPath } from 'node:url';
import { remote } from 'webdriverio';
import { SessionHost } from '../src/engine/host.js';
import { runStep } from '../src/engine/run-step.js';
import { openWebDriverPage } from '../src/drivers/webdriver/session.js';
import { findServerBinary, miniBrowserPath, startWebDriverServer, type WebDriverServerKind } from '../src/drivers/webdriver/server.js';
import { BrowserSession } from '../src/drivers/cdp/session.js';
import { serveStatic } from '../src/session/static-server.js';
import { playwrightLaunchOptions, printTable, type Row, okData, timed } from './common.js';

const ROUNDS = Number(process.argv[2] ?? 20);
// Untimed first rounds: JIT, the runtime install, webdriverio's own first lookups.
const WARMUP_ROUNDS = 3;

const refOf = (snapshot: unknown): string => /button "Add item" \[ref=(e\d+)\]/.exec(String(snapshot))![1]!;

async function main(): Promise<void> {
  const app = await serveStatic({ root: fileURLToPath(new URL('../../scenarios/app', import.meta.url)) });
  const url = `${app.url}/list.html`;
  const chrome = playwrightLaunchOptions().executablePath;
  const kinds: WebDriverServerKind[] = [];
  if (findServerBinary('webkit') && miniBrowserPath()) kinds.push('webkit');
  if (findServerBinary('chromedriver')) kinds.push('chromedriver');
  if (kinds.length === 0) throw new Error('no WebDriver server installed: apt-get install webkit2gtk-driver xvfb chromium-driver');
  const cdp = await BrowserSession.open({ executablePath: chrome });
  try {
    await cdp.page.navigate(url);
    const cdpHost = new SessionHost(cdp, app.url);
    await runStep(cdpHost, 'resize_viewport', { width: 1024, height: 700 });
    const cdpRef = refOf(okData(await runStep(cdpHost, 'snap', {})).snapshot);
    for (const kind of (process.env.BENCH_KINDS?.split(',') as WebDriverServerKind[] | undefined) ?? kinds) {
      const started: { close(): Promise<void> }[] = [];
      let wdio: Awaited<ReturnType<typeof remote>> | undefined;
      try {
        const server = await startWebDriverServer(kind);
        started.push(server);
        const ours = await openWebDriverPage({
          kind,
          endpoint: server.endpoint,
          ...(kind === 'chromedriver' ? { chromePath: chrome } : {}),
        });
        started.unshift(ours);
        // A server of its own for webdriverio: WebKitWebDriver runs one session at a time.
        const peerServer = await startWebDriverServer(kind);
        started.push(peerServer);
        const caps =
          kind === 'webkit'
            ? {
                browserName: 'MiniBrowser',
                'webkitgtk:browserOptions': { binary: miniBrowserPath(), args: ['--automation'] },
                'wdio:enforceWebDriverClassic': true,
              }
            : {
                browserName: 'chrome',
                'goog:chromeOptions': { binary: chrome, args: ['--headless', '--no-sandbox', '--disable-gpu', '--window-size=1024,768'] },
              };
        // One attempt, bounded: a session the server cannot open is reported, not waited on.
        wdio = await remote({
          hostname: '127.0.0.1',
          port: Number(new URL(peerServer.endpoint).port),
          path: '/',
          capabilities: caps as never,
          logLevel: 'silent',
          connectionRetryCount: 0,
          connectionRetryTimeout: 30_000,
        });
        const host = new SessionHost({ driver: ours.driver }, app.url);
        await ours.driver.navigation.navigate(url, 30_000);
        await wdio.url(url);
        const ref = refOf(okData(await runStep(host, 'snap', {})).snapshot);
        const r = {
          tap: [] as number[],
          wdio: [] as number[],
          wdioRead: [] as number[],
          cdpTap: [] as number[],
          snap: [] as number[],
          cdpSnap: [] as number[],
        };
        for (let i = 0; i < WARMUP_ROUNDS + ROUNDS; i++) {
          const keep = i >= WARMUP_ROUNDS;
          const tTap = await timed(async () => okData(await runStep(host, 'tap', { ref })));
          const peer = wdio;
          const tWdio = await timed(async () => (await peer.$('#add-item')).click());
          // The same click followed by what our tap does besides clicking: reading its effect back.
          const tWdioRead = await timed(async () => {
            await (await peer.$('#add-item')).click();
            await (await peer.$('#count')).getText();
          });
          const tCdp = await timed(async () => okData(await runStep(cdpHost, 'tap', { ref: cdpRef })));
          const tSnap = await timed(async () => okData(await runStep(host, 'snap', {})));
          const tCdpSnap = await timed(async () => okData(await runStep(cdpHost, 'snap', {})));
          if (!keep) continue;
          r.tap.push(tTap);
          r.wdio.push(tWdio);
          r.wdioRead.push(tWdioRead);
          r.cdpTap.push(tCdp);
          r.snap.push(tSnap);
          r.cdpSnap.push(tCdpSnap);
        }
        const engine = kind === 'webkit' ? 'WebKit (MiniBrowser)' : 'Chromium (chromedriver)';
        const rows: Row[] = [
          { what: 'tap ref, full gate vs webdriverio click', ours: r.tap, peer: r.wdio, peerName: 'webdriverio', target: 1.0 },
          { what: 'tap ref vs webdriverio click + read of its effect', ours: r.tap, peer: r.wdioRead, peerName: 'webdriverio' },
          { what: 'tap ref over WebDriver vs over CDP', ours: r.tap, peer: r.cdpTap, peerName: 'webdriverio' },
          { what: 'snap over WebDriver vs over CDP', ours: r.snap, peer: r.cdpSnap, peerName: 'webdriverio' },
        ];
        printTable(
          `${engine} over WebDriver, ${url} (peer: webdriverio's $(css).click() on its own server of the same kind; the CDP rows compare us with ourselves over CDP in Chromium)`,
          rows,
        );
      } catch (e) {
        console.log(`\n${kind}: not measured: ${(e as Error).message.split('\n')[0]}`);
      } finally {
        await wdio?.deleteSession().catch(() => undefined);
        for (const s of started) await s.close().catch(() => undefined);
      }
    }
  } finally {
    await cdp.close();
    await app.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
