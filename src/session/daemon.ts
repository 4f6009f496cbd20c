/**
 * The session daemon behind `perf start` / MCP `app_start`: a detached process that owns the app
 * and the browser, writes the state file and tells its parent it is ready over IPC. SIGTERM stops
 * everything. Its children are tracked, so even a SIGKILL of the daemon leaves no orphan.
 *
 * Over CDP it owns a Chromium and keeps a CDP connection open (so page scripts stay installed on
 * every navigation). Over WebDriver it owns the server (chromedriver, WebKitWebDriver, tauri-driver)
 * and the one session opened on it, which step verbs reattach to by id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openLogNoFollow } from '../files.js';
import { installPageScripts } from '../drivers/cdp/inject.js';
import { Browser } from '../drivers/cdp/browser.js';
import { desktopLoaded, openWebDriverPage, type WebDriverPage } from '../drivers/webdriver/session.js';
import { startWebDriverServer, type WebDriverServer } from '../drivers/webdriver/server.js';
import { WebDriverClient } from '../drivers/webdriver/client.js';
import { startGridChrome } from './grid.js';
import { openFirefoxTab, startFirefoxSession, type FirefoxSession } from '../drivers/bidi/browser.js';
import { startBidiRelay, type BidiRelay } from '../drivers/bidi/relay.js';
import { firefoxPageDriver } from './firefox-page.js';
import { startApp, type AppSpec, type RunningApp } from './app.js';
import { chromeBinary, launchChrome, type ChromeProcess } from '../drivers/cdp/chrome.js';
import { installSignalHandlers, isAlive, onShutdown, trackProcess, watchdogPid } from '../processes.js';
import { daemonFailed, daemonReady } from './daemon-ipc.js';
import {
  clearStateIfOwnedBy,
  sessionDriver,
  type AnySessionState,
  type SessionStartOptions,
  type SessionState,
  type WebDriverSessionState,
} from './state.js';

export interface DaemonRequest {
  stateDir: string;
  options: SessionStartOptions;
}

export type { DaemonMessage } from './daemon-ipc.js';

// 30 s, as for a run's navigation: a dev server may compile the page on first request.
const NAVIGATION_TIMEOUT_MS = 30_000;
// A minute: well inside a Grid's default 300 s session timeout, and one request a minute costs nothing.
const GRID_KEEPALIVE_MS = 60_000;
// How often the daemon looks whether its WebDriver server still runs: a crash ends the session
// within a second, and the check (a signal 0) costs nothing.
const SERVER_CHECK_MS = 1000;

function appSpecOf(o: SessionStartOptions, stateDir: string): AppSpec {
  const cwd = o.cwd ?? process.cwd();
  if (o.serve !== undefined) return { kind: 'serve', dir: resolve(cwd, o.serve), ...(o.spa ? { spa: true } : {}) };
  if (o.command !== undefined)
    return { kind: 'command', command: o.command, cwd, logFile: join(stateDir, 'app.log'), ...(o.url ? { url: o.url } : {}) };
  if (o.url !== undefined) return { kind: 'url', url: o.url };
  return { kind: 'desktop' };
}

/** The fields every state file holds, once the browser side is up (the watchdog runs by then). */
function baseState(
  stateDir: string,
  options: SessionStartOptions,
  app: RunningApp,
  path: string,
  pageUrl: string,
): Omit<SessionState, 'driver' | 'chrome' | 'targetId'> {
  return {
    version: 1,
    startedAt: new Date().toISOString(),
    appUrl: app.baseUrl,
    pageUrl,
    path,
    app: {
      kind: app.kind,
      ...(app.pid ? { pid: app.pid } : {}),
      ...(app.port ? { port: app.port } : {}),
      ...(app.logFile ? { logFile: app.logFile } : {}),
    },
    daemonPid: process.pid,
    ...(watchdogPid() !== undefined ? { watchdogPid: watchdogPid()! } : {}),
    stateDir,
    options,
  };
}

/** What the daemon holds, closed by stop() in this order. */
interface Held {
  app?: RunningApp;
  chrome?: ChromeProcess;
  browser?: Browser;
  server?: WebDriverServer;
  wdPage?: WebDriverPage;
  firefox?: FirefoxSession;
  relay?: BidiRelay;
}

/** Where the session's page is: the app, its page path and URL, for the driver's start. */
interface Opening {
  stateDir: string;
  options: DaemonRequest['options'];
  app: RunningApp;
  path: string;
  pageUrl: string;
}

