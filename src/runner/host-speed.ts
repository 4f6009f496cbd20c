/**
 * How fast the host was around one repeat (issue 27 item 3): a short calibration like Lighthouse's
 * BenchmarkIndex (GoogleChrome/lighthouse core/lib/page-functions.js `computeBenchmarkIndex`: a fixed
 * loop, iterations per unit of time, so a slower device or a busier host reads lower), plus what the OS
 * says about the machine: 1-minute load average, CPU steal over the repeat, mean clock. Compare uses the
 * index to tell a busy host from a slower build (perf/host-busy.ts).
 *
 * Where it runs: here, in the runner's own Node process, not in the page's renderer. A Runtime.evaluate
 * in the renderer would share the renderer's core and be the most faithful for a local Chromium, but
 * (1) the scenario's CPU throttling slows the renderer's main thread by its rate and in quanta, so the
 * index would measure the throttle, (2) a page that keeps the renderer busy (a regression!) would read as
 * a slow host and excuse itself, and (3) WebDriver and terminal runs have no such renderer. On one
 * machine the runner and Chromium share the cores and the scheduler: a hog that takes a core from the
 * renderer takes it from this loop alike. For a remote browser (Grid, endpoint) this describes the
 * machine running rehearse, which is what the record's fields say.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { HostRecord } from '../perf/run-file.js';
import { descendantsOf, listProcStats, type ProcStat } from '../proc-stat.js';

// 4,096 32-bit integers (16 KiB, inside any L1 cache): a unit is ~5 µs of ALU work here, independent of
// memory bandwidth and with no allocation, so no garbage collection can land in a slice.
const UNIT_WORDS = 4096;
// 600 units, ~3 ms per slice at full speed here (~200 units/ms): long enough that a host shared with busy
// processes is preempted within most slices (0.75 ms slices slipped between preemptions: 200 units/ms
// with and without a hog per core), short enough that one preemption spoils one slice, not the median.
const SLICE_UNITS = 600;
// 5 slices (~15 ms): the median survives two spoiled slices.
const SLICES = 5;
// 45 ms: on a host so busy that three slices took this long, the median of those three already says so;
// the calibration must not cost a repeat more than it tells.
const CALIBRATION_BUDGET_MS = 45;
const MIN_SLICES = 3;

const source = Int32Array.from({ length: UNIT_WORDS }, (_, i) => Math.imul(i, 2654435761));
const target = new Int32Array(UNIT_WORDS);

/** One unit of work: an FNV-style mix over the source words, written out so the loop cannot be dropped. */
function unit(seed: number): number {
  let x = seed | 0;
  for (let i = 0; i < UNIT_WORDS; i++) {
    x = Math.imul(x ^ source[i]!, 16777619);
    target[i] = x;
  }
  return x;
}

/** Work units per ms: the median over short slices of a fixed workload (see SLICE_UNITS). */
export function benchmarkIndex(now: () => number = () => performance.now()): number {
  const rates: number[] = [];
  let sink = 0;
  const t0 = now();
  for (let s = 0; s < SLICES; s++) {
    const start = now();
    for (let u = 0; u < SLICE_UNITS; u++) sink ^= unit(u + s);
    rates.push(SLICE_UNITS / Math.max(now() - start, 1e-3));
    if (rates.length >= MIN_SLICES && now() - t0 > CALIBRATION_BUDGET_MS) break;
  }
  // Kept observable so the optimiser cannot drop the work.
  target[0] = sink;
  rates.sort((p, q) => p - q);
  return rates[Math.floor(rates.length / 2)]!;
}

/**
 * Cumulative CPU ticks of the whole machine (/proc/stat's first line): all, steal, and busy (user, nice,
 * system, irq, softirq: not idle, iowait or steal); undefined where there is none.
 */
export function cpuTicks(read: (path: string) => string = readProc): { steal: number; total: number; busy: number } | undefined {
  const n = statCpuFields(read);
  return n && { steal: n[7]!, total: n.reduce((t, v) => t + v, 0), busy: n[0]! + n[1]! + n[2]! + n[5]! + n[6]! };
}

/** The first line of /proc/stat: user nice system idle iowait irq softirq steal; guest time is already inside user. */
function statCpuFields(read: (path: string) => string): number[] | undefined {
  const line = read('/proc/stat').split('\n', 1)[0] ?? '';
  const fields = line.trim().split(/\s+/);
  if (fields[0] !== 'cpu') return undefined;
  const n = fields.slice(1, 9).map(Number);
  return n.length < 8 || n.some((v) => !Number.isFinite(v)) ? undefined : n;
}

