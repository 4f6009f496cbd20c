/**
 * A page over WebDriver: start the server (or use a running one), open a session, and hand out the
 * page driver; close() ends the session and stops what was started.
 */
import { PerfError } from '../../errors.js';
import { TargetClosedError } from '../errors.js';
import { BidiSocket, bidiChannel } from '../bidi-socket.js';
import { WebDriverClient } from './client.js';
import { WebDriverPageDriver } from './page-driver.js';
import { miniBrowserPath, startWebDriverServer, type WebDriverServer, type WebDriverServerKind } from './server.js';
import { SOFT_NAVIGATION_FLAG } from '../runtime/perf-probe.js';

export interface WebDriverPageOptions {
  kind: WebDriverServerKind;
  /** Chromium binary for chromedriver (the harness's own, found by src/drivers/cdp/chrome.ts). */
  chromePath?: string;
  /** A running WebDriver server to use instead of starting one. */
  endpoint?: string;
  /** The pid of the server at `endpoint` when the harness started it (its processes are then read from /proc). */
  serverPid?: number;
  headless?: boolean;
  /** A desktop app instead of a browser (kinds webkit and tauri): its binary and arguments. */
  desktop?: { binary: string; args: string[] };
  /**
   * The server at `endpoint` is the caller's own: when it (or the browser it starts) does not answer the
   * new session, this stops it and starts another, returning its endpoint, for the one retry.
   */
  restartServer?: () => Promise<{ endpoint: string; pid?: number }>;
  /**
   * How long the first new session may take before the server counts as hung. Default 60 s. The retry on the fresh
   * server always gets the default: it is the last chance, and a real browser start on a loaded machine takes seconds.
   */
  newSessionTimeoutMs?: number;
}

export interface WebDriverPage {
  driver: WebDriverPageDriver;
  /** The session's WebDriver classic client (its endpoint and id, for a session state). */
  client: WebDriverClient;
  server: WebDriverServer | undefined;
  close(): Promise<void>;
}

// The same flags the CDP driver launches Chromium with on this kind of machine.
const CHROME_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  SOFT_NAVIGATION_FLAG,
  '--window-size=1280,800',
  // chromedriver then drives the browser over the pipe instead of opening a DevTools port on 127.0.0.1,
  // which any local user could connect to (docs/scenarios.md, "Only you drive it").
  '--remote-debugging-pipe',
];
// Long enough for a runtime call that waits (expect, the gate): each caps its own wait below this.
const SCRIPT_TIMEOUT_MS = 120_000;
// 10 s: the BiDi side only adds preload scripts and subscribes to events, each answered in milliseconds; beyond this
// the browser is gone or hung.
const BIDI_COMMAND_TIMEOUT_MS = 10_000;

function capabilities(o: WebDriverPageOptions): Record<string, unknown> {
  switch (o.kind) {
    case 'chromedriver':
      return {
        browserName: 'chrome',
        'goog:chromeOptions': {
          ...(o.chromePath ? { binary: o.chromePath } : {}),
          args: [...CHROME_ARGS, ...(o.headless === false ? [] : ['--headless'])],
        },
      };
    case 'tauri':
      // tauri-driver turns this into webkitgtk:browserOptions on Linux (and its own on Windows/macOS).
      if (!o.desktop)
        throw new PerfError({ code: 'invalid_options', message: 'tauri-driver drives a desktop app: give app.desktop.binary' });
      return { 'tauri:options': { application: o.desktop.binary, args: o.desktop.args } };
    case 'webkit': {
      if (o.desktop) return { 'webkitgtk:browserOptions': { binary: o.desktop.binary, args: o.desktop.args } };
      const binary = miniBrowserPath();
      if (!binary)
        throw new PerfError({
          code: 'webdriver_missing',
          kind: 'environment',
          message: 'the WebKitGTK MiniBrowser is not installed',
          suggestion: 'install it: apt-get install webkit2gtk-driver',
        });
      return { browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary, args: ['--automation'] } };
    }
  }
}

