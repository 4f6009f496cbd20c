/**
 * CPU and memory of a browser's web content processes, read from /proc when the WebDriver server
 * runs on this machine (the harness started it): WebKit's WebKitWebProcess, Chromium's renderers.
 * WebDriver itself has no such numbers; these are the process.* metrics of DESIGN.md.
 */
import { readdirSync, readFileSync } from 'node:fs';

// Linux reports utime/stime in clock ticks of 1/100 s on every mainstream kernel config (USER_HZ).
const MS_PER_TICK = 10;

export interface ContentProcess {
  pid: number;
  /** utime + stime, ms. */
  cpuMs: number;
  /** Peak resident set (VmHWM), bytes. */
  maxRssBytes: number;
}

interface ProcEntry {
  ppid: number;
  comm: string;
  cpuMs: number;
}

function readEntry(pid: number): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    // Fields after the command name: state ppid … utime (14th field overall) stime (15th).
    const f = stat.slice(close + 2).split(' ');
    return { ppid: Number(f[1]), comm: stat.slice(stat.indexOf('(') + 1, close), cpuMs: (Number(f[11]) + Number(f[12])) * MS_PER_TICK };
  } catch {
    return undefined;
  }
}

function isContentProcess(pid: number, comm: string): boolean {
  // comm is cut to 15 characters: WebKitWebProcess reads as WebKitWebProces.
  if (comm.startsWith('WebKitWebProces')) return true;
  if (!/chrom/i.test(comm)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
  } catch {
    return false;
  }
}

function maxRss(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The web content processes under `rootPid` (the WebDriver server), or undefined where /proc is not readable. */
export function contentProcesses(rootPid: number): ContentProcess[] | undefined {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return undefined;
  }
  const entries = new Map<number, ProcEntry>();
  for (const pid of pids) {
    const e = readEntry(pid);
    if (e) entries.set(pid, e);
  }
  const under = (pid: number): boolean => {
    for (let p = entries.get(pid)?.ppid, hops = 0; p !== undefined && p > 1 && hops < 64; p = entries.get(p)?.ppid, hops++)
      if (p === rootPid) return true;
    return false;
  };
  const out: ContentProcess[] = [];
  for (const [pid, e] of entries)
    if (isContentProcess(pid, e.comm) && under(pid)) out.push({ pid, cpuMs: e.cpuMs, maxRssBytes: maxRss(pid) });
  return out;
}

/**
 * CPU spent by content processes between two readings: a process present in both counts its
 * difference, one that started in between counts all it used, one that ended in between is lost
 * (its last reading is gone with it).
 */
export function cpuBetween(before: readonly ContentProcess[], after: readonly ContentProcess[]): number {
  const was = new Map(before.map((p) => [p.pid, p.cpuMs]));
  return after.reduce((sum, p) => sum + Math.max(0, p.cpuMs - (was.get(p.pid) ?? 0)), 0);
}
