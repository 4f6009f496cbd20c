/**
 * Compare at the level of run files (DESIGN.md "Compare"): read and validate two run files, decide the
 * role each metric plays and from which repeats it is read, hand the per-repeat samples to
 * compareMetrics(), and wrap its verdict in the contract's JSON shape
 * `{ verdict, thresholds, frames: { painted: { a, b } }, rows, unchanged, timing: { gated, note }, warnings }`.
 *
 * Roles (metrics.ts declares each metric; nothing here reads a metric's name):
 * - PRIMARY, deciding the verdict: the scenario's `gate.metrics`, else the registry's primary metrics.
 *   A metric with a per-frame form is judged per frame only when both runs painted at least
 *   MIN_PAINTED_FOR_PER_FRAME frames; otherwise its absolute count is (a per-frame ratio over a handful of
 *   frames follows the machine's pacing, not the app), except counts of frames the machine paces
 *   (dropped, over budget, long frames), which are then too coarse to gate and judged as secondary.
 * - Milliseconds come from timing-mode repeats, and are judged only when both runs have them:
 *   attribution repeats run the sampling profiler, which inflates every ms figure.
 * - When the baseline was recorded on another host (CPU model, cores, browser build), host-dependent
 *   metrics (ms, frame pacing) are shown, not judged; the app's own work (layouts, style recalcs, DOM
 *   nodes) still is, when it is the same in every baseline repeat (a count that varies is work per
 *   drawn frame, paced by the machine).
 * - Everything else with a direction is SECONDARY: judged in its own family, shown, never failing.
 * - Metrics without a better direction, undersized per-frame ratios and unknown names are SHOWN.
 */
import { readFileSync, statSync } from 'node:fs';
import { PerfError } from '../errors.js';
import type { RepeatRecord, RunFile, SequentialRecord } from './run-file.js';
import { compareMetrics, DEFAULT_ALPHA, DEFAULT_SPENDING, type CompareOptions, type CompareResult, type Direction, type MetricRole, type MetricSamples, type Thresholds } from './compare.js';
import { defaultPrimaryMetrics, floorOf, isTimingMetric, MIN_PAINTED_FOR_PER_FRAME, PER_FRAME_SUFFIX, resolveMetric, framesPainted, type DriverName, type ResolvedMetric } from './metrics.js';
import { median } from './stats.js';

/** The run-file schema this compare reads (run-file.ts); the type import keeps src/perf free of runtime deps on src/runner. */
const RUN_FILE_SCHEMA_VERSION: RunFile['schemaVersion'] = 1;

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
  /** Whether both runs come from one kind of machine; when not, what that means for the verdict. */
  host: { same: boolean; note?: string };
  /** Which metrics decided the verdict, how, and at which look. */
  gate: {
    primary: string[];
    /** Primary metrics that could not be judged here, and why. */
    notJudged: { metric: string; why: string }[];
    alpha: number;
    look: number;
    /** A sequential comparison: how it sampled. */
    sequential: (SequentialRecord & { note: string }) | null;
    /** One line for a reader: what decided, and what is undecided. */
    summary: string;
  };
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
  /** Replace the primary metrics read from the candidate run file. */
  primary?: string[];
  /** The design of a sequential comparison in progress (else the candidate file's `sequential`, else a fixed compare). */
  sequential?: SequentialRecord;
  /** Rejections made at earlier looks of the same sequential comparison. */
  rejected?: Readonly<Record<string, Direction>>;
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

// 64 MiB: a repeat takes ~15 KB in a run file, so this is thousands of repeats; beyond it the file is
// not one we wrote, and reading it whole would cost memory for nothing.
export const MAX_RUN_FILE_BYTES = 64 * 2 ** 20;
// 64 levels: a run file nests about 8 deep. V8's JSON.parse is superlinear in nesting (16 MiB of
// "[" took 2.4 s here, 64 MiB 15 s), so depth is checked first, in one linear pass.
const MAX_JSON_DEPTH = 64;

/** Where `text` first nests deeper than `max` (strings skipped), or -1. */
export function tooDeepAt(text: string, max: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return -1;
}