async function main(): Promise<void> {
  const req = JSON.parse(process.argv[2] ?? '{}') as DaemonRequest;
  const { stateDir, options } = req;
  const held: Held = {};
  const stop = async (): Promise<void> => {
    await held.browser?.disconnect().catch(() => undefined);
    await held.chrome?.close().catch(() => undefined);
    // Ending the session quits its browser (or desktop app) cleanly before the server goes.
    await held.wdPage?.close().catch(() => undefined);
    await held.server?.close().catch(() => undefined);
    await held.relay?.close().catch(() => undefined);
    await held.firefox?.close().catch(() => undefined);
    await held.app?.stop().catch(() => undefined);
    clearStateIfOurs(stateDir);
  };
  installSignalHandlers();
  onShutdown(stop);
  try {
    const app = (held.app = await startApp(appSpecOf(options, stateDir)));
    const path = options.path ?? '/';
    const at: Opening = { stateDir, options, app, path, pageUrl: app.urlFor(path) };
    const how = sessionDriver(options);
    const state =
      how.driver === 'cdp'
        ? await startCdpSession(held, at, stop)
        : how.driver === 'bidi'
          ? await startFirefoxDaemonSession(held, at, stop)
          : await startWebDriverSession(held, at, how, stop);
    daemonReady(stateDir, state);
  } catch (e) {
    await daemonFailed(e, stop);
  }
}

/** Chromium over CDP, launched here or a Grid session: the session's page opened in a fresh context. */
async function startCdpSession(
  held: Held,
  { stateDir, options, app, path, pageUrl }: Opening,
  stop: () => Promise<void>,
): Promise<AnySessionState> {
  const chromeLog = openLogNoFollow(join(stateDir, 'chrome.log'), 'perf start');
  const grid = options.grid !== undefined ? await startGridChrome(options.grid, { headless: options.headless !== false }) : undefined;
  // A port, not the pipe: the CLI verbs (and an MCP server) attach to this browser from other processes.
  // Any local user can reach it too (docs/scenarios.md says so).
  const chrome = grid ?? (await launchChrome({ headless: options.headless !== false, logFd: chromeLog, devtools: 'port' }));
  held.chrome = chrome;
  const browser = (held.browser = await Browser.connect(chrome.devtools.wsEndpoint));
  const page = await browser.newPage({ isolated: true });
  await installPageScripts(page);
  await page.navigate(pageUrl);
  const state: AnySessionState = {
    ...baseState(stateDir, options, app, path, pageUrl),
    driver: 'cdp',
    chrome: {
      pid: held.chrome.pid,
      wsEndpoint: chrome.devtools.wsEndpoint,
      // A Grid session's endpoint is its router's, not a port here.
      port: 'port' in chrome.devtools ? chrome.devtools.port : 0,
      headless: options.headless !== false,
      version: browser.version.product,
      executablePath: held.chrome.executablePath,
    },
    targetId: page.targetId,
    ...(grid ? { grid: grid.grid } : {}),
  };
  if (grid) {
    // A Grid ends a session that gets no WebDriver command for its session timeout (300 s by
    // default), and CDP traffic does not count: a cheap command keeps an idle session alive.
    const client = WebDriverClient.attach(grid.grid.url, grid.grid.sessionId);
    setInterval(() => void client.url(GRID_KEEPALIVE_MS).catch(() => undefined), GRID_KEEPALIVE_MS).unref();
  }
  // Chrome gone = session over: clean up the app too rather than leave a half session behind.
  void held.chrome.exited.then(async () => {
    await stop();
    process.exit(0);
  });
  return state;
}

