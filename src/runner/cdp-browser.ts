/** Repeats on Chromium over CDP: one BrowserSession, restarts by reload, context or browser within it. */
import type { Browser, Page } from '../drivers/cdp/browser.js';
import { cdpPageDriver } from '../drivers/cdp/page-driver.js';
import { setContextCookies } from '../drivers/cdp/storage.js';
import type { SessionHost } from '../engine/host.js';
import type { RepeatRecord, RunEnv } from '../perf/run-file.js';
import type { Scenario } from '../scenario/load.js';
import type { RunningApp } from '../session/app.js';
import type { BrowserSession, RestartMode } from '../drivers/cdp/session.js';
import { sameNetwork } from '../steps/network.js';
import { hideCredentials } from '../url.js';
import { hostInfo, toolVersion } from './env.js';
import type { RepeatBrowser, RepeatContext } from './repeat-browser.js';
import { runRepeatOn } from './repeat.js';

/** Apply the scenario's viewport, touch, CPU and network throttling to a fresh page. */
function emulate(page: Page, sc: Scenario): Promise<void> {
  return cdpPageDriver(page).emulateEnvironment({ viewport: sc.viewport, cpuThrottle: sc.cpuThrottle, network: sc.network });
}

/** What the page reports back after emulation: recorded, not assumed. */
async function readBackViewport(page: Page, touchAsked: boolean): Promise<RunEnv['viewport']> {
  const r = await page.evaluate<{ w: number; h: number; dpr: number; touch: boolean; mobile: boolean }>(
    '({ w: innerWidth, h: innerHeight, dpr: devicePixelRatio, touch: navigator.maxTouchPoints ' +
      "> 0, mobile: matchMedia('(pointer: coarse)').matches })",
  );
  return { width: r.w, height: r.h, dpr: r.dpr, mobile: r.mobile, touch: r.touch || touchAsked };
}

/**
 * What the page's Network Information API reports under throttling: Chromium feeds it the emulated
 * conditions (rounded, rtt to 25 ms, downlink to 25 kbit/s; the CDP driver tells every document). Absent where the API is.
 */
async function readBackNetwork(page: Page): Promise<{ page?: { rttMs: number; downlinkKbps: number } }> {
  const r = await page
    .evaluate<{ rtt: number; downlink: number } | null>(
      'navigator.connection ? { rtt: navigator.connection.rtt, downlink: navigator.connection.downlink } : null',
    )
    .catch(() => null);
  return r ? { page: { rttMs: r.rtt, downlinkKbps: Math.round(r.downlink * 1000) } } : {};
}

export function fallbackEnv(session: BrowserSession | undefined, sc: Scenario, mode: RestartMode, app: RunningApp, url: string): RunEnv {
  return {
    tool: { name: 'rehearse', version: toolVersion() },
    browser: {
      product: session?.browser.version.product ?? 'unknown',
      userAgent: session?.browser.version.userAgent ?? 'unknown',
      headless: sc.browser.headless,
    },
    host: hostInfo(),
    restartMode: mode,
    viewport: sc.viewport,
    cpuThrottle: sc.cpuThrottle,
    app: { kind: app.kind, url },
  };
}

export async function describeEnv(session: BrowserSession, sc: Scenario, mode: RestartMode, app: RunningApp, url: string): Promise<RunEnv> {
  const env = fallbackEnv(session, sc, mode, app, url);
  env.viewport = await readBackViewport(session.page, sc.viewport.touch);
  if (sc.network) {
    // Every clean restart awaited the target's acknowledgement of these (a refusal fails the repeat).
    // What the page reads back is added while no network step has changed them since.
    const { profile, offline, latencyMs, downloadKbps, uploadKbps } = sc.network;
    const same = sameNetwork(cdpPageDriver(session.page).emulation.network?.current(), { offline, latencyMs, downloadKbps, uploadKbps });
    env.network = {
      profile,
      offline,
      latencyMs,
      downloadKbps,
      uploadKbps,
      ...(same && !offline ? await readBackNetwork(session.page) : {}),
    };
  }
  if (session.chrome) env.browser.executablePath = session.chrome.executablePath;
  if (sc.browser.endpoint) env.browser.endpoint = sc.browser.endpoint;
  if (session.options.remote) env.browser.endpoint = hideCredentials(session.options.remote.endpoint);
  return env;
}

