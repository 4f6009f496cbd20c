/**
 * Compare at the level of run files (DESIGN.md "Compare"): read and validate two run files, decide the
 * role each metric plays and from which repeats it is read, hand the per-repeat samples to
 * compareMetrics(), and wrap its verdict in the contract's JSON shape
 * `{ verdict, thresholds, frames: { painted: { a, b } }, rows, unchanged, timing: { gated, note }, warnings }`.
 *
 * Roles (metrics.ts declares each metric; nothing here reads a metric's name):
 * - PRIMARY, deciding the verdict: the scenario's `gate.metrics`, else the registry's primary metrics as
 *   the baseline's own noise allows (metrics.ts PRIMARY_BY_NOISE, primaries.ts): a default primary too
 *   noisy to tell a warn-size change within maxRepeat is demoted to secondary, a promotable one quiet
 *   enough is promoted. A sequential comparison fixes that choice at its first look and records it.
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
import { pairBySequence, type Sequenced } from './compare/pairs.js';
import { insightChanges, MAX_INSIGHT_CHANGES, type InsightChange } from './compare/insight-changes.js';
import { PerfError } from '../errors.js';
import { checkJson, finite, invalidJson, jsonPath, list, map, nullable, readJsonFile, record, text, whole } from '../json-input.js';
import type { JsonFileKind, Schema } from '../json-input.js';
import { MAX_METRICS, MAX_NAME_CHARS, MAX_REPEATS, MAX_TEXT_CHARS, RUN_FILE_SCHEMA, RUN_FILE_SCHEMA_VERSION } from './run-file.js';
import { SEQUENTIAL_FIELDS, SEQUENTIAL_REQUIRED, type RepeatRecord, type RunFile, type SequentialRecord } from './run-file.js';
import { PRIMARY_CHOICE_FIELDS, PRIMARY_CHOICE_REQUIRED, type PrimaryChoiceRecord } from './run-file.js';
import { thresholdsFor } from './compare.js';
import {
  compareMetrics,
  DEFAULT_ALPHA,
  DEFAULT_SPENDING,
  ROW_VERDICTS,
  SEVERITIES,
  type CompareOptions,
  type CompareResult,
  type Direction,
  type MetricRole,
  type MetricSamples,
  type Thresholds,
} from './compare.js';
import { PRIMARY_BY_NOISE, promotableMetrics } from './metrics.js';
import {
  defaultPrimaryMetrics,
  loadTransferBytes,
  floorOf,
  isTimingMetric,
  MIN_PAINTED_FOR_PER_FRAME,
  PER_FRAME_SUFFIX,
  resolveMetric,
  framesPainted,
  type DriverName,
  type ResolvedMetric,
} from './metrics.js';
import { chooseByNoise, type NoiseCandidate } from './primaries.js';
import { median } from './stats.js';
import {
  comparisonFlame,
  diffPlaces,
  diffSteps,
  MAX_ATTRIBUTION_LINES,
  MAX_STACK_DEPTH,
  MAX_STACKS,
  rowAttribution,
} from './attribution.js';
import type { AttributionLine, AttributionSide, ComparisonFlame } from './attribution.js';
import { busySummary, judgeHostBusy, judgeSaturatedHost, type HostBusy } from './host-busy.js';

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
  /**
   * Whether both runs come from one kind of machine; when not, what that means for the verdict. `busy`:
   * primary differences that followed the host's speed, not the build (perf/host-busy.ts).
   */
  host: { same: boolean; note?: string; busy?: Omit<HostBusy, 'metrics'> };
  /** Which metrics decided the verdict, how, and at which look. */
  gate: {
    primary: string[];
    /**
     * Primary metrics the noise rule set aside as too noisy to judge a warn-size change: each is tested at a smaller
     * share of α, decides when that still rejects, and holds the gate (inconclusive) while its estimate is past warn.
     */
    setAside?: { metric: string; why: string; deltaPct: number | null }[];
    /** Primary metrics that could not be judged here, and why. */
    notJudged: { metric: string; why: string }[];
    /**
     * How the primary family was chosen (scenario, registry default, or the noise rule on the baseline),
     * at which look, what the rule demoted and promoted and why. Absent in compare files of older versions.
     */
    chosen?: PrimaryChoiceRecord & { note: string };
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
  /** The folded stacks of each run's median attribution repeat, for a differential flame graph (HTML report). */
  attribution?: { flame: ComparisonFlame };
  /** Insights that appear, disappear, grow or shrink between the runs: they explain, never decide. Absent in older files. */
  insights?: InsightChange[];
}

export interface CompareRunsOptions {
  /** Compare runs of different scenarios or variants anyway (a warning instead of exit 2). */
  force?: boolean;
  alpha?: number;
  /** Replace the thresholds read from the candidate run file (e.g. the gate's loaded scenario). */
  thresholds?: ThresholdsUsed;
  /** Replace the primary metrics read from the candidate run file; the noise rule then does not apply. */
  primary?: string[];
  /** The design of a sequential comparison in progress (else the candidate file's `sequential`, else a fixed compare). */
  sequential?: SequentialRecord;
  /** Rejections made at earlier looks of the same sequential comparison. */
  rejected?: Readonly<Record<string, Direction>>;
  /** Paths, for messages and the identity blocks. */
  files?: { a?: string; b?: string };
  /** CompareOptions.holdSetAside: a set-aside metric below warn holds while its interval reaches past error (perf bisect). */
  holdSetAside?: boolean;
}

// ─── reading and validating ─────────────────────────────────────────────────────────────────────────

// 64 MiB: a repeat takes ~15 KB in a run file, so this is thousands of repeats; beyond it the file is
// not one we wrote, and reading it whole would cost memory for nothing.
export const MAX_RUN_FILE_BYTES = 64 * 2 ** 20;

export const RUN_FILE_KIND: JsonFileKind = {
  what: 'rehearse run file',
  noun: 'run file',
  invalidCode: 'run_file_invalid',
  unreadableCode: 'run_file_unreadable',
  tooLargeCode: 'run_file_too_large',
  maxBytes: MAX_RUN_FILE_BYTES,
  suggestion: 'pass files written by `perf run` (build/perf/<scenario>[-<variant>]-<label>.json)',
};

/** Read and validate a run file; every problem is a usage error (exit 2) naming the file, never quoting it. */
export function readRunFile(file: string): RunFile {
  return validateRunFile(readJsonFile(file, RUN_FILE_KIND), file);
}

/** Check parsed JSON against RUN_FILE_SCHEMA; throws PerfError usage naming the file and the JSON path. */
export function validateRunFile(data: unknown, file: string): RunFile {
  const version = typeof data === 'object' && data !== null && 'schemaVersion' in data ? data.schemaVersion : RUN_FILE_SCHEMA_VERSION;
  if (version !== RUN_FILE_SCHEMA_VERSION) {
    throw new PerfError({
      kind: 'usage',
      code: 'run_file_schema',
      message:
        `${file}: run file schemaVersion ${Number.isSafeInteger(version) ? String(version) : 'is not a whole number'}; ` +
        `this perf reads schemaVersion ${RUN_FILE_SCHEMA_VERSION}`,
      suggestion: 'rerun `perf run` (or `perf gate --update` for a baseline) with this version of perf',
    });
  }
  const run = checkJson<RunFile>(RUN_FILE_SCHEMA, data, file, RUN_FILE_KIND);
  checkEventCounts(run, file);
  return run;
}