/** A WebDriver session (browser or desktop app) on a server started here or given by URL. */
async function startWebDriverSession(
  held: Held,
  { stateDir, options, app, path, pageUrl }: Opening,
  how: Extract<ReturnType<typeof sessionDriver>, { driver: 'webdriver' }>,
  stop: () => Promise<void>,
): Promise<AnySessionState> {
  const logFile = join(stateDir, 'webdriver.log');
  if (options.webdriver === undefined) {
    held.server = await startWebDriverServer(how.kind, { ...(options.cwd ? { cwd: options.cwd } : {}), logFile });
    for (const pid of held.server.pids) trackProcess(pid, { group: true });
  }
  const desktop = options.desktop;
  const server = held.server;
  held.wdPage = await openWebDriverPage({
    kind: how.kind,
    endpoint: options.webdriver ?? server!.endpoint,
    ...(server ? { serverPid: server.pids[0] } : {}),
    headless: options.headless !== false,
    ...(how.kind === 'chromedriver' ? { chromePath: chromeBinary() } : {}),
    ...(desktop ? { desktop: { binary: desktop.binary, args: (desktop.args ?? []).map((a) => a.replaceAll('${APP_URL}', pageUrl)) } } : {}),
  });
  const driver = held.wdPage.driver;
  if (desktop)
    await desktopLoaded(driver, pageUrl, {
      timeoutMs: NAVIGATION_TIMEOUT_MS,
      suggestion: 'check that the app starts its window, or give --url (or --serve) and ${APP_URL} in --desktop-arg',
    });
  else await driver.navigation.navigate(pageUrl, NAVIGATION_TIMEOUT_MS);
  const wd: WebDriverSessionState['webdriver'] = {
    endpoint: held.wdPage.client.endpoint,
    sessionId: held.wdPage.client.sessionId,
    kind: how.kind,
    pids: server?.pids ?? [],
    ...(server ? { logFile } : {}),
    userAgent: await driver.evaluate<string>('navigator.userAgent'),
    ...(driver.capabilities.browserName ? { browserName: driver.capabilities.browserName } : {}),
    ...(driver.capabilities.browserVersion ? { browserVersion: driver.capabilities.browserVersion } : {}),
    // WebKitGTK always opens a window (under an Xvfb of ours when there is no display).
    headless: how.kind === 'chromedriver' && options.headless !== false,
  };
  const shown = desktop ? await driver.evaluate<string>('location.href') : pageUrl;
  const state: AnySessionState = {
    ...baseState(stateDir, options, app, path, shown),
    driver: 'webdriver',
    engine: how.engine,
    webdriver: wd,
  };
  // No connection is held open over WebDriver: this timer keeps the daemon alive, and a server
  // that died ends the session, as Chrome exiting does over CDP.
  const ours = server;
  const timer = setInterval(() => {
    if (!ours || isAlive(ours.pids[0]!)) return;
    clearInterval(timer);
    void stop().then(() => process.exit(0));
  }, SERVER_CHECK_MS);
  return state;
}

// A unix socket's path holds at most 107 bytes (sun_path); a deep state folder's gets a short one in the temp folder.
const MAX_SOCKET_PATH = 100;

/** Where the relay listens: in the state folder, or a private temp folder when that path is too long for a socket. */
function relaySocketPath(stateDir: string): string {
  const inState = join(stateDir, 'bidi.sock');
  if (Buffer.byteLength(inState) <= MAX_SOCKET_PATH) return inState;
  const dir = mkdtempSync(join(tmpdir(), 'rehearse-bidi-'));
  onShutdown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 's');
}

/** Firefox over BiDi, launched here: its BiDi connection is held here and relayed to the verbs on a unix socket. */
async function startFirefoxDaemonSession(
  held: Held,
  { stateDir, options, app, path, pageUrl }: Opening,
  stop: () => Promise<void>,
): Promise<AnySessionState> {
  const session = (held.firefox = await startFirefoxSession({ headless: options.headless !== false }));
  const tab = await openFirefoxTab(session, { newUserContext: false });
  const driver = await firefoxPageDriver(tab.client, { preload: true, firefoxPid: session.firefox.pid });
  await driver.navigation.navigate(pageUrl, NAVIGATION_TIMEOUT_MS);
  held.relay = await startBidiRelay(session.socket, relaySocketPath(stateDir));
  const state: AnySessionState = {
    ...baseState(stateDir, options, app, path, pageUrl),
    driver: 'bidi',
    engine: 'firefox',
    firefox: {
      pid: session.firefox.pid,
      relay: held.relay.url,
      sessionId: session.sessionId,
      context: tab.client.context,
      userAgent: driver.emulation.browserUserAgent(),
      ...(session.capabilities.browserVersion ? { browserVersion: session.capabilities.browserVersion } : {}),
      headless: options.headless !== false,
    },
  };
  // Firefox gone = session over, as Chrome exiting is over CDP.
  void session.firefox.exited.then(async () => {
    await stop();
    process.exit(0);
  });
  return state;
}

function clearStateIfOurs(stateDir: string): void {
  clearStateIfOwnedBy(stateDir, process.pid);
}

void main();