/** Read and validate a run file; every problem is a usage error (exit 2) naming the file. */
export function readRunFile(file: string): RunFile {
  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw invalid(file, 'it is not a regular file');
    if (st.size > MAX_RUN_FILE_BYTES) {
      throw new PerfError({ kind: 'usage', code: 'run_file_too_large', message: `${file}: ${(st.size / 2 ** 20).toFixed(1)} MiB; a run file may be at most ${MAX_RUN_FILE_BYTES / 2 ** 20} MiB`, suggestion: 'check that this is a file written by `perf run`' });
    }
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof PerfError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new PerfError({
      kind: 'usage',
      code: 'run_file_unreadable',
      message: `${file}: cannot read the run file${code === 'ENOENT' ? ': no such file' : `: ${(e as Error).message}`}`,
      suggestion: 'check the path; `perf run` writes build/perf/<scenario>[-<variant>]-<label>.json',
      cause: e,
    });
  }
  const deep = tooDeepAt(text, MAX_JSON_DEPTH);
  if (deep >= 0) throw invalid(file, `nested more than ${MAX_JSON_DEPTH} levels deep at byte ${deep}`);
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
  if (data.gate !== undefined) {
    const g = data.gate;
    if (!isObj(g) || !Array.isArray(g.metrics) || !g.metrics.every((m) => typeof m === 'string')) throw invalid(file, '"gate" must be { metrics: string[] }');
  }
  if (data.sequential !== undefined) validateSequential(data.sequential, file);
  return data as unknown as RunFile;
}

/** The sequential record re-judges a compare on its boundaries: a malformed one would silently change the verdict. */
function validateSequential(q: unknown, file: string): void {
  const bad = (field: string, expected: string): PerfError => invalid(file, `"sequential.${field}" must be ${expected}`);
  if (!isObj(q)) throw invalid(file, '"sequential" must be an object');
  if (typeof q.alpha !== 'number' || !(q.alpha > 0 && q.alpha < 1)) throw bad('alpha', 'a number between 0 and 1');
  if (q.spending !== 'pocock' && q.spending !== 'obrien-fleming') throw bad('spending', '"pocock" or "obrien-fleming"');
  const count = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0;
  if (!Array.isArray(q.looks) || !q.looks.every((l) => isObj(l) && count(l.a) && count(l.b))) throw bad('looks', 'an array of { a, b } repeat counts');
  const m = q.max;
  if (!isObj(m) || !count(m.a) || !count(m.b) || !count(m.timingA) || !count(m.timingB)) throw bad('max', '{ a, b, timingA, timingB } repeat counts');
  if (!['decided', 'max-repeat', 'budget', 'interrupted'].includes(String(q.stopped))) throw bad('stopped', 'decided, max-repeat, budget or interrupted');
  if (typeof q.storedBaseline !== 'boolean') throw bad('storedBaseline', 'true or false');
  if (q.rejected !== undefined && (!isObj(q.rejected) || !Object.values(q.rejected).every((d) => d === 'worse' || d === 'better'))) throw bad('rejected', 'a map of metric names to "worse" or "better"');
}

// ─── samples ────────────────────────────────────────────────────────────────────────────────────────

type Measured = Extract<RepeatRecord, { status: 'measured' }>;

function counted(run: RunFile): RepeatRecord[] {
  return run.repeats.filter((r) => !r.warmup);
}

function measuredRepeats(records: readonly RepeatRecord[]): Measured[] {
  return records.filter((r): r is Measured => r.status === 'measured' && !r.warmup);
}

function values(repeats: readonly Measured[], metric: string): number[] {
  const out: number[] = [];
  for (const r of repeats) {
    const v = r.report.metrics[metric];
    if (typeof v === 'number' && Number.isFinite(v)) out.push(v);
  }
  return out;
}

function identity(run: RunFile, file: string | undefined): RunIdentity {
  const all = counted(run);
  const measured = measuredRepeats(all);
  return {
    file: file ?? null,
    scenario: run.scenario,
    variant: run.variant ?? null,
    label: run.label,
    startedAt: run.startedAt,
    measured: measured.length,
    refused: all.filter((r) => r.status === 'refused').length,
    failed: all.filter((r) => r.status === 'failed').length,
    timingRepeats: measured.filter((r) => r.mode === 'timing').length,
  };
}

export function runName(run: Pick<RunFile, 'scenario' | 'variant'>): string {
  return `${run.scenario}${run.variant ? ` (${run.variant})` : ''}`;
}

