/**
 * The session lifecycle behind `perf start|stop|status|logs|restart|doctor` and the MCP lifecycle
 * tools. A session is a detached daemon (daemon.ts) owning the app and Chromium; this module starts
 * it, reads its state file, stops it, and attaches to its page for step verbs.
 */
import { execFileSync, fork } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Browser } from '../drivers/cdp/browser.js';
import { findServerBinary, miniBrowserPath, SERVER_BINARIES, type WebDriverServerKind } from '../drivers/webdriver/server.js';
import { errorCodeOf, PerfError } from '../errors.js';
import type { DaemonMessage, DaemonRequest } from './daemon.js';
import { driversOn } from '../drivers/registry.js';
import { onSessionDriver, type ConnectedSession, type SessionAlive, type SessionLogs } from './drivers/index.js';
import { tailFile } from './drivers/define.js';
import { checkAppUrl } from './app.js';
import { chromeVersion, findChrome, launchChrome } from '../drivers/cdp/chrome.js';
import { firefoxBinary } from '../drivers/bidi/firefox.js';
import { isAlive, signal, terminate } from '../processes.js';
import {
  clearState,
  defaultStateDir,
  readState,
  sessionDriver,
  START_OPTIONS,
  type AnySessionState,
  type SessionStartOptions,
  type SessionState,
  type TerminalSessionState,
  type WebDriverSessionState,
} from './state.js';
import { checkServeFolder, ensureDir, findExecutable } from '../files.js';
import { sendStep, type StepRequest } from './step-socket.js';
import { checkGridUrl } from './grid.js';

export type { AnySessionState, SessionState, TerminalSessionState, WebDriverSessionState };
export type { ConnectedSession, SessionAlive, SessionLogs };
export interface StartOptions extends SessionStartOptions {
  stateDir?: string;
}

// 60 s: app start (up to 30 s for a dev server) plus a Chromium cold start on a loaded machine.
const START_TIMEOUT_MS = 60_000;

/** A terminal program is the whole app: no page, browser or desktop options beside it. */
function validateTerminalStart(o: StartOptions): void {
  const t = o.terminal!;
  const others = (['serve', 'url', 'command', 'path', 'spa', 'driver', 'engine', 'webdriver', 'desktop'] as const).filter(
    (k) => o[k] !== undefined,
  );
  if (others.length) {
    throw new PerfError({
      code: 'invalid_flag',
      message: `--terminal is the whole app (a program in a pseudo-terminal): drop ${others.map((k) => `--${k}`).join(', ')}`,
      suggestion: 'e.g. perf start --terminal "vim notes.txt"',
    });
  }
  if (typeof t.command !== 'string' || t.command.trim() === '')
    refuse('--terminal needs the program to run', 'e.g. perf start --terminal "less README.md"');
  for (const [flag, n] of [
    ['--cols', t.cols],
    ['--rows', t.rows],
  ] as const) {
    if (n !== undefined && !(Number.isInteger(n) && n >= 2 && n <= 1000))
      refuse(`${flag} must be a whole number from 2 to 1000, got ${n}`, `e.g. ${flag} ${flag === '--cols' ? 100 : 30}`);
  }
}

function refuse(message: string, suggestion: string): never {
  throw new PerfError({ code: 'invalid_flag', message, suggestion });
}

