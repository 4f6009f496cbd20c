/**
 * WebDriver servers this harness starts and stops itself, on a free 127.0.0.1 port: chromedriver
 * (Debian chromium-driver), WebKitWebDriver (Debian webkit2gtk-driver, driving the WebKitGTK
 * MiniBrowser or a WebKitGTK app) and tauri-driver (which on Linux rewrites `tauri:options` into
 * WebKitWebDriver's options and forwards to a WebKitWebDriver it starts). WebKit needs a display:
 * without DISPLAY an Xvfb is started for it, on a free display number, and stopped with the server.
 * Each runs in its own process group, killed whole (tauri-driver's WebKitWebDriver and the app with it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PerfError } from '../../errors.js';
import { findExecutable, isExecutable, openLogNoFollow } from '../../files.js';
import { serverReady } from './client.js';

export type WebDriverServerKind = 'chromedriver' | 'webkit' | 'tauri';

export interface WebDriverServer {
  kind: WebDriverServerKind;
  endpoint: string;
  /** Process ids this server runs (the server, and Xvfb when one was started), for the watchdog. */
  pids: number[];
  /** The last lines the server wrote, for errors and `perf logs`. */
  logTail(): string;
  close(): Promise<void>;
}

export const SERVER_BINARIES: Record<WebDriverServerKind, { bin: string; install: string; needs: string }> = {
  chromedriver: { bin: 'chromedriver', install: 'apt-get install chromium-driver', needs: 'driver: webdriver with Chromium' },
  webkit: {
    bin: 'WebKitWebDriver',
    install: 'apt-get install webkit2gtk-driver xvfb',
    needs: 'engine: webkit and app.desktop with driver webkit',
  },
  tauri: {
    bin: 'tauri-driver',
    install: 'cargo install tauri-driver (or npm install --save-dev @crabnebula/tauri-driver), and apt-get install webkit2gtk-driver xvfb',
    needs: 'app.desktop with driver tauri',
  },
};
// 20 s: WebKitWebDriver answers /status within a second; a loaded 2-core machine can take several.
const START_TIMEOUT_MS = 20_000;
// Poll /status this often while the server starts.
const START_POLL_MS = 50;
// 4 KB of server output kept for error messages: the last few lines are what explain a failure.
const LOG_TAIL_BYTES = 4096;
// Xvfb display numbers tried, above the ones a desktop or CI usually takes.
const FIRST_DISPLAY = 90;
const LAST_DISPLAY = 140;