/** A count of events (frames, long frames): compare tests it as a Poisson count, per repeat. */
function isEventCount(r: ResolvedMetric): boolean {
  return r.def.kind === 'count' && r.def.hostDependent && !r.perFrame;
}

/** What the schema cannot say per metric: counts of events are whole numbers ≥ 0. */
function checkEventCounts(run: RunFile, file: string): void {
  run.repeats.forEach((r, i) => {
    const metrics = r.status === 'failed' ? undefined : r.report?.metrics;
    for (const [name, v] of Object.entries(metrics ?? {})) {
      const m = v === null ? undefined : resolveMetric(name);
      if (!m || !isEventCount(m) || (Number.isSafeInteger(v) && v >= 0)) continue;
      const path = jsonPath(`/repeats/${i}/report/metrics/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      throw invalidJson(RUN_FILE_KIND, file, `${path} must be a whole number of ${m.def.unit}, at least 0`);
    }
  });
}

export const COMPARE_FILE_KIND: JsonFileKind = {
  ...RUN_FILE_KIND,
  what: 'compare result of `perf compare --json`',
  noun: 'compare result',
  invalidCode: 'compare_file_invalid',
  suggestion: 'pass the JSON `perf compare A.json B.json --json` printed, or the two run files',
};

/** Check parsed JSON against COMPARISON_SCHEMA (a compare result read back from a file). */
export function validateComparison(data: unknown, file: string, kind: JsonFileKind = COMPARE_FILE_KIND): RunsComparison {
  return checkJson<RunsComparison>(COMPARISON_SCHEMA, data, file, kind);
}

// 20,000 rows: one per metric of either run (MAX_METRICS each).
const MAX_ROWS = 2 * MAX_METRICS;
const nameText = (description: string): Schema => text(description, MAX_NAME_CHARS);
const proseText = (description: string): Schema => text(description, MAX_TEXT_CHARS);
const repeatCount = (description: string): Schema => whole(description, 0, MAX_REPEATS);

/** A number compare computed: JSON null where it came out NaN or infinite (values near the float limit). */
const computed = (description: string): Schema => nullable(finite(description), `${description} Null when not a finite number.`);

const ARM_SCHEMA = record(
  'One arm of a row.',
  { median: nullable(finite('Median.'), 'Median; null for an empty arm.'), n: repeatCount('Repeats counted.') },
  ['median', 'n'],
);

const SCALE_SCHEMA = record(
  'The scale.',
  { kind: { enum: ['baseline', 'floor'], description: 'What the scale is.' }, value: computed('Its value.') },
  ['kind', 'value'],
);

const CI_SCHEMA = record(
  'The interval.',
  {
    lowPct: computed('Low, %.'),
    highPct: computed('High, %.'),
    level: nullable(finite('Achieved confidence.', { minimum: 0, maximum: 1 }), 'Achieved confidence, or null.'),
  },
  ['lowPct', 'highPct', 'level'],
);

const msPerRepeat = (description: string): Schema => finite(`${description} ms per repeat.`);
const ATTRIBUTION_LINE_SCHEMA = record(
  'A place whose time per repeat changed.',
  {
    kind: { enum: ['function', 'forcedLayout', 'forcedStyle', 'longTask', 'step'], description: 'What kind of place.' },
    name: nameText("A function's name, or a step's label."),
    url: nullable(nameText('"path:line:col".'), 'Where the function is; null for a step.'),
    a: msPerRepeat('Median in the baseline,'),
    b: msPerRepeat('Median in the candidate,'),
    deltaMs: msPerRepeat('Hodges–Lehmann shift b − a,'),
    ci: nullable(
      record("Its interval, at the row's level.", { lowMs: finite('Low, ms.'), highMs: finite('High, ms.') }, ['lowMs', 'highMs']),
      "Null under 2 repeats a side, or when they cannot reach the row's level.",
    ),
    share: nullable(finite("Of the row's shift (0..1, may exceed 1)."), 'Null when the row is not in ms.'),
  },
  ['kind', 'name', 'url', 'a', 'b', 'deltaMs', 'ci', 'share'],
);
const ROW_ATTRIBUTION_SCHEMA = record(
  'Where the change is (regressed or inconclusive primary rows).',
  {
    lines: list('Ranked places and steps.', ATTRIBUTION_LINE_SCHEMA, MAX_ATTRIBUTION_LINES),
    repeats: record('Attribution repeats read.', { a: repeatCount('Baseline.'), b: repeatCount('Candidate.') }, ['a', 'b']),
    missing: proseText('Why nothing could be named, and how to get it.'),
  },
  ['lines', 'repeats'],
);

/** A row of compareMetrics (compare.ts CompareRow), as JSON. */
export const COMPARE_ROW_SCHEMA = record(
  'One metric compared.',
  {
    metric: nameText('Metric name.'),
    a: ARM_SCHEMA,
    b: ARM_SCHEMA,
    deltaPct: nullable(finite('%.'), 'Shift as % of the scale, or null.'),
    scale: nullable(SCALE_SCHEMA, 'What deltaPct is a percentage of.'),
    ci: nullable(CI_SCHEMA, "The shift's interval."),
    pValue: nullable(finite('p.'), 'One-sided p in the worse direction.'),
    pNeeded: nullable(finite('p.'), 'The level the p-value had to reach.'),
    verdict: { enum: [...ROW_VERDICTS], description: "The row's verdict." },
    severity: { enum: [...SEVERITIES], description: 'Its severity.' },
    gated: { type: 'boolean', description: 'A primary metric.' },
    setAside: proseText('Set aside by the noise rule: gated at a smaller share of α; why.'),
    role: { enum: ['primary', 'secondary', 'shown'], description: 'Its role.' },
    decided: { type: 'boolean', description: 'More repeats could not change it.' },
    needRepeats: nullable(repeatCount('Repeats.'), 'Repeats per arm that would decide it.'),
    reason: proseText('Why this verdict.'),
    shift: nullable(finite('Shift.'), "The shift in the metric's unit."),
    attribution: ROW_ATTRIBUTION_SCHEMA,
  },
  [
    'metric',
    'a',
    'b',
    'deltaPct',
    'scale',
    'ci',
    'pValue',
    'pNeeded',
    'verdict',
    'severity',
    'gated',
    'role',
    'decided',
    'reason',
    'shift',
  ],
);

const INSIGHT_ARM_SCHEMA = record(
  "One arm's record of an insight.",
  {
    fired: repeatCount('Counted repeats it fired in.'),
    of: repeatCount('Counted repeats that ran the insights.'),
    savingsMs: nullable(finite('Median estimated savings, ms.'), 'Median estimated savings, ms; null when it gives none.'),
  },
  ['fired', 'of', 'savingsMs'],
);

const INSIGHT_CHANGE_SCHEMA = record(
  'An insight that changed between the runs.',
  {
    id: nameText('The insight id perf_insight takes.'),
    title: proseText('Its title.'),
    change: { enum: ['new', 'gone', 'grew', 'shrank'], description: 'What changed, seen from the candidate.' },
    culprit: proseText("What it points at (a URL, a function), the candidate's when both name one."),
    a: INSIGHT_ARM_SCHEMA,
    b: INSIGHT_ARM_SCHEMA,
    line: proseText('One line for a reader.'),
  },
  ['id', 'title', 'change', 'a', 'b', 'line'],
);

const IDENTITY_SCHEMA = record(
  'A run compared.',
  {
    file: nullable(nameText('Path.'), 'Its run file, or null.'),
    scenario: nameText('Scenario.'),
    variant: nullable(nameText('Variant.'), 'Variant, or null.'),
    label: nameText('Label.'),
    startedAt: nameText('When it began.'),
    measured: repeatCount('Measured repeats.'),
    refused: repeatCount('Refused repeats.'),
    failed: repeatCount('Failed repeats.'),
    timingRepeats: repeatCount('Timing-mode repeats.'),
  },
  ['file', 'scenario', 'variant', 'label', 'startedAt', 'measured', 'refused', 'failed', 'timingRepeats'],
);

const flag = (description: string): Schema => ({ type: 'boolean', description });
const DIRECTION = { enum: ['worse', 'better'], description: 'The direction.' };
const orNull = (description: string): Schema => nullable(finite(description), `${description} Or null.`);

const THRESHOLDS_USED_SCHEMA = record(
  'Thresholds used.',
  {
    warnPct: finite('Warn, %.'),
    errorPct: finite('Error, %.'),
    metrics: map('Overrides.', { type: 'object', description: 'One.' }, MAX_METRICS, MAX_NAME_CHARS),
  },
  ['warnPct', 'errorPct', 'metrics'],
);

const NOT_JUDGED_SCHEMA = record('One.', { metric: nameText('Metric.'), why: proseText('Why.') }, ['metric', 'why']);
const SET_ASIDE_SCHEMA = record(
  'One.',
  { metric: nameText('Metric.'), why: proseText('Why.'), deltaPct: orNull('Its estimated change, % of the baseline.') },
  ['metric', 'why', 'deltaPct'],
);
const CHOSEN_SCHEMA = record('How the primary family was chosen.', { ...PRIMARY_CHOICE_FIELDS, note: proseText('In words.') }, [
  ...PRIMARY_CHOICE_REQUIRED,
  'note',
]);
const SEQUENTIAL_NOTED_SCHEMA = record('How it sampled.', { ...SEQUENTIAL_FIELDS, note: proseText('In words.') }, SEQUENTIAL_REQUIRED);

const GATE_SCHEMA = record(
  'What decided the verdict.',
  {
    primary: list('Primary metrics judged.', nameText('A metric.'), MAX_ROWS),
    setAside: list('Primary metrics set aside as noisy: gated at a smaller share of α.', SET_ASIDE_SCHEMA, MAX_ROWS),
    notJudged: list('Primary metrics not judged.', NOT_JUDGED_SCHEMA, MAX_ROWS),
    chosen: CHOSEN_SCHEMA,
    alpha: finite('False-alarm rate.', { minimum: 0, maximum: 1 }),
    look: whole('Which look.', 1, MAX_REPEATS),
    sequential: nullable(SEQUENTIAL_NOTED_SCHEMA, 'The design, or null.'),
    summary: proseText('One line.'),
  },
  ['primary', 'notJudged', 'alpha', 'look', 'sequential', 'summary'],
);

const PAINTED_SCHEMA = record('Median per run.', { a: orNull('A.'), b: orNull('B.') }, ['a', 'b']);

const FLAME_STACK_SCHEMA = record(
  'A stack.',
  { frames: list('Frames root → leaf, "name path:line:col".', nameText('A frame.'), MAX_STACK_DEPTH), selfMs: finite('Self ms.') },
  ['frames', 'selfMs'],
);
const FLAME_SIDE_SCHEMA = nullable(
  record(
    'The median attribution repeat of one run.',
    {
      repeat: whole('Its repeat index.', 0, MAX_REPEATS - 1),
      stacks: list('Folded stacks, heaviest first.', FLAME_STACK_SCHEMA, MAX_STACKS),
    },
    ['repeat', 'stacks'],
  ),
  'Null when the run has no attribution record.',
);

/** RunsComparison as `perf compare --json` prints it, and as `perf report` and `perf merge` read it back. */
export const COMPARISON_SCHEMA = record(
  'A compare result.',
  {
    verdict: { enum: ['pass', 'warn', 'fail', 'inconclusive'], description: 'The verdict.' },
    thresholds: THRESHOLDS_USED_SCHEMA,
    frames: record('Painted frames.', { painted: PAINTED_SCHEMA }, ['painted']),
    rows: list('One row per metric.', COMPARE_ROW_SCHEMA, MAX_ROWS),
    unchanged: list('Metrics unchanged.', nameText('A metric.'), MAX_ROWS),
    timing: record('How ms were judged.', { gated: flag('ms gated.'), note: proseText('Why.') }, ['gated', 'note']),
    warnings: list('Differences a reader must know about.', proseText('A warning.'), MAX_ROWS),
    decided: flag('More repeats cannot change the verdict.'),
    rejected: map('Rejections so far.', DIRECTION, MAX_ROWS, MAX_NAME_CHARS),
    blind: proseText('Why the compare cannot detect its thresholds.'),
    host: record(
      'Whether both runs come from one kind of machine, and whether it was busy.',
      {
        same: flag('Same.'),
        note: proseText('What it means.'),
        busy: record(
          "Set when a primary difference followed the host's speed, not the build: those rows are inconclusive.",
          {
            repeats: repeatCount(
              "Repeats whose calibration, or the CPU other processes left them, fell far below the pair's usual, both arms.",
            ),
            of: repeatCount('Counted measured repeats with a host record, both arms.'),
            note: proseText('One line: how busy, and which metrics followed the host.'),
          },
          ['repeats', 'of', 'note'],
        ),
      },
      ['same'],
    ),
    gate: GATE_SCHEMA,
    baseline: IDENTITY_SCHEMA,
    candidate: IDENTITY_SCHEMA,
    attribution: record(
      'For a differential flame graph.',
      { flame: record("Each run's median repeat.", { a: FLAME_SIDE_SCHEMA, b: FLAME_SIDE_SCHEMA }, ['a', 'b']) },
      ['flame'],
    ),
    insights: list('Insights that appear, disappear, grow or shrink between the runs.', INSIGHT_CHANGE_SCHEMA, MAX_INSIGHT_CHANGES),
  },
  [
    'verdict',
    'thresholds',
    'frames',
    'rows',
    'unchanged',
    'timing',
    'warnings',
    'decided',
    'rejected',
    'host',
    'gate',
    'baseline',
    'candidate',
  ],
);

// ─── samples ────────────────────────────────────────────────────────────────────────────────────────

type Measured = Extract<RepeatRecord, { status: 'measured' }>;

function counted(run: RunFile): RepeatRecord[] {
  return run.repeats.filter((r) => !r.warmup);
}

function measuredRepeats(records: readonly RepeatRecord[]): Measured[] {
  return records.filter((r): r is Measured => r.status === 'measured' && !r.warmup);
}

/** Each repeat's finite value of `metric` with its interleaved position, for the pairing stage. */
function sequenced(repeats: readonly Measured[], metric: string): Sequenced[] {
  const out: Sequenced[] = [];
  for (const r of repeats) {
    const v = r.report.metrics[metric];
    if (typeof v === 'number' && Number.isFinite(v)) out.push({ sequence: r.sequence, value: v });
  }
  return out;
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
export function perMetricThresholds(
  metrics: ThresholdsUsed['metrics'],
  defaults: Thresholds = { warnPct: 10, errorPct: 25 },
): Record<string, Partial<Thresholds>> {
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
  /** How the primary family was chosen (see RunsComparison.gate.chosen). */
  chosen: PrimaryChoiceRecord & { note: string };
}

/** What metricSamples needs to apply the noise rule; compareRuns passes what it resolved. */
export interface SampleOptions {
  /** The primary family, overriding the rule (CompareRunsOptions.primary; else the candidate's gate.metrics). */
  primary?: string[];
  sequential?: SequentialRecord | undefined;
  /** Thresholds in use (warn-size is what the rule sizes); default the candidate file's. */
  thresholds?: ThresholdsUsed;
  /** The compare's α; default the sequential design's, else DEFAULT_ALPHA. */
  alpha?: number;
  /** Which look this is (the choice made now is recorded with it). */
  look?: number;
}

/**
 * The primary family as listed: the override, else the choice recorded at a sequential comparison's
 * first look, else the registry's default plus the promotable metrics as tentative candidates.
 */
interface Family {
  wanted: string[];
  override?: string[];
  recorded?: PrimaryChoiceRecord;
  /** Promotable candidates: primary only if the noise rule promotes them. */
  tentative: Set<string>;
  /** The family is fixed without a scenario's say (a page load's): why the noise rule does not apply. */
  fixed?: string;
}

const LOAD_FAMILY_NOTE =
  'a page load is judged on the load family (FCP, LCP, CLS, TBT, requests, transfer bytes): the noise rule does not apply';

function primaryFamily(b: RunFile, opts: SampleOptions): Family {
  const override = opts.primary ?? b.gate?.metrics;
  if (override) return { wanted: override, override, tentative: new Set() };
  const recorded = opts.sequential?.primaries;
  if (recorded) return { wanted: recorded.metrics, recorded, tentative: new Set() };
  // A run that measured a page load is judged on the load family (and nothing is promoted into it).
  const load = measuredRepeats(counted(b)).some((r) => r.report.metrics[loadTransferBytes.name] !== undefined);
  // Its milestones stay primary however noisy (a late stylesheet is +300% on FCP, which no noise hides): a noisy
  // one is sampled to a decision up to maxRepeat, as Lighthouse CI asserts on LCP whatever its spread.
  if (load) return { wanted: defaultPrimaryMetrics(true), tentative: new Set(), fixed: LOAD_FAMILY_NOTE };
  const promotable = promotableMetrics();
  return { wanted: [...defaultPrimaryMetrics(), ...promotable], tentative: new Set(promotable) };
}

function paintedMedian(reps: Measured[]): number | null {
  const v = values(reps, framesPainted.name);
  return v.length ? median(v) : null;
}

/** The form of each family name judged here (per frame where enough frames were painted), and back. */
function familyForms(wanted: readonly string[], perFrameOk: boolean): FamilyNames & { primaryForms: Map<string, string> } {
  const formOf = (name: string): string | undefined => {
    const r = resolveMetric(name);
    if (!r) return undefined;
    if (r.perFrame) return perFrameOk ? name : r.base;
    return r.def.perFrame && perFrameOk ? name + PER_FRAME_SUFFIX : name;
  };
  const primaryForms = new Map<string, string>();
  for (const name of wanted) {
    const form = formOf(name);
    if (form !== undefined) primaryForms.set(form, name);
  }
  return { formOf, familyOf: (metric) => primaryForms.get(metric) ?? metric, primaryForms };
}

/** The repeats per arm a metric's comparison can reach: the sequential design's, else reachFactor × the baseline's. */
function reachOf(s: MetricSamples, timingOnly: boolean, seq: SequentialRecord | undefined): NoiseCandidate['reach'] {
  if (seq) return timingOnly ? { a: seq.max.timingA, b: seq.max.timingB } : { a: seq.max.a, b: seq.max.b };
  const n = PRIMARY_BY_NOISE.reachFactor * s.a.length;
  return { a: n, b: n };
}

/**
 * The samples of every metric in either run with the role it plays, and the context that decided the
 * roles. `primaryNames`: base names (or explicit `.perFrame` names) of the primary family.
 */
export function metricSamples(
  a: RunFile,
  b: RunFile,
  opts: SampleOptions = {},
): { samples: MetricSamples[]; context: SampleContext; onlyA: string[]; onlyB: string[] } {
  const recA = counted(a);
  const recB = counted(b);
  const repA = measuredRepeats(recA);
  const repB = measuredRepeats(recB);
  const timingGated = repA.some((r) => r.mode === 'timing') && repB.some((r) => r.mode === 'timing');
  const sameHost = hostKey(a.env) === hostKey(b.env);
  const painted = { a: paintedMedian(repA), b: paintedMedian(repB) };
  const perFrameOk = (painted.a ?? 0) >= MIN_PAINTED_FOR_PER_FRAME && (painted.b ?? 0) >= MIN_PAINTED_FOR_PER_FRAME;

  // The primary family: per-frame forms where enough frames were painted, else the absolute counts.
  const family = primaryFamily(b, opts);
  const { primaryForms, ...forms } = familyForms(family.wanted, perFrameOk);
  // Promotable candidates are primary only if the noise rule says so, and never listed as not judged.
  const tentative = (metric: string): boolean => family.tentative.has(primaryForms.get(metric) ?? '');
  const namesA = new Set(repA.flatMap((r) => Object.keys(r.report.metrics)));
  const namesB = new Set(repB.flatMap((r) => Object.keys(r.report.metrics)));
  const names = [...new Set([...namesA, ...namesB])].sort();
  const ctx: RoleContext = {
    a,
    b,
    recA,
    recB,
    repA,
    repB,
    opts,
    timingGated,
    sameHost,
    painted,
    perFrameOk,
    primaryForms,
    tentative,
    notJudged: [],
  };
  const samples = names.map((metric) => sampleOf(metric, ctx));
  const judged = { ...opts, b, timingGated, notJudged: ctx.notJudged.filter((x) => !tentative(x.metric)) };
  const chosen = choosePrimaries(samples, family, forms, judged);
  return {
    samples,
    context: {
      timingGated,
      sameHost,
      painted,
      primary: samples.filter((x) => x.role === 'primary' && x.setAside === undefined).map((x) => x.metric),
      notJudged: judged.notJudged,
      chosen,
    },
    onlyA: [...namesA].filter((m) => !namesB.has(m)).sort(),
    onlyB: [...namesB].filter((m) => !namesA.has(m)).sort(),
  };
}

/** What decides one metric's role in metricSamples; `notJudged` collects the primaries set aside. */
interface RoleContext {
  a: RunFile;
  b: RunFile;
  recA: RepeatRecord[];
  recB: RepeatRecord[];
  repA: Measured[];
  repB: Measured[];
  opts: SampleOptions;
  timingGated: boolean;
  sameHost: boolean;
  painted: { a: number | null; b: number | null };
  perFrameOk: boolean;
  primaryForms: Map<string, string>;
  tentative(metric: string): boolean;
  notJudged: SampleContext['notJudged'];
}

/** The two run files are the arms of one `perf run --against` (or the gate's A/B): their repeats share positions. */
function interleaved(a: RunFile, b: RunFile): boolean {
  return a.against?.role === 'baseline' && b.against?.role === 'candidate';
}

/** One metric's samples and role (see metricSamples). */
function sampleOf(metric: string, ctx: RoleContext): MetricSamples {
  const { a, b, repA, repB, timingGated } = ctx;
  const r = resolveMetric(metric);
  if (!r) {
    return {
      metric,
      a: values(repA, metric),
      b: values(repB, metric),
      role: 'shown',
      better: 'none',
      floor: 0,
      note: 'not a metric this version declares',
    };
  }
  const timing = isTimingMetric(metric);
  const fromA = timing && timingGated ? repA.filter((x) => x.mode === 'timing') : repA;
  const fromB = timing && timingGated ? repB.filter((x) => x.mode === 'timing') : repB;
  const role: MetricRole =
    r.def.gate === 'never' || r.def.better === 'none' ? 'shown' : ctx.primaryForms.has(metric) ? 'primary' : 'secondary';
  const lost = role === 'primary' ? lostIn(r, repA, repB) : undefined;
  // A baseline with no value of a primary metric at all, while the candidate has some: recorded before this version
  // measured it (interactions.processingMs is newer than most stored baselines). Not a lost probe of the build under
  // test: shown, with how to gate it, instead of failing every older baseline.
  if (lost === 'a' && r.def.recent && !repA.some((x) => metric in x.report.metrics) && !ctx.tentative(metric)) {
    const note = 'the baseline has no value of it (recorded before it was measured?): re-record it (perf gate --update) to gate it';
    ctx.notJudged.push({ metric, why: note });
    return { metric, a: [], b: values(repB, metric), role: 'shown', better: r.def.better, floor: floorOf(r), note };
  }
  // A promotable candidate only one run has was never primary: judged as the secondary it is.
  if (lost && !ctx.tentative(metric)) {
    // A primary metric one run measured and the other did not stays primary, whatever would demote it:
    // the row is `missing`, and fails unless that run's driver cannot produce the metric.
    const run = lost === 'a' ? a : b;
    const unmeasurable = r.def.drivers.includes(driverOf(run.env)) ? undefined : `the ${driverOf(run.env)} driver does not produce it`;
    return {
      metric,
      a: values(repA, metric),
      b: values(repB, metric),
      role,
      better: r.def.better,
      floor: floorOf(r),
      ...(unmeasurable ? { unmeasurable } : {}),
    };
  }
  const { role: finalRole, note } = demoted(metric, r, lost ? 'secondary' : role, timing, ctx);
  const exact = r.def.kind === 'count' && !r.def.hostDependent && !r.perFrame;
  const events = r.def.kind === 'count' && r.def.hostDependent;
  // Two arms of one interleaved run: repeats of one round are compared as pairs (perf/paired.ts). Counts keep their own tests.
  const pairs = interleaved(a, b) && !exact && !events ? pairBySequence(sequenced(fromA, metric), sequenced(fromB, metric)) : undefined;
  return {
    metric,
    a: values(fromA, metric),
    b: values(fromB, metric),
    role: finalRole,
    better: r.def.better,
    floor: floorOf(r),
    ...(note ? { note } : {}),
    ...(exact ? { exact: true } : {}),
    ...(events ? { events: eventCounts(r, fromA, fromB) } : {}),
    ...(pairs ? { pairs } : {}),
    ...sequentialSizes(metric, timing && timingGated, ctx.recA, ctx.recB, ctx.opts.sequential),
  };
}

/** The role a measured metric ends with once the per-frame, host and timing rules have had their say, and why. */
function demoted(
  metric: string,
  r: ResolvedMetric,
  role: MetricRole,
  timing: boolean,
  ctx: RoleContext,
): { role: MetricRole; note: string | undefined } {
  const { painted, perFrameOk } = ctx;
  const frameCountWhy =
    `fewer than ${MIN_PAINTED_FOR_PER_FRAME} painted frames (${painted.a ?? 0} and ` +
    `${painted.b ?? 0}): a count of frames paced by the machine is too coarse to gate here; judged as secondary`;
  const perFrameWhy =
    `per-frame ratio not judged: fewer than ${MIN_PAINTED_FOR_PER_FRAME} painted frames ` +
    `(${painted.a ?? 0} and ${painted.b ?? 0}), so it follows the machine's frame pacing; the absolute count is judged instead`;
  const hostWhy = `baseline from another host (${hostKey(ctx.a.env)}; this run: ${hostKey(ctx.b.env)})`;
  if (r.perFrame && !perFrameOk && role !== 'shown') return { role: 'shown', note: perFrameWhy };
  if (role !== 'shown' && !ctx.sameHost && (r.def.hostDependent || pacedCount(r, ctx.repA))) {
    const why = r.def.hostDependent
      ? hostWhy
      : `${hostWhy}, and this count varies from repeat to repeat in the baseline: work done per frame, so it ` +
        `follows how many frames the machine draws`;
    if (role === 'primary') ctx.notJudged.push({ metric, why });
    return { role: 'shown', note: why };
  }
  if (role === 'primary' && !perFrameOk && r.def.kind === 'count' && r.def.hostDependent && r.def.perFrame) {
    // Frames over budget or dropped in a window of a few painted frames are a handful of integers set
    // by the machine's frame pacing (1/7 → 1/6 seen here): too coarse to fail a gate on, so judged as
    // secondary. Measured here: 5–7 painted frames per list scroll, over-budget counts moving 0–3 in an A/A.
    ctx.notJudged.push({ metric, why: frameCountWhy });
    return { role: 'secondary', note: frameCountWhy };
  }
  if (role !== 'shown' && timing && !ctx.timingGated) {
    if (role === 'primary') ctx.notJudged.push({ metric, why: 'no timing-mode repeats in both runs (run with --timing)' });
    return { role: 'secondary', note: 'ms from attribution-mode repeats (the profiler inflates them): not gated; run both with --timing' };
  }
  return { role, note: undefined };
}

interface ChoiceContext extends SampleOptions {
  b: RunFile;
  timingGated: boolean;
  notJudged: SampleContext['notJudged'];
}

/**
 * A default primary the noise rule demoted stays in the deciding set, set aside: tested in its own family at a
 * smaller weight in the Holm procedure, holding the gate while its estimate is past warn (compare.ts SET_ASIDE_WEIGHT), so
 * that noise never silently passes a change it cannot rule out.
 */
function setAside(s: MetricSamples, why: string): void {
  s.role = 'primary';
  s.setAside = why;
}

/** Append a reason to a sample's note (the row's reason ends with it). */
function addNote(s: MetricSamples, why: string): void {
  s.note = s.note ? `${s.note}; ${why}` : why;
}

interface FamilyNames {
  /** A judged form → its name in the family. */
  familyOf: (m: string) => string;
  /** A family name → the form judged here. */
  formOf: (m: string) => string | undefined;
}

/**
 * Settle the primary family in place (roles, the rows' notes, notJudged): the override as it is, the
 * choice recorded at a sequential comparison's first look, else the noise rule on the baseline's samples.
 * A demoted metric is set aside (a quarter of a primary's weight, holding the gate while past warn), and its note says it is too noisy
 * to judge, so a chance "improved" on it does not read as news.
 */
function choosePrimaries(
  samples: MetricSamples[],
  family: Family,
  names: FamilyNames,
  ctx: ChoiceContext,
): PrimaryChoiceRecord & { note: string } {
  const look = ctx.look ?? 1;
  if (family.override) {
    const note = "the scenario's gate.metrics fix the primary family: the noise rule does not apply";
    return { by: 'scenario', look, metrics: [...family.override], demoted: [], promoted: [], note };
  }
  if (family.fixed) return { by: 'registry', look, metrics: [...family.wanted], demoted: [], promoted: [], note: family.fixed };
  if (family.recorded) return keepRecorded(samples, family.recorded, names.formOf, ctx.notJudged);
  const alpha = ctx.alpha ?? ctx.sequential?.alpha ?? DEFAULT_ALPHA;
  const thresholds = ctx.thresholds ?? normalizeThresholds(ctx.b.thresholds);
  const perMetric = perMetricThresholds(thresholds.metrics, thresholds);
  const levels = { warnPct: thresholds.warnPct, errorPct: thresholds.errorPct };
  // A primary metric one run lost stays primary (a missing row): the rule sizes what both runs measured.
  const cands = samples.filter((s) => s.role === 'primary' && s.a.length > 0 && s.b.length > 0);
  const choices = chooseByNoise(
    cands.map((s) => ({
      metric: s.metric,
      baseline: s.a,
      floor: s.floor,
      warnPct: thresholdsFor(s.metric, { thresholds: levels, perMetric }).warnPct,
      kind: family.tentative.has(names.familyOf(s.metric)) ? 'promotable' : 'default',
      reach: reachOf(s, ctx.timingGated && isTimingMetric(s.metric), ctx.sequential),
      ...(s.pairs ? { pairs: s.pairs } : {}),
    })),
    alpha,
  );
  const demoted: PrimaryChoiceRecord['demoted'] = [];
  const promoted: PrimaryChoiceRecord['promoted'] = [];
  choices.forEach((c, i) => {
    const s = cands[i]!;
    s.role = c.primary ? 'primary' : 'secondary';
    if (c.change === 'none') return;
    (c.change === 'demoted' ? demoted : promoted).push({ metric: names.familyOf(s.metric), why: c.why });
    if (c.change === 'demoted') setAside(s, c.why);
    addNote(s, c.why);
  });
  // A promotable candidate the rule did not see (one run lost it) was never primary.
  for (const s of samples) {
    if (s.role === 'primary' && family.tentative.has(names.familyOf(s.metric)) && !cands.includes(s)) s.role = 'secondary';
  }
  const gone = new Set(demoted.map((x) => x.metric));
  const metrics = [...family.wanted.filter((n) => !family.tentative.has(n) && !gone.has(n)), ...promoted.map((x) => x.metric)];
  const tooFew = (s: MetricSamples): boolean =>
    s.a.length < PRIMARY_BY_NOISE.minBaselineRepeats && !family.tentative.has(names.familyOf(s.metric));
  const few = cands.filter(tooFew).map((s) => s.metric);
  const byNoise = choices.some((c) => c.cvPct !== null);
  const record: PrimaryChoiceRecord = { by: byNoise ? 'noise' : 'registry', look, metrics, demoted, promoted };
  const fewWords = few.length
    ? `fewer than ${PRIMARY_BY_NOISE.minBaselineRepeats} baseline repeats of ${few.join(', ')}: the registry's default stands for them`
    : '';
  const note = byNoise
    ? [`chosen by the baseline's noise at look ${look}: ${choiceWords(record)}`, fewWords].filter(Boolean).join('; ')
    : fewWords || "no primary metric measured in both runs: the registry's default stands";
  return { ...record, note };
}

/** Later looks, and a later compare of the saved files: the family recorded at the first look, with its reasons. */
function keepRecorded(
  samples: MetricSamples[],
  rec: PrimaryChoiceRecord,
  formOf: FamilyNames['formOf'],
  notJudged: SampleContext['notJudged'],
): PrimaryChoiceRecord & { note: string } {
  const bySample = new Map(samples.map((s) => [s.metric, s]));
  for (const [moved, demoted] of [
    [rec.demoted, true],
    [rec.promoted, false],
  ] as const) {
    for (const x of moved) {
      const s = bySample.get(formOf(x.metric) ?? x.metric);
      if (!s || s.role === 'shown') continue;
      if (demoted && s.role === 'secondary') setAside(s, x.why);
      addNote(s, x.why);
    }
  }
  return { ...rec, note: `chosen at look ${rec.look} and kept for every later look: ${choiceWords(rec)}` };
}

/** "demoted as too noisy to judge: longFrames.blockingMs; promoted as quiet: counters.scriptMs", or that the registry's family stands. */
function choiceWords(c: PrimaryChoiceRecord): string {
  const parts = [
    c.demoted.length ? `set aside as too noisy: ${c.demoted.map((x) => x.metric).join(', ')}` : '',
    c.promoted.length ? `promoted as quiet: ${c.promoted.map((x) => x.metric).join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : "the registry's primary family stands";
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
function sequentialSizes(
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

// ─── compare ────────────────────────────────────────────────────────────────────────────────────────

// 2,000 repeats per arm: the gate samples at most 200. Hodges–Lehmann sorts every pair of repeats
// (4 million differences, 32 MB, at 2,000 × 2,000), so memory and time grow as the product.
export const MAX_COMPARED_REPEATS = 2000;
// 10^8 pairs over all metrics: about 10 s of sorting here; 50 metrics of 1,000 repeats per arm are 5·10^7.
const MAX_COMPARED_PAIRS = 1e8;

/** Runs too large to judge in bounded time and memory are a usage error, before any pair is formed. */
function checkCompareSize(samples: readonly MetricSamples[], fileA: string, fileB: string): void {
  let pairs = 0;
  for (const s of samples) {
    const most = Math.max(s.a.length, s.b.length);
    if (most > MAX_COMPARED_REPEATS) {
      throw new PerfError({
        kind: 'usage',
        code: 'runs_too_large',
        message:
          `compare: ${s.a.length > s.b.length ? fileA : fileB} has ${most} measured repeats of ${s.metric}; ` +
          `compare judges at most ${MAX_COMPARED_REPEATS} per run`,
        suggestion: 'compare runs of fewer repeats (perf gate samples at most 200)',
      });
    }
    pairs += s.a.length * s.b.length;
  }
  if (pairs > MAX_COMPARED_PAIRS) {
    throw new PerfError({
      kind: 'usage',
      code: 'runs_too_large',
      message:
        `compare: ${fileA} and ${fileB} hold ${samples.length} metrics over so many repeats that judging them would take ` +
        `minutes (${pairs.toExponential(1)} pairs of repeats; at most ${MAX_COMPARED_PAIRS.toExponential(0)})`,
      suggestion: 'compare runs of fewer repeats or fewer metrics',
    });
  }
}

/**
 * Whether two runs can be compared (same scenario and variant unless forced, a measured repeat in each;
 * PerfError usage otherwise), the warnings about what they hold, and the thresholds to judge with.
 */
function preflight(
  a: RunFile,
  b: RunFile,
  files: { a: string; b: string },
  opts: CompareRunsOptions,
): { warnings: string[]; thresholds: ReturnType<typeof normalizeThresholds> } {
  const warnings: string[] = [];

  if (a.scenario !== b.scenario || (a.variant ?? null) !== (b.variant ?? null)) {
    const what = `${files.a} is ${runName(a)} but ${files.b} is ${runName(b)}`;
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

  for (const [run, file] of [
    [a, files.a],
    [b, files.b],
  ] as const) {
    if (measuredRepeats(counted(run)).length === 0) {
      const all = counted(run);
      throw new PerfError({
        kind: 'usage',
        code: 'run_file_unmeasured',
        message:
          `${file}: no measured repeat to compare (${all.length} counted: ` +
          `${all.filter((r) => r.status === 'refused').length} refused, ${all.filter((r) => r.status === 'failed').length} failed)`,
        suggestion: 'fix the failing step or the refusal shown by `perf run`, then run again',
      });
    }
  }

  warnings.push(...envWarnings(a, b));
  for (const [run, file] of [
    [a, files.a],
    [b, files.b],
  ] as const) {
    const id = identity(run, undefined);
    if (id.refused || id.failed)
      warnings.push(
        `${file}: ${id.refused} refused and ${id.failed} failed repeat(s) left out; ${id.measured} measured repeat(s) compared`,
      );
    if (run.interrupted) warnings.push(`${file}: the run was interrupted; partial results`);
    if (run.complete === false)
      warnings.push(`${file}: the run did not finish (killed after ${run.repeats.length} repeat(s)); judged on what it holds`);
  }

  const thresholds = opts.thresholds ?? normalizeThresholds(b.thresholds);
  if (
    !opts.thresholds &&
    a.thresholds &&
    b.thresholds &&
    JSON.stringify(normalizeThresholds(a.thresholds)) !== JSON.stringify(thresholds)
  ) {
    warnings.push(
      `the runs were made with different thresholds; using the candidate's (warn +${thresholds.warnPct}%, error +${thresholds.errorPct}%)`,
    );
  }
  return { warnings, thresholds };
}

/** Which repeats the ms metrics were judged on, and the note that says so. */
function timingOf(gated: boolean, timingA: number, timingB: number): { gated: boolean; note: string } {
  return {
    gated,
    note: gated
      ? `ms metrics judged on timing-mode repeats only (${timingA} vs ${timingB}); attribution-mode ms are shown`
      : timingA === 0 && timingB === 0
        ? 'no timing-mode repeats in either run: ms metrics are secondary (attribution mode instruments the ' +
          'page); run both with --timing (or timing: true) to gate on milliseconds'
        : `only the ${timingA ? 'baseline' : 'candidate'} has timing-mode repeats: ms metrics are secondary; ` +
          `run both with the same --timing setting`,
  };
}

/** Judge candidate `b` against baseline `a`. Throws PerfError usage for runs that cannot be compared. */
export function compareRuns(a: RunFile, b: RunFile, opts: CompareRunsOptions = {}): RunsComparison {
  const fileA = opts.files?.a ?? `baseline (${a.label})`;
  const fileB = opts.files?.b ?? `candidate (${b.label})`;
  const { warnings, thresholds } = preflight(a, b, { a: fileA, b: fileB }, opts);

  const sequential = opts.sequential ?? b.sequential;
  const alpha = sequential?.alpha ?? opts.alpha ?? DEFAULT_ALPHA;
  const look = (sequential?.looks.length ?? 0) + 1;
  const sampleOpts: SampleOptions = { ...(opts.primary ? { primary: opts.primary } : {}), sequential, thresholds, alpha, look };
  const { samples, context, onlyA, onlyB } = metricSamples(a, b, sampleOpts);
  checkCompareSize(samples, fileA, fileB);
  if (onlyA.length) warnings.push(`only in the baseline: ${onlyA.join(', ')}`);
  if (onlyB.length) warnings.push(`only in the candidate: ${onlyB.join(', ')}`);

  const idA = identity(a, opts.files?.a);
  const idB = identity(b, opts.files?.b);
  const timing = timingOf(context.timingGated, idA.timingRepeats, idB.timingRepeats);
  const options: CompareOptions = {
    thresholds: { warnPct: thresholds.warnPct, errorPct: thresholds.errorPct },
    perMetric: perMetricThresholds(thresholds.metrics, thresholds),
    alpha,
    spending: sequential?.spending ?? DEFAULT_SPENDING,
    fixedBaseline: sequential?.storedBaseline ?? false,
    ...((opts.rejected ?? sequential?.rejected) ? { rejected: opts.rejected ?? sequential?.rejected } : {}),
    ...(opts.holdSetAside ? { holdSetAside: true } : {}),
  };
  // The quiet repeats are re-judged on the primaries this look chose, not on a choice remade from fewer repeats.
  const chosen: SampleOptions = context.primary.length ? { ...sampleOpts, primary: context.primary } : sampleOpts;
  const hostDependent = (metric: string): boolean => resolveMetric(metric)?.def.hostDependent ?? true;
  const marked = judgeHostBusy(a, b, compareMetrics(samples, options), {
    rejudge: (qa, qb) => compareMetrics(metricSamples(qa, qb, chosen).samples, { ...options, rejected: {} }),
    warnPct: (metric) => thresholdsFor(metric, options).warnPct,
    hostDependent,
  });
  // A stored baseline on a machine saturated through both runs: the marks above see nothing relative to tell.
  const { result, busy } = marked.busy || interleaved(a, b) ? marked : judgeSaturatedHost(a, b, marked.result, hostDependent);
  const host = context.sameHost
    ? { same: true }
    : {
        same: false,
        note:
          `baseline from another host (${hostKey(a.env)}; this run: ${hostKey(b.env)}): milliseconds and ` +
          `frame pacing are shown, not gated; the app's own work (layouts, style recalcs) is. To gate them ` +
          `too, record the baseline on this machine (perf gate --update) or compare interleaved (perf run --against)`,
      };
  const attributed = attributeRows(a, b, result.rows, context.timingGated, 1 - 2 * alpha);
  // DESIGN.md's compare JSON names its first keys in this order; what this version adds follows them.
  return {
    verdict: result.verdict,
    thresholds,
    frames: { painted: context.painted },
    rows: attributed.rows,
    unchanged: result.unchanged,
    timing,
    warnings,
    decided: result.decided,
    rejected: result.rejected,
    ...(result.blind !== undefined ? { blind: result.blind } : {}),
    host: busy ? { ...host, busy: { repeats: busy.repeats, of: busy.of, note: busy.note } } : host,
    gate: {
      primary: context.primary,
      setAside: result.rows.flatMap((r) => (r.setAside !== undefined ? [{ metric: r.metric, why: r.setAside, deltaPct: r.deltaPct }] : [])),
      notJudged: context.notJudged,
      chosen: context.chosen,
      alpha,
      look,
      sequential: sequential ? { ...sequential, note: sequentialNote(sequential, look, idA, idB) } : null,
      summary: busy ? busySummary(busy, result, (r) => gateSummary(r, look, context.chosen)) : gateSummary(result, look, context.chosen),
    },
    baseline: idA,
    candidate: idB,
    attribution: { flame: attributed.flame },
    insights: insightChanges(a.repeats, b.repeats),
  };
}

// ─── attribution ────────────────────────────────────────────────────────────────────────────────────

/** The attribution records of a run's measured attribution repeats, or why it has none. */
export function attributionSide(run: RunFile, which: 'baseline' | 'candidate'): AttributionSide {
  const measured = measuredRepeats(counted(run));
  const profiled = measured.filter((r) => r.mode === 'attribution');
  const records = profiled.flatMap((r) => (r.report.attribution ? [{ repeat: r.index, attribution: r.report.attribution }] : []));
  if (records.length) return { records };
  const driver = run.env?.browser?.driver;
  if (driver !== undefined) return { records, missing: `no CPU profile: the ${driver} driver records none; step windows only` };
  return {
    records,
    missing:
      profiled.length === 0
        ? `no CPU profile in the ${which}: none of its attribution-mode repeats was measured; step windows only ` +
          '(perf run profiles every repeat without --timing, every other one with it)'
        : `no CPU profile in the ${which}: its attribution repeats hold no attribution record (an older perf, or the profile ` +
          'was not read); step windows only; run it again with this perf',
  };
}

/**
 * Each regressed or inconclusive primary row with its attribution (where the change is), and the
 * flame stacks of the median attribution repeats. Places are diffed once; step lines per set of
 * repeats a row was judged on (timing-mode ones for ms when gated, else every measured one).
 */
function attributeRows(
  a: RunFile,
  b: RunFile,
  rows: CompareResult['rows'],
  timingGated: boolean,
  level: number,
): { rows: CompareResult['rows']; flame: ComparisonFlame } {
  const sides = { a: attributionSide(a, 'baseline'), b: attributionSide(b, 'candidate') };
  const flame = comparisonFlame(sides.a, sides.b);
  const wanted = rows.filter((r) => r.gated && (r.verdict === 'regressed' || r.verdict === 'inconclusive'));
  if (wanted.length === 0) return { rows, flame };
  const places = diffPlaces(
    sides.a.records.map((r) => r.attribution),
    sides.b.records.map((r) => r.attribution),
    level,
  );
  const steps = new Map<boolean, AttributionLine[]>();
  const stepsFor = (timing: boolean): AttributionLine[] => {
    let got = steps.get(timing);
    if (!got) steps.set(timing, (got = diffSteps(stepSeries(a, timing), stepSeries(b, timing), level)));
    return got;
  };
  return {
    rows: rows.map((row) => {
      if (!wanted.includes(row)) return row;
      const timing = isTimingMetric(row.metric) && timingGated;
      return { ...row, attribution: rowAttribution(row, places, stepsFor(timing), sides) };
    }),
    flame,
  };
}

/** `steps.<label>.ms` per measured repeat, by label: of the timing-mode repeats only when `timingOnly`. */
function stepSeries(run: RunFile, timingOnly: boolean): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const r of measuredRepeats(counted(run))) {
    if (timingOnly && r.mode !== 'timing') continue;
    for (const [name, v] of Object.entries(r.report.metrics)) {
      const label = resolveMetric(name)?.label;
      if (label === undefined || typeof v !== 'number' || !Number.isFinite(v)) continue;
      (out[label] ??= []).push(v);
    }
  }
  return out;
}

function sequentialNote(seq: SequentialRecord, look: number, a: RunIdentity, b: RunIdentity): string {
  const why = {
    decided: 'the verdict was decided (an error-level regression confirmed, or every primary metric settled)',
    'max-repeat': 'maxRepeat reached',
    budget: 'the time budget ran out',
    interrupted: 'interrupted',
  }[seq.stopped];
  const how = seq.storedBaseline
    ? `the candidate was sampled against a stored baseline of ${a.measured} repeats: slow drift between the ` +
      `two recordings (another day, another load) is not cancelled as in interleaved A B B A (perf run --against)`
    : 'both arms interleaved A B B A, so slow drift of the machine cancels';
  return (
    `sequential: look ${look}, ${b.measured} candidate repeats, stopped because ${why}; α ${seq.alpha} ` +
    `spent over the looks (Lan–DeMets ${seq.spending}-type); ${how}`
  );
}

/** One line: what decided the verdict, or what is undecided and what would decide it; then what the noise rule moved. */
function gateSummary(r: CompareResult, look: number, chosen: SampleContext['chosen']): string {
  const moved = chosen.demoted.length || chosen.promoted.length ? choiceWords(chosen) : chosen.by === 'registry' ? chosen.note : '';
  return decidedBy(r, look) + (moved ? `; ${moved}` : '');
}

function decidedBy(r: CompareResult, look: number): string {
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
      return (
        `undecided${lookNote}: ${und.map((x) => x.metric).join(', ')} past warn but within noise; ` +
        `${Number.isFinite(need) ? `about ${need} repeats per run would decide` : 'more repeats than practical would be needed'}`
      );
    }
    case 'pass':
      return primary.length
        ? `${primary.length} primary metric${primary.length === 1 ? '' : 's'} within thresholds${lookNote}`
        : 'no primary metric could be judged';
  }
}

