/**
 * The terminal program's process tree, read from /proc: which processes belong to it (for close and a
 * watchdog), their CPU time and peak memory (the process.* metrics), and signals to all of them.
 *
 * Membership: the pty's session (forkpty makes the program a session and group leader, so every
 * job it starts in the terminal shares its session id), plus any descendant that left the session
 * with setsid. A process is identified by pid and start time, so a recycled pid is never mistaken
 * for one of ours.
 */
import { writeFileSync } from 'node:fs';
import { descendantsOf, listProcStats, MS_PER_TICK, procStatusBytes, readProcStat, type ProcStat } from '../../proc-stat.js';

/**
 * The processes of the program started as session leader `leader`: its session, its group, and
 * descendants of any of them or of `known` (processes seen before, whose parent may have exited).
 * Zombies are left out: they hold no resources and cannot be signalled away.
 */
export function programTree(leader: number, known: ReadonlyMap<number, number> = new Map(), all = listProcStats() ?? []): ProcStat[] {
  const byPid = new Map(all.map((e) => [e.pid, e]));
  const member = new Set<number>();
  for (const e of all) {
    if (e.sid === leader || e.pgid === leader || e.pid === leader || known.get(e.pid) === e.startTicks) member.add(e.pid);
  }
  return [...descendantsOf(member, all)].flatMap((pid) => byPid.get(pid) ?? []).filter((e) => e.state !== 'Z' && e.state !== 'X');
}

/** Whether the process `pid` that started at `startTicks` still runs (a zombie does not). */
export function stillRuns(pid: number, startTicks: number): boolean {
  const e = readProcStat(pid);
  return !!e && e.startTicks === startTicks && e.state !== 'Z' && e.state !== 'X';
}

/** Send `sig` to a pid or, negative, a process group; false when there is no such process. */
export function sendSignal(target: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(target, sig);
    return true;
  } catch {
    return false;
  }
}

export interface ProcessUsage {
  /** When it was read, performance.now() ms. */
  atMs: number;
  /** CPU of the live tree: own time plus that of reaped children, ms (10 ms resolution). */
  cpuMs: number;
  /**
   * Peak resident memory, bytes: the larger of the biggest single process's VmHWM and the summed
   * VmRSS of the tree at this reading. Both are lower bounds of the tree's true peak, so it never
   * overstates; for a single-process program it is exactly its peak.
   */
  maxRssBytes: number;
  /** Resident memory of the tree now, bytes. */
  rssBytes: number;
  pids: number[];
}

/** CPU and memory of `tree` now. Read at two moments for a window: cpuMs subtracts, maxRssBytes is the later one. */
export function readUsage(tree: readonly ProcStat[], atMs: number): ProcessUsage {
  let cpuTicks = 0;
  let maxHwm = 0;
  let rss = 0;
  for (const e of tree) {
    // Re-read: the entry may be from an earlier listing.
    const now = readProcStat(e.pid);
    if (!now || now.startTicks !== e.startTicks) continue;
    cpuTicks += now.cpuTicks;
    maxHwm = Math.max(maxHwm, procStatusBytes(e.pid, 'VmHWM'));
    rss += procStatusBytes(e.pid, 'VmRSS');
  }
  return { atMs, cpuMs: cpuTicks * MS_PER_TICK, maxRssBytes: Math.max(maxHwm, rss), rssBytes: rss, pids: tree.map((e) => e.pid) };
}

/** Reset each process's peak RSS to its current RSS (clear_refs 5, Linux 4.0+), so a window measures its own peak. */
export function resetPeakRss(tree: readonly ProcStat[]): void {
  for (const e of tree) {
    try {
      writeFileSync(`/proc/${e.pid}/clear_refs`, '5');
    } catch {
      // Gone, or a kernel without it: the peak then covers the process's whole life.
    }
  }
}
