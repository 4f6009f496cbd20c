/**
 * Repeats over WebDriver (scenario `browser.driver: webdriver`, `engine: webkit`, or `app.desktop`):
 * the server is started once for the run (or a running one is used), and every repeat opens a new
 * session on it, the WebDriver form of a clean restart (a desktop app starts anew); the old one is
 * closed first. The server's processes are tracked, so a harness killed outright leaves none behind.
 */
import type { SessionHost } from '../engine/host.js';
import { desktopLoaded, openWebDriverPage, type WebDriverPage } from '../drivers/webdriver/session.js';
import { startWebDriverServer, type WebDriverServer, type WebDriverServerKind } from '../drivers/webdriver/server.js';
import type { RunEnv } from '../perf/run-file.js';
import type { Scenario } from '../scenario/load.js';
import type { RunningApp } from '../session/app.js';
import { chromeBinary } from '../drivers/cdp/chrome.js';
import { trackProcess } from '../processes.js';
import { hostInfo, toolVersion } from './env.js';
import type { RepeatBrowser, RepeatContext } from './repeat-browser.js';
import { webdriverPageSource } from '../drivers/webdriver/tabs.js';

/** Tie a server's processes to the harness (the watchdog kills them if it dies); returns the untrack. */
function track(server: WebDriverServer | undefined): () => void {
  const untracks = (server?.pids ?? []).map((pid) => trackProcess(pid, { group: true }));
  return () => untracks.forEach((u) => u());
}

// 30 s, as for a CDP navigation: a dev server may compile the page on first request.
const NAVIGATION_TIMEOUT_MS = 30_000;

/** The server a scenario needs: tauri-driver or WebKitWebDriver for a desktop app, else by engine. */
export function serverKind(sc: Scenario): WebDriverServerKind {
  if (sc.app.desktop) return sc.app.desktop.driver;
  return sc.browser.engine === 'webkit' ? 'webkit' : 'chromedriver';
}

export class WebDriverRepeatBrowser implements RepeatBrowser {
  private page: WebDriverPage | undefined;

  private constructor(
    private readonly sc: Scenario,
    private readonly host: SessionHost,
    private readonly baseUrl: string,
    private server: WebDriverServer | undefined,
    private untrack: () => void,
  ) {}

  // A WebDriver server perf started launches the browser or app under itself; an external one (browser.webdriver) does not.
  get ownsProcesses(): boolean {
    return !this.sc.browser.webdriver;
  }

  static async start(sc: Scenario, host: SessionHost, baseUrl: string): Promise<WebDriverRepeatBrowser> {
    const server = sc.browser.webdriver ? undefined : await startWebDriverServer(serverKind(sc), { cwd: sc.dir });
    return new WebDriverRepeatBrowser(sc, host, baseUrl, server, track(server));
  }

  /** The server (or its browser) did not answer a new session: kill it and start another, once per repeat. */
  private async restartServer(): Promise<{ endpoint: string; pid?: number }> {
    await this.server?.close();
    this.untrack();
    this.server = await startWebDriverServer(serverKind(this.sc), { cwd: this.sc.dir });
    this.untrack = track(this.server);
    return { endpoint: this.server.endpoint, ...(this.server.pids[0] !== undefined ? { pid: this.server.pids[0] } : {}) };
  }

  async open(rc: RepeatContext, mark: (phase: 'restart') => void): Promise<void> {
    await this.page?.close().catch(() => undefined);
    this.page = undefined;
    this.host.rebind(undefined, this.baseUrl);
    const desktop = this.sc.app.desktop;
    this.page = await openWebDriverPage({
      kind: serverKind(this.sc),
      endpoint: this.sc.browser.webdriver ?? this.server!.endpoint,
      ...(this.server ? { serverPid: this.server.pids[0], restartServer: () => this.restartServer() } : {}),
      headless: this.sc.browser.headless,
      ...(this.sc.browser.engine === 'webkit' ? {} : { chromePath: chromeBinary() }),
      ...(desktop ? { desktop: { binary: desktop.binary, args: desktop.args.map((a) => a.replaceAll('${APP_URL}', rc.url)) } } : {}),
    });
    this.host.rebind(webdriverPageSource(this.page.driver), this.baseUrl);
    mark('restart');
    await this.page.driver.emulateEnvironment({ viewport: this.sc.viewport, cpuThrottle: this.sc.cpuThrottle });
    if (desktop)
      await desktopLoaded(this.page.driver, rc.url, {
        timeoutMs: NAVIGATION_TIMEOUT_MS,
        suggestion: 'check that the app starts its window, or give app.url and ${APP_URL} in app.desktop.args',
      });
    // Each origin of the state is visited first (WebDriver sets cookies and storage only there); a
    // desktop app shows its own page at start, so it opens the app page again once restored.
    if (rc.state) await this.page.driver.storage.restore(rc.state);
    if (!desktop || rc.state) await this.page.driver.navigation.navigate(rc.url, NAVIGATION_TIMEOUT_MS);
    await this.host.page();
  }

  async settle(): Promise<void> {
    // Nothing of ours runs in the background between repeats over WebDriver.
  }

  windowEnded(): void {
    // No spare browser to prepare: the next repeat opens its session when it starts.
  }

  async screenshot(): Promise<Buffer | undefined> {
    return this.page?.driver.alive() ? this.page.driver.capture.screenshot({ format: 'png' }) : undefined;
  }

  fallbackEnv(sc: Scenario, app: RunningApp, url: string): RunEnv {
    const caps = this.page?.driver.capabilities;
    return {
      tool: { name: 'rehearse', version: toolVersion() },
      browser: {
        product: caps ? `${caps.browserName ?? 'unknown'}/${caps.browserVersion ?? ''}` : 'unknown',
        userAgent: this.page?.driver.emulation.browserUserAgent() ?? 'unknown',
        headless: sc.browser.engine === 'webkit' ? false : sc.browser.headless,
        driver: 'webdriver',
        engine: sc.browser.engine,
        ...(sc.browser.webdriver ? { endpoint: sc.browser.webdriver } : {}),
      },
      host: hostInfo(),
      restartMode: 'browser',
      viewport: sc.viewport,
      cpuThrottle: sc.cpuThrottle,
      app: {
        kind: app.kind,
        url,
        ...(sc.app.desktop ? { desktop: { binary: sc.app.desktop.binary, driver: sc.app.desktop.driver } } : {}),
      },
    };
  }

  async describeEnv(sc: Scenario, app: RunningApp, url: string): Promise<RunEnv> {
    const env = this.fallbackEnv(sc, app, url);
    const seen = await this.page?.driver.emulation.readViewport();
    if (seen) env.viewport = { width: seen.width, height: seen.height, dpr: seen.dpr, mobile: false, touch: seen.touch };
    return env;
  }

  async close(): Promise<void> {
    await this.page?.close().catch(() => undefined);
    this.page = undefined;
    await this.server?.close();
    this.untrack();
  }
}
