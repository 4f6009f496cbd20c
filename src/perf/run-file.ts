/**
 * The run file (DESIGN.md "Run file"): what `perf run` writes, `perf compare` reads and every
 * reporter renders. schemaVersion 1; fields are extended, never renamed.
 */
import type { ErrorInfo as StepErrorInfo } from '../errors.js';
import type { Summary } from './stats.js';

export const RUN_FILE_SCHEMA_VERSION = 1;

/** Flat dotted metric names with units in the name (durationMs, frames.painted, counters.layouts.perFrame…). */
export type Metrics = Record<string, number>;

export type RepeatMode = 'timing' | 'attribution';

export interface RepeatStepRecord {
  phase: 'setup' | 'steps';
  step: string;
  label: string;
  status: 'ok' | 'failed' | 'skipped';
  durationMs: number;
  error?: StepErrorInfo;
  warnings?: string[];
}

interface RepeatBase {
  index: number;
  mode: RepeatMode;
  /** Warmup repeats run first and are left out of the summary. */
  warmup: boolean;
  /** Wall time of the whole repeat (restart to end), ms. */
  wallMs: number;
  /**
   * Where the repeat's wall time went, ms: the harness's own cost is visible, not hidden. No `restart`
   * when the clean page was created straight at the app URL (context and browser restarts): `open`
   * then includes it.
   */
  phasesMs?: { restart?: number; open?: number; setup?: number; begin?: number; steps?: number; end?: number };
  steps: RepeatStepRecord[];
  /** When the repeat began (ISO time). Written by `perf run --against`, where two run files interleave. */
  startedAt?: string;
  /** Position in the interleaved order of a `perf run --against` run, shared by both of its run files. */
  sequence?: number;
}

export type RepeatRecord =
  | (RepeatBase & { status: 'measured'; report: PerfReportRecord })
  /** The page rendered nothing in the window: no metrics, left out of the medians. */
  | (RepeatBase & { status: 'refused'; reason: string; report?: PerfReportRecord })
  | (RepeatBase & { status: 'failed'; failure: { phase: 'restart' | 'setup' | 'steps' | 'measure'; step?: string; label?: string; error: StepErrorInfo; screenshot?: string } });

/** What perf_end produced for one repeat, as kept in the run file. */
export interface PerfReportRecord {
  metrics: Metrics;
  coverage?: Record<string, 'read' | 'missing'>;
  insights?: unknown[];
  [k: string]: unknown;
}

export interface BudgetResult {
  expr: string;
  metric: string;
  op: '<' | '<=' | '>' | '>=';
  limit: number;
  /** The run's median of the metric; null when no measured repeat had it. */
  value: number | null;
  pass: boolean;
}

export interface RunEnv {
  tool: { name: 'rehearse'; version: string };
  browser: { product: string; userAgent: string; headless: boolean; executablePath?: string; endpoint?: string; /** Set when not the default cdp: the driver and engine of the run. */ driver?: 'webdriver' | 'pty'; engine?: 'chromium' | 'webkit' };
  host: { platform: string; arch: string; cpuModel: string; cpus: number; memoryBytes: number; loadAverage: number[]; node: string; hostname: string };
  restartMode: 'reload' | 'context' | 'browser';
  viewport: { width: number; height: number; dpr: number; mobile: boolean; touch: boolean };
  cpuThrottle: number;
  /** The scenario's network throttling, acknowledged by the page's target at every clean restart (Chromium has no getter); absent when not throttled. */
  network?: { profile: string; offline: boolean; latencyMs: number; downloadKbps: number; uploadKbps: number; /** What the page's navigator.connection reports (Chromium feeds it the emulated values, rounded). */ page?: { rttMs: number; downlinkKbps: number } };
  app: { kind: 'serve' | 'command' | 'url' | 'desktop' | 'terminal'; url: string; /** app.terminal: the program run. */ terminal?: { command: string; args: string[] }; /** app.desktop: the binary, and the driver that started it. */ desktop?: { binary: string; driver: 'tauri' | 'webkit' } };
}

export interface RunFile {
  schemaVersion: 1;
  scenario: string;
  variant: string | null;
  label: string;
  /** Source file of the scenario, relative to the working folder. */
  scenarioFile: string;
  startedAt: string;
  finishedAt: string;
  /** Ctrl-C stopped the run early: what was measured so far is kept. */
  interrupted: boolean;
  /**
   * false while the run is going on: the file is rewritten after every repeat, so a run killed
   * outright (SIGKILL, OOM, a cancelled CI job) leaves every finished repeat. Absent once finished.
   */
  complete?: false;
  env: RunEnv;
  /** The scenario's thresholds, for compare. */
  thresholds: { warnPct: number; errorPct: number; metrics: Record<string, { warnPct?: number; errorPct?: number }> };
  summary: {
    repeats: number;
    measured: number;
    refused: number;
    failed: number;
    warmup: number;
    metrics: Record<string, Summary>;
    /** ms metrics summarised from timing-mode repeats only (when --timing interleaves). */
    timingOnly: boolean;
  };
  budgets: BudgetResult[];
  insights: unknown[];
  /** Chrome traces (open in Perfetto or DevTools) of the median and the slowest measured repeat, beside the run file. */
  traces?: { median?: { repeat: number; path: string }; slowest?: { repeat: number; path: string } };
  repeats: RepeatRecord[];
  /** Set by `perf run --against`: this file is one arm of an interleaved baseline/candidate pair. */
  against?: { role: 'baseline' | 'candidate'; other: string; order: 'ABBA' };
  /** The scenario's `gate:` block: the primary metrics that decide a compare (default: the registry's). */
  gate?: { metrics: string[] };
  /** How a sequential comparison sampled this run, so `perf compare` re-judges it on the same boundaries. */
  sequential?: SequentialRecord;
}

/**
 * The design of a sequential comparison and where it looked (`perf gate`, `perf run --against`). The
 * final look is the file's own state; `looks` are the earlier ones.
 */
export interface SequentialRecord {
  /** False-alarm rate over all looks and primary metrics. */
  alpha: number;
  spending: 'pocock' | 'obrien-fleming';
  /** Counted (non-warmup) repeat records of the baseline (a) and candidate (b) at each EARLIER look. */
  looks: { a: number; b: number }[];
  /** The most measured repeats per arm the design allowed: all of them, and the timing-mode ones. */
  max: { a: number; b: number; timingA: number; timingB: number };
  /** Why sampling stopped: the verdict decided (an error confirmed, or every primary metric settled), maxRepeat reached, --budget-s spent, or Ctrl-C. */
  stopped: 'decided' | 'max-repeat' | 'budget' | 'interrupted';
  /** true when the baseline is a stored file that did not grow (`perf gate`): only the candidate was sampled. */
  storedBaseline: boolean;
  /** Metrics a look before the last one found significant, and in which direction: a crossing is final. */
  rejected?: Record<string, 'worse' | 'better'>;
}