function validateStart(o: StartOptions): void {
  if (o.terminal !== undefined) return validateTerminalStart(o);
  const sources = [
    o.serve !== undefined && '--serve',
    o.url !== undefined && o.command === undefined && '--url',
    o.command !== undefined && '--command',
  ].filter(Boolean);
  if (sources.length > 1 || (sources.length === 0 && o.desktop === undefined)) {
    throw new PerfError({
      code: 'start_needs_one_app',
      message:
        sources.length === 0
          ? 'perf start needs an app: --serve DIR, --url URL, or --command CMD [--url URL]; ' +
            'or a desktop app, --desktop BIN; or a terminal program, --terminal CMD'
          : `perf start takes one app source, got ${sources.join(' and ')}`,
      suggestion: 'e.g. `perf start --serve scenarios/app --path /list.html`',
    });
  }
  if (o.url !== undefined) checkAppUrl(o.url);
  if (o.path !== undefined && !o.path.startsWith('/')) {
    throw new PerfError({
      code: 'invalid_path',
      message: `--path must start with "/", got "${o.path}"`,
      suggestion: `use --path /${o.path}`,
    });
  }
  if (o.path !== undefined && sources.length === 0) {
    throw new PerfError({
      code: 'invalid_flag',
      message: '--path opens a page of the app URL, and a desktop app alone has none (it loads its own page)',
      suggestion: 'drop --path, or give the app URL beside it (--serve, --url or --command)',
    });
  }
  oneOf('--driver', o.driver, driversOn('page'));
  oneOf('--engine', o.engine, ['chromium', 'webkit', 'firefox']);
  firefoxRefusals(o);
  if (o.grid !== undefined) {
    const other =
      o.desktop !== undefined
        ? '--desktop'
        : o.engine === 'webkit'
          ? '--engine webkit'
          : o.driver === 'webdriver'
            ? '--driver webdriver'
            : o.webdriver !== undefined
              ? '--webdriver'
              : undefined;
    if (other)
      refuse(
        `--grid runs Chromium on a Selenium Grid over CDP: drop ${other}`,
        'e.g. perf start --serve dist --grid http://127.0.0.1:4444',
      );
    o.grid = checkGridUrl(o.grid, 'start');
  }
  // The same refusals as the scenario loader's for browser.driver / engine and app.desktop.
  if (o.desktop !== undefined) {
    // Checked here rather than by additionalProperties in the schema: app_start's schema is read by every agent, this costs them nothing.
    const unknown = Object.keys(o.desktop).filter((k) => !(k in START_OPTIONS.desktop.properties));
    if (unknown.length)
      refuse(
        `desktop takes ${Object.keys(START_OPTIONS.desktop.properties).join(', ')}; unknown: ${unknown.join(', ')}`,
        'e.g. {"binary": "./app", "args": ["${APP_URL}"], "driver": "tauri"}',
      );
    if (!o.desktop.binary) refuse("--desktop needs the app's executable", 'e.g. --desktop ./src-tauri/target/debug/my-app');
    oneOf('--desktop-driver', o.desktop.driver, ['tauri', 'webkit']);
    if (o.engine === 'chromium') refuse("--desktop runs on WebKitGTK (Tauri's engine on Linux): --engine must be webkit", 'drop --engine');
    if (o.driver === 'cdp') refuse('--desktop is driven over WebDriver, not --driver cdp', 'drop --driver');
  }
  if (o.engine === 'webkit' && o.driver === 'cdp')
    refuse('--engine webkit is driven over WebDriver, not --driver cdp', 'drop --driver, or set it to webdriver');
  if (o.webdriver !== undefined) {
    if (o.driver === 'cdp') refuse('--webdriver names a WebDriver server: it needs --driver webdriver, not cdp', 'drop --driver');
    let u: URL | undefined;
    try {
      u = new URL(o.webdriver);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:'))
      refuse(`--webdriver must be the http:// URL of a WebDriver server, got "${o.webdriver}"`, 'e.g. --webdriver http://127.0.0.1:4444');
  }
}

function oneOf(flag: string, value: string | undefined, allowed: readonly string[]): void {
  if (value !== undefined && !allowed.includes(value)) {
    throw new PerfError({
      code: 'invalid_flag',
      message: `${flag} must be ${allowed.join(' or ')}, got "${value}"`,
      suggestion: `e.g. ${flag} ${allowed[allowed.length - 1]}`,
    });
  }
}

/** The desktop binary as the session will run it: a path resolved against cwd, or a name looked up on PATH. */
function resolveDesktopBinary(given: string, cwd: string): string {
  const binary = findExecutable(given, { cwd });
  if (!binary) {
    throw new PerfError({
      code: 'desktop_binary_invalid',
      message: `--desktop ${given} ${given.includes('/') ? `(${resolve(cwd, given)}) is not an executable file` : 'is not on PATH'}`,
      suggestion: 'build the app first (e.g. npm run tauri build -- --debug), and give the path to its executable',
    });
  }
  return binary;
}

/** Firefox is driven over BiDi, launched here: what only another driver has is refused by name. */
function firefoxRefusals(o: StartOptions): void {
  if (o.engine !== 'firefox' && o.driver !== 'bidi') return;
  if (o.engine !== undefined && o.engine !== 'firefox')
    refuse(`--driver bidi drives Firefox: --engine must be firefox, got ${o.engine}`, 'drop --engine');
  if (o.driver !== undefined && o.driver !== 'bidi')
    refuse(`--engine firefox is driven over BiDi, not --driver ${o.driver}`, 'drop --driver');
  for (const [flag, given] of [
    ['--webdriver', o.webdriver],
    ['--desktop', o.desktop],
    ['--grid', o.grid],
  ] as const)
    if (given !== undefined) refuse(`${flag} is not used with --engine firefox: the bidi driver launches its own Firefox`, `drop ${flag}`);
}

/** What must be installed for this session, checked in the user's terminal rather than in the daemon. */
function checkBrowserInstalled(o: SessionStartOptions): void {
  const d = sessionDriver(o);
  if (d.driver === 'cdp') {
    // On a Grid, the node's Chromium.
    if (o.grid === undefined) findChrome();
    return;
  }
  if (d.driver === 'bidi') {
    if (!firefoxBinary())
      throw new PerfError({
        code: 'firefox_not_found',
        kind: 'environment',
        message: 'Firefox is not installed (needed for --engine firefox)',
      });
    return;
  }
  if (o.webdriver !== undefined) return;
  if (!findServerBinary(d.kind, o.cwd)) {
    const { bin, install, needs } = SERVER_BINARIES[d.kind];
    throw new PerfError({
      code: 'webdriver_missing',
      kind: 'environment',
      message: `${bin} is not installed (needed for ${needs})`,
      suggestion: `install it: ${install}`,
    });
  }
  if (d.kind === 'webkit' && o.desktop === undefined && !miniBrowserPath()) {
    throw new PerfError({
      code: 'webdriver_missing',
      kind: 'environment',
      message: 'the WebKitGTK MiniBrowser is not installed (needed for --engine webkit)',
      suggestion: 'install it: apt-get install webkit2gtk-driver',
    });
  }
  if (d.kind === 'chromedriver') findChrome();
}

// From dist/src/session/ (where this module runs) to the package's bin/.
const TERMINAL_DAEMON = '../../../bin/perf-terminal-daemon.mjs';

/** Start a session (replacing a running one in the same state folder) and wait until it is ready. */
export async function startSession(opts: StartOptions): Promise<AnySessionState> {
  validateStart(opts);
  const cwd = opts.cwd ?? process.cwd();
  const stateDir = opts.stateDir ?? defaultStateDir(cwd);
  const options: SessionStartOptions = {
    ...opts,
    cwd,
    ...(opts.desktop ? { desktop: { ...opts.desktop, binary: resolveDesktopBinary(opts.desktop.binary, cwd) } } : {}),
  };
  delete (options as StartOptions).stateDir;
  // Fail here, in the user's terminal, on a bad folder or missing Chrome rather than in the daemon.
  if (opts.serve !== undefined && !existsSync(resolve(cwd, opts.serve))) {
    throw new PerfError({
      code: 'serve_root_missing',
      message: `--serve ${opts.serve}: no such folder (${resolve(cwd, opts.serve)})`,
      suggestion: 'pass the folder that holds your built app',
    });
  }
  if (opts.serve !== undefined)
    checkServeFolder(resolve(cwd, opts.serve), [cwd], { allowOutside: opts.allowOutside === true, shown: `serve ${opts.serve}` });
  if (opts.terminal === undefined) checkBrowserInstalled(options);
  if (readState(stateDir)) await stopSession(stateDir);
  ensureDir(stateDir, 'perf start');
  const req: DaemonRequest = { stateDir, options };
  // A terminal session's daemon runs steps (the engine, a layer above this one): started by its entry under bin/.
  const script = fileURLToPath(new URL(opts.terminal !== undefined ? TERMINAL_DAEMON : './daemon.js', import.meta.url));
  const child = fork(script, [JSON.stringify(req)], { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'ipc'], cwd });
  child.unref();
  const msg = await new Promise<DaemonMessage>((resolveMsg, reject) => {
    const timer = setTimeout(() => {
      signal(child.pid!, 'SIGTERM');
      reject(
        new PerfError({
          code: 'session_start_timeout',
          kind: 'environment',
          message: `the session did not start within ${START_TIMEOUT_MS / 1000} s`,
        }),
      );
    }, START_TIMEOUT_MS);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolveMsg(m as DaemonMessage);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(
        new PerfError({
          code: 'session_start_failed',
          kind: 'environment',
          message: `the session process exited (code ${code}) before it was ready`,
        }),
      );
    });
  });
  child.disconnect?.();
  switch (msg.kind) {
    case 'ready':
      return msg.state;
    case 'error':
      throw new PerfError({
        code: errorCodeOf(msg.error.code),
        kind: msg.error.kind === 'usage' ? 'usage' : 'environment',
        message: msg.error.message,
        ...(msg.error.suggestion ? { suggestion: msg.error.suggestion } : {}),
      });
  }
}

