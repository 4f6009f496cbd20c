/**
 * A run file taken apart for the store and put back together: the raw values go to `samples` (one row per
 * measured repeat per metric); what the gate needs to judge against the run again (env, thresholds, gate,
 * sequential design, each measured repeat's wall time and host record) is kept as one compact JSON per run.
 * Steps, insights, attribution and load waterfalls are not kept: they are in the run file, and the history is
 * for numbers over time.
 */
import { validateRunFile } from '../perf/compare-runs.js';
import { summarizeRepeats } from '../perf/repeat-summary.js';
import type { HostRecord, RepeatMode, RepeatRecord, RunFile } from '../perf/run-file.js';
import type { StoredRun } from './types.js';

export interface StoredSample {
  metric: string;
  repeat: number;
  mode: RepeatMode;
  value: number;
}

interface StoredRepeat {
  index: number;
  mode: RepeatMode;
  wallMs: number;
  host?: HostRecord;
  startedAt?: string;
  sequence?: number;
}

export interface RunMeta {
  scenarioFile: string;
  interrupted: boolean;
  env: RunFile['env'];
  thresholds: RunFile['thresholds'];
  budgets: RunFile['budgets'];
  counts: { repeats: number; measured: number; refused: number; failed: number; warmup: number };
  gate?: RunFile['gate'];
  sequential?: RunFile['sequential'];
  against?: RunFile['against'];
  repeats: StoredRepeat[];
}

type Measured = Extract<RepeatRecord, { status: 'measured' }>;

function measuredRepeats(run: RunFile): Measured[] {
  return run.repeats.filter((r): r is Measured => r.status === 'measured' && !r.warmup);
}

/** One sample per measured, non-warmup repeat and finite metric value. */
export function storedSamples(run: RunFile): StoredSample[] {
  const out: StoredSample[] = [];
  for (const r of measuredRepeats(run)) {
    for (const [metric, value] of Object.entries(r.report.metrics)) {
      if (Number.isFinite(value)) out.push({ metric, repeat: r.index, mode: r.mode, value });
    }
  }
  return out;
}

export function runMeta(run: RunFile): RunMeta {
  const { repeats, measured, refused, failed, warmup } = run.summary;
  return {
    scenarioFile: run.scenarioFile,
    interrupted: run.interrupted,
    env: run.env,
    thresholds: run.thresholds,
    budgets: run.budgets,
    counts: { repeats, measured, refused, failed, warmup },
    ...(run.gate ? { gate: run.gate } : {}),
    ...(run.sequential ? { sequential: run.sequential } : {}),
    ...(run.against ? { against: run.against } : {}),
    repeats: measuredRepeats(run).map((r) => ({
      index: r.index,
      mode: r.mode,
      wallMs: r.wallMs,
      ...(r.host ? { host: r.host } : {}),
      ...(r.startedAt !== undefined ? { startedAt: r.startedAt } : {}),
      ...(r.sequence !== undefined ? { sequence: r.sequence } : {}),
    })),
  };
}

/**
 * The stored run as a run file: its measured repeats carry the stored metrics, and the summary is recomputed
 * from them by the runner's own summarizer, so compare reads it exactly as a run file `perf run` wrote.
 * Validated against the run-file schema before it is returned (`name` says which stored run failed).
 */
export function rebuildRunFile(run: StoredRun, metaJson: string, samples: Omit<StoredSample, 'mode'>[], name: string): RunFile {
  const meta = JSON.parse(metaJson) as RunMeta;
  const byRepeat = new Map<number, Record<string, number>>();
  for (const s of samples) {
    let m = byRepeat.get(s.repeat);
    if (!m) byRepeat.set(s.repeat, (m = {}));
    m[s.metric] = s.value;
  }
  const repeats: RepeatRecord[] = meta.repeats.map((r) => ({
    index: r.index,
    mode: r.mode,
    warmup: false,
    wallMs: r.wallMs,
    steps: [],
    ...(r.host ? { host: r.host } : {}),
    ...(r.startedAt !== undefined ? { startedAt: r.startedAt } : {}),
    ...(r.sequence !== undefined ? { sequence: r.sequence } : {}),
    status: 'measured',
    report: { metrics: byRepeat.get(r.index) ?? {} },
  }));
  const { metrics, timingOnly } = summarizeRepeats(repeats);
  const file: RunFile = {
    schemaVersion: 1,
    scenario: run.scenario,
    variant: run.variant,
    label: run.label,
    scenarioFile: meta.scenarioFile,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    interrupted: meta.interrupted,
    ...(run.complete ? {} : { complete: false as const }),
    env: meta.env,
    thresholds: meta.thresholds,
    summary: { ...meta.counts, metrics, timingOnly },
    budgets: meta.budgets,
    insights: [],
    repeats,
    ...(meta.gate ? { gate: meta.gate } : {}),
    ...(meta.sequential ? { sequential: meta.sequential } : {}),
    ...(meta.against ? { against: meta.against } : {}),
  };
  return validateRunFile(file, name);
}
