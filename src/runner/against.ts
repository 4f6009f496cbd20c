/**
 * `perf run CANDIDATE.yaml --against BASELINE.yaml`: the same scenario pointed at two builds, measured in
 * the same rounds, each arm in its own scenario's engine (Chromium over CDP, WebKit or a desktop app over
 * WebDriver, a terminal program). On CDP one browser serves both arms (same process, same GPU state, same
 * thermal history; one Grid session, so one node); the repeats interleave A B | B A | A B | B A … so a slow
 * drift of the machine (thermal throttling, a background job ramping up) adds the same amount to both arms
 * instead of masquerading as a regression. Each arm gets its own run file, exactly as `perf run` writes it,
 * plus the interleaving record (`repeats[].sequence`, `repeats[].startedAt`, `against`). The loop is the
 * scheduler's (scheduler.ts).
 */
import { PerfError } from '../errors.js';
import type { Scenario } from '../scenario/load.js';
import type { RestartMode } from '../drivers/define.js';
import type { RepeatMode, RepeatRecord, RunFile } from '../perf/run-file.js';
import { fileInFolder } from '../files.js';
import { runFileName, schedulePlan, type TimingPlan } from './records.js';
import { runSchedule, type Arm } from './scheduler.js';

export { abbaOrder, type Arm } from './scheduler.js';

export interface AgainstOptions {
  /** Run-file labels of the two arms; default `baseline` / `candidate`. */
  labels?: { baseline: string; candidate: string };
  outDir: string;
  /** Selenium Grid base URL (--grid): both arms in one Grid session; overrides browser.endpoint. */
  grid?: string;
  /** Address app.serve listens on instead of 127.0.0.1 (--serve-host). */
  serveHost?: string;
  repeat?: number;
  warmup?: number;
  restart?: RestartMode;
  timing?: TimingPlan;
  /** The plan againstPlan resolved already, from a caller that needed it before the run (the sequential judge). */
  plan?: TimingPlan;
  /** --keep-going: a first repeat that fails the way every repeat would does not stop the compare. */
  keepGoing?: boolean;
  cwd?: string;
  signal?: AbortSignal;
  onProgress?: (e: AgainstProgress) => void;
  /**
   * Called after the scheduled rounds with both runs so far: return how many more repeat units per arm
   * to run, interleaved as before (0 stops). A sequential compare samples until it is decided.
   */
  extend?: (baseline: RunFile, candidate: RunFile) => number | Promise<number>;
}

export type AgainstProgress =
  | { kind: 'start'; total: number; perArm: number; warmup: number }
  | { kind: 'repeat-start'; sequence: number; total: number; arm: Arm; index: number; mode: RepeatMode; warmup: boolean }
  | { kind: 'repeat-end'; sequence: number; total: number; arm: Arm; record: RepeatRecord };

/** Labels of an --against run: `baseline`/`candidate`, or `<label>-baseline`/`<label>-candidate`. */
export function againstLabels(label?: string): { baseline: string; candidate: string } {
  return label ? { baseline: `${label}-baseline`, candidate: `${label}-candidate` } : { baseline: 'baseline', candidate: 'candidate' };
}

export interface AgainstResult {
  baseline: { run: RunFile; path: string };
  candidate: { run: RunFile; path: string };
}

/**
 * Whether a compare of this scenario runs timing repeats when no flag says: yes, unless the scenario says `timing:
 * false` (issue 56: timing repeats decide). Interleaved, both arms share every moment of the machine and pairs of one
 * round cancel what they shared; a stored gate records its baseline so too, and normalises its milliseconds by the
 * host's own slowdown between the recordings (perf/host-busy.ts judgeStoredDrift).
 */
export const interleavedTiming = (sc: Pick<Scenario, 'timing' | 'timingSet'>): boolean => (sc.timingSet ? sc.timing : true);

/** The plan both arms of a compare follow: `asked` (else interleavedTiming), as both arms' drivers allow it. */
type PlanArm = { browser: Pick<Scenario['browser'], 'driver'> };
export function againstPlan(
  baseline: PlanArm,
  candidate: PlanArm & Pick<Scenario, 'timing' | 'timingSet'>,
  asked: TimingPlan | undefined,
): TimingPlan {
  return schedulePlan(asked ?? interleavedTiming(candidate), [baseline, candidate]);
}

/** Run both arms interleaved and write one run file each: two arms of the scheduler. */
export async function runAgainst(baseline: Scenario, candidate: Scenario, opts: AgainstOptions): Promise<AgainstResult> {
  const labels = opts.labels ?? againstLabels();
  if (labels.baseline === labels.candidate && runFileName(baseline, '') === runFileName(candidate, '')) {
    throw new PerfError({
      code: 'invalid_flag',
      message: `run --against: both arms would write ${runFileName(candidate, labels.candidate)}.json`,
      suggestion: 'give the arms different labels',
    });
  }
  // Checked on the resolved paths before any browser starts: both run files stay in --out.
  const arm = (role: Arm, sc: Scenario) => {
    const base = runFileName(sc, labels[role]);
    const path = fileInFolder(opts.outDir, `${base}.json`, 'perf run --against');
    return { sc, label: labels[role], base, path, restart: opts.restart ?? sc.browser.restart, role };
  };
  const arms = [arm('baseline', baseline), arm('candidate', candidate)];
  const roleOf = (k: number): Arm => arms[k]!.role;
  const extend = opts.extend;
  // One schedule for both arms, from the candidate (the scenario named on the command line).
  const [b, c] = await runSchedule({
    arms,
    outDir: opts.outDir,
    cwd: opts.cwd ?? process.cwd(),
    repeat: opts.repeat ?? candidate.repeat,
    warmup: opts.warmup ?? candidate.warmup,
    plan: opts.plan ?? againstPlan(baseline, candidate, opts.timing),
    keepTraces: false,
    ...(opts.keepGoing ? { keepGoing: true } : {}),
    who: 'perf run --against',
    ...(opts.grid !== undefined ? { grid: opts.grid } : {}),
    ...(opts.serveHost !== undefined ? { serveHost: opts.serveHost } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(extend ? { extend: (runs: RunFile[]) => extend(runs[0]!, runs[1]!) } : {}),
    onEvent: (e) => {
      const p = opts.onProgress;
      if (!p) return;
      switch (e.kind) {
        case 'start':
          return p({ kind: 'start', total: e.total, perArm: e.perArm, warmup: e.warmup });
        case 'repeat-start':
          return p({ ...e, arm: roleOf(e.arm) });
        case 'step':
          return;
        case 'repeat-end':
          return p({ ...e, arm: roleOf(e.arm) });
      }
    },
  });
  return { baseline: b!, candidate: c! };
}
