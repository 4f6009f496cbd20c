/**
 * The run file (DESIGN.md "Run file"): what `perf run` writes, `perf compare` reads and every
 * reporter renders. schemaVersion 1; fields are extended, never renamed.
 */
import type { ErrorInfo as StepErrorInfo } from '../errors.js';
import { finite, list, map, nullable, record, tagged, text, whole, type Schema } from '../json-input.js';
import type { Summary } from './stats.js';
import { LOAD_RESOURCE_TYPES, LOAD_SERVED_FROM, type LoadRequest } from '../drivers/measure.js';
import type { LoadSummary } from './sources/load.js';
import { BUDGET_OPS, BUDGET_UNIT_NAMES, type BudgetOp, type BudgetUnit } from './budget-units.js';
import type { PerfReport } from './report.js';
import { MAX_FORCED, MAX_FUNCTIONS, MAX_LONG_TASKS, MAX_STACK_DEPTH, MAX_STACKS, type RepeatAttribution } from './attribution.js';

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

export interface RepeatBase {
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
  phasesMs?: { restart?: number; open?: number; setup?: number; host?: number; begin?: number; steps?: number; end?: number };
  steps: RepeatStepRecord[];
  /** How fast and how busy the host was around this repeat (runner/host-speed.ts); absent in older files. */
  host?: HostRecord;
  /** When the repeat began (ISO time). Written by `perf run --against`, where two run files interleave. */
  startedAt?: string;
  /** Position in the interleaved order of a `perf run --against` run, shared by both of its run files. */
  sequence?: number;
  /**
   * The first attempt failed and the scenario has setupOnce: its steps ran again (a sign-in that had
   * expired) and this is the repeat's second attempt.
   */
  retriedAfterSignIn?: boolean;
}

/**
 * The host around one repeat. Compare marks a repeat whose benchmarkIndex is far below the run pair's
 * usual as run on a busy host (perf/host-busy.ts).
 */
export interface HostRecord {
  /** Work units per ms of a fixed calibration loop run just before the measured window (median of short slices). */
  benchmarkIndex: number;
  /** The machine's 1-minute load average at the calibration (0 where the OS has none). */
  loadAverage1: number;
  /** Share of CPU time the hypervisor gave to other guests over the repeat, % (0 where not reported). */
  stealPct: number;
  /** Mean current clock of the CPUs at the calibration, MHz; absent where not reported. */
  cpuMhz?: number;
  /**
   * Share of the machine's CPU time used by processes outside this run (perf, the app and the browser it
   * started) from the calibration to the window's end, %; absent where not measurable (see host-speed.ts).
   */
  foreignCpuPct?: number;
}

export type RepeatRecord =
  | (RepeatBase & { status: 'measured'; report: PerfReportRecord })
  /** The page rendered nothing in the window: no metrics, left out of the medians. */
  | (RepeatBase & { status: 'refused'; reason: string; report?: PerfReportRecord })
  | (RepeatBase & {
      status: 'failed';
      failure: {
        phase: 'restart' | 'setup' | 'steps' | 'measure';
        step?: string;
        label?: string;
        error: StepErrorInfo;
        screenshot?: string;
      };
    });

/** What perf_end produced for one repeat, as kept in the run file. */
export interface PerfReportRecord {
  metrics: Metrics;
  coverage?: Record<string, 'read' | 'missing'>;
  insights?: unknown[];
  /** Where the main thread went (attribution-mode repeats with a CPU profile): what compare diffs. */
  attribution?: RepeatAttribution;
  /** The page load of the window, with its waterfall (the first MAX_WATERFALL_REQUESTS requests by start). */
  load?: LoadSummary & { requests?: LoadRequest[] };
  /** DevTools' engine on this repeat's load (attribution repeats): absent where it did not run. */
  devtools?: PerfReport['devtools'];
  [k: string]: unknown;
}

export interface BudgetResult {
  expr: string;
  metric: string;
  op: BudgetOp;
  /** In the metric's own unit (ms, bytes), whatever unit it was written in. */
  limit: number;
  /** The unit the limit was written in (`2.5s`, `300KB`), to show the median in it; absent for a bare number. */
  unit?: BudgetUnit;
  /** The run's median of the metric (an insight's count: the repeats it fired in); null when no measured repeat had it. */
  value: number | null;
  /** An insight budget (`insights.<id>.…`): the analysed repeats that computed the insight, what `value` is out of. */
  of?: number;
  pass: boolean;
}

