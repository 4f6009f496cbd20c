/**
 * CPU and memory of a browser's web content processes, read from /proc when the WebDriver server
 * runs on this machine (the harness started it): WebKit's WebKitWebProcess, Chromium's renderers, Firefox's
 * content processes (under Firefox itself for the bidi driver).
 * WebDriver itself has no such numbers; these are the process.* metrics of DESIGN.md.
 */
import { readFileSync } from 'node:fs';
import { descendantsOf, listProcStats, MS_PER_TICK, procStatusBytes } from '../../proc-stat.js';

export interface ContentProcess {
  pid: number;
  /** utime + stime, ms. */
  cpuMs: number;
  /** Peak resident set (VmHWM), bytes. */
  maxRssBytes: number;
}

function isContentProcess(pid: number, comm: string): boolean {
  // comm is cut to 15 characters: WebKitWebProcess reads as WebKitWebProces.
  if (comm.startsWith('WebKitWebProces')) return true;
  // Firefox's content processes (Fission): "Isolated Web Content" and "Web Content", cut the same way.
  if (comm.startsWith('Isolated Web') || comm === 'Web Content') return true;
  if (!/chrom/i.test(comm)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
  } catch {
    return false;
  }
}

/** The web content processes under `rootPid` (the WebDriver server), or undefined where /proc is not readable. */
export function contentProcesses(rootPid: number): ContentProcess[] | undefined {
  const all = listProcStats();
  if (!all) return undefined;
  // The server itself is not a content process: only what runs below it.
  const below = descendantsOf([rootPid], all);
  below.delete(rootPid);
  const out: ContentProcess[] = [];
  for (const e of all)
    if (below.has(e.pid) && isContentProcess(e.pid, e.comm))
      out.push({ pid: e.pid, cpuMs: e.ownTicks * MS_PER_TICK, maxRssBytes: procStatusBytes(e.pid, 'VmHWM') });
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
