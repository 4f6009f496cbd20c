/**
 * A process as Linux's /proc/<pid>/stat tells it, parsed in one place for every reader: the terminal
 * driver's process tree, a WebDriver browser's content processes, the host's CPU used by other jobs and
 * the zombie check of the process tracker.
 */
import { readdirSync, readFileSync } from 'node:fs';

// Linux reports utime/stime in clock ticks of 1/100 s on every mainstream kernel config (USER_HZ).
export const MS_PER_TICK = 10;

export interface ProcStat {
  pid: number;
  /** The command name, cut by the kernel to 15 characters. */
  comm: string;
  /** One letter: R running, S sleeping, T stopped, Z zombie… */
  state: string;
  ppid: number;
  pgid: number;
  sid: number;
  /** Start time in ticks since boot: with the pid, the identity of a process (a recycled pid starts later). */
  startTicks: number;
  /** utime + stime: the CPU of the process itself. */
  ownTicks: number;
  /** utime + stime + cutime + cstime: its own CPU and that of the children it has reaped. */
  cpuTicks: number;
}

/** One /proc/<pid>/stat line; undefined when it does not parse. */
export function parseProcStat(pid: number, line: string): ProcStat | undefined {
  // The command name (field 2) is in parentheses and may hold spaces or parentheses: the fields follow the last ')'.
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  // Field numbers of proc(5) minus 3: state is field 3, ppid 4, pgrp 5, session 6, utime 14, stime 15, cutime 16,
  // cstime 17, starttime 22.
  const f = line.slice(close + 2).split(' ');
  const at = (i: number): number => Number(f[i]);
  const [ppid, pgid, sid, startTicks] = [at(1), at(2), at(3), at(19)];
  const [ownTicks, childTicks] = [at(11) + at(12), at(13) + at(14)];
  if (![ppid, pgid, sid, startTicks, ownTicks, childTicks].every(Number.isFinite)) return undefined;
  const comm = line.slice(open + 1, close);
  return { pid, comm, state: f[0] || '?', ppid, pgid, sid, startTicks, ownTicks, cpuTicks: ownTicks + childTicks };
}

/** The process `pid` now; undefined when it is gone (or there is no /proc). */
export function readProcStat(pid: number): ProcStat | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return parseProcStat(pid, line);
}

/** A memory figure of `pid` from /proc/<pid>/status (peak or current resident set), bytes; 0 when gone. */
export function procStatusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Every process visible in /proc, or undefined where there is no /proc (macOS, Windows). */
export function listProcStats(): ProcStat[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const out: ProcStat[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    // A process that exited since the listing has no stat: it is simply not listed.
    const e = readProcStat(Number(n));
    if (e) out.push(e);
  }
  return out;
}

/**
 * `roots` and every process below one of them, among `procs`: one walk down the parent links. A pid recycled
 * mid-read can make the links a loop; each process is visited once, so the walk still ends.
 */
export function descendantsOf(roots: Iterable<number>, procs: readonly ProcStat[]): Set<number> {
  const children = new Map<number, number[]>();
  for (const p of procs) {
    const siblings = children.get(p.ppid);
    if (siblings) siblings.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const out = new Set<number>();
  const todo = [...roots];
  while (todo.length) {
    const pid = todo.pop()!;
    if (out.has(pid)) continue;
    out.add(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}