/** The budgets a run broke, as judged when its file was written: what fails perf run, perf gate and their reports. */
export function failedBudgets(run: Pick<RunFile, 'budgets'>): BudgetResult[] {
  return run.budgets.filter((b) => !b.pass);
}

export interface RunEnv {
  tool: { name: 'rehearse'; version: string };
  browser: {
    product: string;
    userAgent: string;
    headless: boolean;
    executablePath?: string;
    endpoint?: string;
    /** Set when not the default cdp: the driver and engine of the run. */ driver?: 'webdriver' | 'bidi' | 'pty';
    engine?: 'chromium' | 'webkit' | 'firefox';
  };
  host: {
    platform: string;
    arch: string;
    cpuModel: string;
    cpus: number;
    memoryBytes: number;
    loadAverage: number[];
    node: string;
    hostname: string;
  };
  restartMode: 'reload' | 'context' | 'browser';
  viewport: { width: number; height: number; dpr: number; mobile: boolean; touch: boolean };
  cpuThrottle: number;
  /**
   * The scenario's network throttling, acknowledged by the page's target at every clean restart (Chromium has no getter); absent when not
   * throttled.
   */
  network?: {
    profile: string;
    offline: boolean;
    latencyMs: number;
    downloadKbps: number;
    uploadKbps: number;
    /** What the page's navigator.connection reports (Chromium feeds it the emulated values, rounded). */ page?: {
      rttMs: number;
      downlinkKbps: number;
    };
  };
  app: {
    kind: 'serve' | 'command' | 'url' | 'desktop' | 'terminal';
    url: string;
    /** app.terminal: the program run. */ terminal?: { command: string; args: string[] };
    /** app.desktop: the binary, and the driver that started it. */ desktop?: { binary: string; driver: 'tauri' | 'webkit' };
  };
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
  /**
   * The repeat `insights` come from: the median by durationMs of the measured attribution repeats (`of` of them), or
   * of the timing repeats when there was none (then the insights that need a profile ask for one). Absent: no repeat.
   */
  insightsFrom?: { repeat: number; mode: RepeatMode; of: number };
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
  /**
   * Why sampling stopped: the verdict decided (an error confirmed, or every primary metric settled), maxRepeat reached, --budget-s spent,
   * or Ctrl-C.
   */
  stopped: 'decided' | 'max-repeat' | 'budget' | 'interrupted';
  /** true when the baseline is a stored file that did not grow (`perf gate`): only the candidate was sampled. */
  storedBaseline: boolean;
  /** Metrics a look before the last one found significant, and in which direction: a crossing is final. */
  rejected?: Record<string, 'worse' | 'better'>;
  /**
   * The primary family, fixed at the first look (metrics.ts PRIMARY_BY_NOISE on the baseline then) so
   * that later looks and a later `perf compare` of these files judge the same family: the design does
   * not move with the data.
   */
  primaries?: PrimaryChoiceRecord;
}

/** How a comparison's primary family was chosen, and what the noise rule changed. */
export interface PrimaryChoiceRecord {
  /** scenario: its gate.metrics (no rule); registry: the default family (too few baseline repeats); noise: the rule ran. */
  by: 'scenario' | 'registry' | 'noise';
  /** The look the choice was made at. */
  look: number;
  /** The family as listed (base names, or explicit `.perFrame` ones). */
  metrics: string[];
  /** Default primaries the baseline's noise demoted to secondary, and why. */
  demoted: { metric: string; why: string }[];
  /** Promotable metrics the baseline's noise made primary, and why. */
  promoted: { metric: string; why: string }[];
}

// ─── the schema: what every reader (compare, reporters, merge) may rely on once a file passed it ────
//
// Declared beside the types it checks; `perf compare`, `perf report`, `perf merge` and MCP perf_compare
// validate every run file against it before reading a field (src/json-input.ts). Extra fields pass:
// run files are extended, never renamed. Bounds are far past what `perf run` writes and keep a crafted
// file from costing more than its size.

