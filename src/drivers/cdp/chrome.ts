/**
 * Find and launch Chromium. Launching lives here (processes, flags, profile folders); talking to it
 * lives in src/drivers/cdp.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { Duplex, type Readable } from 'node:stream';
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { PerfError } from '../../errors.js';
import { trackFolder, trackProcess, terminate, isAlive } from '../../processes.js';
import { isExecutable } from '../../files.js';
import { SOFT_NAVIGATION_FLAG } from '../runtime/perf-probe.js';
import type { DevToolsPipe } from './pipe.js';

export const INSTALL_HINT =
  'install Chromium: Debian/Ubuntu `sudo apt-get install -y chromium` (Ubuntu: chromium-browser), ' +
  'macOS `brew install --cask chromium`; or set CHROME_PATH to a Chrome/Chromium binary';

const CANDIDATE_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const MAC_APPS = ['/Applications/Chromium.app/Contents/MacOS/Chromium', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'];

export interface ChromeLocation {
  path: string;
  /** Where the path came from, for `perf doctor`. */
  source: 'CHROME_PATH' | 'PATH' | 'macOS application';
}

/**
 * CHROME_PATH first (an explicit path that does not exist is an error, never a silent fallback),
 * then chromium / chromium-browser / google-chrome(-stable) on PATH, then the macOS apps.
 */
export function findChrome(env: NodeJS.ProcessEnv = process.env): ChromeLocation {
  const explicit = env.CHROME_PATH;
  if (explicit !== undefined && explicit !== '') {
    if (!isExecutable(explicit)) {
      throw new PerfError({
        code: 'chrome_path_invalid',
        kind: 'environment',
        message: `CHROME_PATH=${explicit} ${existsSync(explicit) ? 'is not an executable file' : 'does not exist'}`,
        suggestion: 'point CHROME_PATH at a Chrome/Chromium binary, or unset it to use the system Chromium',
      });
    }
    return { path: explicit, source: 'CHROME_PATH' };
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of CANDIDATE_NAMES) {
    for (const dir of dirs) {
      const p = join(dir, name);
      if (isExecutable(p)) return { path: p, source: 'PATH' };
    }
  }
  for (const p of MAC_APPS) if (isExecutable(p)) return { path: p, source: 'macOS application' };
  throw new PerfError({
    code: 'chrome_not_found',
    kind: 'environment',
    message: 'no Chromium found (looked at CHROME_PATH, then chromium, chromium-browser, google-chrome, google-chrome-stable on PATH)',
    suggestion: INSTALL_HINT,
  });
}

/** The Chromium binary for chromedriver: the browser itself, not Debian's /usr/bin/chromium wrapper script. */
export function chromeBinary(): string {
  const p = findChrome().path;
  return p === '/usr/bin/chromium' && existsSync('/usr/lib/chromium/chromium') ? '/usr/lib/chromium/chromium' : p;
}

/** `Chromium 156.0.8078.114 built on Debian` → the version line, without starting a browser window. */
export function chromeVersion(path: string): string {
  const out = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
  return out.trim();
}

/**
 * Flags every launch uses. The first group is required on this kind of machine (root, no GPU, closed
 * network); the second keeps timing honest (no background throttling of the page under test).
 */
export const BASE_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-default-browser-check',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
  '--password-store=basic',
  '--use-mock-keychain',
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-ipc-flooding-protection',
  '--disable-hang-monitor',
  '--disable-breakpad',
  // The WebUI omnibox popups: headless has no omnibox, yet every new window would start them in a
  // renderer of their own, doubling the process starts of a context restart.
  // RenderDocument (a new frame host for every cross-document navigation) off, as Lighthouse's
  // chrome-launcher (1.2.1) and Playwright launch: with it on, the app's opening from about:blank spread
  // wider here (a data grid's LCP, 30 repeats: SD 9.1 and 9.3 ms on, 7.0 and 4.1 off; docs/benchmarks.md).
  '--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,CalculateNativeWinOcclusion,' +
    'InterestFeedContentSuggestions,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,RenderDocument',
  SOFT_NAVIGATION_FLAG,
];

// 30 s: a cold start on a loaded 2-core machine takes ~1 s; a hang beyond this is a broken install.
export const START_TIMEOUT_MS = 30_000;