/** Mean current clock over the CPUs, MHz (/proc/cpuinfo "cpu MHz"); undefined where not reported (ARM, macOS). */
export function meanCpuMhz(read: (path: string) => string = readProc): number | undefined {
  const mhz = [...read('/proc/cpuinfo').matchAll(/^cpu MHz\s*:\s*([\d.]+)/gm)].map((m) => Number(m[1]));
  const ok = mhz.filter((v) => Number.isFinite(v) && v > 0);
  return ok.length ? ok.reduce((t, v) => t + v, 0) / ok.length : undefined;
}

function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * CPU ticks of `root` and every process below it. A child that exited and was reaped is in its parent's
 * cutime/cstime, so a renderer replaced mid-window stays counted; one re-parented to init is lost.
 */
export function treeTicks(root: number, procs: readonly ProcStat[]): number {
  const tree = descendantsOf([root], procs);
  return procs.reduce((sum, p) => sum + (tree.has(p.pid) ? p.cpuTicks : 0), 0);
}

/** The machine's busy and total ticks and this process tree's, at one moment. */
interface ForeignMark {
  busy: number;
  total: number;
  own: number;
}

/** `ticks`: the machine's counters when the caller has just read them (one read of /proc/stat per mark). */
function foreignMark(ticks = cpuTicks()): ForeignMark | undefined {
  const procs = listProcStats();
  return procs && ticks ? { busy: ticks.busy, total: ticks.total, own: treeTicks(process.pid, procs) } : undefined;
}

// 60 ticks (0.3 s of 2 CPUs at USER_HZ 100): each process's ticks are truncated at both ends, a few ticks
// over the tree; fewer than this and that error alone could read as another job's 10 %.
const MIN_FOREIGN_TICKS = 60;

/** % of the machine's CPU time between two marks used outside this process tree; undefined for a short span. */
export function foreignCpuPct(m0: ForeignMark, m1: ForeignMark): number | undefined {
  const total = m1.total - m0.total;
  if (total < MIN_FOREIGN_TICKS) return undefined;
  const foreign = m1.busy - m0.busy - (m1.own - m0.own);
  return Math.min(100, Math.max(0, (100 * foreign) / total));
}

/**
 * The host's record for one repeat: start() when the repeat begins (steal is counted from there),
 * calibrate() just before the measured window, finish() when it ended.
 *
 * `ownsProcesses`: perf launched the browser or program (and any WebDriver server) under itself, so CPU
 * used outside its process tree during the window is another job's. The calibration samples the host at
 * one moment, ~15 ms: with one busy process on two cores it reads either full speed (the loop got the
 * idle core) or half, by chance; the other processes' CPU over the whole window does not depend on luck.
 * A browser perf did not launch (Grid, an endpoint, an external WebDriver server) would count as another
 * job: no share is recorded then.
 */
export class HostSampler {
  private readonly ticks0 = cpuTicks();
  private sample: Omit<HostRecord, 'stealPct'> | undefined;
  private foreign0: ForeignMark | undefined;

  constructor(private readonly ownsProcesses = false) {}

  calibrate(): void {
    const mhz = meanCpuMhz();
    this.sample = { benchmarkIndex: benchmarkIndex(), loadAverage1: loadavg()[0] ?? 0, ...(mhz !== undefined ? { cpuMhz: mhz } : {}) };
    // After the loop, as near the window as can be: the loop is this process's own CPU either way.
    this.foreign0 = this.ownsProcesses ? foreignMark() : undefined;
  }

  /** The record, or undefined when the repeat ended before its calibration. */
  finish(): HostRecord | undefined {
    if (!this.sample) return undefined;
    const t1 = cpuTicks();
    const t0 = this.ticks0;
    // 0 where the OS has no steal counter, or no tick passed (a sub-10 ms repeat).
    const stealPct = t0 && t1 && t1.total > t0.total ? (100 * Math.max(0, t1.steal - t0.steal)) / (t1.total - t0.total) : 0;
    const m1 = this.foreign0 ? foreignMark(t1) : undefined;
    const foreign = this.foreign0 && m1 ? foreignCpuPct(this.foreign0, m1) : undefined;
    return { ...this.sample, stealPct, ...(foreign !== undefined ? { foreignCpuPct: foreign } : {}) };
  }
}