// 100,000 repeats: `perf run` has no cap, but 64 MiB holds ~4,000 repeats of a page run; a repeat
// index past it is not one perf wrote, and the report draws one slot per index.
export const MAX_REPEATS = 100_000;
// 10,000 metrics: a run has ~50, plus one per measured step; a report lists each.
export const MAX_METRICS = 10_000;
// 4,096 characters (PATH_MAX on Linux): the longest name perf writes is a path; a scenario, label,
// metric or step name longer than a path is not one a person wrote.
export const MAX_NAME_CHARS = 4096;
// 1 Mi characters: messages keep a page's own text (an exception, a refusal reason); a megabyte of
// it is past reading, and still lets many of them fit the file's size cap.
export const MAX_TEXT_CHARS = 2 ** 20;
// 10,000 items: per-repeat lists perf writes hold tens (steps, warnings, worst frames, insight rows).
const MAX_LIST_ITEMS = 10_000;

const name = (description: string): Schema => text(description, MAX_NAME_CHARS);
const prose = (description: string): Schema => text(description, MAX_TEXT_CHARS);
const count = (description: string): Schema => whole(description, 0, MAX_REPEATS);
const ms = (description: string): Schema => finite(description);
const flag = (description: string): Schema => ({ type: 'boolean', description });
const oneOf = (values: readonly unknown[], description: string): Schema => ({ enum: values, description });
const tag = (value: string): Schema => ({ const: value, description: `status ${value}` });

export const ERROR_INFO_SCHEMA = record(
  'An error as data (PerfError.toJSON).',
  {
    kind: name('Which exit code the error had: failed 1, usage 2, environment 3, internal 4.'),
    code: name('Stable snake_case code, e.g. target_not_found.'),
    message: prose('What went wrong.'),
    suggestion: prose('What to do next.'),
    candidates: list('Close valid names, or the elements a target matched.', name('A candidate.'), MAX_LIST_ITEMS),
  },
  ['kind', 'code', 'message'],
);

const STEP_RECORD_SCHEMA = record(
  'One step of a repeat.',
  {
    phase: oneOf(['setup', 'steps'], 'setup steps run before perf_begin, steps inside the measured window.'),
    step: name('The step name, e.g. tap.'),
    label: name('The step label (its metric is steps.<label>.ms).'),
    status: oneOf(['ok', 'failed', 'skipped'], 'How the step ended.'),
    durationMs: ms('How long the step took, ms.'),
    error: ERROR_INFO_SCHEMA,
    warnings: list('Warnings the step raised.', prose('A warning.'), MAX_LIST_ITEMS),
  },
  ['phase', 'step', 'label', 'status', 'durationMs'],
);

// Numbers a repeat's analysis computed: null where one came out NaN (a share of no time at all).
const computed = (description: string): Schema => nullable(finite(description), `${description} Or null.`);
const WORST_FRAME_SCHEMA = record(
  'A frame.',
  { atMs: computed('When it began, ms from perf_begin.'), ms: computed('How long it stayed on screen.') },
  ['atMs', 'ms'],
);
const BLOCK_SCHEMA = record('A function.', {
  name: prose('Its name.'),
  url: prose('Where.'),
  selfMs: computed('Self time.'),
  share: computed('Share of self time.'),
});

// A function's name and "path:line:col" as a profile gives them: long minified names and data: URLs
// exist, so text up to a path's length.
const PLACE_FIELDS = {
  name: name("The function's name, or a VM bucket like (garbage collector)."),
  url: name('"path:line:col", or a bucket name.'),
};
const ATTRIBUTION_SCHEMA = record(
  "Where the main thread went in this attribution repeat (the caps are perf's own; compare diffs these).",
  {
    functions: list(
      'Page functions by self ms over the measured window.',
      record('A function.', { ...PLACE_FIELDS, selfMs: ms('Self time, ms.') }, ['name', 'url', 'selfMs']),
      MAX_FUNCTIONS,
    ),
    forced: list(
      'Forced layouts and style recalcs, charged to the function on top of the stack when they ran.',
      record(
        'A forcing function.',
        { ...PLACE_FIELDS, kind: oneOf(['layout', 'style'], 'What it forced.'), ms: ms('Their time, ms.'), count: count('How many.') },
        ['name', 'url', 'kind', 'ms', 'count'],
      ),
      MAX_FORCED,
    ),
    longTasks: list(
      'Main-thread tasks over 50 ms, charged to the function with the most self time in each.',
      record('A function.', { ...PLACE_FIELDS, ms: ms("The tasks' time, ms."), count: count('How many.') }, ['name', 'url', 'ms', 'count']),
      MAX_LONG_TASKS,
    ),
    stacks: list(
      'Folded stacks, heaviest first.',
      record(
        'A stack.',
        {
          frames: list('Frames root → leaf, each "name path:line:col".', name('A frame.'), MAX_STACK_DEPTH),
          selfMs: ms('Self ms of its leaf.'),
        },
        ['frames', 'selfMs'],
      ),
      MAX_STACKS,
    ),
  },
  ['functions', 'forced', 'longTasks', 'stacks'],
);

