/**
 * WebDriver servers this harness starts and stops itself, on a free 127.0.0.1 port: chromedriver
 * (Debian chromium-driver) and WebKitWebDriver (Debian webkit2gtk-driver, driving the WebKitGTK
 * MiniBrowser). WebKit needs a display: without DISPLAY an Xvfb is started for it, on a free
 * display number, and stopped with the server. Each runs in its own process group, killed whole.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { PerfError } from '../../errors.js';
import { serverReady } from './client.js';

export type WebDriverServerKind = 'chromedriver' | 'webkit';

export interface WebDriverServer {
  kind: WebDriverServerKind;
  endpoint: string;
  /** Process ids this server runs (the server, and Xvfb when one was started), for the watchdog. */
  pids: number[];
  /** The last lines the server wrote, for errors and `perf logs`. */
  logTail(): string;
  close(): Promise<void>;
}

const BINARIES: Record<WebDriverServerKind, { bin: string; install: string }> = {
  chromedriver: { bin: 'chromedriver', install: 'apt-get install chromium-driver' },
  webkit: { bin: 'WebKitWebDriver', install: 'apt-get install webkit2gtk-driver xvfb' },
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

export function findServerBinary(kind: WebDriverServerKind): string | undefined {
  const { bin } = BINARIES[kind];
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir && existsSync(`${dir}/${bin}`)) return `${dir}/${bin}`;
  return undefined;
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
  throw new PerfError({ code: 'xvfb_failed', kind: 'environment', message: 'could not start Xvfb for WebKit (no free display between :90 and :140)', suggestion: 'set DISPLAY to a running X server, or install xvfb' });
}

/** Start `kind` on a free loopback port and wait until it answers /status. */
export async function startWebDriverServer(kind: WebDriverServerKind): Promise<WebDriverServer> {
  const bin = findServerBinary(kind);
  if (!bin) {
    throw new PerfError({ code: 'webdriver_missing', kind: 'environment', message: `${BINARIES[kind].bin} is not installed (needed for ${kind === 'webkit' ? 'engine: webkit' : 'driver: webdriver with Chromium'})`, suggestion: `install it: ${BINARIES[kind].install}` });
  }
  const xvfb = kind === 'webkit' && !process.env.DISPLAY ? await startXvfb() : undefined;
  const port = await freePort();
  const args = kind === 'chromedriver' ? [`--port=${port}`, '--allowed-ips=127.0.0.1', '--log-level=WARNING'] : [`--port=${port}`, '--host=local'];
  const env = { ...process.env, ...(xvfb ? { DISPLAY: xvfb.display } : {}) };
  const proc = spawn(bin, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  proc.unref();
  let tail = '';
  const keep = (d: Buffer): void => {
    tail = (tail + d.toString()).slice(-LOG_TAIL_BYTES);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const endpoint = `http://127.0.0.1:${port}`;
  const close = async (): Promise<void> => {
    await killGroup(proc);
    if (xvfb) await killGroup(xvfb.proc);
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await serverReady(endpoint))) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new PerfError({ code: 'webdriver_start_failed', kind: 'environment', message: `${BINARIES[kind].bin} did not start on ${endpoint}${proc.exitCode !== null ? ` (exit ${proc.exitCode})` : ''}: ${tail.trim().split('\n').pop() ?? 'no output'}` });
    }
    await new Promise((r) => setTimeout(r, START_POLL_MS));
  }
  return { kind, endpoint, pids: [proc.pid!, ...(xvfb?.proc.pid ? [xvfb.proc.pid] : [])], logTail: () => tail, close };
}
