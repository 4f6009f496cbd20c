/**
 * What `perf leaks` found and its verdict, as data: the CLI prints it, the reporters render it, MCP
 * perf_leaks bounds it. Pure: numbers in, a verdict out. The analysis itself (snapshots → groups) is
 * src/perf/heap/leaks.ts.
 */

import type { LeakAnalysis, LeakGroup } from './heap/leaks.js';

export type { LeakAnalysis, LeakGroup, SnapshotStats } from './heap/leaks.js';

// ── The verdict ──

export interface LeakThresholds {
  /** A group leaks when its alive count grows by at least this much per iteration. */
  minPerIteration: number;
  /** …and the leaking groups retain at least this many bytes in all. */
  minRetainedBytes: number;
}

// Issue 30's default: any group growing by ≥ 1 per iteration and ≥ 100 KB retained in all. One object
// per iteration is the smallest growth there is; 100 KB keeps a cache that warms by a few small
// entries from failing a build while a leaked panel with its DOM (hundreds of KB) fails it.
export const DEFAULT_LEAK_THRESHOLDS: LeakThresholds = { minPerIteration: 1, minRetainedBytes: 100 * 1024 };

/** The thresholds in force: each one from the first layer that sets it (flag or MCP argument, then the scenario), else the default. */
export function resolveThresholds(...layers: readonly (Partial<LeakThresholds> | undefined)[]): LeakThresholds {
  const pick = <K extends keyof LeakThresholds>(k: K): LeakThresholds[K] =>
    layers.find((l) => l?.[k] !== undefined)?.[k] ?? DEFAULT_LEAK_THRESHOLDS[k];
  return { minPerIteration: pick('minPerIteration'), minRetainedBytes: pick('minRetainedBytes') };
}

/** The groups over the per-iteration threshold, and whether together they retain enough to be a leak. */
export function judgeLeaks(
  groups: readonly LeakGroup[],
  t: LeakThresholds,
): { leaking: LeakGroup[]; retainedBytes: number; leak: boolean } {
  const leaking = groups.filter((g) => g.countPerIteration >= t.minPerIteration);
  const retainedBytes = leaking.reduce((s, g) => s + g.retainedBytes, 0);
  return { leaking, retainedBytes, leak: leaking.length > 0 && retainedBytes >= t.minRetainedBytes };
}

/**
 * Peak RSS growth (WebDriver, terminal: no heap to look into). The peak only ever rises, so its growth
 * from the end of the first iteration to the end of the last, over the iterations between, is what each
 * iteration kept; a leak is growth in every one of them of at least minRetainedBytes in all.
 */
export function judgeRss(afterEachBytes: readonly number[], t: LeakThresholds): { growthPerIterationBytes: number; leak: boolean } {
  if (afterEachBytes.length < 2) return { growthPerIterationBytes: 0, leak: false };
  const first = afterEachBytes[0]!;
  const last = afterEachBytes[afterEachBytes.length - 1]!;
  const growthPerIterationBytes = (last - first) / (afterEachBytes.length - 1);
  const everyOne = afterEachBytes.every((v, i) => i === 0 || v > afterEachBytes[i - 1]!);
  return { growthPerIterationBytes, leak: everyOne && last - first >= t.minRetainedBytes };
}

export interface LeaksCommon {
  scenario: string;
  variant: string | null;
  iterations: number;
  thresholds: LeakThresholds;
  /** leak: exit 1. */
  verdict: 'leak' | 'no_leak';
  /** Wall time of the whole command, app start to analysis, ms. */
  wallMs: number;
}

/** `heap`: Chromium over CDP, snapshots analysed. `rss`: a driver with no heap view, peak RSS per iteration. */
export type LeaksResult =
  | (LeaksCommon & {
      kind: 'heap';
      /** The folder the three snapshots stay in (baseline, first, last .heapsnapshot). */
      snapshotsDir: string;
      analysis: LeakAnalysis;
      /** The groups over minPerIteration, largest retained first. */
      leaking: LeakGroup[];
      /** Their retained bytes in all. */
      leakingRetainedBytes: number;
    })
  | (LeaksCommon & {
      kind: 'rss';
      driver: string;
      /** process.maxRssBytes at the end of each iteration. */
      maxRssAfterEachBytes: number[];
      growthPerIterationBytes: number;
      /** What this driver cannot tell: no heap snapshot, no groups, no retainer paths. */
      missing: string[];
    });

/** The `--json` document (DESIGN.md wave 3): `leaks` are the groups over the threshold, then the facts. */
export function leaksJson(r: LeaksResult): { leaks: LeakGroup[] } & Record<string, unknown> {
  const common = { scenario: r.scenario, variant: r.variant, iterations: r.iterations, verdict: r.verdict, thresholds: r.thresholds };
  switch (r.kind) {
    case 'heap':
      return {
        leaks: r.leaking,
        ...common,
        kind: r.kind,
        leakingRetainedBytes: r.leakingRetainedBytes,
        growing: r.analysis.groups.length,
        snapshotsDir: r.snapshotsDir,
        snapshots: r.analysis.snapshots,
        analysisPeakRssBytes: r.analysis.peakRssBytes,
        wallMs: r.wallMs,
      };
    case 'rss':
      return {
        leaks: [],
        ...common,
        kind: r.kind,
        driver: r.driver,
        maxRssAfterEachBytes: r.maxRssAfterEachBytes,
        growthPerIterationBytes: r.growthPerIterationBytes,
        missing: r.missing,
        wallMs: r.wallMs,
      };
  }
}