// 300 requests: the waterfall of the median repeat is drawn from them; a page load of more keeps its
// first 300 by start time (the report says how many there were), bounded the way a run file must be.
export const MAX_WATERFALL_REQUESTS = 300;
// HTTP statuses are three digits (RFC 9110 section 15).
const MAX_HTTP_STATUS = 999;
const LOAD_REQUEST_SCHEMA = record(
  'One request of the load.',
  {
    url: name('Its URL.'),
    type: oneOf(LOAD_RESOURCE_TYPES, 'What the page did with it.'),
    startMs: ms('When it started, ms since the navigation start.'),
    responseStartMs: nullable(
      ms('First byte of the response, ms since the navigation start.'),
      'Or null when hidden (cross-origin) or when the browser put it outside the request (before its start or after its end).',
    ),
    endMs: ms('When its last byte arrived, ms since the navigation start.'),
    transferBytes: finite('Bytes over the wire, headers included (0 from the cache).', { minimum: 0 }),
    renderBlocking: flag('The browser held the first paint for it.'),
    status: whole('Its HTTP status; absent where the browser does not say.', 0, MAX_HTTP_STATUS),
    protocol: name("How it came: h1, h2, h3, or the browser's own name (data, blob)."),
    servedFrom: oneOf(LOAD_SERVED_FROM, 'Where the response came from: the network, a cache of the browser, a service worker.'),
    cacheControl: name("The response's Cache-Control header, empty when it has none."),
    initiator: record(
      'What asked for it.',
      { type: name('parser, script, preload, other…'), url: name('The document, stylesheet or script that asked.') },
      ['type'],
    ),
    priority: name("The browser's fetch priority as the load ended (VeryHigh … VeryLow)."),
    renderBlockingStatus: name("Chromium's render-blocking behaviour (blocking, in_body_parser_blocking, non_blocking…)."),
    entity: name("first-party on the page's site, else the third party (a known entity or its registrable domain)."),
  },
  ['url', 'type', 'startMs', 'endMs', 'transferBytes', 'renderBlocking'],
);
const milestone = (description: string): Schema => nullable(ms(description), `${description} Or null.`);
const LOAD_SCHEMA = record(
  'The page load measured in the window (measure: load, perf_load): its milestones, its LCP element and its requests.',
  {
    url: name('The URL loaded.'),
    ended: oneOf(['quiet', 'deadline'], 'How the load window ended: the page went quiet, or the deadline passed.'),
    ttfbMs: milestone('First byte of the document, ms.'),
    fcpMs: milestone('First contentful paint, ms.'),
    lcpMs: milestone('Largest contentful paint, ms.'),
    domContentLoadedMs: milestone('DOMContentLoaded done, ms.'),
    loadEventMs: milestone('Load event done, ms.'),
    lcpElement: nullable(name('The LCP element, tag#id.class "text".'), 'Or null.'),
    lcpUrl: nullable(name("The LCP image's URL."), 'Or null.'),
    requestsTotal: count('Requests of the load.'),
    top: list('The largest requests by transfer size.', LOAD_REQUEST_SCHEMA, MAX_LIST_ITEMS),
    requests: list(
      `The waterfall: the first ${MAX_WATERFALL_REQUESTS} requests by start (run files only).`,
      LOAD_REQUEST_SCHEMA,
      MAX_LIST_ITEMS,
    ),
  },
  ['url', 'ended', 'requestsTotal', 'top'],
);

