/**
 * A Chromium on Selenium Grid 4 (`browser.endpoint: selenium+http://HOST:4444`, `--grid URL`): a W3C
 * session created over WebDriver with our Chromium flags, then driven over CDP through the session's
 * `se:cdp` endpoint (a ws:// URL through the Grid's router), so a scenario runs unchanged. The session
 * is deleted when closed, on Ctrl-C (onShutdown) and, through the watchdog, when the harness crashes
 * or is killed: no session is left holding a Grid slot.
 *
 * It stands in for a launched ChromeProcess (a browser this harness owns): close() ends it, a browser
 * restart replaces it with a new session. Grid errors (unreachable, no free slot, session not created,
 * node lost) are environment errors carrying the Grid's own message.
 */
import { WebDriverClient } from '../drivers/webdriver/client.js';
import { PerfError } from '../errors.js';
import { hideCredentials, withCredentialsOf } from '../url.js';
import { BASE_FLAGS, chromeBinary, type LaunchOptions } from '../drivers/cdp/chrome.js';
import type { RemoteChrome, RemoteConnector } from '../drivers/cdp/session.js';
import { onShutdown, trackRemoteSession } from '../processes.js';

/** The scenario's `browser.endpoint` prefix that names a Grid rather than a Chrome to attach to. */
export const GRID_SCHEME = 'selenium+';

/** `selenium+http://h:4444` → `http://h:4444`; undefined for any other endpoint. */
export function gridUrlOf(endpoint: string | undefined): string | undefined {
  return endpoint?.startsWith(GRID_SCHEME) ? endpoint.slice(GRID_SCHEME.length).replace(/\/+$/, '') : undefined;
}

/** A --grid value as the Grid's base URL (`selenium+` accepted too); a usage error otherwise. */
export function checkGridUrl(value: string, who: string): string {
  const url = gridUrlOf(value) ?? value.replace(/\/+$/, '');
  let valid = /^https?:\/\/[^/\s]+/.test(url);
  try {
    new URL(url);
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new PerfError({
      code: 'invalid_flag',
      message: `${who}: --grid must be a Selenium Grid URL such as http://127.0.0.1:4444, got "${hideCredentials(value)}"`,
      suggestion: 'start a Grid with `java -jar selenium-server-4.x.jar standalone` and pass its URL',
    });
  }
  return url;
}

// 30 s to delete a session: on a loaded node chromedriver takes seconds to quit Chromium, and a
// session left behind holds its slot until the Grid's own timeout (300 s by default).
const GRID_DELETE_TIMEOUT_MS = 30_000;
// 5 s when the session was already lost: the Grid may still free its slot, but the run's exit (3) must
// not wait on a node that stopped answering.
const LOST_DELETE_TIMEOUT_MS = 5000;
// 120 s: a Grid queues a request while every matching slot is busy; a parallel gate's sessions free
// theirs within a run, so waiting longer than this means the Grid is stuck, not busy.
const NEW_SESSION_TIMEOUT_MS = 120_000;

/** Whether the Grid runs on this machine: then its node's Chromium is ours, and we name its binary. */
function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
}

function gridError(grid: string, what: string, cause: unknown): PerfError {
  const why = cause instanceof Error ? cause.message : String(cause);
  const shown = hideCredentials(grid);
  return new PerfError({
    code: 'grid_session_failed',
    kind: 'environment',
    message: hideCredentials(`Selenium Grid at ${shown}: ${what}: ${why}`),
    suggestion: `check the Grid (${shown}/status): is it up, with a free Chromium slot on a node that has chromedriver?`,
    cause,
  });
}

// Every 4 s the session is asked whether it still answers (a Grid node that died leaves its CDP
// WebSocket through the hub open, and every command would wait out its own 30 s): two failed asks in
// a row, each given 8 s, end the session, so a lost node is reported within 30 s of its death.
const WATCH_INTERVAL_MS = 4000;
const WATCH_TIMEOUT_MS = 8000;
const WATCH_STRIKES = 2;

/**
 * Ask the Grid every WATCH_INTERVAL_MS whether the session still answers (GET …/timeouts: chromedriver
 * answers it without touching the page, so a busy page is not taken for a dead node). Calls `lost` with
 * why after WATCH_STRIKES failures in a row. Returns the function that stops watching.
 */
