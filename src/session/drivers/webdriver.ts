/** The session half of the webdriver driver: a WebDriver session (browser or desktop app) on a server the daemon started or was given. */
import { readFileSync } from 'node:fs';
import { WebDriverClient, WebDriverError } from '../../drivers/webdriver/client.js';
import { WebDriverPageDriver } from '../../drivers/webdriver/page-driver.js';
import { SERVER_BINARIES } from '../../drivers/webdriver/server.js';
import { TargetClosedError } from '../../drivers/errors.js';
import { PerfError } from '../../errors.js';
import { isAlive } from '../../processes.js';
import type { WebDriverSessionState } from '../state.js';
import { aliveWord, pageLines, pageSummary, tailFile, type SessionDriver } from './define.js';
import { webdriverPageSource } from '../../drivers/webdriver/tabs.js';

// A live WebDriver session answers in milliseconds; a hung browser must not stall `perf status`.
const SESSION_PROBE_MS = 5000;

/**
 * Why the WebDriver session cannot be driven, or undefined when it answers: the server's pids
 * first, then the cheapest command that needs the session (an unknown id or a quit browser fails it).
 */
async function webDriverProblem(state: WebDriverSessionState): Promise<string | undefined> {
  const wd = state.webdriver;
  const dead = wd.pids.filter((pid) => !isAlive(pid));
  if (dead.length) return `its ${SERVER_BINARIES[wd.kind].bin} (pid ${dead.join(', ')}) is not running`;
  try {
    await WebDriverClient.attach(wd.endpoint, wd.sessionId).url(SESSION_PROBE_MS);
  } catch (e) {
    // Any other refusal (a dialog open in the page) still came from a live session.
    if (e instanceof TargetClosedError) return e.message;
    if (!(e instanceof WebDriverError)) throw e;
  }
  return undefined;
}

export const webdriverSession: SessionDriver<WebDriverSessionState> = {
  ownedPids: (state) => state.webdriver.pids,
  async afterStop(state) {
    // A server given by URL is not ours to stop, but the session on it is: a killed daemon left it open.
    if (state.webdriver.pids.length === 0) await WebDriverClient.attach(state.webdriver.endpoint, state.webdriver.sessionId).close();
  },
  async status(state, { daemon, app }) {
    const server = state.webdriver.pids.length ? state.webdriver.pids.every((pid) => isAlive(pid)) : null;
    const browser = daemon && server !== false && (await webDriverProblem(state)) === undefined;
    return { running: daemon && server !== false && browser && app !== false, alive: { daemon, webdriver: server, browser, app } };
  },
  logs: (state, _stateDir, lines) => ({ webdriver: tailFile(state.webdriver.logFile, lines, (p) => readFileSync(p, 'utf8')) }),
  /**
   * A page driver on the daemon's own WebDriver session, by its id: no new session (a new one would be
   * a new browser, or the desktop app started again). close() leaves the session open.
   */
  async connect(state) {
    const wd = state.webdriver;
    const problem = await webDriverProblem(state);
    if (problem !== undefined) {
      throw new PerfError({
        code: 'session_gone',
        kind: 'environment',
        message: `the session's ${state.engine} (WebDriver session ${wd.sessionId}) is gone: ${problem}`,
        suggestion: 'run `perf restart` (or MCP app_restart)',
      });
    }
    const client = WebDriverClient.attach(wd.endpoint, wd.sessionId, {
      ...(wd.browserName ? { browserName: wd.browserName } : {}),
      ...(wd.browserVersion ? { browserVersion: wd.browserVersion } : {}),
    });
    const driver = new WebDriverPageDriver(client, wd.userAgent);
    if (wd.pids[0] !== undefined) driver.serverPid = wd.pids[0];
    return { ...webdriverPageSource(driver), state, close: () => driver.stopSettleReports() };
  },
  summary: (state) =>
    pageSummary(state, {
      driver: 'webdriver',
      engine: state.engine,
      webdriver: {
        kind: state.webdriver.kind,
        endpoint: state.webdriver.endpoint,
        pids: state.webdriver.pids,
        browser: `${state.webdriver.browserName ?? state.engine} ${state.webdriver.browserVersion ?? ''}`.trim(),
      },
    }),
  describe(state) {
    const wd = state.webdriver;
    const browser =
      `browser  ${wd.browserName ?? state.engine} ${wd.browserVersion ?? ''} over ${SERVER_NAMES[wd.kind]} at ${wd.endpoint}` +
      `${wd.pids.length ? ` (pids ${wd.pids.join(', ')})` : ''}, session ${wd.sessionId}`;
    return pageLines(state, state.engine, browser);
  },
  processes: (_state, alive) => ({
    text: `, webdriver server ${aliveWord(alive.webdriver)}, browser ${aliveWord(alive.browser)}, app ${aliveWord(alive.app)}`,
  }),
};

/** The server each kind of WebDriver session runs on, as `perf status` names it. */
const SERVER_NAMES: Record<WebDriverSessionState['webdriver']['kind'], string> = {
  webkit: 'WebKitWebDriver',
  tauri: 'tauri-driver',
  chromedriver: 'chromedriver',
};