export interface LaunchOptions {
  executablePath?: string;
  /**
   * How the harness reaches the browser's DevTools. `pipe` (the default): `--remote-debugging-pipe`,
   * descriptors only this process holds. `port`: `--remote-debugging-port` on 127.0.0.1, for a browser
   * other processes must attach to (a `perf start` session's CLI verbs): any local user can connect to
   * it and drive the browser, its signed-in cookies included.
   */
  devtools?: 'pipe' | 'port';
  headless?: boolean;
  /** Default: a fresh temp folder, removed when the browser is closed. */
  userDataDir?: string;
  /**
   * false for a browser that must outlive the CLI (needs `devtools: 'port'`: the browser quits when its
   * pipe closes). Default true: dies with the harness.
   */
  track?: boolean;
  windowSize?: { width: number; height: number };
  extraArgs?: string[];
  /** Chrome's stderr goes here too, when given (a session's log file). */
  logFd?: number;
  /** How long a start may take: until its DevTools endpoint is printed (a port), or it first answers (the pipe). */
  startTimeoutMs?: number;
}

/** A WebSocket anyone who can reach it may use: a launched browser's loopback port, a Grid's se:cdp. */
export type WebSocketDevTools = { kind: 'websocket'; wsEndpoint: string };
/** A launched browser's loopback port (`devtools: 'port'`). */
export type ListeningDevTools = WebSocketDevTools & { port: number };
/** How the harness reaches a browser's DevTools: the pipe of a browser we launched (only this process holds it), or a WebSocket. */
export type DevTools = ({ kind: 'pipe' } & DevToolsPipe) | WebSocketDevTools;

export interface ChromeProcess<D extends DevTools = DevTools> {
  pid: number;
  devtools: D;
  userDataDir: string;
  executablePath: string;
  /** Resolves when the process exits, for whatever reason. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with how the process ended, in words (signal or code, and Chrome's last line). */
  exitReason: Promise<string>;
  hasExited(): boolean;
  /** The last lines Chrome wrote to stderr (diagnostics when it dies). */
  stderrTail(): string;
  /**
   * Kill the process group and remove the temp profile. Idempotent. `discard`: the profile is thrown
   * away, so there is nothing to flush: kill at once and remove the profile in the background (a
   * browser restart between repeats saves ~40 ms here).
   */
  close(opts?: { discard?: boolean }): Promise<void>;
}

/** Resolve the Debian wrapper script to the real binary: saves a shell start on every launch. */
function resolveBinary(path: string): string {
  if (path === '/usr/bin/chromium' && isExecutable('/usr/lib/chromium/chromium')) return '/usr/lib/chromium/chromium';
  return path;
}

