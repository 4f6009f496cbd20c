/**
 * The browser one arm's repeats run in, by the scenario's driver (src/drivers/registry.ts): the one call
 * the scheduler makes. Each driver's opener composes the app, the step host and the driver's own session,
 * which is why it lives here and not in src/drivers (a driver may not import the engine, the session or
 * the scenario). The table is keyed by DriverName: a new driver without an opener fails tsc. Each opener
 * imports its driver's side when a run needs it: a Chromium run does not load the WebDriver or terminal code.
 */
import type { DriverName } from '../drivers/define.js';
import { SessionHost } from '../engine/host.js';
import { PerfError } from '../errors.js';
import type { RunEnv } from '../perf/run-file.js';
import type { Scenario } from '../scenario/load.js';
import type { RunningApp } from '../session/app.js';
import type { BrowserSession, RestartMode } from '../drivers/cdp/session.js';
import type { RepeatBrowser } from './repeat-browser.js';

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

type ArmOpener = (sc: Scenario, ctx: ArmBrowserContext) => Promise<ArmBrowser>;

const OPENERS: Record<DriverName, ArmOpener> = { cdp: openCdp, webdriver: openWebDriver, bidi: openFirefox, pty: openTerminal };

/** Open the browser `sc` runs in; closing it is the caller's (the shared CDP session is closed by the scheduler). */
export function openArmBrowser(sc: Scenario, ctx: ArmBrowserContext): Promise<ArmBrowser> {
  return OPENERS[sc.browser.driver](sc, ctx);
}

async function openCdp(sc: Scenario, { app, url, cwd, restart, cdpSession }: ArmBrowserContext): Promise<ArmBrowser> {
  const [s, { cdpRepeatBrowser, describeEnv, fallbackEnv }] = await Promise.all([cdpSession(), import('./cdp-browser.js')]);
  // Whether it watches the pages' network from the browser is each repeat's (cdp-browser.ts open: watchesNetwork).
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

async function openWebDriver(sc: Scenario, { app, url, cwd }: ArmBrowserContext): Promise<ArmBrowser> {
  const { WebDriverRepeatBrowser } = await import('./webdriver-browser.js');
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

async function openFirefox(sc: Scenario, { app, url, cwd }: ArmBrowserContext): Promise<ArmBrowser> {
  const { FirefoxRepeatBrowser } = await import('./firefox-browser.js');
  const host = new SessionHost(undefined, app.baseUrl, cwd);
  const f = new FirefoxRepeatBrowser(sc, host, app.baseUrl);
  return {
    host,
    browser: f,
    describe: () => f.describeEnv(sc, app, url),
    fallback: () => f.fallbackEnv(sc, app, url),
    close: () => f.close(),
  };
}

async function openTerminal(sc: Scenario, { app, cwd }: ArmBrowserContext): Promise<ArmBrowser> {
  const host = new SessionHost(undefined, undefined, cwd);
  // The loader gives a pty scenario its app.terminal (the pty driver claims exactly those).
  const terminal = sc.app.terminal;
  if (!terminal) throw new PerfError({ code: 'internal_error', kind: 'internal', message: 'a pty scenario without app.terminal' });
  const { TerminalRepeatBrowser } = await import('./terminal-browser.js');
  const t = new TerminalRepeatBrowser(terminal, host, sc.secrets);
  return { host, browser: t, describe: async () => t.env(sc, app), fallback: () => t.env(sc, app), close: () => t.close() };
}
