/**
 * A mark in a program's environment (REHEARSE_RUN=<random token>) that every process it starts
 * inherits, wherever it moves: a child that double-forks and calls setsid leaves the program's
 * session, process group and parentage, but keeps its environment. Sweeping /proc/PID/environ for the
 * exact entry finds them all, so closing a terminal program (and the watchdog, when the harness is
 * killed) can end them. Linux only: elsewhere there is no /proc and a sweep finds nothing.
 *
 * Node builtins only: the watchdog imports this, and must start in a few milliseconds.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

export const MARK_NAME = 'REHEARSE_RUN';
// 12 random bytes, 24 hex characters: no two runs on one machine draw the same, nothing guesses it.
const MARK_BYTES = 12;
// A sweep repeats while it still finds marked processes (one may fork while we kill): 20 ms is a
// few scheduler slices, so a freshly killed process is gone by the next look.
const SWEEP_POLL_MS = 20;

/** A fresh mark: `entry` is the exact `NAME=value` string a marked process's environment holds. */
export function newProcessMark(): { name: string; value: string; entry: string } {
  const value = randomBytes(MARK_BYTES).toString('hex');
  return { name: MARK_NAME, value, entry: `${MARK_NAME}=${value}` };
}

/** Whether `entry` is one of the NUL-separated `NAME=value` entries of an environ file. */
function holds(environ: Buffer, entry: Buffer): boolean {
  for (let at = environ.indexOf(entry); at >= 0; at = environ.indexOf(entry, at + 1)) {
    const starts = at === 0 || environ[at - 1] === 0;
    const ends = at + entry.length === environ.length || environ[at + entry.length] === 0;
    if (starts && ends) return true;
  }
  return false;
}

/**
 * The pids whose environment holds `entry` exactly. Processes we may not read (another user's) and
 * zombies (their environ reads as an error) are skipped; no /proc (not Linux): none.
 */
export function markedPids(entry: string): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = Buffer.from(entry);
  const out: number[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n) || Number(n) === process.pid) continue;
    try {
      if (holds(readFileSync(`/proc/${n}/environ`), needle)) out.push(Number(n));
    } catch {
      // Gone since the listing, a zombie, or not ours to read.
    }
  }
  return out;
}

/** Send `sig` to every process holding `entry`; the pids it was sent to. */
export function signalMarked(entry: string, sig: NodeJS.Signals): number[] {
  const pids = markedPids(entry);
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // Exited since the sweep.
    }
  }
  return pids;
}

/**
 * SIGKILL every process holding `entry`, sweeping again until a sweep finds none or `budgetMs` has
 * passed (a process may fork between our read and our kill). Resolves with the pids still marked.
 */
export async function killMarked(entry: string, budgetMs: number): Promise<number[]> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const found = signalMarked(entry, 'SIGKILL');
    if (found.length === 0) return [];
    if (Date.now() >= deadline) return markedPids(entry);
    await new Promise((resolve) => setTimeout(resolve, SWEEP_POLL_MS));
  }
}