/** The processes a session recorded besides its daemon and watchdog: the browser (or WebDriver server and its Xvfb) and the app. */
function ownedPids(state: AnySessionState): number[] {
  const browser = onSessionDriver(state, (d, s) => d.ownedPids(s));
  return [...browser, ...(state.app.pid ? [state.app.pid] : [])];
}

/** Stop the session: SIGTERM to the daemon (which stops the browser and the app), then make sure of each pid. */
export async function stopSession(stateDir = defaultStateDir()): Promise<{ stopped: boolean; pids: number[] }> {
  const state = readState(stateDir);
  if (!state) return { stopped: false, pids: [] };
  const owned = ownedPids(state);
  const pids = [state.daemonPid, ...owned, ...(state.watchdogPid ? [state.watchdogPid] : [])];
  await terminate(state.daemonPid, { group: false, graceMs: 5000 });
  // Belt and braces: whatever the daemon did not manage to stop (it may have been killed).
  await Promise.all(owned.map((pid) => terminate(pid, { group: true, graceMs: 1000 })));
  await onSessionDriver(state, (d, s) => d.afterStop(s));
  // The watchdog exits once what it tracked is gone; a stop returns only after it, so a start that
  // follows at once never races the old session's last process.
  if (state.watchdogPid) await terminate(state.watchdogPid, { group: false, graceMs: 2000 });
  clearState(stateDir);
  return { stopped: true, pids };
}

