/**
 * `.perf/state.json`: what `perf start` left running (pids, ports, endpoint, app URL), written
 * atomically (temp file + rename) so a reader never sees half a file.
 */
import type { AppSpec } from './app.js';
import type { WebDriverServerKind } from '../drivers/webdriver/server.js';
import { readFileSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../files.js';
import { join, resolve } from 'node:path';
import { PerfError } from '../errors.js';

export interface SessionStartOptions {
  serve?: string;
  url?: string;
  command?: string;
  path?: string;
  headless?: boolean;
  spa?: boolean;
  cwd?: string;
  /** `--allow-outside`: serve may name a folder outside the working folder. */
  allowOutside?: boolean;
  /** How the browser is driven; webkit and desktop imply webdriver. Default cdp. */
  driver?: 'cdp' | 'webdriver' | 'bidi';
  engine?: 'chromium' | 'webkit' | 'firefox';
  /** A running WebDriver server to open the session on, instead of starting one. */
  webdriver?: string;
  /** A desktop app (WebKitGTK) instead of a browser; binary resolved against cwd when the session starts. */
  desktop?: { binary: string; args?: string[]; driver?: 'tauri' | 'webkit' };
  /** A Selenium Grid (http://HOST:4444): the browser is a Grid session driven over CDP through its se:cdp endpoint. */
  grid?: string;
  /** A terminal program instead of a page: it runs in the daemon's pseudo-terminal; cwd resolved when the session starts. */
  terminal?: { command: string; args?: string[]; cols?: number; rows?: number; cwd?: string };
}

/** What every session's state file holds, whatever drives its page. */
interface SessionStateBase {
  version: 1;
  startedAt: string;
  /** '' for a desktop app alone: it loads its own page. */
  appUrl: string;
  pageUrl: string;
  path: string;
  app: { kind: AppSpec['kind']; pid?: number; port?: number; logFile?: string };
  daemonPid: number;
  /** The daemon's watchdog (processes.ts): it outlives the daemon by the time it takes to reap. */
  watchdogPid?: number;
  stateDir: string;
  /** How it was started, so `perf restart` can do it again. */
  options: SessionStartOptions;
}

/** A session over CDP: a Chromium with remote debugging, reattached by target id. */
export interface SessionState extends SessionStateBase {
  /** Absent in state files written before WebDriver sessions: readState fills it in. */
  driver: 'cdp';
  chrome: { pid: number; wsEndpoint: string; port: number; headless: boolean; version: string; executablePath: string };
  targetId: string;
  /** The Selenium Grid session standing in for a launched Chrome (its pid is the node's, maybe not here). */
  grid?: { url: string; sessionId: string };
}

/** A session over WebDriver: the one session the daemon opened, reattached by its id. */
export interface WebDriverSessionState extends SessionStateBase {
  driver: 'webdriver';
  engine: 'chromium' | 'webkit';
  webdriver: {
    endpoint: string;
    sessionId: string;
    kind: WebDriverServerKind;
    /** The server's processes (and its Xvfb) when the daemon started it; none for a server given by URL. */
    pids: number[];
    /** The server's output, when the daemon started it. */
    logFile?: string;
    /** What the page driver needs and a reattach cannot ask for cheaply. */
    userAgent: string;
    browserName?: string;
    browserVersion?: string;
    headless: boolean;
  };
}

/**
 * A session in Firefox over BiDi: the daemon holds the one BiDi connection Firefox allows and relays it on a
 * unix socket; verbs reach the session's tab through it.
 */
export interface FirefoxSessionState extends SessionStateBase {
  driver: 'bidi';
  engine: 'firefox';
  firefox: {
    pid: number;
    /** ws+unix URL of the daemon's relay. */
    relay: string;
    sessionId: string;
    /** The session's tab (its top-level browsing context). */
    context: string;
    userAgent: string;
    browserVersion?: string;
    headless: boolean;
  };
}

/**
 * A session on a terminal program: the daemon owns its pseudo-terminal (a pty cannot be handed to
 * another process), so step verbs and MCP tools send their steps to the daemon over a unix socket.
 */
export interface TerminalSessionState extends SessionStateBase {
  driver: 'pty';
  terminal: {
    pid: number;
    command: string;
    args: string[];
    cols: number;
    rows: number;
    /** The daemon's step socket. */
    socket: string;
    /** The program's raw output (bounded). */
    logFile: string;
  };
}

/** SessionState keeps its name for the CDP session (the default, and every older state file). */
export type AnySessionState = SessionState | WebDriverSessionState | FirefoxSessionState | TerminalSessionState;

/**
 * How a session's page is driven, from its options, as the scenario loader decides it for a run:
 * a desktop app is WebKitGTK, WebKit and a WebDriver URL mean WebDriver; else Chromium over CDP.
 */
export function sessionDriver(
  o: SessionStartOptions,
):
  | { driver: 'cdp'; engine: 'chromium' }
  | { driver: 'bidi'; engine: 'firefox' }
  | { driver: 'webdriver'; engine: 'chromium' | 'webkit'; kind: WebDriverServerKind } {
  if (o.engine === 'firefox' || o.driver === 'bidi') return { driver: 'bidi', engine: 'firefox' };
  const engine = o.engine ?? (o.desktop ? 'webkit' : 'chromium');
  const driver = o.driver ?? (engine === 'webkit' || o.webdriver !== undefined ? 'webdriver' : 'cdp');
  if (driver === 'cdp') return { driver, engine: 'chromium' };
  const kind: WebDriverServerKind = o.desktop ? (o.desktop.driver ?? 'tauri') : engine === 'webkit' ? 'webkit' : 'chromedriver';
  return { driver, engine, kind };
}

export function defaultStateDir(cwd = process.cwd()): string {
  return resolve(cwd, '.perf');
}

export function statePath(stateDir: string): string {
  return join(stateDir, 'state.json');
}

/** Write JSON atomically: a crash mid-write leaves the old file, never a truncated one. */
export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}

