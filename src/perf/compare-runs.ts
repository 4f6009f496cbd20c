/**
 * Compare at the level of run files (DESIGN.md "Compare"): read and validate two run files, decide which
 * metrics the gate may judge and from which repeats, hand the per-repeat samples to compareMetrics(),
 * and wrap its verdict in the contract's JSON shape
 * `{ verdict, thresholds, frames: { painted: { a, b } }, rows, unchanged, timing: { gated, note }, warnings }`.
 *
 * What is gated, and why:
 * - Counts per painted frame (every `<count>.perFrame`): the work a frame costs, independent of how many
 *   frames the machine managed to paint. A raw count (counters.layouts) grows when a FASTER build paints
 *   more frames in the same scroll, so the raw form alone would punish an improvement.
 * - A raw count whose value is identical in every repeat of each run (counters.layouts 0,0,0 → 11,11,11)
 *   is gated too. That pattern means the count is fixed by the code path, not by frame pacing, so a
 *   change in it is a change in the work the scenario does; and it is the one shape of evidence that is
 *   conclusive with 3 repeats (compare.ts's zero-spread rule), where dividing by a painted-frame count
 *   that varies 4…6 between repeats would smear it into noise. Otherwise the raw count is info only.
 * - Milliseconds only from timing-mode repeats: attribution repeats run with tracing and the sampling
 *   profiler on, which inflates and distorts every ms figure. When either run has no timing repeats,
 *   every ms metric is info only and `timing.note` says so.
 * - Not gated (info): bytes, frames.count / frames.painted (the denominators: more painted frames is not
 *   worse), interactions.count (set by the scenario, not by the app), anything else without a known
 *   direction (layoutShift.score, counters.domNodesDelta).
 */
import { readFileSync } from 'node:fs';
import { PerfError } from '../errors.js';
import type { RepeatRecord, RunFile } from '../runner/run-file.js';
import { compareMetrics, DEFAULT_ALPHA, type CompareResult, type MetricSamples, type Thresholds } from './compare.js';
import { median } from './stats.js';

/** The run-file schema this compare reads (run-file.ts); the type import keeps src/perf free of runtime deps on src/runner. */
const RUN_FILE_SCHEMA_VERSION: RunFile['schemaVersion'] = 1;

/** How the gate treats one metric (see the file header). */
export type MetricKind = 'perFrame' | 'count' | 'ms' | 'info';

const PER_FRAME = '.perFrame';
/** Milliseconds by name: durationMs, frames.frameMs.p90, steps.<label>.ms, counters.scriptMs.perFrame. */
const MS_METRIC = /(Ms|\.ms)(\.|$)/;
const BYTES_METRIC = /Bytes(\.|$)/;
/** Counts fixed by the scenario or that are the per-frame denominators themselves. */
const NOT_GATED_COUNTS = new Set(['interactions.count', 'frames.count', 'frames.painted']);

/** `names` is every metric name present in either run: a raw count is a gate candidate only when it has a per-frame form. */
export function metricKind(metric: string, names: ReadonlySet<string>): MetricKind {
  if (MS_METRIC.test(metric)) return 'ms';
  if (BYTES_METRIC.test(metric)) return 'info';
  if (metric.endsWith(PER_FRAME)) return NOT_GATED_COUNTS.has(metric.slice(0, -PER_FRAME.length)) ? 'info' : 'perFrame';
  if (!NOT_GATED_COUNTS.has(metric) && names.has(metric + PER_FRAME)) return 'count';
  return 'info';
}

export interface RunIdentity {
  file: string | null;
  scenario: string;
  variant: string | null;
  label: string;
  startedAt: string;
  /** Repeats whose metrics were used (measured, not warmup). */
  measured: number;
  refused: number;
  failed: number;
  timingRepeats: number;
}

export interface ThresholdsUsed {
  warnPct: number;
  errorPct: number;
  metrics: Record<string, { warnPct?: number; errorPct?: number }>;
}