export async function sessionStatus(
  stateDir = defaultStateDir(),
): Promise<{ running: boolean; state?: AnySessionState; alive: SessionAlive; uptimeMs?: number }> {
  const state = readState(stateDir);
  if (!state) return { running: false, alive: { daemon: false, chrome: false, app: null } };
  const app = state.app.pid ? isAlive(state.app.pid) : null;
  const daemon = isAlive(state.daemonPid);
  const uptimeMs = Date.now() - Date.parse(state.startedAt);
  const { running, alive } = await onSessionDriver(state, (d, s) => d.status(s, { daemon, app }));
  return { running, state, alive, uptimeMs };
}

/** The WebDriver server's output, in the state folder beside chrome.log. */
export function webDriverLogPath(stateDir: string): string {
  return join(stateDir, 'webdriver.log');
}

/**
 * The app's output and the browser's: Chromium's log for a CDP session, the WebDriver server's for
 * a WebDriver one (with no session, whichever the last one left).
 */
export function sessionLogs(stateDir = defaultStateDir(), lines = 100): SessionLogs {
  const state = readState(stateDir);
  const app = tail(state?.app.logFile ?? join(stateDir, 'app.log'), lines);
  if (state) return { app, ...onSessionDriver(state, (d, s) => d.logs(s, stateDir, lines)) };
  // No session: whichever browser log the last one left.
  const webdriver = tail(webDriverLogPath(stateDir), lines);
  return { app, chrome: tail(join(stateDir, 'chrome.log'), lines), ...(webdriver.length ? { webdriver } : {}) };
}