/**
 * Open a session and its page. A server this harness runs that does not answer the new session (it or
 * its browser hung: seen on a loaded 2-core machine, 60 s without an answer) is killed and started once
 * more, and the session asked for again, before the failure is reported.
 */
export async function openWebDriverPage(o: WebDriverPageOptions): Promise<WebDriverPage> {
  let server = o.endpoint ? undefined : await startWebDriverServer(o.kind);
  const restart =
    o.restartServer ??
    (server
      ? async (): Promise<{ endpoint: string; pid?: number }> => {
          await server!.close();
          server = await startWebDriverServer(o.kind);
          return { endpoint: server.endpoint };
        }
      : undefined);
  try {
    return await openOn(o, o.endpoint ?? server!.endpoint, server, o.serverPid);
  } catch (e) {
    if (!(e instanceof TargetClosedError) || !restart) {
      await server?.close();
      throw e;
    }
    const again = await restart();
    try {
      return await openOn({ ...o, newSessionTimeoutMs: undefined }, again.endpoint, server, again.pid ?? o.serverPid);
    } catch (again) {
      await server?.close();
      throw again;
    }
  }
}

async function openOn(
  o: WebDriverPageOptions,
  endpoint: string,
  server: WebDriverServer | undefined,
  serverPid: number | undefined,
): Promise<WebDriverPage> {
  let client: WebDriverClient | undefined;
  let bidi: BidiSocket | undefined;
  try {
    // tauri-driver rewrites alwaysMatch into the native driver's options: keep its request plain.
    client = await WebDriverClient.newSession(endpoint, capabilities(o), {
      bidi: o.kind !== 'tauri',
      ...(o.newSessionTimeoutMs ? { timeoutMs: o.newSessionTimeoutMs } : {}),
    });
    await client.setTimeouts({ script: SCRIPT_TIMEOUT_MS });
    const ua = await client.execute<string>('return navigator.userAgent;');
    const driver = new WebDriverPageDriver(client, ua);
    driver.serverPid = server?.pids[0] ?? serverPid;
    const ws = client.capabilities.webSocketUrl;
    if (typeof ws === 'string') {
      bidi = await BidiSocket.connect(ws, { peer: 'the WebDriver server', commandTimeoutMs: BIDI_COMMAND_TIMEOUT_MS });
      await driver.useBidi(bidiChannel(bidi));
    }
    return {
      driver,
      client,
      server,
      close: async () => {
        bidi?.close();
        await driver.stopSettleReports();
        await client!.close();
        await server?.close();
      },
    };
  } catch (e) {
    bidi?.close();
    await client?.close();
    throw e;
  }
}

// A desktop app loads its own first page: poll its document this often until it has loaded.
const DESKTOP_POLL_MS = 50;

/**
 * A desktop app opens its own first page: wait until that has loaded. An app that shows nothing
 * (about:blank; a WebKitGTK browser started for automation ignores URL arguments) is sent to `url`,
 * the app URL given beside it, when there is one.
 */
export async function desktopLoaded(
  driver: WebDriverPageDriver,
  url: string,
  opts: { timeoutMs: number; suggestion: string },
): Promise<void> {
  const { timeoutMs, suggestion } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const doc = await driver.evaluate<{ href: string; ready: string }>('({ href: location.href, ready: document.readyState })');
    if (doc.href === 'about:blank' && url) {
      await driver.navigation.navigate(url, Math.max(1, deadline - Date.now()));
      return;
    }
    if (doc.href !== 'about:blank' && doc.ready === 'complete') return;
    if (Date.now() > deadline) {
      throw new PerfError({
        code: 'desktop_not_loaded',
        kind: 'failed',
        message: `the desktop app showed no loaded page within ${timeoutMs / 1000} s (at ${doc.href}, ${doc.ready})`,
        suggestion,
      });
    }
    await new Promise((r) => setTimeout(r, DESKTOP_POLL_MS));
  }
}