/** DESIGN.md's compare JSON: compareMetrics() plus the run-level facts around it. */
export interface RunsComparison extends CompareResult {
  thresholds: ThresholdsUsed;
  frames: { painted: { a: number | null; b: number | null } };
  timing: { gated: boolean; note: string };
  /** Differences a reader must know about (env, forced compare, ignored repeats); never change the verdict. */
  warnings: string[];
  baseline: RunIdentity;
  candidate: RunIdentity;
}

export interface CompareRunsOptions {
  /** Compare runs of different scenarios or variants anyway (a warning instead of exit 2). */
  force?: boolean;
  alpha?: number;
  /** Replace the thresholds read from the candidate run file (e.g. the gate's loaded scenario). */
  thresholds?: ThresholdsUsed;
  /** Paths, for messages and the identity blocks. */
  files?: { a?: string; b?: string };
}

// ─── reading and validating ─────────────────────────────────────────────────────────────────────────

function invalid(file: string, what: string, cause?: unknown): PerfError {
  return new PerfError({
    kind: 'usage',
    code: 'run_file_invalid',
    message: `${file}: not a rehearse run file: ${what}`,
    suggestion: 'pass files written by `perf run` (build/perf/<scenario>[-<variant>]-<label>.json)',
    ...(cause !== undefined ? { cause } : {}),
  });
}

