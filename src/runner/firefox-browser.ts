/**
 * Repeats in Firefox over BiDi (scenario `browser.engine: firefox`): one Firefox for the run, and per repeat
 * by the restart mode: `context` a new tab in a new user context (its own cookies, storage and cache),
 * `reload` the same tab navigated anew, `browser` a new Firefox on a new profile.
 */
import type { SessionHost } from '../engine/host.js';
import { openFirefoxTab, startFirefoxSession, type FirefoxPage, type FirefoxSession } from '../drivers/bidi/browser.js';
import type { WebDriverPageDriver } from '../drivers/webdriver/page-driver.js';
import { closeOtherTabs } from '../drivers/bidi/tabs.js';
import type { RunEnv } from '../perf/run-file.js';
import type { Scenario } from '../scenario/load.js';
import type { RunningApp } from '../session/app.js';
import { firefoxPageDriver, firefoxPageSource } from '../session/firefox-page.js';
import { hostInfo, toolVersion } from './env.js';
import type { RepeatBrowser, RepeatContext } from './repeat-browser.js';

// 30 s, as for a CDP navigation: a dev server may compile the page on first request.
const NAVIGATION_TIMEOUT_MS = 30_000;

export class FirefoxRepeatBrowser implements RepeatBrowser {
  readonly ownsProcesses = true;
  private session: FirefoxSession | undefined;
  private tab: FirefoxPage | undefined;
  private driver: WebDriverPageDriver | undefined;
  /** The repeat's tabs, tracked from the first step that names a page; a new tracker each repeat. */
  private source: ReturnType<typeof firefoxPageSource> | undefined;
  /** The restart the repeats use (the scenario's, or the run's --restart), for the run file's env. */
  private restart: RepeatContext['restart'] | undefined;

  constructor(
    private readonly sc: Scenario,
    private readonly host: SessionHost,
    private readonly baseUrl: string,
  ) {}

  async open(rc: RepeatContext, mark: (phase: 'restart') => void): Promise<void> {
    this.restart = rc.restart;
    const reuse = rc.restart === 'reload' && this.driver?.alive() === true;
    if (!reuse) await this.freshPage(rc.restart);
    // A reload restart keeps the tab, not the tabs and popups the last repeat opened beside it.
    else await closeOtherTabs(this.tab!.client);
    const driver = this.driver!;
    this.source?.dispose();
    this.source = firefoxPageSource(driver, this.tab!.client, this.session!.firefox.pid);
    this.host.rebind(this.source, this.baseUrl);
    mark('restart');
    // A reused tab keeps what a step emulated (device_profile's user agent, resize_viewport): back to the scenario's.
    if (reuse) await driver.emulation.clear();
    await driver.emulateEnvironment({ viewport: this.sc.viewport, cpuThrottle: this.sc.cpuThrottle });
    if (rc.state) await driver.storage.restore(rc.state);
    await driver.navigation.navigate(rc.url, NAVIGATION_TIMEOUT_MS);
    await this.host.page();
  }

  /** A new tab (in a new user context for `context`), in a new Firefox for `browser` or when there is none alive. */
  private async freshPage(restart: RepeatContext['restart']): Promise<void> {
    this.source?.dispose();
    this.source = undefined;
    await this.tab?.close().catch(() => undefined);
    this.tab = undefined;
    this.driver = undefined;
    this.host.rebind(undefined, this.baseUrl);
    if (restart === 'browser' || !this.session || this.session.socket.closed) {
      await this.session?.close();
      this.session = await startFirefoxSession({ headless: this.sc.browser.headless });
    }
    this.tab = await openFirefoxTab(this.session, { newUserContext: restart === 'context' });
    this.driver = await firefoxPageDriver(this.tab.client, { preload: true, firefoxPid: this.session.firefox.pid });
  }

  async settle(): Promise<void> {
    // Nothing of ours runs in the background between repeats.
  }

  windowEnded(): void {
    // No spare browser to prepare: a context restart costs a tab, a browser restart starts Firefox when it begins.
  }

  async screenshot(): Promise<Buffer | undefined> {
    return this.driver?.alive() ? this.driver.capture.screenshot({ format: 'png' }) : undefined;
  }

  fallbackEnv(sc: Scenario, app: RunningApp, url: string): RunEnv {
    const caps = this.session?.capabilities;
    return {
      tool: { name: 'rehearse', version: toolVersion() },
      browser: {
        product: caps ? `${caps.browserName ?? 'firefox'}/${caps.browserVersion ?? ''}` : 'unknown',
        userAgent: this.driver?.emulation.browserUserAgent() ?? 'unknown',
        headless: sc.browser.headless,
        driver: 'bidi',
        engine: 'firefox',
      },
      host: hostInfo(),
      restartMode: this.restart ?? sc.browser.restart,
      viewport: sc.viewport,
      cpuThrottle: sc.cpuThrottle,
      app: { kind: app.kind, url },
    };
  }

  async describeEnv(sc: Scenario, app: RunningApp, url: string): Promise<RunEnv> {
    const env = this.fallbackEnv(sc, app, url);
    const seen = await this.driver?.emulation.readViewport();
    if (seen) env.viewport = { width: seen.width, height: seen.height, dpr: seen.dpr, mobile: false, touch: seen.touch };
    return env;
  }

  async close(): Promise<void> {
    this.source?.dispose();
    this.source = undefined;
    await this.tab?.close().catch(() => undefined);
    this.tab = undefined;
    this.driver = undefined;
    await this.session?.close();
    this.session = undefined;
  }
}