export function launchChrome(opts: LaunchOptions & { devtools: 'port' }): Promise<ChromeProcess<ListeningDevTools>>;
export function launchChrome(opts?: LaunchOptions): Promise<ChromeProcess>;
export async function launchChrome(opts: LaunchOptions = {}): Promise<ChromeProcess> {
  const executablePath = resolveBinary(opts.executablePath ?? findChrome().path);
  const overPipe = opts.devtools !== 'port';
  if (overPipe && opts.track === false) {
    throw new PerfError({ code: 'internal_error', message: 'a browser that outlives the harness needs a DevTools port, not the pipe' });
  }
  const ownProfile = opts.userDataDir === undefined;
  // Once per process: the leftovers of earlier runs, not of this one's own restarts.
  if (ownProfile && !swept) {
    swept = true;
    void sweepStaleProfiles();
  }
  const userDataDir = opts.userDataDir ?? mkdtempSync(join(tmpdir(), PROFILE_PREFIX));
  // Chromium's own temp folders (its singleton socket, crash-handler files) go inside the profile,
  // so removing the profile removes them: a killed Chrome leaves nothing in the system temp folder.
  const childTmp = join(userDataDir, 'tmp');
  if (ownProfile) mkdirSync(childTmp);
  const untrackFolder = ownProfile && opts.track !== false ? trackFolder(userDataDir) : () => undefined;
  const child = spawn(executablePath, chromeArgs(opts, userDataDir, overPipe), {
    // Own process group: one signal reaches the renderer, GPU and utility processes too.
    detached: true,
    // With the pipe, the browser reads its commands on fd 3 and writes to fd 4.
    stdio: ['ignore', opts.logFd ?? 'ignore', 'pipe', ...(overPipe ? (['pipe', 'pipe'] as const) : [])],
    ...(ownProfile ? { env: { ...process.env, TMPDIR: childTmp } } : {}),
  });
  const pid = child.pid;
  if (pid === undefined) {
    throw new PerfError({
      code: 'chrome_launch_failed',
      kind: 'environment',
      message: `could not start ${executablePath}`,
      suggestion: INSTALL_HINT,
    });
  }
  const untrack = opts.track === false ? () => undefined : trackProcess(pid, { group: true });
  if (opts.track === false) child.unref();

  let exitedFlag = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      exitedFlag = true;
      untrack();
      resolve({ code, signal });
    });
  });
  const tail: string[] = [];
  const started = { child, stderr: child.stderr!, exited, tail, executablePath, opts };
  const devtools = overPipe ? pipeOf(started) : await listeningOn(started);
  const exitReason = exited.then(({ code, signal }) => describeExit(code, signal, tail[tail.length - 1]));
  let closing: Promise<void> | undefined;
  return {
    pid,
    devtools,
    userDataDir,
    executablePath,
    exited,
    exitReason,
    hasExited: () => exitedFlag || !isAlive(pid),
    stderrTail: () => tail.join('\n'),
    close: (closeOpts = {}) =>
      (closing ??= (async () => {
        if (!exitedFlag) await terminate(pid, { group: true, graceMs: closeOpts.discard ? 0 : 1500 });
        if (!ownProfile) return;
        // Still tracked until removed: if the harness dies meanwhile, its watchdog finishes the job.
        const removed = rm(userDataDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 })
          .catch(() => removeProfile(userDataDir))
          .then(untrackFolder);
        if (!closeOpts.discard) await removed;
      })()),
  };
}

interface Started {
  child: ChildProcess;
  stderr: Readable;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  tail: string[];
  executablePath: string;
  opts: LaunchOptions;
}

/**
 * The browser's pipe pair. It answers there once it has started (Browser.launched waits for that), so
 * nothing is waited for here; its stderr still feeds `tail` and the session log.
 */
function pipeOf(at: Started): DevTools {
  const [, , , commands, answers] = at.child.stdio;
  if (!(commands instanceof Duplex) || !(answers instanceof Duplex)) {
    throw new PerfError({ code: 'internal_error', message: 'the browser was spawned without its DevTools pipe' });
  }
  // A spawn failure after the pid is known is reported by the exit that follows, through the pipe.
  at.child.on('error', () => undefined);
  followStderr(at, () => undefined);
  return { kind: 'pipe', commands, answers };
}

/** The browser's loopback port, once it has printed its DevTools endpoint. */
async function listeningOn(at: Started): Promise<ListeningDevTools> {
  const wsEndpoint = await devToolsEndpoint(at);
  // Once the endpoint is known, stop buffering into memory beyond the tail and let the CLI exit.
  if (at.opts.track === false) at.stderr.destroy();
  return { kind: 'websocket', wsEndpoint, port: Number(new URL(wsEndpoint.replace(/^ws/, 'http')).port) };
}

function chromeArgs(opts: LaunchOptions, userDataDir: string, overPipe: boolean): string[] {
  const size = opts.windowSize ?? { width: 1280, height: 800 };
  return [
    ...(opts.headless === false ? [] : ['--headless']),
    ...BASE_FLAGS,
    `--user-data-dir=${userDataDir}`,
    // Port 0 for a port: Chrome picks a free one and prints it, so there is no race between choosing and binding.
    ...(overPipe ? ['--remote-debugging-pipe'] : ['--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0']),
    `--window-size=${size.width},${size.height}`,
    ...(opts.extraArgs ?? []),
    // No first window: we open our own page in a fresh browser context at once, and a startup page
    // would start a renderer we never use (~130 ms of a cold launch here, as Playwright also avoids).
    '--no-startup-window',
  ];
}

/**
 * Chrome's stderr, line by line, into `tail` (and the session log, when there is one); `onLine` sees
 * each line as it comes.
 */
