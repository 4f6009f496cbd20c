/**
 * Hand-made run files for tests of the comparison (test/compare-*.test.ts and the tests of compare-runs, host-busy and
 * attribution): one env, a measured repeat from its metrics, and a run file from its repeats. No browser.
 */
import { verdictOf, type CompareResult, type CompareRow } from '../src/perf/compare.js';
import type { HostRecord, RepeatMode, RepeatRecord, RunFile, SequentialRecord } from '../src/perf/run-file.js';

export const ENV: RunFile['env'] = {
  tool: { name: 'rehearse', version: '0.1.0' },
  browser: { product: 'HeadlessChrome/140.0.0.0', userAgent: 'ua', headless: true },
  host: {
    platform: 'linux',
    arch: 'x64',
    cpuModel: 'Test CPU',
    cpus: 2,
    memoryBytes: 1,
    loadAverage: [0, 0, 0],
    node: 'v20',
    hostname: 'h',
  },
  restartMode: 'context',
  viewport: { width: 1440, height: 900, dpr: 1, mobile: false, touch: false },
  cpuThrottle: 1,
  app: { kind: 'serve', url: 'http://127.0.0.1:1/list.html' },
};

/** A measured, counted repeat with these metrics (and, when given, mode, position and host record). */
export function measured(
  metrics: Record<string, number>,
  more: { mode?: RepeatMode; sequence?: number; host?: HostRecord; warmup?: boolean } = {},
): RepeatRecord {
  const { mode = 'timing', warmup = false, ...rest } = more;
  return { index: 0, mode, warmup, wallMs: 1000, steps: [], status: 'measured', report: { metrics }, ...rest };
}

/** A run file of these repeats (indexed in order), with `more` over the defaults (scenario list-scroll, desktop). */
export function runOf(repeats: RepeatRecord[], more: Partial<RunFile> = {}): RunFile {
  const records = repeats.map((r, index) => ({ ...r, index }));
  return {
    schemaVersion: 1,
    scenario: 'list-scroll',
    variant: 'desktop',
    label: 'run',
    scenarioFile: 'scenarios/list-scroll.yaml',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    interrupted: false,
    env: ENV,
    thresholds: { warnPct: 10, errorPct: 25, metrics: {} },
    summary: {
      repeats: records.length,
      measured: records.filter((r) => r.status === 'measured').length,
      refused: 0,
      failed: 0,
      warmup: 0,
      metrics: {},
      timingOnly: false,
    },
    budgets: [],
    insights: [],
    repeats: records,
    ...more,
  };
}

/** A sequential design at a later look: `looks` earlier looks, at most `max` repeats per arm (half of them timing). */
export function sequentialOf(looks: SequentialRecord['looks'], max: number, more: Partial<SequentialRecord> = {}): SequentialRecord {
  return {
    alpha: 0.05,
    spending: 'obrien-fleming',
    looks,
    max: { a: max, b: max, timingA: max / 2, timingB: max / 2 },
    stopped: 'max-repeat',
    storedBaseline: false,
    ...more,
  };
}

/** A judged row: +30 % (100 → 130 over 6 repeats a side), regressed at error, gated and decided; `more` over it. */
export function rowOf(metric: string, more: Partial<CompareRow> = {}): CompareRow {
  return {
    metric,
    a: { median: 100, n: 6 },
    b: { median: 130, n: 6 },
    deltaPct: 30,
    scale: { kind: 'baseline', value: 100 },
    ci: { lowPct: 28, highPct: 32, level: 0.9 },
    pValue: 0.001,
    pNeeded: 0.05,
    verdict: 'regressed',
    severity: 'error',
    gated: true,
    role: 'primary',
    decided: true,
    reason: 'as judged',
    shift: 30,
    ...more,
  };
}

/** A comparison of these rows: the verdict from them (compare.ts verdictOf), each regressed row rejected as worse. */
export function resultOf(rows: CompareRow[]): CompareResult {
  const rejected = Object.fromEntries(rows.filter((r) => r.verdict === 'regressed').map((r) => [r.metric, 'worse' as const]));
  return { ...verdictOf(rows), rows, unchanged: [], rejected };
}