/**
 * Per-metric overrides as compareMetrics takes them. A threshold on a count covers its per-frame form
 * too. An override that sets only one level keeps the pair ordered: `frames.overBudget: { error: 5% }`
 * under the default warn 10 % means "error from +5 %", so warn becomes 5 % as well rather than the
 * scenario being rejected for warn > error.
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
    const r = resolveMetric(k);
    if (r && !r.perFrame && r.def.perFrame && !(k + PER_FRAME_SUFFIX in out)) out[k + PER_FRAME_SUFFIX] = { ...v };
  }
  return out;
}

/** What identifies the kind of machine a run was measured on: its host-dependent metrics are comparable only within one. */
export function hostKey(env: RunFile['env'] | undefined): string {
  if (!env?.host) return 'unknown host';
  return `${env.host.cpuModel} ×${env.host.cpus}, ${env.host.platform}/${env.host.arch}, ${env.browser?.product ?? 'unknown browser'}`;
}

export interface SampleContext {
  /** Both runs have timing-mode repeats: ms metrics are read from those and judged. */
  timingGated: boolean;
  sameHost: boolean;
  /** Median painted frames per run; per-frame forms need both ≥ MIN_PAINTED_FOR_PER_FRAME. */
  painted: { a: number | null; b: number | null };
  /** The primary forms actually judged. */
  primary: string[];
  notJudged: { metric: string; why: string }[];
}

/**
 * The samples of every metric in either run with the role it plays, and the context that decided the
 * roles. `primaryNames`: base names (or explicit `.perFrame` names) of the primary family.
 */