function followStderr(at: Started, onLine: (line: string) => void): void {
  const { stderr, tail, opts } = at;
  let stderrBuf = '';
  stderr.setEncoding('utf8');
  stderr.on('data', (chunk: string) => {
    if (opts.logFd !== undefined) {
      try {
        // Session logs keep Chrome's own diagnostics.
        writeSync(opts.logFd, chunk);
      } catch {
        /* log is best effort */
      }
    }
    stderrBuf += chunk;
    let nl: number;
    while ((nl = stderrBuf.indexOf('\n')) >= 0) {
      const line = stderrBuf.slice(0, nl);
      stderrBuf = stderrBuf.slice(nl + 1);
      tail.push(line);
      // 50 lines: enough context to diagnose a crash, bounded for a long session.
      if (tail.length > 50) tail.shift();
      onLine(line);
    }
  });
}

/** The error of a browser that did not start: why, which binary, and its last lines of output. */
export function launchFailed(why: string, executablePath: string, lastOutput: string): PerfError {
  const last = lastOutput.trim().split('\n').slice(-10).join('\n');
  return new PerfError({
    code: 'chrome_launch_failed',
    kind: 'environment',
    message: `${why} (${executablePath})${last ? `; last output:\n${last}` : ''}`,
    suggestion: 'run `perf doctor` to check the Chromium install',
  });
}

/**
 * Chrome's DevTools endpoint, read from its stderr; a PerfError when Chrome dies or hangs first.
 */
function devToolsEndpoint(at: Started): Promise<string> {
  const { child, exited, tail, executablePath, opts } = at;
  return new Promise<string>((resolve, reject) => {
    const timeoutMs = opts.startTimeoutMs ?? START_TIMEOUT_MS;
    const timer = setTimeout(() => fail(`Chrome did not print its DevTools endpoint within ${timeoutMs} ms`), timeoutMs);
    const fail = (why: string): void => {
      clearTimeout(timer);
      reject(launchFailed(why, executablePath, tail.join('\n')));
    };
    followStderr(at, (line) => {
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('error', (e) => fail(`could not start Chrome: ${e.message}`));
    void exited.then(({ code, signal }) => fail(`Chrome exited during start (code ${code}, signal ${signal})`));
  });
}

function describeExit(code: number | null, signal: NodeJS.Signals | null, lastLine: string | undefined): string {
  const how = signal ? `Chrome was killed by ${signal}` : `Chrome exited with code ${code}`;
  return lastLine?.trim() ? `${how} (last output: ${lastLine.trim().slice(0, 200)})` : how;
}

const PROFILE_PREFIX = 'rehearse-profile-';
let swept = false;
// 10 min: a profile folder without Chrome's lock is either being set up this instant by another
// harness (milliseconds) or was left behind; anything this old is the latter.
const UNLOCKED_PROFILE_MAX_AGE_MS = 10 * 60_000;

/**
 * Remove profile folders a killed harness left in the temp folder (its watchdog normally removes
 * them; a machine reboot or a killed watchdog does not). A folder is stale when the Chrome named by
 * its SingletonLock (`HOST-PID`) is no longer running here, or it has no lock and is old. In the
 * background: a launch never waits for it.
 */
export async function sweepStaleProfiles(dir = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(PROFILE_PREFIX)) continue;
    const path = join(dir, name);
    let lock: string | undefined;
    try {
      lock = readlinkSync(join(path, 'SingletonLock'));
    } catch {
      /* no lock: judged by age */
    }
    const m = lock ? /^(.*)-(\d+)$/.exec(lock) : null;
    let stale: boolean;
    if (m) stale = m[1] === hostname() && !isAlive(Number(m[2]));
    else stale = Date.now() - ((await stat(path).catch(() => undefined))?.mtimeMs ?? Date.now()) > UNLOCKED_PROFILE_MAX_AGE_MS;
    if (!stale) continue;
    await rm(path, { recursive: true, force: true }).then(
      () => removed.push(path),
      () => undefined,
    );
  }
  return removed;
}

/** Chrome may still be flushing the profile for a moment after exit: retry the removal briefly. */
export function removeProfile(dir: string): void {
  for (let i = 0; i < 5; i++) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
      return;
    } catch {
      /* try again */
    }
  }
}
