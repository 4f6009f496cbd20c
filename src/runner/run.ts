/**
 * perf run: the app starts once; each repeat starts clean (browser.restart), applies the viewport
 * and CPU throttling, opens app.path, runs setup, then perf_begin → steps → perf_end. A failed step
 * fails only its repeat; a crashed renderer or browser is replaced for the next one. Everything
 * measured is written, atomically, even when the run is interrupted.
 */
import { fileInFolder } from '../files.js';
import type { Scenario } from '../scenario/load.js';
import type { RestartMode } from '../drivers/define.js';
import type { RepeatMode, RepeatRecord, RunFile } from '../perf/run-file.js';
import { runFileName, schedulePlan, type TimingPlan } from './records.js';
import { runSchedule } from './scheduler.js';

// What the other doors (--against, the gate, MCP, benches) import from here, where it lived before the scheduler.
export {
  appSpec,
  buildRunFile,
  checkpoint,
  gridErrorOf,
  judgeBudgets,
  insightsOf,
  notSaved,
  repeatSchedule,
  repeatSlots,
  runFileName,
  summarizeRepeats,
  withServeHost,
} from './records.js';
export { runRepeatOn } from './repeat.js';
export type { RepeatBrowser, RepeatContext } from './repeat-browser.js';

export interface RunOptions {
  label: string;
  outDir: string;
  repeat?: number;
  warmup?: number;
  restart?: RestartMode;
  timing?: boolean;
  /** The plan schedulePlan resolved already, from a caller that needed it before the run (the sequential judge). */
  plan?: TimingPlan;
  /** --keep-going: a first repeat that fails the way every repeat would does not stop the run. */
  keepGoing?: boolean;
  cwd?: string;
  signal?: AbortSignal;
  /** Selenium Grid base URL (--grid): overrides the scenario's browser.endpoint. */
  grid?: string;
  /** Address app.serve listens on instead of 127.0.0.1 (--serve-host). */
  serveHost?: string;
  onProgress?: (e: ProgressEvent) => void;
  /**
   * Called after the scheduled repeats with the run so far: return how many more repeat units to run
   * (0 stops). A sequential gate uses it to sample until its verdict is decided.
   */
  extend?: (run: RunFile) => number | Promise<number>;
}

export type ProgressEvent =
  | { kind: 'start'; total: number; warmup: number; scenario: string }
  | { kind: 'repeat-start'; index: number; total: number; warmup: boolean; mode: RepeatMode }
  | { kind: 'step'; index: number; phase: 'setup' | 'steps'; label: string }
  | { kind: 'repeat-end'; record: RepeatRecord; total: number };

/** One arm of the scheduler: the run file in --out, its traces beside it. */
export async function runScenario(sc: Scenario, opts: RunOptions): Promise<{ run: RunFile; path: string }> {
  const base = runFileName(sc, opts.label);
  // Checked on the resolved path: the run file and its traces stay in --out whatever the names hold.
  const path = fileInFolder(opts.outDir, `${base}.json`, 'perf run');
  const extend = opts.extend;
  const [out] = await runSchedule({
    arms: [{ sc, label: opts.label, base, path, restart: opts.restart ?? sc.browser.restart }],
    outDir: opts.outDir,
    cwd: opts.cwd ?? process.cwd(),
    repeat: opts.repeat ?? sc.repeat,
    warmup: opts.warmup ?? sc.warmup,
    plan: opts.plan ?? schedulePlan(opts.timing ?? sc.timing, [sc]),
    keepTraces: true,
    who: 'perf run',
    ...(opts.keepGoing ? { keepGoing: true } : {}),
    ...(opts.grid !== undefined ? { grid: opts.grid } : {}),
    ...(opts.serveHost !== undefined ? { serveHost: opts.serveHost } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(extend ? { extend: (runs: RunFile[]) => extend(runs[0]!) } : {}),
    onEvent: (e) => {
      const p = opts.onProgress;
      if (!p) return;
      switch (e.kind) {
        case 'start':
          return p({ kind: 'start', total: e.total, warmup: e.warmup, scenario: base });
        case 'repeat-start':
          return p({ kind: 'repeat-start', index: e.index, total: e.total, warmup: e.warmup, mode: e.mode });
        case 'step':
          return p({ kind: 'step', index: e.sequence, phase: e.phase, label: e.label });
        case 'repeat-end':
          return p({ kind: 'repeat-end', record: e.record, total: e.total });
      }
    },
  });
  return out!;
}
