/**
 * The session daemon behind `perf start` / MCP `app_start`: a detached process that owns the app
 * and Chromium, keeps a CDP connection open (so page scripts stay installed on every navigation),
 * writes the state file and tells its parent it is ready over IPC. SIGTERM stops everything.
 * Its children are tracked, so even a SIGKILL of the daemon leaves no orphan.
 */
import { openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { installPageScripts } from '../drivers/cdp/inject.js';
import { Browser } from '../drivers/cdp/browser.js';
import { isPerfError } from '../errors.js';
import { startApp, type AppSpec, type RunningApp } from './app.js';
import { launchChrome, type ChromeProcess } from './chrome.js';
import { installSignalHandlers, onShutdown, watchdogPid } from './processes.js';
import { clearState, writeJsonAtomic, statePath, type SessionStartOptions, type SessionState } from './state.js';

export interface DaemonRequest {
  stateDir: string;
  options: SessionStartOptions;
}

export type DaemonMessage = { kind: 'ready'; state: SessionState } | { kind: 'error'; error: { code: string; kind: string; message: string; suggestion?: string } };

function appSpecOf(o: SessionStartOptions, stateDir: string): AppSpec {
  const cwd = o.cwd ?? process.cwd();
  if (o.serve !== undefined) return { kind: 'serve', dir: resolve(cwd, o.serve), ...(o.spa ? { spa: true } : {}) };
  if (o.command !== undefined) return { kind: 'command', command: o.command, cwd, logFile: join(stateDir, 'app.log'), ...(o.url ? { url: o.url } : {}) };
  return { kind: 'url', url: o.url! };
}

async function main(): Promise<void> {
  const req = JSON.parse(process.argv[2] ?? '{}') as DaemonRequest;
  const { stateDir, options } = req;
  let app: RunningApp | undefined;
  let chrome: ChromeProcess | undefined;
  let browser: Browser | undefined;
  const stop = async (): Promise<void> => {
    await browser?.disconnect().catch(() => undefined);
    await chrome?.close().catch(() => undefined);
    await app?.stop().catch(() => undefined);
    clearStateIfOurs(stateDir);
  };
  installSignalHandlers();
  onShutdown(stop);
  try {
    app = await startApp(appSpecOf(options, stateDir));
    const chromeLog = openSync(join(stateDir, 'chrome.log'), 'a');
    chrome = await launchChrome({ headless: options.headless !== false, logFd: chromeLog });
    browser = await Browser.connect(chrome.wsEndpoint);
    const page = await browser.newPage({ isolated: true });
    await installPageScripts(page);
    const path = options.path ?? '/';
    const pageUrl = app.urlFor(path);
    await page.navigate(pageUrl);
    const state: SessionState = {
      version: 1,
      startedAt: new Date().toISOString(),
      appUrl: app.baseUrl,
      pageUrl,
      path,
      chrome: { pid: chrome.pid, wsEndpoint: chrome.wsEndpoint, port: chrome.port, headless: options.headless !== false, version: browser.version.product, executablePath: chrome.executablePath },
      app: { kind: app.kind, ...(app.pid ? { pid: app.pid } : {}), ...(app.port ? { port: app.port } : {}), ...(app.logFile ? { logFile: app.logFile } : {}) },
      daemonPid: process.pid,
      ...(watchdogPid() !== undefined ? { watchdogPid: watchdogPid()! } : {}),
      targetId: page.targetId,
      stateDir,
      options,
    };
    writeJsonAtomic(statePath(stateDir), state);
    send({ kind: 'ready', state });
    process.disconnect?.();
    // Chrome gone = session over: clean up the app too rather than leave a half session behind.
    void chrome.exited.then(async () => {
      await stop();
      process.exit(0);
    });

  } catch (e) {
    const error = isPerfError(e) ? e.toJSON() : { kind: 'environment', code: 'session_start_failed', message: (e as Error).message };
    send({ kind: 'error', error });
    await stop();
    process.exit(3);
  }
}

function send(msg: DaemonMessage): void {
  process.send?.(msg);
}

function clearStateIfOurs(stateDir: string): void {
  try {
    const text = JSON.parse(readFileSync(statePath(stateDir), 'utf8')) as { daemonPid?: number };
    if (text.daemonPid === process.pid) clearState(stateDir);
  } catch {
    /* nothing to clear */
  }
}

void main();
