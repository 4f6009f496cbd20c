/**
 * Watchdog: started by processes.ts with a pipe from the harness. Lines "+PID g|p" add a process,
 * "-PID" removes one; "+d PATH" / "-d PATH" add or remove a folder (a browser profile). When the
 * pipe closes (the harness exited or was killed, even with SIGKILL), everything still listed is
 * killed, then the folders are removed; "+u URL" / "-u URL": a remote browser session (Selenium Grid)
 * to end with an HTTP DELETE of URL; "+e NAME=VALUE" / "-e NAME=VALUE": a terminal program's
 * environment mark, whose every process (double-forked and setsid'd ones included, found in
 * /proc/PID/environ) is ended with the tracked ones. Kept dependency-free (node builtins and
 * src/process-mark.ts) so it starts in a few ms.
 */
import { rmSync } from 'node:fs';
import { killMarked, markedPids, signalMarked } from './process-mark.js';

const tracked = new Map<number, boolean>();
const folders = new Set<string>();
const remoteSessions = new Set<string>();
const marks = new Set<string>();
let buffer = '';

function kill(pid: number, group: boolean, sig: NodeJS.Signals): void {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** After the processes: Chromium writes its profile until it is gone. */
function removeFolders(): void {
  for (const dir of folders) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
    } catch {
      /* best effort: the next launch sweeps what is left */
    }
  }
}

// After the grace, marked processes are swept with SIGKILL for up to 2 s: any that forked meanwhile
// are found by the next sweep, and a stop waiting on us (2 s, then SIGKILL) is not held much longer.
const MARK_KILL_BUDGET_MS = 2000;

// 30 s per DELETE: on a loaded node chromedriver takes seconds to quit Chromium; a session left
// behind would hold its Grid slot for the Grid's own timeout (300 s by default). Tried twice.
const REMOTE_DELETE_TIMEOUT_MS = 30_000;
const REMOTE_DELETE_TRIES = 2;

/** DELETE a session URL; credentials in it (a cloud Grid) go as Basic auth, as fetch refuses them in the URL. */
async function deleteSession(url: string): Promise<void> {
  const u = new URL(url);
  const auth =
    u.username || u.password
      ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`
      : undefined;
  u.username = '';
  u.password = '';
  for (let i = 0; i < REMOTE_DELETE_TRIES; i++) {
    try {
      const res = await fetch(u.href, {
        method: 'DELETE',
        headers: auth ? { authorization: auth } : {},
        signal: AbortSignal.timeout(REMOTE_DELETE_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      return;
    } catch {
      /* no answer: once more */
    }
  }
}

function done(): void {
  removeFolders();
  if (!remoteSessions.size) process.exit(0);
  void Promise.allSettled([...remoteSessions].map(deleteSession)).then(() => process.exit(0));
}

let reaping = false;
function reap(): void {
  if (reaping) return;
  reaping = true;
  for (const [pid, group] of tracked) kill(pid, group, 'SIGTERM');
  for (const entry of marks) signalMarked(entry, 'SIGTERM');
  // Exit as soon as everything tracked is gone (a stop waits for us), forcing what is left after
  // 1 s of grace for Chromium to exit cleanly; polled every 25 ms.
  const started = Date.now();
  const poll = (): void => {
    const left = [...tracked.keys()].filter(alive);
    if (left.length === 0 && [...marks].every((entry) => markedPids(entry).length === 0)) return done();
    if (Date.now() - started >= 1000) {
      for (const [pid, group] of tracked) kill(pid, group, 'SIGKILL');
      // A killed process is gone once the kernel reaps it: a moment, then its folders can go.
      void Promise.all([...marks].map((entry) => killMarked(entry, MARK_KILL_BUDGET_MS))).then(() => setTimeout(done, 100));
      return;
    }
    setTimeout(poll, 25);
  };
  poll();
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffer += chunk;
  let nl: number;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    if (line.startsWith('+e ')) {
      marks.add(line.slice(3));
    } else if (line.startsWith('-e ')) {
      marks.delete(line.slice(3));
    } else if (line.startsWith('+u ')) {
      remoteSessions.add(line.slice(3));
    } else if (line.startsWith('-u ')) {
      remoteSessions.delete(line.slice(3));
    } else if (line.startsWith('+d ')) {
      folders.add(line.slice(3));
    } else if (line.startsWith('-d ')) {
      folders.delete(line.slice(3));
    } else if (line.startsWith('+')) {
      const [pid, mode] = line.slice(1).split(' ');
      tracked.set(Number(pid), mode === 'g');
    } else if (line.startsWith('-')) {
      tracked.delete(Number(line.slice(1)));
    }
  }
});
process.stdin.on('end', reap);
process.stdin.on('error', reap);
// A stop (perf stop) that signals us: clean up as when the harness goes, the folders included.
process.on('SIGTERM', reap);
// Ignore the terminal's Ctrl-C: the harness handles it, and we must outlive it to clean up.
process.on('SIGINT', () => undefined);
