/**
 * No orphans: every process the harness spawns (Chromium, an app command) is tracked here and ends
 * when the harness ends — on a normal exit, an uncaught crash, SIGINT/SIGTERM, and even SIGKILL.
 *
 * The SIGKILL case cannot be handled in-process, so a tiny watchdog process holds a pipe to us:
 * when our end closes (whatever killed us), it kills what we told it about. Processes that must
 * outlive the CLI on purpose (a `perf start` session) are simply not tracked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { signalMarked } from './process-mark.js';
import { readProcStat } from './proc-stat.js';

interface Tracked {
  pid: number;
  /** Spawned with `detached: true`, so `-pid` addresses its whole process group. */
  group: boolean;
}

const tracked = new Map<number, Tracked>();
/** Environment marks (`REHEARSE_RUN=<token>`) of terminal programs: their processes die with the harness. */
const marks = new Set<string>();
let watchdog: ChildProcess | undefined;
let exitHookInstalled = false;
const cleanups = new Set<() => Promise<void> | void>();

function watchdogSend(line: string): void {
  if (!watchdog) {
    const script = fileURLToPath(new URL('./watchdog.js', import.meta.url));
    watchdog = spawn(process.execPath, [script, String(process.pid)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    watchdog.unref();
    // The pipe must not keep the event loop alive either, or `perf` would never exit by itself.
    const stdin = watchdog.stdin as unknown as { unref?: () => void; _handle?: { unref?: () => void } };
    stdin._handle?.unref?.();
    watchdog.stdin?.on('error', () => undefined);
    watchdog.on('error', () => undefined);
  }
  watchdog.stdin?.write(line + '\n');
}

/** The pid of this process's watchdog, once one runs: a session records it so a stop can wait for it. */
export function watchdogPid(): number | undefined {
  return watchdog?.pid;
}

/** Send a signal to a pid (or its group), ignoring "no such process". Returns whether it was delivered. */
export function signal(pid: number, sig: NodeJS.Signals, group = false): boolean {
  try {
    process.kill(group ? -pid : pid, sig);
    return true;
  } catch {
    if (group) {
      try {
        process.kill(pid, sig);
        return true;
      } catch {
        return false;
      }
    }
    return false;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM means it exists but belongs to someone else: still alive.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie answers kill(0) but is dead. Containers whose PID 1 never reaps orphans keep them
  // around indefinitely, so read the state letter from /proc where there is one.
  const state = readProcStat(pid)?.state;
  return state !== 'Z' && state !== 'X';
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: process.kill is, so everything tracked gets SIGKILL here.
  process.on('exit', () => {
    for (const t of tracked.values()) signal(t.pid, 'SIGKILL', t.group);
    // One synchronous sweep; the watchdog sweeps again once our pipe closes.
    for (const entry of marks) signalMarked(entry, 'SIGKILL');
  });
}

/** Track a spawned process so it dies with the harness. Returns a function that stops tracking it. */
export function trackProcess(pid: number, opts: { group: boolean }): () => void {
  installExitHook();
  tracked.set(pid, { pid, group: opts.group });
  watchdogSend(`+${pid} ${opts.group ? 'g' : 'p'}`);
  return () => untrackProcess(pid);
}

/**
 * A folder (a browser profile) to remove if the harness dies without removing it itself: the
 * watchdog removes it once the tracked processes are gone. Returns a function that stops tracking it.
 */
export function trackFolder(path: string): () => void {
  // A path with a line break would split the watchdog's line protocol: such a folder is not tracked.
  if (/[\r\n]/.test(path)) return () => undefined;
  watchdogSend(`+d ${path}`);
  return () => watchdogSend(`-d ${path}`);
}

/**
 * A remote browser session (a Selenium Grid session URL) the watchdog ends with an HTTP DELETE if the
 * harness dies without ending it (a crash, SIGKILL). Returns a function that stops tracking it.
 */
export function trackRemoteSession(url: string): () => void {
  if (/[\r\n]/.test(url)) return () => undefined;
  watchdogSend(`+u ${url}`);
  return () => watchdogSend(`-u ${url}`);
}

/**
 * A terminal program's environment mark (`NAME=value`, see src/process-mark.ts): if the harness ends
 * without closing the program (a crash, SIGKILL), every process carrying it is killed, those that
 * double-forked out of its session included (by the exit hook, and by the watchdog). Linux only.
 * Returns a function that stops tracking it.
 */
export function trackEnvMark(entry: string): () => void {
  // One line of the watchdog's protocol, and an exact NAME=value environ entry.
  if (/[\r\n\0]/.test(entry) || !/^[^=]+=./.test(entry)) return () => undefined;
  installExitHook();
  marks.add(entry);
  watchdogSend(`+e ${entry}`);
  return () => {
    if (marks.delete(entry)) watchdogSend(`-e ${entry}`);
  };
}

export function untrackProcess(pid: number): void {
  if (tracked.delete(pid)) watchdogSend(`-${pid}`);
}

/**
 * Terminate a process (tree): SIGTERM, then SIGKILL after `graceMs` if it is still there.
 * Resolves once the process is gone.
 */
export async function terminate(pid: number, opts: { group: boolean; graceMs?: number }): Promise<void> {
  // 2 s: long enough for Chromium or a dev server to flush and exit, short enough not to stall a stop.
  const graceMs = opts.graceMs ?? 2000;
  if (!signal(pid, 'SIGTERM', opts.group)) {
    untrackProcess(pid);
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(25);
  if (isAlive(pid) || opts.group) signal(pid, 'SIGKILL', opts.group);
  while (isAlive(pid) && Date.now() < deadline + 1000) await sleep(25);
  untrackProcess(pid);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Register async cleanup to run on SIGINT/SIGTERM before the process exits. */
export function onShutdown(fn: () => Promise<void> | void): () => void {
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

/**
 * Run synchronous native work (a SQLite statement) under the default action of SIGINT and SIGTERM. A JS handler runs
 * only when the event loop gets control, which a statement holds until it returns: a long one ignored SIGTERM (a history
 * whose view ran a 10^10-step query needed SIGKILL). The default action ends the process at once, as the exit code a
 * handler gives (130/143); the watchdog reaps what it started, as after a SIGKILL.
 */
export function withDefaultSignals<T>(work: () => T): T {
  const saved = (['SIGINT', 'SIGTERM'] as const).map((sig) => {
    const listeners = process.rawListeners(sig) as ((...a: unknown[]) => void)[];
    process.removeAllListeners(sig);
    return { sig, listeners };
  });
  try {
    return work();
  } finally {
    for (const { sig, listeners } of saved) for (const l of listeners) process.on(sig, l);
  }
}

let signalsInstalled = false;
/**
 * Make SIGINT/SIGTERM run the registered cleanups (bounded in time), then exit 130/143.
 * `onSignal` runs first, synchronously, so a runner can mark its run as interrupted.
 */
export function installSignalHandlers(onSignal?: (sig: NodeJS.Signals) => void): void {
  if (signalsInstalled) return;
  signalsInstalled = true;
  let shuttingDown = false;
  const handler = (sig: NodeJS.Signals): void => {
    if (shuttingDown) {
      // A second Ctrl-C means "now": kill what is tracked and leave.
      process.exit(sig === 'SIGINT' ? 130 : 143);
    }
    shuttingDown = true;
    onSignal?.(sig);
    // 5 s: enough to write a run file and stop Chromium; beyond that the user wants out.
    const hardStop = setTimeout(() => process.exit(sig === 'SIGINT' ? 130 : 143), 5000);
    hardStop.unref();
    void Promise.allSettled([...cleanups].map((fn) => fn())).then(() => process.exit(sig === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