/** The MiniBrowser WebKitWebDriver drives by default, where Debian and Ubuntu put it. */
export function miniBrowserPath(): string | undefined {
  for (const api of ['webkit2gtk-4.1', 'webkit2gtk-4.0', 'webkitgtk-6.0']) {
    const p = `/usr/lib/x86_64-linux-gnu/${api}/MiniBrowser`;
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** tauri-driver from npm: the project's own (in `cwd` or above), else the native build this harness installs. */
function npmTauriDriver(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const bin = join(dir, 'node_modules', '.bin', 'tauri-driver');
    if (isExecutable(bin)) return bin;
    if (dirname(dir) === dir) break;
  }
  // Ours: the native build from npm (an optional dependency, Linux x64), run by a small Node entry.
  try {
    createRequire(import.meta.url).resolve('@crabnebula/tauri-driver-linux-x64-gnu');
    return fileURLToPath(new URL('./tauri-driver-main.js', import.meta.url));
  } catch {
    return undefined;
  }
}

/**
 * Where `kind`'s server binary is: $TAURI_DRIVER for tauri-driver, then PATH, then (tauri-driver
 * only) the npm package. A path ending in .js is a Node script.
 */
export function findServerBinary(kind: WebDriverServerKind, cwd = process.cwd()): string | undefined {
  if (kind === 'tauri' && process.env.TAURI_DRIVER)
    return isExecutable(process.env.TAURI_DRIVER) || process.env.TAURI_DRIVER.endsWith('.js') ? process.env.TAURI_DRIVER : undefined;
  return findExecutable(SERVER_BINARIES[kind].bin) ?? (kind === 'tauri' ? npmTauriDriver(cwd) : undefined);
}

function missing(kind: WebDriverServerKind): PerfError {
  const { bin, install, needs } = SERVER_BINARIES[kind];
  return new PerfError({
    code: 'webdriver_missing',
    kind: 'environment',
    message: `${bin} is not installed (needed for ${needs})`,
    suggestion: `install it: ${install}`,
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function killGroup(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null || p.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      resolve();
    }, 2000);
    p.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-p.pid!, 'SIGTERM');
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

/** An Xvfb on a free display; resolves once the display accepts connections. */
async function startXvfb(): Promise<{ display: string; proc: ChildProcess }> {
  for (let n = FIRST_DISPLAY; n <= LAST_DISPLAY; n++) {
    if (existsSync(`/tmp/.X${n}-lock`) || existsSync(`/tmp/.X11-unix/X${n}`)) continue;
    const proc = spawn('Xvfb', [`:${n}`, '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { detached: true, stdio: 'ignore' });
    proc.unref();
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline && proc.exitCode === null) {
      if (existsSync(`/tmp/.X11-unix/X${n}`)) return { display: `:${n}`, proc };
      await new Promise((r) => setTimeout(r, START_POLL_MS));
    }
    await killGroup(proc);
  }
  throw new PerfError({
    code: 'xvfb_failed',
    kind: 'environment',
    message: 'could not start Xvfb for WebKit (no free display between :90 and :140)',
    suggestion: 'set DISPLAY to a running X server, or install xvfb',
  });
}

async function serverArgs(kind: WebDriverServerKind, port: number): Promise<string[]> {
  switch (kind) {
    case 'chromedriver':
      return [`--port=${port}`, '--allowed-ips=127.0.0.1', '--log-level=WARNING'];
    case 'webkit':
      return [`--port=${port}`, '--host=local'];
    case 'tauri': {
      const native = findServerBinary('webkit');
      if (!native) throw missing('webkit');
      return ['--port', String(port), '--native-port', String(await freePort()), '--native-host', '127.0.0.1', '--native-driver', native];
    }
  }
}

/**
 * Start `kind` on a free loopback port and wait until it answers /status. `logFile`: where the
 * server's output is also appended (a `perf start` session shows it in `perf logs`).
 */
export async function startWebDriverServer(
  kind: WebDriverServerKind,
  opts: { cwd?: string; logFile?: string } = {},
): Promise<WebDriverServer> {
  const bin = findServerBinary(kind, opts.cwd);
  if (!bin) throw missing(kind);
  // Opened before anything starts: a link planted at the log is refused with nothing left running.
  const log = opts.logFile
    ? createWriteStream(opts.logFile, { fd: openLogNoFollow(opts.logFile, 'webdriver log') }).on('error', () => undefined)
    : undefined;
  const port = await freePort();
  const args = await serverArgs(kind, port);
  const xvfb = kind !== 'chromedriver' && !process.env.DISPLAY ? await startXvfb() : undefined;
  const env = { ...process.env, ...(xvfb ? { DISPLAY: xvfb.display } : {}) };
  // tauri-driver from npm is a Node script: run it with this Node, whatever PATH says.
  const [file, argv] = bin.endsWith('.js') ? [process.execPath, [bin, ...args]] : [bin, args];
  const proc = spawn(file, argv, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  proc.unref();
  let tail = '';
  const keep = (d: Buffer): void => {
    // tauri-driver colours its log: the escapes would only garble an error message.
    const text = d.toString().replace(/\x1b\[[0-9;]*m/g, '');
    tail = (tail + text).slice(-LOG_TAIL_BYTES);
    log?.write(text);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const endpoint = `http://127.0.0.1:${port}`;
  const close = async (): Promise<void> => {
    await killGroup(proc);
    if (xvfb) await killGroup(xvfb.proc);
    log?.end();
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await serverReady(endpoint))) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new PerfError({
        code: 'webdriver_start_failed',
        kind: 'environment',
        message:
          `${SERVER_BINARIES[kind].bin} did not start on ${endpoint}${proc.exitCode !== null ? ` (exit ${proc.exitCode})` : ''}` +
          `: ${tail.trim().split('\n').pop() ?? 'no output'}`,
      });
    }
    await new Promise((r) => setTimeout(r, START_POLL_MS));
  }
  return { kind, endpoint, pids: [proc.pid!, ...(xvfb?.proc.pid ? [xvfb.proc.pid] : [])], logTail: () => tail, close };
}
