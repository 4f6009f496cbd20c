/**
 * The terminal program's process tree, read from /proc: which processes belong to it (for close and a
 * watchdog), their CPU time and peak memory (the process.* metrics), and signals to all of them.
 *
 * Membership: the pty's session (forkpty makes the program a session and group leader, so every
 * job it starts in the terminal shares its session id), plus any descendant that left the session
 * with setsid. A process is identified by pid and start time, so a recycled pid is never mistaken
 * for one of ours.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

// Linux reports utime/stime in clock ticks of 1/100 s on every mainstream kernel config (USER_HZ).
export const MS_PER_TICK = 10;
// A loop of ppid links longer than this is a /proc race (pids recycled mid-read), not a real tree.
const MAX_TREE_DEPTH = 64;

export interface ProcEntry {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** One letter: R running, S sleeping, T stopped, Z zombie… */
  state: string;
  /** Start time in ticks since boot: with the pid, the identity of a process. */
  startTicks: number;
  /** utime + stime + cutime + cstime: its own CPU and that of the children it has reaped. */
  cpuTicks: number;
}

export function readEntry(pid: number): ProcEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself hold spaces and parentheses: split after the last one.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Field numbers of proc(5) minus 3: state is field 3, utime 14, stime 15, cutime 16, cstime 17, starttime 22.
  return {
    pid,
    state: f[0] ?? '?',
    ppid: Number(f[1]),
    pgid: Number(f[2]),
    sid: Number(f[3]),
    cpuTicks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
    startTicks: Number(f[19]),
  };
}

/** Every process visible in /proc, or undefined where there is no /proc (not Linux). */
export function listProcesses(): ProcEntry[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const out: ProcEntry[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const e = readEntry(Number(n));
    if (e) out.push(e);
  }
  return out;
}

/**
 * The processes of the program started as session leader `leader`: its session, its group, and
 * descendants of any of them or of `known` (processes seen before, whose parent may have exited).
 * Zombies are left out: they hold no resources and cannot be signalled away.
 */
export function programTree(leader: number, known: ReadonlyMap<number, number> = new Map(), all = listProcesses() ?? []): ProcEntry[] {
  const byPid = new Map(all.map((e) => [e.pid, e]));
  const member = new Set<number>();
  for (const e of all) {
    if (e.sid === leader || e.pgid === leader || e.pid === leader || known.get(e.pid) === e.startTicks) member.add(e.pid);
  }
  for (const e of all) {
    if (member.has(e.pid)) continue;
    for (let p = e.ppid, hops = 0; p > 1 && hops < MAX_TREE_DEPTH; p = byPid.get(p)?.ppid ?? 0, hops++) {
      if (member.has(p)) {
        member.add(e.pid);
        break;
      }
    }
  }
  return [...member].map((pid) => byPid.get(pid)!).filter((e) => e.state !== 'Z' && e.state !== 'X');
}

/** Whether the process `pid` that started at `startTicks` still runs (a zombie does not). */
export function stillRuns(pid: number, startTicks: number): boolean {
  const e = readEntry(pid);
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

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU and memory of `tree` now. Read at two moments for a window: cpuMs subtracts, maxRssBytes is the later one. */
export function readUsage(tree: readonly ProcEntry[], atMs: number): ProcessUsage {
  let cpuTicks = 0;
  let maxHwm = 0;
  let rss = 0;
  for (const e of tree) {
    // Re-read: the entry may be from an earlier listing.
    const now = readEntry(e.pid);
    if (!now || now.startTicks !== e.startTicks) continue;
    cpuTicks += now.cpuTicks;
    maxHwm = Math.max(maxHwm, statusKb(e.pid, 'VmHWM'));
    rss += statusKb(e.pid, 'VmRSS');
  }
  return { atMs, cpuMs: cpuTicks * MS_PER_TICK, maxRssBytes: Math.max(maxHwm, rss), rssBytes: rss, pids: tree.map((e) => e.pid) };
}

/** Reset each process's peak RSS to its current RSS (clear_refs 5, Linux 4.0+), so a window measures its own peak. */
export function resetPeakRss(tree: readonly ProcEntry[]): void {
  for (const e of tree) {
    try {
      writeFileSync(`/proc/${e.pid}/clear_refs`, '5');
    } catch {
      // Gone, or a kernel without it: the peak then covers the process's whole life.
    }
  }
}