function tail(path: string, lines: number): string[] {
  return tailFile(path, lines, (p) => readFileSync(p, 'utf8'));
}

export async function restartSession(stateDir = defaultStateDir()): Promise<AnySessionState> {
  const state = readState(stateDir);
  if (!state) throw noSession(stateDir);
  return startSession({ ...state.options, stateDir });
}

function noSession(stateDir: string): PerfError {
  return new PerfError({
    code: 'no_session',
    kind: 'environment',
    message: `no running session (no ${join(stateDir, 'state.json')})`,
  });
}

/** Attach to the running session's page; step verbs and MCP tools run against it. */
export async function connectSession(stateDir = defaultStateDir()): Promise<ConnectedSession> {
  const state = readState(stateDir);
  if (!state) throw noSession(stateDir);
  return onSessionDriver(state, (d, s) => d.connect(s));
}

/**
 * Run one step in a terminal session's daemon (which owns the pseudo-terminal) and return its
 * result, or undefined when the running session is not a terminal one (then connectSession).
 */
export async function runSessionStep(stateDir: string, req: StepRequest): Promise<unknown> {
  const state = readState(stateDir);
  if (state?.driver !== 'pty') return undefined;
  if (!isAlive(state.daemonPid)) {
    throw new PerfError({
      code: 'session_dead',
      kind: 'environment',
      message: `the terminal session's daemon (pid ${state.daemonPid}) is not running`,
    });
  }
  return sendStep(state.terminal.socket, req);
}

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
  /** Needed only by some scenarios (a WebDriver server): missing, it does not fail the doctor. */
  optional?: boolean;
}

/** The WebDriver servers, found or not, with how to install each: optional, as only some scenarios need them. */
function webDriverChecks(cwd: string): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const found = (kind: WebDriverServerKind, what: string, extra?: () => string | undefined): void => {
    const bin = findServerBinary(kind, cwd);
    const more = bin ? extra?.() : undefined;
    checks.push({
      name: SERVER_BINARIES[kind].bin,
      ok: !!bin,
      optional: true,
      detail: bin ? `${bin}${more ? ` (${more})` : ''}: ${what}` : `not found: needed for ${SERVER_BINARIES[kind].needs}`,
      ...(bin ? {} : { fix: SERVER_BINARIES[kind].install }),
    });
  };
  found('chromedriver', 'Chromium over WebDriver', () => firstLine(`${findServerBinary('chromedriver', cwd)}`, ['--version']));
  found('webkit', 'WebKit and desktop apps', () =>
    miniBrowserPath() ? `MiniBrowser ${miniBrowserPath()}` : 'no MiniBrowser: engine webkit needs it',
  );
  found('tauri', 'Tauri desktop apps');
  const firefox = firefoxBinary();
  checks.push({
    name: 'firefox',
    ok: !!firefox,
    optional: true,
    detail: firefox ? `${firefox}: engine firefox (WebDriver BiDi)` : 'not found: needed for engine firefox',
    ...(firefox ? {} : { fix: 'apt-get install firefox-esr' }),
  });
  const xvfb = (process.env.PATH ?? '').split(':').some((d) => d && existsSync(`${d}/Xvfb`));
  checks.push({
    name: 'display',
    ok: !!process.env.DISPLAY || xvfb,
    optional: true,
    detail: process.env.DISPLAY
      ? `DISPLAY=${process.env.DISPLAY}`
      : xvfb
        ? 'no DISPLAY: WebKit runs under an Xvfb started for it'
        : 'no DISPLAY and no Xvfb: WebKit and desktop apps cannot open a window',
    ...(process.env.DISPLAY || xvfb ? {} : { fix: 'apt-get install xvfb' }),
  });
  return checks;
}