const REPORT_SCHEMA = record(
  'What perf_end produced for one repeat; fields other than these are kept as they are and shown as JSON.',
  {
    metrics: map('Metric names to values.', nullable(finite('A value.'), 'A value, or null.'), MAX_METRICS, MAX_NAME_CHARS),
    coverage: map('Which metric sources were read.', name('read or missing.'), MAX_METRICS, MAX_NAME_CHARS),
    summary: record("The repeat's summary: its worst frames and top functions are drawn.", {
      // null where the driver has no frames (a terminal run).
      frames: nullable(record('Frame statistics.', { worst: list('The longest frames.', WORST_FRAME_SCHEMA, MAX_LIST_ITEMS) }), 'Or null.'),
      blocksBySelf: nullable(list('Functions by self time.', BLOCK_SCHEMA, MAX_LIST_ITEMS), 'Or null.'),
    }),
    attribution: ATTRIBUTION_SCHEMA,
    load: LOAD_SCHEMA,
  },
  ['metrics'],
);

const HOST_RECORD_SCHEMA = record(
  'How fast and how busy the host was around this repeat (a calibration loop in the runner, and what the OS reports).',
  {
    benchmarkIndex: finite(
      'Work units per ms of a fixed calibration loop run just before the measured window (median of short slices); ' +
        'lower is a slower or busier host.',
      { minimum: 0 },
    ),
    loadAverage1: finite("The machine's 1-minute load average at the calibration; 0 where the OS has none.", { minimum: 0 }),
    stealPct: finite('CPU time the hypervisor gave to other guests over the repeat, % of all CPU time; 0 where not reported.', {
      minimum: 0,
      maximum: 100,
    }),
    cpuMhz: finite('Mean current CPU clock at the calibration, MHz (/proc/cpuinfo); absent where not reported.', { minimum: 0 }),
    foreignCpuPct: finite(
      "CPU time used by processes outside this run (perf, the app and the browser it started) from the calibration to the window's " +
        "end, % of the machine's; absent without /proc, or when perf did not launch the browser (Grid, endpoint, external WebDriver).",
      { minimum: 0, maximum: 100 },
    ),
  },
  ['benchmarkIndex', 'loadAverage1', 'stealPct'],
);

const REPEAT_BASE = {
  index: whole('Position of the repeat in the run, from 0.', 0, MAX_REPEATS - 1),
  mode: oneOf(['timing', 'attribution'], 'timing: no profiler, its ms are gated; attribution: profiled.'),
  warmup: flag('A warmup repeat, left out of the summary.'),
  wallMs: ms('Wall time of the whole repeat, ms.'),
  phasesMs: map('Where the wall time went, ms, by phase.', ms('ms.'), 16, 64),
  steps: list("The repeat's steps.", STEP_RECORD_SCHEMA, MAX_LIST_ITEMS),
  startedAt: name('When the repeat began (ISO time).'),
  sequence: count('Position in the interleaved order of perf run --against.'),
  host: HOST_RECORD_SCHEMA,
  retriedAfterSignIn: flag('The first attempt failed; setupOnce ran again (an expired sign-in) and this is the second attempt.'),
};
const REPEAT_REQUIRED = ['index', 'mode', 'warmup', 'wallMs', 'steps', 'status'];

const FAILURE_SCHEMA = record(
  'Where and how the repeat failed.',
  {
    phase: oneOf(['restart', 'setup', 'steps', 'measure'], 'The phase that failed.'),
    step: name('The step that failed.'),
    label: name('Its label.'),
    error: ERROR_INFO_SCHEMA,
    screenshot: name('A screenshot at the failure, saved beside the run file.'),
  },
  ['phase', 'error'],
);

const REPEAT_SCHEMA = tagged('One repeat: measured, refused (nothing rendered) or failed.', 'status', [
  record('A measured repeat.', { ...REPEAT_BASE, status: tag('measured'), report: REPORT_SCHEMA }, [...REPEAT_REQUIRED, 'report']),
  record('A refused repeat.', { ...REPEAT_BASE, status: tag('refused'), reason: prose('Why.'), report: REPORT_SCHEMA }, [
    ...REPEAT_REQUIRED,
    'reason',
  ]),
  record('A failed repeat.', { ...REPEAT_BASE, status: tag('failed'), failure: FAILURE_SCHEMA }, [...REPEAT_REQUIRED, 'failure']),
]);