export function readState(stateDir: string): AnySessionState | undefined {
  let text: string;
  try {
    text = readFileSync(statePath(stateDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const s = JSON.parse(text) as AnySessionState;
    if (s.version !== 1) throw new Error(`unknown version ${String(s.version)}`);
    return s.driver === undefined ? { ...(s as SessionState), driver: 'cdp' } : s;
  } catch (cause) {
    throw new PerfError({
      code: 'state_invalid',
      message: `${statePath(stateDir)} is not a valid session state file: ${(cause as Error).message}`,
      cause,
    });
  }
}

export function clearState(stateDir: string): void {
  rmSync(statePath(stateDir), { force: true });
}

/** Clear the state file only if the daemon `daemonPid` wrote it: a newer session's file stays. */
export function clearStateIfOwnedBy(stateDir: string, daemonPid: number): void {
  try {
    const text = JSON.parse(readFileSync(statePath(stateDir), 'utf8')) as { daemonPid?: number };
    if (text.daemonPid === daemonPid) clearState(stateDir);
  } catch {
    /* nothing to clear */
  }
}

/**
 * The app options `perf start` and MCP `app_start` share, declared once as JSON Schema: MCP sends it
 * as app_start's inputSchema and the CLI derives its flags from it.
 */
export const START_OPTIONS = {
  serve: { type: 'string', description: 'Folder to serve, inside cwd.' },
  url: { type: 'string', description: 'Running app URL (with command: ${PORT} allowed).' },
  command: { type: 'string', description: 'Shell command; ${PORT}: a free port.' },
  path: { type: 'string', description: 'Path to open. Default /.' },
  spa: { type: 'boolean', description: 'With serve: index.html for unknown paths.' },
  driver: { type: 'string', enum: ['cdp', 'webdriver', 'bidi'], description: 'Default cdp; bidi drives Firefox.' },
  engine: {
    type: 'string',
    enum: ['chromium', 'webkit', 'firefox'],
    description: 'webkit implies webdriver, firefox (ESR) bidi.',
  },
  webdriver: { type: 'string', description: 'Running WebDriver server URL.' },
  grid: { type: 'string', description: 'Selenium Grid URL.' },
  desktop: {
    type: 'object',
    description: 'Desktop app (WebKitGTK).',
    properties: {
      binary: { type: 'string', description: 'Executable.' },
      args: { type: 'array', items: { type: 'string' }, description: '${APP_URL}: the app URL.' },
      driver: { type: 'string', enum: ['tauri', 'webkit'], description: 'Default tauri.' },
    },
    required: ['binary'],
  },
} as const;