function firstLine(bin: string, args: string[]): string | undefined {
  try {
    // 5 s: a version query answers at once; a hung binary must not stall the doctor.
    return (
      execFileSync(bin, args, { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] })
        .split('\n')[0]
        ?.split(' (')[0]
        ?.trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** Node version, Chromium found, launchable and its version, a free loopback port, a writable out folder, and the WebDriver servers. */
export async function runDoctor(opts: { outDir?: string } = {}): Promise<{ ok: boolean; checks: DoctorCheck[] }> {
  const checks: DoctorCheck[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  checks.push({
    name: 'node',
    ok: major >= 20,
    detail: `Node ${process.versions.node}`,
    ...(major >= 20 ? {} : { fix: 'install Node.js 20 or newer' }),
  });

  let chromePath: string | undefined;
  try {
    const loc = findChrome();
    chromePath = loc.path;
    checks.push({ name: 'chromium found', ok: true, detail: `${loc.path} (from ${loc.source})` });
  } catch (e) {
    const pe = e as PerfError;
    checks.push({ name: 'chromium found', ok: false, detail: pe.message, ...(pe.suggestion ? { fix: pe.suggestion } : {}) });
  }
  if (chromePath) {
    try {
      const t0 = performance.now();
      const chrome = await launchChrome({ executablePath: chromePath });
      try {
        const browser = await Browser.launched(chrome);
        const product = browser.version.product;
        await browser.disconnect();
        checks.push({
          name: 'chromium launches',
          ok: true,
          detail: `${product} headless, DevTools over a pipe, ${Math.round(performance.now() - t0)}` + ` ms (${safeVersion(chromePath)})`,
        });
      } finally {
        await chrome.close();
      }
    } catch (e) {
      checks.push({
        name: 'chromium launches',
        ok: false,
        detail: (e as Error).message,
        fix: 'check the binary runs: `chromium --headless --no-sandbox --dump-dom about:blank`',
      });
    }
  } else {
    checks.push({ name: 'chromium launches', ok: false, detail: 'skipped: no Chromium found' });
  }

  try {
    const port = await new Promise<number>((res, rej) => {
      const srv = createServer();
      srv.once('error', rej);
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => res(p));
      });
    });
    checks.push({ name: 'loopback port', ok: true, detail: `127.0.0.1:${port} is free` });
  } catch (e) {
    checks.push({
      name: 'loopback port',
      ok: false,
      detail: `cannot bind 127.0.0.1: ${(e as Error).message}`,
      fix: 'check the loopback interface and firewall',
    });
  }

  checks.push(outFolderCheck(resolve(opts.outDir ?? 'build/perf')));
  checks.push(...webDriverChecks(process.cwd()));
  return { ok: checks.every((c) => c.ok || c.optional), checks };
}

/**
 * Whether a run could write into `outDir`, asked without writing: a check creates nothing (MCP's doctor is read-only).
 * The folder, or the nearest folder above it that exists, must be a writable directory outside /proc and /sys.
 */
function outFolderCheck(outDir: string): DoctorCheck {
  const fail = (why: string): DoctorCheck => ({
    name: 'out folder',
    ok: false,
    detail: `${outDir}: ${why}`,
    fix: 'pass a writable folder with --out',
  });
  if (/^\/(proc|sys)(\/|$)/.test(outDir)) return fail('it is inside a kernel file system (/proc, /sys)');
  for (let at = outDir; ; at = dirname(at)) {
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && dirname(at) !== at) continue;
      return fail(`${at}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (!isDir) return fail(`${at} is not a folder`);
    try {
      accessSync(at, constants.W_OK | constants.X_OK);
    } catch (e) {
      return fail(`${at} is not writable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    return { name: 'out folder', ok: true, detail: at === outDir ? `${outDir} is writable` : `${outDir} can be created in ${at}` };
  }
}

function safeVersion(path: string): string {
  try {
    return chromeVersion(path);
  } catch {
    return 'version unknown';
  }
}