const SUMMARY_STATS_SCHEMA = record(
  'A metric over the counted measured repeats.',
  {
    median: finite('Median.'),
    min: finite('Minimum.'),
    max: finite('Maximum.'),
    p25: finite('25th percentile.'),
    p75: finite('75th percentile.'),
    n: count('Repeats counted.'),
  },
  ['median', 'min', 'max', 'p25', 'p75', 'n'],
);

const percent = (description: string): Schema => finite(description, { minimum: 0 });
const THRESHOLDS_SCHEMA = record(
  "The scenario's thresholds, percent.",
  {
    warnPct: percent('Warn past this regression, %.'),
    errorPct: percent('Fail past this regression, %.'),
    metrics: map(
      'Per-metric overrides.',
      record('An override.', { warnPct: percent('Warn, %.'), errorPct: percent('Error, %.') }),
      MAX_METRICS,
      MAX_NAME_CHARS,
    ),
  },
  ['warnPct', 'errorPct', 'metrics'],
);

const LOOK_SCHEMA = record('A look.', { a: count('Baseline repeats.'), b: count('Candidate repeats.') }, ['a', 'b']);
const MAX_SCHEMA = record(
  'The most repeats per arm the design allowed.',
  {
    a: count('Baseline.'),
    b: count('Candidate.'),
    timingA: count('Baseline, timing mode.'),
    timingB: count('Candidate, timing mode.'),
  },
  ['a', 'b', 'timingA', 'timingB'],
);

const CHOSEN_METRIC_SCHEMA = record('A metric the rule moved.', { metric: name('The metric.'), why: prose('Why, with its noise.') }, [
  'metric',
  'why',
]);
/** PrimaryChoiceRecord's fields: a sequential record's `primaries`, and the compare JSON's `gate.chosen` with a note. */
export const PRIMARY_CHOICE_FIELDS = {
  by: oneOf(
    ['scenario', 'registry', 'noise'],
    "The scenario's gate.metrics, the registry's default (too few baseline repeats), or the noise rule.",
  ),
  look: whole('The look it was chosen at.', 1, MAX_REPEATS),
  metrics: list('The primary family as listed (base names or explicit .perFrame ones).', name('A metric.'), MAX_METRICS),
  demoted: list('Default primaries demoted to secondary as too noisy.', CHOSEN_METRIC_SCHEMA, MAX_METRICS),
  promoted: list('Promotable metrics made primary as quiet.', CHOSEN_METRIC_SCHEMA, MAX_METRICS),
};
export const PRIMARY_CHOICE_REQUIRED = ['by', 'look', 'metrics', 'demoted', 'promoted'];
const PRIMARY_CHOICE_SCHEMA = record(
  'How the primary family was chosen, fixed at the first look.',
  PRIMARY_CHOICE_FIELDS,
  PRIMARY_CHOICE_REQUIRED,
);

export const SEQUENTIAL_FIELDS = {
  alpha: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, description: 'False-alarm rate over all looks and metrics.' },
  spending: oneOf(['pocock', 'obrien-fleming'], 'The Lan–DeMets spending function.'),
  // 1,000 looks: a look per repeat at the very most (the gate's maxRepeat is at most 200); each look
  // adds a numerical integration to the boundaries (2 s at 1,000 here).
  looks: list('Counted repeats per arm at each earlier look.', LOOK_SCHEMA, 1000),
  max: MAX_SCHEMA,
  stopped: oneOf(['decided', 'max-repeat', 'budget', 'interrupted'], 'Why sampling stopped.'),
  storedBaseline: flag('Only the candidate was sampled, against a stored baseline.'),
  rejected: map('Metrics an earlier look found significant.', oneOf(['worse', 'better'], 'The direction.'), MAX_METRICS, MAX_NAME_CHARS),
  primaries: PRIMARY_CHOICE_SCHEMA,
};
export const SEQUENTIAL_REQUIRED = ['alpha', 'spending', 'looks', 'max', 'stopped', 'storedBaseline'];
const SEQUENTIAL_SCHEMA = record('How a sequential comparison sampled this run.', SEQUENTIAL_FIELDS, SEQUENTIAL_REQUIRED);

