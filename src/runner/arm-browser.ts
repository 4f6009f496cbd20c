/**
 * The browser one arm's repeats run in: the one place that picks it by driver (a terminal program, WebDriver
 * for WebKit, chromedriver or a desktop app, else Chromium over CDP). The driver registry replaces this body.
 */
import { SessionHost } from '../engine/host.js';
import type { RunEnv } from '../perf/run-file.js';
import type { Scenario } from '../scenario/load.js';
import type { RunningApp } from '../session/app.js';
import type { BrowserSession, RestartMode } from '../session/browser-session.js';
import { cdpRepeatBrowser, describeEnv, fallbackEnv } from './cdp-browser.js';
import type { RepeatBrowser } from './repeat-browser.js';
import { TerminalRepeatBrowser } from './terminal-browser.js';
import { WebDriverRepeatBrowser } from './webdriver-browser.js';

export interface ArmBrowser {
  host: SessionHost;
  browser: RepeatBrowser;
  /** The environment read back from the browser: call it right after one of this arm's own repeats. */
  describe(): Promise<RunEnv>;
  /** The environment as configured, when nothing could be read back. */
  fallback(): RunEnv;
  /** The CDP session, when the arm runs on one: both arms of a compare share it (one Chromium, one Grid session). */
  session?: BrowserSession;
  close(): Promise<void>;
}

export interface ArmBrowserContext {
  app: RunningApp;
  url: string;
  cwd: string;
  restart: RestartMode;
  /** The CDP session of the run, opened by the first arm that asks for it. */
  cdpSession: () => Promise<BrowserSession>;
}

/** Open the browser `sc` runs in; closing it is the caller's (the shared CDP session is closed by the scheduler). */
export async function openArmBrowser(sc: Scenario, ctx: ArmBrowserContext): Promise<ArmBrowser> {
  const { app, url, cwd, restart } = ctx;
  if (sc.app.terminal) {
    const host = new SessionHost(undefined, undefined, cwd);
    const t = new TerminalRepeatBrowser(sc.app.terminal, host, sc.secrets);
    return { host, browser: t, describe: async () => t.env(sc, app), fallback: () => t.env(sc, app), close: () => t.close() };
  }
  if (sc.browser.driver === 'webdriver') {
    const host = new SessionHost(undefined, app.baseUrl, cwd);
    const w = await WebDriverRepeatBrowser.start(sc, host, app.baseUrl);
    return {
      host,
      browser: w,
      describe: () => w.describeEnv(sc, app, url),
      fallback: () => w.fallbackEnv(sc, app, url),
      close: () => w.close(),
    };
  }
  const s = await ctx.cdpSession();
  const host = new SessionHost(s, app.baseUrl, cwd);
  return {
    host,
    browser: cdpRepeatBrowser(s, host, sc),
    describe: () => describeEnv(s, sc, restart, app, url),
    fallback: () => fallbackEnv(s, sc, restart, app, url),
    session: s,
    close: async () => undefined,
  };
}
