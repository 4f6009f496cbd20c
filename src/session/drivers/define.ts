/**
 * What the session manager needs of a driver for `perf start` / `app_start` and the session verbs:
 * the session's own processes, its liveness, its logs, attaching to its page, and what a stop may
 * leave open. One half per driver beside this file, one table in index.ts keyed by the registry's
 * names; the manager dispatches on the state's `driver` once (index.ts), not in every function.
 */
import type { HostPage } from '../../drivers/page-driver.js';
import type { PageTabs } from '../../drivers/tabs.js';
import type { AnySessionState } from '../state.js';

export interface SessionAlive {
  daemon: boolean;
  /** The CDP session's Chromium. */
  chrome?: boolean;
  /** The WebDriver session's server; null for a server given by URL. */
  webdriver?: boolean | null;
  /** The WebDriver session itself (its browser or desktop app), asked over WebDriver. */
  browser?: boolean;
  /** The terminal session's program (its daemon keeps the last screen after it exits). */
  terminal?: boolean;
  app: boolean | null;
}

export interface SessionLogs {
  app: string[];
  chrome?: string[];
  webdriver?: string[];
}

export interface ConnectedSession {
  driver: HostPage;
  /** The browser's open pages and the selected one (made on first use when `create`); absent on a terminal. */
  tabs?(create: boolean): PageTabs | undefined;
  state: AnySessionState;
  close(): Promise<void>;
}

export interface SessionDriver<S extends AnySessionState> {
  /** The processes the session recorded besides its daemon and watchdog (the browser or server); not the app. */
  ownedPids(state: S): number[];
  /** After the daemon stopped: close what a daemon killed outright may have left open (a remote session). */
  afterStop(state: S): Promise<void>;
  /** Whether the driver's side lives (the daemon and the app are the manager's). */
  status(state: S, base: { daemon: boolean; app: boolean | null }): Promise<{ running: boolean; alive: SessionAlive }>;
  /** The driver's logs beside the app's. */
  logs(state: S, stateDir: string, lines: number): Omit<SessionLogs, 'app'>;
  /** Attach to the session's page, for step verbs and MCP tools. */
  connect(state: S): Promise<ConnectedSession>;
  /** What app_start / app_status answer about the session (JSON). */
  summary(state: S): Record<string, unknown>;
  /** What `perf start`, `perf restart` and `perf status` print about the session: one fact per line. */
  describe(state: S): string[];
  /** `perf status`: the driver's processes after the session's own (", chrome alive, app alive"), and what to do when one is gone. */
  processes(state: S, alive: SessionAlive): { text: string; note?: string };
}

/** A process in `perf status`: alive, DEAD, or n/a (not ours to watch: a server given by URL, an app already running). */
export function aliveWord(b: boolean | null | undefined): string {
  return b === null || b === undefined ? 'n/a' : b ? 'alive' : 'DEAD';
}

/** A page session's lines: the app, the page and the driver, then the driver's browser line, then the session. */
export function pageLines(state: Exclude<AnySessionState, { driver: 'pty' }>, engine: string, browser: string): string[] {
  const desktop = state.options.desktop ? ` (desktop ${state.options.desktop.binary})` : '';
  const app = `${state.app.kind}${state.app.pid ? `, pid ${state.app.pid}` : ''}`;
  return [
    `app      ${state.appUrl || '(none: the desktop app loads its own page)'} (${app})`,
    `page     ${state.pageUrl}`,
    `driver   ${state.driver}, engine ${engine}${desktop}`,
    browser,
    `session  pid ${state.daemonPid}, state in ${state.stateDir}/state.json`,
  ];
}

/** A page session's summary: the app and page, then the driver's own part. */
export function pageSummary(state: Exclude<AnySessionState, { driver: 'pty' }>, browser: Record<string, unknown>): Record<string, unknown> {
  return {
    appUrl: state.appUrl,
    pageUrl: state.pageUrl,
    path: state.path,
    app: state.app,
    ...(state.options.desktop ? { desktop: state.options.desktop } : {}),
    ...browser,
    startedAt: state.startedAt,
    stateDir: state.stateDir,
  };
}

export function tailFile(path: string | undefined, lines: number, read: (p: string) => string): string[] {
  if (!path) return [];
  try {
    const all = read(path).split('\n');
    if (all[all.length - 1] === '') all.pop();
    return all.slice(-lines);
  } catch {
    return [];
  }
}