const BROWSER_SCHEMA = record(
  'The browser.',
  {
    product: name('Product and version.'),
    userAgent: prose('Its user agent.'),
    headless: flag('Headless.'),
    executablePath: name('The binary.'),
    endpoint: prose('The endpoint it was reached at.'),
    driver: oneOf(['webdriver', 'bidi', 'pty'], 'The driver, when not cdp.'),
    engine: oneOf(['chromium', 'webkit', 'firefox'], 'The engine, when not cdp.'),
  },
  ['product', 'userAgent', 'headless'],
);

const HOST_SCHEMA = record(
  'The machine.',
  {
    platform: name('OS.'),
    arch: name('CPU architecture.'),
    cpuModel: name('CPU model.'),
    cpus: count('Logical CPUs.'),
    memoryBytes: finite('Memory, bytes.', { minimum: 0 }),
    loadAverage: list('Load averages.', finite('A load average.'), 16),
    node: name('Node version.'),
    hostname: name('Host name.'),
  },
  ['platform', 'arch', 'cpuModel', 'cpus', 'memoryBytes', 'loadAverage', 'node', 'hostname'],
);

const VIEWPORT_SCHEMA = record(
  'The viewport.',
  {
    width: finite('CSS px.', { minimum: 0 }),
    height: finite('CSS px.', { minimum: 0 }),
    dpr: finite('Device pixel ratio.', { minimum: 0 }),
    mobile: flag('Mobile emulation.'),
    touch: flag('Touch emulation.'),
  },
  ['width', 'height', 'dpr', 'mobile', 'touch'],
);

const NETWORK_SCHEMA = record(
  'Network throttling.',
  {
    profile: name('Profile name.'),
    offline: flag('No connection.'),
    latencyMs: ms('Added latency.'),
    downloadKbps: finite('Download, kbit/s.'),
    uploadKbps: finite('Upload, kbit/s.'),
    page: record('What the page saw.', { rttMs: ms('Round trip.'), downlinkKbps: finite('Downlink, kbit/s.') }),
  },
  ['profile', 'offline', 'latencyMs', 'downloadKbps', 'uploadKbps'],
);

const ENV_SCHEMA = record(
  'Where and how the run was measured.',
  {
    tool: record('The tool.', { name: name('rehearse.'), version: name('Its version.') }, ['name', 'version']),
    browser: BROWSER_SCHEMA,
    host: HOST_SCHEMA,
    restartMode: oneOf(['reload', 'context', 'browser'], 'How each repeat started clean.'),
    viewport: VIEWPORT_SCHEMA,
    cpuThrottle: finite('CPU slowdown factor.', { minimum: 0 }),
    network: NETWORK_SCHEMA,
    app: record(
      'The app.',
      { kind: oneOf(['serve', 'command', 'url', 'desktop', 'terminal'], 'How it was started.'), url: prose('Its URL.') },
      ['kind', 'url'],
    ),
  },
  ['tool', 'browser', 'host', 'restartMode', 'viewport', 'cpuThrottle', 'app'],
);

const TRACE_REF_SCHEMA = record('A saved trace.', { repeat: count('Its repeat index.'), path: name('Its file.') }, ['repeat', 'path']);

const INSIGHT_SCHEMA = record('A ranked finding; its fields are shown as they are.', {
  id: name('Insight id.'),
  source: { enum: ['devtools', 'rehearse'], description: "Whose rule: DevTools' trace engine or ours." },
  severity: name('error, warn or info.'),
  title: prose('One line.'),
  culprit: prose('What to fix, when one thing is: a URL, or a function with its place.'),
  estimatedSavingsBytes: finite('Bytes fixing it could save over the wire.', { minimum: 0 }),
  nextStep: prose('What to run next.'),
  evidence: { type: 'object', maxProperties: 100, description: 'The numbers behind it.' },
  rows: list('The first rows behind it.', { type: 'object', maxProperties: 100, description: 'A row.' }, MAX_LIST_ITEMS),
  rowsTotal: count('How many rows there were.'),
  estimatedSavingsMs: ms('What fixing it could save.'),
});

