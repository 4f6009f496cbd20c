/**
 * The samples stage of a comparison: which repeats count (measured, not warmup), and each metric's finite values in
 * them, as plain numbers (with their interleaved positions, event counts and exposures, the sizes at earlier looks).
 * Pure: repeat records in, numbers out. The roles stage (roles.ts) decides which of these a metric is judged on.
 */
import type { RepeatRecord, RunFile, SequentialRecord } from '../run-file.js';
import type { MetricSamples } from '../compare.js';
import { framesPainted, type DriverName, type ResolvedMetric } from '../metrics.js';
import { median } from '../stats.js';
import type { Sequenced } from './pairs.js';

export type Measured = Extract<RepeatRecord, { status: 'measured' }>;

export function counted(run: RunFile): RepeatRecord[] {
  return run.repeats.filter((r) => !r.warmup);
}

export function measuredRepeats(records: readonly RepeatRecord[]): Measured[] {
  return records.filter((r): r is Measured => r.status === 'measured' && !r.warmup);
}

/** Each repeat's finite value of `metric` with its interleaved position, for the pairing stage. */
export function sequenced(repeats: readonly Measured[], metric: string): Sequenced[] {
  const out: Sequenced[] = [];
  for (const r of repeats) {
    const v = r.report.metrics[metric];
    if (typeof v === 'number' && Number.isFinite(v)) out.push({ sequence: r.sequence, value: v });
  }
  return out;
}

export function values(repeats: readonly Measured[], metric: string): number[] {
  const out: number[] = [];
  for (const r of repeats) {
    const v = r.report.metrics[metric];
    if (typeof v === 'number' && Number.isFinite(v)) out.push(v);
  }
  return out;
}

export function paintedMedian(reps: Measured[]): number | null {
  const v = values(reps, framesPainted.name);
  return v.length ? median(v) : null;
}

/** The two run files are the arms of one `perf run --against` (or the gate's A/B): their repeats share positions. */
export function interleaved(a: RunFile, b: RunFile): boolean {
  return a.against?.role === 'baseline' && b.against?.role === 'candidate';
}

/**
 * Which run lost a primary metric: it has no finite value of it (nor of its base count, for a per-frame
 * form) in any measured repeat while the other run has some. Undefined when both or neither measured it.
 */
export function lostIn(r: ResolvedMetric, repA: Measured[], repB: Measured[]): 'a' | 'b' | undefined {
  const has = (reps: Measured[]): boolean => values(reps, r.name).length > 0 || values(reps, r.base).length > 0;
  const inA = has(repA);
  const inB = has(repB);
  return inA === inB ? undefined : inA ? 'b' : 'a';
}

/** The driver a run was measured with, as the registry names drivers (metrics.ts `drivers`). */
export function driverOf(env: RunFile['env'] | undefined): DriverName {
  switch (env?.browser?.driver) {
    case 'pty':
      return 'pty';
    case 'webdriver':
      return env.browser.engine === 'webkit' ? 'webdriver-webkit' : 'webdriver-chromium';
    case 'bidi':
      return 'bidi-firefox';
    case undefined:
      return 'cdp';
  }
}

/**
 * A count of the app's own work that still varies within the baseline run (style recalcs during a CSS
 * transition: one per frame drawn) is paced by the machine. Measured on the demo: dialog's style
 * recalcs 23–28 in one run on one host, and a loaded run of the same build read as a regression. Only
 * a count that is the same in every baseline repeat is taken as machine-independent.
 */
export function pacedCount(r: ResolvedMetric, baseline: Measured[]): boolean {
  // A per-frame form is judged only over enough frames, and dividing by them is what takes the pacing out.
  if (r.def.kind !== 'count' || r.perFrame) return false;
  const xs = values(baseline, r.name);
  return xs.some((x) => x !== xs[0]);
}

/** Per-repeat event counts and their exposure: 1 per repeat for a count, painted frames for a per-frame form. */
export function eventCounts(r: ResolvedMetric, fromA: Measured[], fromB: Measured[]): NonNullable<MetricSamples['events']> {
  const pick = (reps: Measured[]): { n: number[]; e: number[] } => {
    const n: number[] = [];
    const e: number[] = [];
    for (const rep of reps) {
      const count = rep.report.metrics[r.base];
      const frames = rep.report.metrics[framesPainted.name];
      if (typeof count !== 'number' || !Number.isFinite(count)) continue;
      if (r.perFrame && (typeof frames !== 'number' || !(frames > 0))) continue;
      n.push(count);
      e.push(r.perFrame ? frames! : 1);
    }
    return { n, e };
  };
  const a = pick(fromA);
  const b = pick(fromB);
  return { a: a.n, b: b.n, exposureA: a.e, exposureB: b.e };
}

/** The sample sizes of a metric at the earlier looks of a sequential comparison, and at its last possible look. */
export function sequentialSizes(
  metric: string,
  timingOnly: boolean,
  recA: RepeatRecord[],
  recB: RepeatRecord[],
  seq: SequentialRecord | undefined,
): Pick<MetricSamples, 'looks' | 'maxN'> {
  if (!seq) return {};
  const n = (records: RepeatRecord[], upTo: number): number =>
    values(
      measuredRepeats(records.slice(0, upTo)).filter((r) => !timingOnly || r.mode === 'timing'),
      metric,
    ).length;
  const looks = seq.looks.map((l) => ({ a: n(recA, l.a), b: n(recB, l.b) }));
  const maxN = timingOnly ? { a: seq.max.timingA, b: seq.max.timingB } : { a: seq.max.a, b: seq.max.b };
  return { looks, maxN };
}