/** Read and validate a run file; every problem is a usage error (exit 2) naming the file. */
export function readRunFile(file: string): RunFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new PerfError({
      kind: 'usage',
      code: 'run_file_unreadable',
      message: `${file}: cannot read the run file${code === 'ENOENT' ? ': no such file' : `: ${(e as Error).message}`}`,
      suggestion: 'check the path; `perf run` writes build/perf/<scenario>[-<variant>]-<label>.json',
      cause: e,
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw invalid(file, `invalid JSON (${(e as Error).message})`, e);
  }
  return validateRunFile(data, file);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Structural check of what compare reads; throws PerfError usage naming the file and the field. */
export function validateRunFile(data: unknown, file: string): RunFile {
  if (!isObj(data)) throw invalid(file, 'the top level is not an object');
  if (data.schemaVersion !== RUN_FILE_SCHEMA_VERSION) {
    throw new PerfError({
      kind: 'usage',
      code: 'run_file_schema',
      message: `${file}: run file schemaVersion ${JSON.stringify(data.schemaVersion)}; this perf reads schemaVersion ${RUN_FILE_SCHEMA_VERSION}`,
      suggestion: 'rerun `perf run` (or `perf gate --update` for a baseline) with this version of perf',
    });
  }
  if (typeof data.scenario !== 'string' || !data.scenario) throw invalid(file, '"scenario" must be a non-empty string');
  if (data.variant !== null && data.variant !== undefined && typeof data.variant !== 'string') throw invalid(file, '"variant" must be a string or null');
  if (typeof data.label !== 'string') throw invalid(file, '"label" must be a string');
  if (!isObj(data.env)) throw invalid(file, '"env" must be an object');
  if (!Array.isArray(data.repeats)) throw invalid(file, '"repeats" must be an array');
  data.repeats.forEach((r: unknown, i: number) => {
    const at = `repeats[${i}]`;
    if (!isObj(r)) throw invalid(file, `${at} is not an object`);
    if (r.mode !== 'timing' && r.mode !== 'attribution') throw invalid(file, `${at}.mode must be "timing" or "attribution"`);
    if (r.status !== 'measured' && r.status !== 'refused' && r.status !== 'failed') throw invalid(file, `${at}.status must be measured, refused or failed`);
    if (r.status === 'measured') {
      if (!isObj(r.report) || !isObj(r.report.metrics)) throw invalid(file, `${at}.report.metrics must be an object`);
      for (const [k, v] of Object.entries(r.report.metrics)) {
        if (typeof v !== 'number' && v !== null) throw invalid(file, `${at}.report.metrics["${k}"] must be a number`);
      }
    }
  });
  if (data.thresholds !== undefined) {
    const t = data.thresholds;
    if (!isObj(t) || typeof t.warnPct !== 'number' || typeof t.errorPct !== 'number') throw invalid(file, '"thresholds" must be { warnPct, errorPct, metrics }');
  }
  return data as unknown as RunFile;
}

// ─── samples ────────────────────────────────────────────────────────────────────────────────────────

type Measured = Extract<RepeatRecord, { status: 'measured' }>;

function measuredRepeats(run: RunFile): Measured[] {
  return run.repeats.filter((r): r is Measured => r.status === 'measured' && !r.warmup);
}

function values(repeats: Measured[], metric: string): number[] {
  const out: number[] = [];
  for (const r of repeats) {
    const v = r.report.metrics[metric];
    if (typeof v === 'number' && Number.isFinite(v)) out.push(v);
  }
  return out;
}

function identity(run: RunFile, file: string | undefined): RunIdentity {
  const counted = run.repeats.filter((r) => !r.warmup);
  const measured = measuredRepeats(run);
  return {
    file: file ?? null,
    scenario: run.scenario,
    variant: run.variant ?? null,
    label: run.label,
    startedAt: run.startedAt,
    measured: measured.length,
    refused: counted.filter((r) => r.status === 'refused').length,
    failed: counted.filter((r) => r.status === 'failed').length,
    timingRepeats: measured.filter((r) => r.mode === 'timing').length,
  };
}

export function runName(run: Pick<RunFile, 'scenario' | 'variant'>): string {
  return `${run.scenario}${run.variant ? ` (${run.variant})` : ''}`;
}

const constant = (xs: number[]): boolean => xs.length > 0 && xs.every((v) => v === xs[0]);

/**
 * Per-metric overrides as compareMetrics takes them. A threshold on a count covers its per-frame form
 * too (that is the form the gate judges). An override that sets only one level keeps the pair ordered:
 * `frames.overBudget: { error: 5% }` under the default warn 10 % means "error from +5 %", so warn
 * becomes 5 % as well rather than the scenario being rejected for warn > error.
 */
export function perMetricThresholds(metrics: ThresholdsUsed['metrics'], defaults: Thresholds = { warnPct: 10, errorPct: 25 }): Record<string, Partial<Thresholds>> {
  const out: Record<string, Partial<Thresholds>> = {};
  for (const [k, v] of Object.entries(metrics)) {
    const t: Partial<Thresholds> = { ...v };
    if (t.errorPct !== undefined && t.warnPct === undefined && t.errorPct < defaults.warnPct) t.warnPct = t.errorPct;
    if (t.warnPct !== undefined && t.errorPct === undefined && t.warnPct > defaults.errorPct) t.errorPct = t.warnPct;
    out[k] = t;
  }
  for (const [k, v] of Object.entries({ ...out })) {
    if (!k.endsWith(PER_FRAME) && !MS_METRIC.test(k) && !(k + PER_FRAME in out)) out[k + PER_FRAME] = { ...v };
  }
  return out;
}

// ─── compare ────────────────────────────────────────────────────────────────────────────────────────

/** Judge candidate `b` against baseline `a`. Throws PerfError usage for runs that cannot be compared. */
export function compareRuns(a: RunFile, b: RunFile, opts: CompareRunsOptions = {}): RunsComparison {
  const fileA = opts.files?.a ?? `baseline (${a.label})`;
  const fileB = opts.files?.b ?? `candidate (${b.label})`;
  const warnings: string[] = [];

  if (a.scenario !== b.scenario || (a.variant ?? null) !== (b.variant ?? null)) {
    const what = `${fileA} is ${runName(a)} but ${fileB} is ${runName(b)}`;
    if (!opts.force) {
      throw new PerfError({
        kind: 'usage',
        code: 'runs_not_comparable',
        message: `compare: different scenarios or variants: ${what}`,
        suggestion: 'compare two runs of the same scenario and variant, or pass --force to compare them anyway',
      });
    }
    warnings.push(`forced: ${what}`);
  }

  const repA = measuredRepeats(a);
  const repB = measuredRepeats(b);
  for (const [run, reps, file] of [[a, repA, fileA], [b, repB, fileB]] as const) {
    if (reps.length === 0) {
      const counted = run.repeats.filter((r) => !r.warmup);
      throw new PerfError({
        kind: 'usage',
        code: 'run_file_unmeasured',
        message: `${file}: no measured repeat to compare (${counted.length} counted: ${counted.filter((r) => r.status === 'refused').length} refused, ${counted.filter((r) => r.status === 'failed').length} failed)`,
        suggestion: 'fix the failing step or the refusal shown by `perf run`, then run again',
      });
    }
  }

  warnings.push(...envWarnings(a, b));
  for (const [run, file] of [[a, fileA], [b, fileB]] as const) {
    const id = identity(run, undefined);
    if (id.refused || id.failed) warnings.push(`${file}: ${id.refused} refused and ${id.failed} failed repeat(s) left out; ${id.measured} measured repeat(s) compared`);
    if (run.interrupted) warnings.push(`${file}: the run was interrupted; partial results`);
  }

  const thresholds = opts.thresholds ?? normalizeThresholds(b.thresholds);
  if (!opts.thresholds && a.thresholds && b.thresholds && JSON.stringify(normalizeThresholds(a.thresholds)) !== JSON.stringify(thresholds)) {
    warnings.push(`the runs were made with different thresholds; using the candidate's (warn +${thresholds.warnPct}%, error +${thresholds.errorPct}%)`);
  }

  const timingA = repA.filter((r) => r.mode === 'timing');
  const timingB = repB.filter((r) => r.mode === 'timing');
  const timingGated = timingA.length > 0 && timingB.length > 0;
  const timing = {
    gated: timingGated,
    note: timingGated
      ? `ms metrics gated on timing-mode repeats only (${timingA.length} vs ${timingB.length}); attribution-mode ms are info`
      : timingA.length === 0 && timingB.length === 0
        ? 'no timing-mode repeats in either run: ms metrics are info only (attribution mode instruments the page); run both with --timing (or timing: true) to gate on milliseconds'
        : `only the ${timingA.length ? 'baseline' : 'candidate'} has timing-mode repeats: ms metrics are info only; run both with the same --timing setting`,
  };

  const { samples, onlyA, onlyB } = metricSamples(a, b);
  if (onlyA.length) warnings.push(`only in the baseline: ${onlyA.join(', ')}`);
  if (onlyB.length) warnings.push(`only in the candidate: ${onlyB.join(', ')}`);

  const result = compareMetrics(samples, {
    thresholds: { warnPct: thresholds.warnPct, errorPct: thresholds.errorPct },
    perMetric: perMetricThresholds(thresholds.metrics, thresholds),
    alpha: opts.alpha ?? DEFAULT_ALPHA,
  });
  const painted = (reps: Measured[]): number | null => {
    const v = values(reps, 'frames.painted');
    return v.length ? median(v) : null;
  };
  return {
    verdict: result.verdict,
    thresholds,
    frames: { painted: { a: painted(repA), b: painted(repB) } },
    rows: result.rows,
    unchanged: result.unchanged,
    timing,
    warnings,
    baseline: identity(a, opts.files?.a),
    candidate: identity(b, opts.files?.b),
  };
}

/**
 * Per-repeat samples of every metric in either run, each marked gated or not by the rules in the file
 * header. ms metrics come from timing-mode repeats when both runs have them.
 */
export function metricSamples(a: RunFile, b: RunFile): { samples: MetricSamples[]; timingGated: boolean; onlyA: string[]; onlyB: string[] } {
  const repA = measuredRepeats(a);
  const repB = measuredRepeats(b);
  const timingA = repA.filter((r) => r.mode === 'timing');
  const timingB = repB.filter((r) => r.mode === 'timing');
  const timingGated = timingA.length > 0 && timingB.length > 0;
  const namesA = new Set(repA.flatMap((r) => Object.keys(r.report.metrics)));
  const namesB = new Set(repB.flatMap((r) => Object.keys(r.report.metrics)));
  const names = new Set([...namesA, ...namesB]);
  const samples: MetricSamples[] = [];
  for (const metric of [...names].sort()) {
    const kind = metricKind(metric, names);
    switch (kind) {
      case 'ms':
        samples.push({ metric, a: values(timingGated ? timingA : repA, metric), b: values(timingGated ? timingB : repB, metric), gated: timingGated });
        break;
      case 'perFrame':
        samples.push({ metric, a: values(repA, metric), b: values(repB, metric), gated: true });
        break;
      case 'count': {
        const sa = values(repA, metric);
        const sb = values(repB, metric);
        samples.push({ metric, a: sa, b: sb, gated: constant(sa) && constant(sb) });
        break;
      }
      case 'info':
        samples.push({ metric, a: values(repA, metric), b: values(repB, metric), gated: false });
        break;
    }
  }
  return {
    samples,
    timingGated,
    onlyA: [...namesA].filter((m) => !namesB.has(m)).sort(),
    onlyB: [...namesB].filter((m) => !namesA.has(m)).sort(),
  };
}

/** Read, validate and compare two run files (a = baseline, b = candidate). */
export function compareRunFiles(fileA: string, fileB: string, opts: Omit<CompareRunsOptions, 'files'> = {}): { comparison: RunsComparison; a: RunFile; b: RunFile } {
  const a = readRunFile(fileA);
  const b = readRunFile(fileB);
  return { comparison: compareRuns(a, b, { ...opts, files: { a: fileA, b: fileB } }), a, b };
}

/** DESIGN.md exit codes: 1 when an error-level regression failed the compare, else 0. */
export function compareExitCode(c: Pick<CompareResult, 'verdict'>): 0 | 1 {
  switch (c.verdict) {
    case 'fail':
      return 1;
    case 'warn':
    case 'pass':
      return 0;
  }
}

function normalizeThresholds(t: RunFile['thresholds'] | undefined): ThresholdsUsed {
  return { warnPct: t?.warnPct ?? 10, errorPct: t?.errorPct ?? 25, metrics: { ...(t?.metrics ?? {}) } };
}

/** Differences in how the two runs were made: each makes deltas harder to read, none blocks the compare. */
export function envWarnings(a: RunFile, b: RunFile): string[] {
  const out: string[] = [];
  const ea = a.env;
  const eb = b.env;
  const diff = (what: string, x: unknown, y: unknown): void => {
    if (JSON.stringify(x) !== JSON.stringify(y)) out.push(`${what} differs: ${fmt(x)} (baseline) vs ${fmt(y)} (candidate)`);
  };
  diff('browser version', ea?.browser?.product, eb?.browser?.product);
  diff('browser headless mode', ea?.browser?.headless, eb?.browser?.headless);
  diff('host CPU', ea?.host ? `${ea.host.cpuModel} ×${ea.host.cpus}` : undefined, eb?.host ? `${eb.host.cpuModel} ×${eb.host.cpus}` : undefined);
  diff('host platform', ea?.host ? `${ea.host.platform}/${ea.host.arch}` : undefined, eb?.host ? `${eb.host.platform}/${eb.host.arch}` : undefined);
  diff('CPU throttling', ea?.cpuThrottle, eb?.cpuThrottle);
  const vp = (e: RunFile['env'] | undefined): string | undefined =>
    e?.viewport ? `${e.viewport.width}×${e.viewport.height}@${e.viewport.dpr}${e.viewport.mobile ? ' mobile' : ''}${e.viewport.touch ? ' touch' : ''}` : undefined;
  diff('viewport', vp(ea), vp(eb));
  diff('restart mode', ea?.restartMode, eb?.restartMode);
  return out;
}

function fmt(v: unknown): string {
  return v === undefined ? 'unknown' : typeof v === 'string' ? v : JSON.stringify(v);
}