const SUMMARY_SCHEMA = record(
  "The run's summary.",
  {
    repeats: count('All repeats.'),
    measured: count('Measured.'),
    refused: count('Refused.'),
    failed: count('Failed.'),
    warmup: count('Warmup.'),
    metrics: map('Per metric over the counted measured repeats.', SUMMARY_STATS_SCHEMA, MAX_METRICS, MAX_NAME_CHARS),
    timingOnly: flag('ms metrics summarised from timing-mode repeats only.'),
  },
  ['repeats', 'measured', 'refused', 'failed', 'warmup', 'metrics', 'timingOnly'],
);

const BUDGET_SCHEMA = record(
  'A budget.',
  {
    expr: prose('As written.'),
    metric: name('Its metric.'),
    op: oneOf(BUDGET_OPS, 'Comparison.'),
    limit: finite("The limit, in the metric's own unit (ms, bytes, count) whatever unit it was written in."),
    unit: oneOf(
      BUDGET_UNIT_NAMES,
      'The unit the limit was written in, to show the median in it (KB and MB are 1024 and 1024² bytes, as KiB and MiB); ' +
        'absent when it was a bare number.',
    ),
    value: nullable(
      finite("The median (an insight's count: the repeats it fired in)."),
      "The run's median, or null when no measured repeat had the metric (or computed the insight).",
    ),
    of: count('An insight budget (insights.<id>.count|savingsMs|savingsBytes): the analysed repeats that computed the insight.'),
    pass: flag('Passed.'),
  },
  ['expr', 'metric', 'op', 'limit', 'value', 'pass'],
);

const AGAINST_SCHEMA = record(
  'One arm of perf run --against.',
  {
    role: oneOf(['baseline', 'candidate'], 'Which arm.'),
    other: name("The other arm's run file."),
    order: { const: 'ABBA', description: 'Interleaving.' },
  },
  ['role', 'other', 'order'],
);

export const RUN_FILE_SCHEMA = record(
  'A run file (schemaVersion 1), as `perf run` writes it.',
  {
    schemaVersion: { const: RUN_FILE_SCHEMA_VERSION, description: 'The run file format version.' },
    scenario: { ...name('Scenario name.'), minLength: 1 },
    variant: nullable(name('Variant name.'), 'Variant name, or null.'),
    label: name('Run label.'),
    scenarioFile: name('Source file of the scenario.'),
    startedAt: name('When the run began (ISO time).'),
    finishedAt: name('When it ended (ISO time).'),
    interrupted: flag('Ctrl-C stopped the run early.'),
    complete: { const: false, description: 'false while the run is going on.' },
    env: ENV_SCHEMA,
    thresholds: THRESHOLDS_SCHEMA,
    summary: SUMMARY_SCHEMA,
    budgets: list("The scenario's budgets, judged.", BUDGET_SCHEMA, MAX_METRICS),
    insights: list('Ranked findings of the repeat insightsFrom names.', INSIGHT_SCHEMA, MAX_LIST_ITEMS),
    insightsFrom: record(
      'The repeat the insights come from: the median by durationMs of the attribution repeats (else of the timing ones).',
      {
        repeat: count('Its repeat index.'),
        mode: oneOf(['timing', 'attribution'], 'Its mode: timing only when the run measured no attribution repeat.'),
        of: count('How many measured repeats of that mode it is the median of.'),
      },
      ['repeat', 'mode', 'of'],
    ),
    traces: record('Traces saved beside the run file.', { median: TRACE_REF_SCHEMA, slowest: TRACE_REF_SCHEMA }),
    repeats: list('Every repeat, in order.', REPEAT_SCHEMA, MAX_REPEATS),
    against: AGAINST_SCHEMA,
    gate: record('The primary metrics.', { metrics: list('Metric names.', name('A metric.'), MAX_METRICS) }, ['metrics']),
    sequential: SEQUENTIAL_SCHEMA,
  },
  [
    'schemaVersion',
    'scenario',
    'variant',
    'label',
    'scenarioFile',
    'startedAt',
    'finishedAt',
    'interrupted',
    'env',
    'thresholds',
    'summary',
    'budgets',
    'insights',
    'repeats',
  ],
);