/**
 * Whether a repeat's pages are watched from the browser (the Network domain from their first document; the in-page
 * fetch/XHR counter stands down, so a trace's initiators are the page's own code). An attribution repeat needs that for
 * its trace, and a measured load enables the domain anyway. A timing repeat of steps is spared it: every request's
 * events cross to the harness, which cost a 30-fetch interaction +31 % wall time beside a spinning core
 * (bench:perf-overhead, docs/benchmarks.md: 121.8 ms against 93.2 with the in-page counter, 101.7 with no perf
 * window). A reload restart keeps
 * one page for the whole arm, watched once and for good: all its repeats are watched, alike.
 */
export function watchesNetwork(sc: Pick<Scenario, 'measure'>, rc: Pick<RepeatContext, 'mode' | 'restart'>): boolean {
  return rc.mode === 'attribution' || sc.measure === 'load' || rc.restart === 'reload';
}

/** The CDP browser: restarts by reload, context or browser within one BrowserSession. */
export function cdpRepeatBrowser(session: BrowserSession, host: SessionHost, sc: Scenario): RepeatBrowser {
  return {
    // A Chrome attached to (an endpoint) or a Grid session runs outside perf's process tree.
    ownsProcesses: !session.options.endpoint && !session.options.remote,
    async open(rc, mark) {
      host.watchNetwork = watchesNetwork(sc, rc);
      const restore = (p: Page): Promise<void> => (rc.state ? cdpPageDriver(p).storage.restore(rc.state) : Promise.resolve());
      // The context gets the cookies (prepareContext) before the page's first request: its set-up seeds storage only.
      const seed = rc.state ? { ...rc.state, cookies: [] } : undefined;
      const prepare = (p: Page): Promise<unknown> =>
        Promise.all([
          emulate(p, sc),
          cdpPageDriver(p).installScripts({ future: true, watchNetwork: host.watchNetwork }),
          seed && cdpPageDriver(p).storage.restore(seed),
        ]);
      // about:blank (a measured load's start) is not opened at creation: a new target already shows it.
      if (!rc.first && rc.restart !== 'reload' && rc.url !== 'about:blank') {
        // The new page is emulated and scripted on about:blank, then opens the app URL: restart and
        // open are one phase here.
        const state = rc.state;
        // The browser that creates the page: a browser restart's new one.
        const prepareContext = state ? (b: Browser, id: string) => setContextCookies(b, id, state) : undefined;
        await session.restartOpen(rc.restart, { url: rc.url, prepare, ...(prepareContext ? { prepareContext } : {}) });
        await host.page();
      } else {
        // A reload restart navigates within restart(): the state goes in before it (the page is kept).
        if (rc.state && !rc.first && rc.restart === 'reload' && !session.health()) await restore(session.page);
        let page: Page;
        // A reload restart IS the fresh navigation, on the same page, whose emulation and installed
        // scripts persist: opening the page again would load it twice.
        const reloaded = !rc.first && !session.health();
        if (rc.first && !session.health()) {
          page = session.page;
          // A spare browser waits for the end of a measured window (below): an idle second Chrome
          // during one would be background work.
          if (rc.restart !== 'browser') session.prepareSpare();
        } else {
          // A reload keeps the page and its emulation: a network step of the last repeat must not
          // throttle this one's load (the scenario's own network is put back).
          const net = rc.restart === 'reload' ? session.driver.emulation.network : undefined;
          if (net && !sameNetwork(net.current(), sc.network)) await net.apply(sc.network);
          page = await session.restart(rc.restart, rc.url);
        }
        mark('restart');
        if (!reloaded || cdpPageDriver(page) !== host.lastPage) {
          // In parallel: independent commands, each a round trip; host.page() installs the page runtime
          // before the app's scripts run.
          await Promise.all([emulate(page, sc), host.page(), restore(page)]);
          await page.navigate(rc.url);
        }
      }
      // A measured cold load opens the app later, in its window: the seed stays for that document.
      if (rc.url !== 'about:blank') await session.driver.storage.restored();
    },
    settle: () => session.settle(),
    windowEnded(rc) {
      // The next browser (browser restarts) starts now, beside the report, trace and run-file
      // writing, rather than at the next restart. Not after the last one.
      if (!rc.last && !rc.signal?.aborted) session.prepareSpare();
    },
    async screenshot() {
      if (session.health()) return undefined;
      // 3 s: a screenshot of a live page takes well under that; a hung page must not stall the run.
      return session.driver.capture.screenshot({ format: 'png', timeoutMs: 3000 });
    },
  };
}

export function runRepeat(session: BrowserSession, host: SessionHost, sc: Scenario, rc: RepeatContext): Promise<RepeatRecord> {
  return runRepeatOn(cdpRepeatBrowser(session, host, sc), host, sc, rc);
}