/** The primary family a comparison chose, as a sequential record keeps it (without the note). */
export function primaryChoiceOf(c: Pick<RunsComparison, 'gate'>): PrimaryChoiceRecord | undefined {
  const x = c.gate.chosen;
  if (!x) return undefined;
  const copy = (moved: PrimaryChoiceRecord['demoted']): PrimaryChoiceRecord['demoted'] => moved.map((d) => ({ ...d }));
  return { by: x.by, look: x.look, metrics: [...x.metrics], demoted: copy(x.demoted), promoted: copy(x.promoted) };
}

/** Read, validate and compare two run files (a = baseline, b = candidate). */
export function compareRunFiles(
  fileA: string,
  fileB: string,
  opts: Omit<CompareRunsOptions, 'files'> = {},
): { comparison: RunsComparison; a: RunFile; b: RunFile } {
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
  diff(
    'host CPU',
    ea?.host ? `${ea.host.cpuModel} ×${ea.host.cpus}` : undefined,
    eb?.host ? `${eb.host.cpuModel} ×${eb.host.cpus}` : undefined,
  );
  diff(
    'host platform',
    ea?.host ? `${ea.host.platform}/${ea.host.arch}` : undefined,
    eb?.host ? `${eb.host.platform}/${eb.host.arch}` : undefined,
  );
  diff('CPU throttling', ea?.cpuThrottle, eb?.cpuThrottle);
  diff('network throttling', ea && networkFact(ea.network), eb && networkFact(eb.network));
  const vp = (e: RunFile['env'] | undefined): string | undefined =>
    e?.viewport
      ? `${e.viewport.width}×${e.viewport.height}@${e.viewport.dpr}${e.viewport.mobile ? ' mobile' : ''}${e.viewport.touch ? ' touch' : ''}`
      : undefined;
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