export function metricSamples(
  a: RunFile,
  b: RunFile,
  opts: { primary?: string[]; sequential?: SequentialRecord | undefined } = {},
): { samples: MetricSamples[]; context: SampleContext; onlyA: string[]; onlyB: string[] } {
  const recA = counted(a);
  const recB = counted(b);
  const repA = measuredRepeats(recA);
  const repB = measuredRepeats(recB);
  const timingGated = repA.some((r) => r.mode === 'timing') && repB.some((r) => r.mode === 'timing');
  const sameHost = hostKey(a.env) === hostKey(b.env);
  const paintedMedian = (reps: Measured[]): number | null => {
    const v = values(reps, framesPainted.name);
    return v.length ? median(v) : null;
  };
  const painted = { a: paintedMedian(repA), b: paintedMedian(repB) };
  const perFrameOk = (painted.a ?? 0) >= MIN_PAINTED_FOR_PER_FRAME && (painted.b ?? 0) >= MIN_PAINTED_FOR_PER_FRAME;
  const frameCountWhy = `fewer than ${MIN_PAINTED_FOR_PER_FRAME} painted frames (${painted.a ?? 0} and ${painted.b ?? 0}): a count of frames paced by the machine is too coarse to gate here; judged as secondary`;
  const perFrameWhy = `per-frame ratio not judged: fewer than ${MIN_PAINTED_FOR_PER_FRAME} painted frames (${painted.a ?? 0} and ${painted.b ?? 0}), so it follows the machine's frame pacing; the absolute count is judged instead`;

  // The primary family: per-frame forms where enough frames were painted, else the absolute counts.
  const wanted = opts.primary ?? b.gate?.metrics ?? defaultPrimaryMetrics();
  const primaryForms = new Set<string>();
  for (const name of wanted) {
    const r = resolveMetric(name);
    if (!r) continue;
    if (r.perFrame) primaryForms.add(perFrameOk ? name : r.base);
    else primaryForms.add(r.def.perFrame && perFrameOk ? name + PER_FRAME_SUFFIX : name);
  }

  const namesA = new Set(repA.flatMap((r) => Object.keys(r.report.metrics)));
  const namesB = new Set(repB.flatMap((r) => Object.keys(r.report.metrics)));
  const names = [...new Set([...namesA, ...namesB])].sort();
  const notJudged: SampleContext['notJudged'] = [];
  const hostWhy = `baseline from another host (${hostKey(a.env)}; this run: ${hostKey(b.env)})`;
  const samples: MetricSamples[] = [];
  for (const metric of names) {
    const r = resolveMetric(metric);
    if (!r) {
      samples.push({ metric, a: values(repA, metric), b: values(repB, metric), role: 'shown', better: 'none', floor: 0, note: 'not a metric this version declares' });
      continue;
    }
    const timing = isTimingMetric(metric);
    const fromA = timing && timingGated ? repA.filter((x) => x.mode === 'timing') : repA;
    const fromB = timing && timingGated ? repB.filter((x) => x.mode === 'timing') : repB;
    let role: MetricRole = r.def.gate === 'never' || r.def.better === 'none' ? 'shown' : primaryForms.has(metric) ? 'primary' : 'secondary';
    let note: string | undefined;
    const lost = role === 'primary' ? lostIn(r, repA, repB) : undefined;
    if (lost) {
      // A primary metric one run measured and the other did not stays primary, whatever would demote it:
      // the row is `missing`, and fails unless that run's driver cannot produce the metric.
      const run = lost === 'a' ? a : b;
      const unmeasurable = r.def.drivers.includes(driverOf(run.env)) ? undefined : `the ${driverOf(run.env)} driver does not produce it`;
      samples.push({ metric, a: values(repA, metric), b: values(repB, metric), role, better: r.def.better, floor: floorOf(r), ...(unmeasurable ? { unmeasurable } : {}) });
      continue;
    }
    if (r.perFrame && !perFrameOk && role !== 'shown') {
      role = 'shown';
      note = perFrameWhy;
    } else if (role !== 'shown' && !sameHost && (r.def.hostDependent || pacedCount(r, repA))) {
      const why = r.def.hostDependent ? hostWhy : `${hostWhy}, and this count varies from repeat to repeat in the baseline: work done per frame, so it follows how many frames the machine draws`;
      if (role === 'primary') notJudged.push({ metric, why });
      role = 'shown';
      note = why;
    } else if (role === 'primary' && !perFrameOk && r.def.kind === 'count' && r.def.hostDependent && r.def.perFrame) {
      // Frames over budget or dropped in a window of a few painted frames are a handful of integers set
      // by the machine's frame pacing (1/7 → 1/6 seen here): too coarse to fail a gate on, so judged as
      // secondary. Measured here: 5–7 painted frames per list scroll, over-budget counts moving 0–3 in an A/A.
      notJudged.push({ metric, why: frameCountWhy });
      role = 'secondary';
      note = frameCountWhy;
    } else if (role !== 'shown' && timing && !timingGated) {
      if (role === 'primary') notJudged.push({ metric, why: 'no timing-mode repeats in both runs (run with --timing)' });
      role = 'secondary';
      note = 'ms from attribution-mode repeats (the profiler inflates them): not gated; run both with --timing';
    }
    const sample: MetricSamples = {
      metric,
      a: values(fromA, metric),
      b: values(fromB, metric),
      role,
      better: r.def.better,
      floor: floorOf(r),
      ...(note ? { note } : {}),
      ...(r.def.kind === 'count' && !r.def.hostDependent && !r.perFrame ? { exact: true } : {}),
      ...(r.def.kind === 'count' && r.def.hostDependent ? { events: eventCounts(r, fromA, fromB) } : {}),
      ...sequentialSizes(metric, timing && timingGated, recA, recB, opts.sequential),
    };
    samples.push(sample);
  }
  return {
    samples,
    context: { timingGated, sameHost, painted, primary: samples.filter((x) => x.role === 'primary').map((x) => x.metric), notJudged },
    onlyA: [...namesA].filter((m) => !namesB.has(m)).sort(),
    onlyB: [...namesB].filter((m) => !namesA.has(m)).sort(),
  };
}

/**
 * Which run lost a primary metric: it has no finite value of it (nor of its base count, for a per-frame
 * form) in any measured repeat while the other run has some. Undefined when both or neither measured it.
 */
