/** The session half of the cdp driver: a launched Chromium (or a Grid session) held by the daemon. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, type Page } from '../../drivers/cdp/browser.js';
import { cdpPageDriver } from '../../drivers/cdp/page-driver.js';
import { cdpTabs } from '../../drivers/cdp/tabs.js';
import { PerfError } from '../../errors.js';
// A Grid session is a WebDriver session whose Chromium is driven over CDP (se:cdp): asked and deleted over WebDriver.
import { WebDriverClient } from '../../drivers/webdriver/client.js';
import { isAlive } from '../../processes.js';
import type { SessionState } from '../state.js';
import { aliveWord, pageLines, pageSummary, tailFile, type SessionDriver } from './define.js';

// A live remote session answers in milliseconds; a hung node must not stall `perf status`.
const SESSION_PROBE_MS = 5000;
// 30 s: a Grid deletes its session after stopping the node's browser, which can take that long on a loaded node.
const GRID_DELETE_MS = 30_000;

/** Whether a Grid session still answers a WebDriver command (its node may be gone). */
async function gridSessionAnswers(grid: { url: string; sessionId: string }): Promise<boolean> {
  try {
    await WebDriverClient.attach(grid.url, grid.sessionId).url(SESSION_PROBE_MS);
    return true;
  } catch {
    return false;
  }
}

export const cdpSession: SessionDriver<SessionState> = {
  // A Grid session's Chromium belongs to its node (maybe another machine): the session is deleted instead.
  ownedPids: (state) => (state.grid ? [] : [state.chrome.pid]),
  async afterStop(state) {
    // The daemon deletes its Grid session as it stops; one killed outright may have left it.
    if (state.grid)
      await WebDriverClient.attach(state.grid.url, state.grid.sessionId)
        .close(GRID_DELETE_MS)
        .catch(() => undefined);
  },
  async status(state, { daemon, app }) {
    const chrome = state.grid ? daemon && (await gridSessionAnswers(state.grid)) : isAlive(state.chrome.pid);
    return { running: daemon && chrome && app !== false, alive: { daemon, chrome, app } };
  },
  logs: (_state, stateDir, lines) => ({ chrome: tailFile(join(stateDir, 'chrome.log'), lines, (p) => readFileSync(p, 'utf8')) }),
  async connect(state) {
    if (state.grid ? !(await gridSessionAnswers(state.grid)) : !isAlive(state.chrome.pid)) {
      const what = state.grid
        ? `Grid session ${state.grid.sessionId} at ${state.grid.url} does not answer`
        : `Chrome (pid ${state.chrome.pid}) is not running`;
      throw new PerfError({
        code: 'session_dead',
        kind: 'environment',
        message: `the session's ${what}`,
        suggestion: 'run `perf restart` (or MCP app_restart)',
      });
    }
    const browser = await Browser.connect(state.chrome.wsEndpoint);
    let page: Page;
    const targets = await browser.pageTargets();
    const own = targets.find((t) => t.targetId === state.targetId) ?? targets[0];
    if (own) page = await browser.attach(own.targetId);
    else page = await browser.newPage({ isolated: false, url: state.pageUrl });
    let tracker: ReturnType<typeof cdpTabs> | undefined;
    return {
      driver: cdpPageDriver(page),
      tabs: (create) => (tracker ??= create ? cdpTabs(browser, page) : undefined),
      state,
      close: () => browser.disconnect(),
    };
  },
  summary: (state) =>
    pageSummary(state, {
      driver: 'cdp',
      engine: 'chromium',
      chrome: { pid: state.chrome.pid, port: state.chrome.port, headless: state.chrome.headless, version: state.chrome.version },
      ...(state.grid ? { grid: state.grid } : {}),
    }),
  describe(state) {
    const c = state.chrome;
    const how = `${c.headless ? 'headless' : 'headed'}, ${c.wsEndpoint}`;
    const browser = state.grid
      ? `chrome   ${c.version} on Selenium Grid ${state.grid.url}, session ${state.grid.sessionId}, ${how}`
      : `chrome   ${c.version} pid ${c.pid}, ${how}`;
    return pageLines(state, 'chromium', browser);
  },
  processes: (_state, alive) => ({ text: `, chrome ${aliveWord(alive.chrome)}, app ${aliveWord(alive.app)}` }),
};