function watchSession(client: WebDriverClient, grid: string, lost: (why: string) => void): () => void {
  let strikes = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    client
      .getTimeouts(WATCH_TIMEOUT_MS)
      .then(() => (strikes = 0))
      .catch((e: unknown) => {
        if (++strikes >= WATCH_STRIKES) lost(`the session no longer answers through ${hideCredentials(grid)}: ${(e as Error).message}`);
      })
      .finally(() => (busy = false));
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

export interface GridChrome extends RemoteChrome {
  grid: { url: string; sessionId: string };
}

/** The Grid at `grid` as the CDP session's remote connector: each browser is a new Grid session. */
export function gridConnector(grid: string): RemoteConnector {
  return { endpoint: `${GRID_SCHEME}${grid}`, start: (opts) => startGridChrome(grid, opts) };
}

/** Create a Chromium session on the Grid at `grid` and return it as a browser we own. */
export async function startGridChrome(grid: string, opts: LaunchOptions = {}): Promise<GridChrome> {
  const size = opts.windowSize ?? { width: 1280, height: 800 };
  // No profile or debugging port flags: chromedriver picks both, and removes the profile itself.
  const args = [
    ...(opts.headless === false ? [] : ['--headless']),
    ...BASE_FLAGS,
    `--window-size=${size.width},${size.height}`,
    ...(opts.extraArgs ?? []),
  ];
  let binary: string | undefined;
  if (isLoopback(grid)) {
    try {
      binary = opts.executablePath ?? chromeBinary();
    } catch {
      // No local Chromium: the node's chromedriver finds its own.
    }
  }
  const chromeOptions = { args, ...(binary ? { binary } : {}) };
  let client: WebDriverClient;
  try {
    client = await WebDriverClient.newSession(
      grid,
      { browserName: 'chrome', 'goog:chromeOptions': chromeOptions },
      { timeoutMs: NEW_SESSION_TIMEOUT_MS },
    );
  } catch (e) {
    throw gridError(grid, 'could not create a Chromium session', e);
  }
  const sessionUrl = `${grid}/session/${client.sessionId}`;
  const untrack = trackRemoteSession(sessionUrl);
  const caps = client.capabilities;
  const cdp = caps['se:cdp'];
  let closing: Promise<void> | undefined;
  let lostReason: string | undefined;
  let undeleted: string | undefined;
  let endedFlag = false;
  let resolveEnded: (v: { code: number | null; signal: NodeJS.Signals | null }) => void = () => undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => (resolveEnded = r));
  const markLost = (reason: string): void => {
    if (closing || lostReason) return;
    lostReason = `the Selenium Grid session ${client.sessionId} at ${hideCredentials(grid)} was lost (${reason})`;
    stopWatch();
    // Like a browser process that exited: the CDP connection fails its commands now, with this reason.
    resolveEnded({ code: null, signal: null });
  };
  const stopWatch = watchSession(client, grid, markLost);
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      offShutdown();
      stopWatch();
      // A lost session's node is dead or frozen: ask briefly. One not deleted stays with the watchdog,
      // which asks again (twice, 30 s each) once this process has exited, without holding it up.
      if (await client.delete(lostReason ? LOST_DELETE_TIMEOUT_MS : GRID_DELETE_TIMEOUT_MS)) untrack();
      else undeleted = `the Selenium Grid session ${client.sessionId} at ${hideCredentials(grid)} could not be deleted (no answer)`;
      endedFlag = true;
      resolveEnded({ code: 0, signal: null });
    })());
  const offShutdown = onShutdown(close);
  if (typeof cdp !== 'string' || !/^wss?:\/\//.test(cdp)) {
    await close();
    throw gridError(
      grid,
      'the session has no se:cdp endpoint',
      new Error('Selenium Grid 4 with a Chromium node gives one; is this a Grid 4, and the browser Chromium?'),
    );
  }
  const chrome = caps.chrome as { userDataDir?: string } | undefined;
  // A cloud Grid's credentials go with the WebSocket too (as Basic auth); shown hidden everywhere.
  const wsEndpoint = withCredentialsOf(grid, cdp);
  return {
    grid: { url: grid, sessionId: client.sessionId },
    pid: typeof caps['goog:processID'] === 'number' ? caps['goog:processID'] : 0,
    devtools: { kind: 'websocket', wsEndpoint },
    userDataDir: chrome?.userDataDir ?? '',
    executablePath: binary ?? `${String(caps.browserName ?? 'chrome')} ${String(caps.browserVersion ?? '')} on Selenium Grid`.trim(),
    exited,
    exitReason: exited.then(() => lostReason ?? 'the Grid session was deleted'),
    hasExited: () => endedFlag || lostReason !== undefined,
    stderrTail: () => '',
    close: () => close(),
    lost: () => (lostReason ? gridLostError(lostReason) : undefined),
    undeleted: () => (undeleted ? gridLostError(undeleted) : undefined),
    markLost,
    connectError: (cause) => gridCdpError(grid, wsEndpoint, cause),
  };
}

/** Whatever failed on the CDP connection (the router refused, the node went away), it is the Grid's session: say so. */
function gridCdpError(grid: string, wsEndpoint: string, cause: unknown): PerfError {
  return new PerfError({
    code: 'grid_cdp_failed',
    kind: 'environment',
    message: hideCredentials(`Selenium Grid at ${grid}: could not connect over CDP to ${wsEndpoint}: ${(cause as Error).message}`),
    cause,
  });
}

/** The error that ends a run whose Grid session was lost (the node died, the Grid dropped it). */
export function gridLostError(reason: string): PerfError {
  return new PerfError({
    code: 'grid_session_lost',
    kind: 'environment',
    message: hideCredentials(reason),
    suggestion: 'check the Grid node (its log, /status): the run stopped rather than go on on another node',
  });
}
