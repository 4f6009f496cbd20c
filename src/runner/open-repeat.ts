/**
 * How a run opens its repeats, by the scenario's driver (src/drivers/registry.ts): the one call the
 * runner makes. Each driver's opener composes the app, the step host and the driver's own session,
 * which is why it lives here and not in src/drivers (a driver may not import the engine, the session
 * or the scenario). The table is keyed by DriverName: a new driver that has no opener fails tsc.
 */
import type { DriverName, RestartMode } from '../drivers/define.js';
import { SessionHost } from '../engine/host.js';
import { PerfError } from '../errors.js';
import type { RunEnv } from '../perf/run-file.js';
import type { Scenario } from '../scenario/load.js';
import type { RunningApp } from '../session/app.js';
import { BrowserSession } from '../session/browser-session.js';
import { cdpRepeatBrowser, describeEnv, fallbackEnv } from './cdp-browser.js';
import type { RepeatBrowser } from './repeat-browser.js';
import { TerminalRepeatBrowser } from './terminal-browser.js';
import { WebDriverRepeatBrowser } from './webdriver-browser.js';

export interface OpenRepeatOptions {
  cwd: string;
  /** The run's restart mode (--restart, else the scenario's). */
  mode: RestartMode;
  /** Selenium Grid base URL (a CDP connect mode). */
  grid?: string;
}

/** A run's repeats on its driver, until close(). */
export interface OpenedRepeat {
  host: SessionHost;
  browser: RepeatBrowser;
  /** The run file's env, read from the browser or program. */
  describe(): Promise<RunEnv>;
  /** The env when nothing can be read (no repeat opened). */
  fallback(): RunEnv;
  /** Why the run's remote browser is gone (a lost Grid session), to end the run. */
  gridLost(): PerfError | undefined;
  close(): Promise<void>;
}

type RepeatOpener = (sc: Scenario, app: RunningApp, opts: OpenRepeatOptions) => Promise<OpenedRepeat>;

const OPENERS: Record<DriverName, RepeatOpener> = { cdp: openCdp, webdriver: openWebDriver, pty: openTerminal };

export function openRepeatBrowser(sc: Scenario, app: RunningApp, opts: OpenRepeatOptions): Promise<OpenedRepeat> {
  return OPENERS[sc.browser.driver](sc, app, opts);
}

async function openCdp(sc: Scenario, app: RunningApp, { cwd, mode, grid }: OpenRepeatOptions): Promise<OpenedRepeat> {
  const url = app.urlFor(sc.app.path);
  const s = await BrowserSession.open({
    headless: sc.browser.headless,
    windowSize: { width: sc.viewport.width, height: sc.viewport.height },
    // Back-to-back repeats leave no idle time for a whole spare page: prepare just the context. A
    // browser restart's next browser starts once a measured window has ended (see runRepeat).
    prewarm: mode === 'context' ? 'context' : mode === 'browser' ? 'browser' : 'none',
    ...(grid ? { grid } : sc.browser.endpoint ? { endpoint: sc.browser.endpoint } : {}),
  });
  const host = new SessionHost(s, app.baseUrl, cwd);
  return {
    host,
    browser: cdpRepeatBrowser(s, host, sc),
    describe: () => describeEnv(s, sc, mode, app, url),
    fallback: () => fallbackEnv(s, sc, mode, app, url),
    gridLost: () => s.gridLost(),
    close: () => s.close(),
  };
}

async function openWebDriver(sc: Scenario, app: RunningApp, { cwd }: OpenRepeatOptions): Promise<OpenedRepeat> {
  const url = app.urlFor(sc.app.path);
  const host = new SessionHost(undefined, app.baseUrl, cwd);
  const wd = await WebDriverRepeatBrowser.start(sc, host, app.baseUrl);
  return {
    host,
    browser: wd,
    describe: () => wd.describeEnv(sc, app, url),
    fallback: () => wd.fallbackEnv(sc, app, url),
    gridLost: () => undefined,
    close: () => wd.close(),
  };
}

async function openTerminal(sc: Scenario, app: RunningApp, { cwd }: OpenRepeatOptions): Promise<OpenedRepeat> {
  const host = new SessionHost(undefined, undefined, cwd);
  // The loader gives a pty scenario its app.terminal (the pty driver claims exactly those).
  const terminal = sc.app.terminal;
  if (!terminal) throw new PerfError({ code: 'internal_error', kind: 'internal', message: 'a pty scenario without app.terminal' });
  const t = new TerminalRepeatBrowser(terminal, host, sc.secrets);
  return {
    host,
    browser: t,
    describe: async () => t.env(sc, app),
    fallback: () => t.env(sc, app),
    gridLost: () => undefined,
    close: () => t.close(),
  };
}