function lostIn(r: ResolvedMetric, repA: Measured[], repB: Measured[]): 'a' | 'b' | undefined {
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
function pacedCount(r: ResolvedMetric, baseline: Measured[]): boolean {
  // A per-frame form is judged only over enough frames, and dividing by them is what takes the pacing out.
  if (r.def.kind !== 'count' || r.perFrame) return false;
  const xs = values(baseline, r.name);
  return xs.some((x) => x !== xs[0]);
}

/** Per-repeat event counts and their exposure: 1 per repeat for a count, painted frames for a per-frame form. */
function eventCounts(r: ResolvedMetric, fromA: Measured[], fromB: Measured[]): NonNullable<MetricSamples['events']> {
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
function sequentialSizes(metric: string, timingOnly: boolean, recA: RepeatRecord[], recB: RepeatRecord[], seq: SequentialRecord | undefined): Pick<MetricSamples, 'looks' | 'maxN'> {
  if (!seq) return {};
  const n = (records: RepeatRecord[], upTo: number): number =>
    values(measuredRepeats(records.slice(0, upTo)).filter((r) => !timingOnly || r.mode === 'timing'), metric).length;
  const looks = seq.looks.map((l) => ({ a: n(recA, l.a), b: n(recB, l.b) }));
  const maxN = timingOnly ? { a: seq.max.timingA, b: seq.max.timingB } : { a: seq.max.a, b: seq.max.b };
  return { looks, maxN };
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

  for (const [run, file] of [[a, fileA], [b, fileB]] as const) {
    if (measuredRepeats(counted(run)).length === 0) {
      const all = counted(run);
      throw new PerfError({
        kind: 'usage',
        code: 'run_file_unmeasured',
        message: `${file}: no measured repeat to compare (${all.length} counted: ${all.filter((r) => r.status === 'refused').length} refused, ${all.filter((r) => r.status === 'failed').length} failed)`,
        suggestion: 'fix the failing step or the refusal shown by `perf run`, then run again',
      });
    }
  }

  warnings.push(...envWarnings(a, b));
  for (const [run, file] of [[a, fileA], [b, fileB]] as const) {
    const id = identity(run, undefined);
    if (id.refused || id.failed) warnings.push(`${file}: ${id.refused} refused and ${id.failed} failed repeat(s) left out; ${id.measured} measured repeat(s) compared`);
    if (run.interrupted) warnings.push(`${file}: the run was interrupted; partial results`);
    if (run.complete === false) warnings.push(`${file}: the run did not finish (killed after ${run.repeats.length} repeat(s)); judged on what it holds`);
  }

  const thresholds = opts.thresholds ?? normalizeThresholds(b.thresholds);
  if (!opts.thresholds && a.thresholds && b.thresholds && JSON.stringify(normalizeThresholds(a.thresholds)) !== JSON.stringify(thresholds)) {
    warnings.push(`the runs were made with different thresholds; using the candidate's (warn +${thresholds.warnPct}%, error +${thresholds.errorPct}%)`);
  }

  const sequential = opts.sequential ?? b.sequential;
  const { samples, context, onlyA, onlyB } = metricSamples(a, b, { ...(opts.primary ? { primary: opts.primary } : {}), sequential });
  if (onlyA.length) warnings.push(`only in the baseline: ${onlyA.join(', ')}`);
  if (onlyB.length) warnings.push(`only in the candidate: ${onlyB.join(', ')}`);

  const idA = identity(a, opts.files?.a);
  const idB = identity(b, opts.files?.b);
  const timing = {
    gated: context.timingGated,
    note: context.timingGated
      ? `ms metrics judged on timing-mode repeats only (${idA.timingRepeats} vs ${idB.timingRepeats}); attribution-mode ms are shown`
      : idA.timingRepeats === 0 && idB.timingRepeats === 0
        ? 'no timing-mode repeats in either run: ms metrics are secondary (attribution mode instruments the page); run both with --timing (or timing: true) to gate on milliseconds'
        : `only the ${idA.timingRepeats ? 'baseline' : 'candidate'} has timing-mode repeats: ms metrics are secondary; run both with the same --timing setting`,
  };
  const alpha = sequential?.alpha ?? opts.alpha ?? DEFAULT_ALPHA;
  const options: CompareOptions = {
    thresholds: { warnPct: thresholds.warnPct, errorPct: thresholds.errorPct },
    perMetric: perMetricThresholds(thresholds.metrics, thresholds),
    alpha,
    spending: sequential?.spending ?? DEFAULT_SPENDING,
    fixedBaseline: sequential?.storedBaseline ?? false,
    ...(opts.rejected ?? sequential?.rejected ? { rejected: opts.rejected ?? sequential?.rejected } : {}),
  };
  const result = compareMetrics(samples, options);
  const host = context.sameHost
    ? { same: true }
    : {
        same: false,
        note: `baseline from another host (${hostKey(a.env)}; this run: ${hostKey(b.env)}): milliseconds and frame pacing are shown, not gated; the app's own work (layouts, style recalcs) is. To gate them too, record the baseline on this machine (perf gate --update) or compare interleaved (perf run --against)`,
      };
  const look = (sequential?.looks.length ?? 0) + 1;
  // DESIGN.md's compare JSON names its first keys in this order; what this version adds follows them.
  return {
    verdict: result.verdict,
    thresholds,
    frames: { painted: context.painted },
    rows: result.rows,
    unchanged: result.unchanged,
    timing,
    warnings,
    decided: result.decided,
    rejected: result.rejected,
    ...(result.blind !== undefined ? { blind: result.blind } : {}),
    host,
    gate: {
      primary: context.primary,
      notJudged: context.notJudged,
      alpha,
      look,
      sequential: sequential ? { ...sequential, note: sequentialNote(sequential, look, idA, idB) } : null,
      summary: gateSummary(result, look),
    },
    baseline: idA,
    candidate: idB,
  };
}

function sequentialNote(seq: SequentialRecord, look: number, a: RunIdentity, b: RunIdentity): string {
  const why = { decided: 'the verdict was decided (an error-level regression confirmed, or every primary metric settled)', 'max-repeat': 'maxRepeat reached', budget: 'the time budget ran out', interrupted: 'interrupted' }[seq.stopped];
  const how = seq.storedBaseline
    ? `the candidate was sampled against a stored baseline of ${a.measured} repeats: slow drift between the two recordings (another day, another load) is not cancelled as in interleaved A B B A (perf run --against)`
    : 'both arms interleaved A B B A, so slow drift of the machine cancels';
  return `sequential: look ${look}, ${b.measured} candidate repeats, stopped because ${why}; α ${seq.alpha} spent over the looks (Lan–DeMets ${seq.spending}-type); ${how}`;
}

/** One line: what decided the verdict, or what is undecided and what would decide it. */
function gateSummary(r: CompareResult, look: number): string {
  const primary = r.rows.filter((x) => x.gated);
  const lookNote = look > 1 ? ` at look ${look}` : '';
  switch (r.verdict) {
    case 'fail':
    case 'warn': {
      const regs = primary.filter((x) => x.verdict === 'regressed' || (x.verdict === 'missing' && x.severity === 'error'));
      return `${regs.map((x) => `${x.metric} ${x.verdict === 'missing' ? 'missing (not measured)' : x.severity}`).join(', ')}${lookNote}`;
    }
    case 'inconclusive': {
      const und = primary.filter((x) => x.verdict === 'inconclusive');
      const need = Math.max(...und.map((x) => x.needRepeats ?? Infinity));
      return `undecided${lookNote}: ${und.map((x) => x.metric).join(', ')} past warn but within noise; ${Number.isFinite(need) ? `about ${need} repeats per run would decide` : 'more repeats than practical would be needed'}`;
    }
    case 'pass':
      return primary.length ? `${primary.length} primary metric${primary.length === 1 ? '' : 's'} within thresholds${lookNote}` : 'no primary metric could be judged';
  }
}

/** Read, validate and compare two run files (a = baseline, b = candidate). */
export function compareRunFiles(fileA: string, fileB: string, opts: Omit<CompareRunsOptions, 'files'> = {}): { comparison: RunsComparison; a: RunFile; b: RunFile } {
  const a = readRunFile(fileA);
  const b = readRunFile(fileB);
  return { comparison: compareRuns(a, b, { ...opts, files: { a: fileA, b: fileB } }), a, b };
}

/**
 * DESIGN.md exit codes: 1 when an error-level regression failed the compare; an inconclusive compare
 * exits 0 unless `strict` (--strict), then 1.
 */
export function compareExitCode(c: Pick<CompareResult, 'verdict'>, strict = false): 0 | 1 {
  switch (c.verdict) {
    case 'fail':
      return 1;
    case 'inconclusive':
      return strict ? 1 : 0;
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
  diff('network throttling', ea && networkFact(ea.network), eb && networkFact(eb.network));
  const vp = (e: RunFile['env'] | undefined): string | undefined =>
    e?.viewport ? `${e.viewport.width}×${e.viewport.height}@${e.viewport.dpr}${e.viewport.mobile ? ' mobile' : ''}${e.viewport.touch ? ' touch' : ''}` : undefined;
  diff('viewport', vp(ea), vp(eb));
  diff('restart mode', ea?.restartMode, eb?.restartMode);
  return out;
}

function fmt(v: unknown): string {
  return v === undefined ? 'unknown' : typeof v === 'string' ? v : JSON.stringify(v);
}

/** A run's network throttling in a few words: `slow-3g (2000 ms, 400/400 kbit/s)`, or none. */
export function networkFact(n: RunFile['env']['network']): string {
  if (!n) return 'none';
  return n.offline ? `${n.profile} (no connection)` : `${n.profile} (${n.latencyMs} ms, ${n.downloadKbps}/${n.uploadKbps} kbit/s)`;
}
