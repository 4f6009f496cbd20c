/** The session half of the bidi driver: a Firefox the daemon launched, its BiDi session relayed on a unix socket. */
import { attachFirefoxTab } from '../../drivers/bidi/browser.js';
import { TargetClosedError } from '../../drivers/errors.js';
import { PerfError } from '../../errors.js';
import { isAlive } from '../../processes.js';
import { firefoxPageDriver, firefoxPageSource } from '../firefox-page.js';
import type { FirefoxSessionState } from '../state.js';
import { aliveWord, pageLines, pageSummary, type SessionDriver } from './define.js';

// A live session answers in milliseconds; a hung Firefox must not stall `perf status`.
const SESSION_PROBE_MS = 5000;

/** Why the session cannot be driven, or undefined when its tab answers through the relay. */
async function firefoxProblem(state: FirefoxSessionState): Promise<string | undefined> {
  const ff = state.firefox;
  if (!isAlive(ff.pid)) return `its Firefox (pid ${ff.pid}) is not running`;
  try {
    const tab = await attachFirefoxTab(ff.relay, ff.context, {});
    try {
      await tab.client.url(SESSION_PROBE_MS);
    } finally {
      tab.close();
    }
  } catch (e) {
    if (e instanceof TargetClosedError) return e.message;
    throw e;
  }
  return undefined;
}

export const bidiSession: SessionDriver<FirefoxSessionState> = {
  ownedPids: (state) => [state.firefox.pid],
  // The daemon's stop ends the BiDi session and Firefox; a killed daemon's Firefox is its watchdog's.
  afterStop: async () => undefined,
  async status(state, { daemon, app }) {
    const browser = daemon && (await firefoxProblem(state)) === undefined;
    return { running: daemon && browser && app !== false, alive: { daemon, browser, app } };
  },
  logs: () => ({}),
  async connect(state) {
    const ff = state.firefox;
    const problem = await firefoxProblem(state);
    if (problem !== undefined)
      throw new PerfError({
        code: 'session_gone',
        kind: 'environment',
        message: `the session's Firefox is gone: ${problem}`,
        suggestion: 'run `perf restart` (or MCP app_restart)',
      });
    const tab = await attachFirefoxTab(ff.relay, ff.context, {
      browserName: 'firefox',
      ...(ff.browserVersion ? { browserVersion: ff.browserVersion } : {}),
    });
    const driver = await firefoxPageDriver(tab.client, { preload: false, firefoxPid: ff.pid, userAgent: ff.userAgent }).catch(
      (e: unknown) => {
        tab.close();
        throw e;
      },
    );
    const source = firefoxPageSource(driver, tab.client, ff.pid);
    return {
      driver: source.driver,
      tabs: source.tabs,
      state,
      close: async () => {
        source.dispose();
        tab.close();
      },
    };
  },
  summary: (state) =>
    pageSummary(state, {
      driver: 'bidi',
      engine: 'firefox',
      firefox: {
        pid: state.firefox.pid,
        sessionId: state.firefox.sessionId,
        browser: `firefox ${state.firefox.browserVersion ?? ''}`.trim(),
      },
    }),
  describe(state) {
    const ff = state.firefox;
    const browser = `browser  firefox ${ff.browserVersion ?? ''} over WebDriver BiDi (pid ${ff.pid}), session ${ff.sessionId}`;
    return pageLines(state, 'firefox', browser);
  },
  processes: (_state, alive) => ({ text: `, firefox ${aliveWord(alive.browser)}, app ${aliveWord(alive.app)}` }),
};
