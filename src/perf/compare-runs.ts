/**
 * Compare at the level of run files (DESIGN.md "Compare"): a pipeline of small pure stages in ./compare/, each in its
 * own file with its own test, with plain records between them. In order:
 *
 *   preflight    can the two runs be compared; what a reader must know; thresholds (preflight.ts)
 *   samples      each metric's values in the counted repeats (samples.ts)
 *   roles        what each metric is judged on and as what: primary, secondary, shown (roles.ts)
 *   primaries    which metrics decide: scenario, recorded, or the noise rule on the baseline (primaries.ts)
 *   rows         compareMetrics on the samples with the thresholds and sequential state (rows.ts, ../compare.ts)
 *   host         differences that followed a busy or saturated machine become inconclusive (host.ts, ../host-busy.ts)
 *   attribution  where a regressed primary's change is, and the flame stacks (attribution.ts)
 *   insights     insights that appear, disappear, grow or shrink (insight-changes.ts)
 *   verdict      DESIGN.md's compare JSON with the lines that say what decided (verdict.ts)
 *
 * Reading and validating the files comes before (validate.ts, schema.ts); types.ts holds the shapes.
 *
 * Roles (metrics.ts declares each metric; nothing here reads a metric's name):
 * - PRIMARY, deciding the verdict: the scenario's `gate.metrics`, else the registry's primary metrics as
 *   the baseline's own noise allows (metrics.ts PRIMARY_BY_NOISE, perf/primaries.ts): a default primary too
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
import { compareMetrics, DEFAULT_ALPHA, thresholdsFor, type MetricSamples } from './compare.js';
import { MIN_PAINTED_FOR_PER_FRAME } from './metrics.js';
import type { RunFile } from './run-file.js';
import { preflight, hostKey, identity } from './compare/preflight.js';
import { counted, interleaved, measuredRepeats, paintedMedian } from './compare/samples.js';
import { sampleOf, type RoleContext } from './compare/roles.js';
import { choosePrimaries, familyForms, primaryFamily } from './compare/primaries.js';
import { checkCompareSize, rowOptions } from './compare/rows.js';
import { holdPlaced, hostRecord, judgeHost, judgeUnplaced } from './compare/host.js';
import { attributeRows } from './compare/attribution.js';
import { insightChanges } from './compare/insight-changes.js';
import { comparisonOf } from './compare/verdict.js';
import { readRunFile } from './compare/validate.js';
import type { CompareRunsOptions, RunsComparison, SampleContext, SampleOptions } from './compare/types.js';

export type { CompareRunsOptions, RunIdentity, RunsComparison, SampleContext, SampleOptions, ThresholdsUsed } from './compare/types.js';
export {
  COMPARE_FILE_KIND,
  MAX_RUN_FILE_BYTES,
  RUN_FILE_KIND,
  readRunFile,
  validateComparison,
  validateRunFile,
} from './compare/validate.js';
export { COMPARE_ROW_SCHEMA, COMPARISON_SCHEMA } from './compare/schema.js';
export { envWarnings, hostKey, networkFact, runName } from './compare/preflight.js';
export { driverOf } from './compare/samples.js';
export { MAX_COMPARED_REPEATS, perMetricThresholds } from './compare/rows.js';
export { attributionSide } from './compare/attribution.js';
export { compareExitCode, primaryChoiceOf } from './compare/verdict.js';

/**
 * The samples, roles and primaries stages: every metric in either run with the samples it is judged on and the role
 * it plays, the context that decided the roles, and the names only one run has.
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

/** Judge candidate `b` against baseline `a`, stage by stage. Throws PerfError usage for runs that cannot be compared. */
export function compareRuns(a: RunFile, b: RunFile, opts: CompareRunsOptions = {}): RunsComparison {
  const files = { a: opts.files?.a ?? `baseline (${a.label})`, b: opts.files?.b ?? `candidate (${b.label})` };
  const { warnings, thresholds } = preflight(a, b, files, opts);
  const sequential = opts.sequential ?? b.sequential;
  const alpha = sequential?.alpha ?? opts.alpha ?? DEFAULT_ALPHA;
  const look = (sequential?.looks.length ?? 0) + 1;

  const sampleOpts: SampleOptions = { ...(opts.primary ? { primary: opts.primary } : {}), sequential, thresholds, alpha, look };
  const { samples, context, onlyA, onlyB } = metricSamples(a, b, sampleOpts);
  checkCompareSize(samples, files.a, files.b);
  if (onlyA.length) warnings.push(`only in the baseline: ${onlyA.join(', ')}`);
  if (onlyB.length) warnings.push(`only in the candidate: ${onlyB.join(', ')}`);

  const options = rowOptions(thresholds, alpha, sequential, opts);
  const rows = compareMetrics(samples, options);

  // The quiet repeats are re-judged on the primaries this look chose, not on a choice remade from fewer repeats.
  const chosen: SampleOptions = context.primary.length ? { ...sampleOpts, primary: context.primary } : sampleOpts;
  const host = judgeHost(a, b, rows, {
    rejudge: (qa, qb) => compareMetrics(metricSamples(qa, qb, chosen).samples, { ...options, rejected: {} }),
    thresholds: (metric) => thresholdsFor(metric, options),
  });

  const stored = !interleaved(a, b);
  const attributed = attributeRows(a, b, host.result.rows, { timingGated: context.timingGated, level: 1 - 2 * alpha, wantPlaces: stored });
  // A stored baseline's ms regression must show where it is: one no place explains stays undecided.
  const unplaced = judgeUnplaced(a, b, { ...host.result, rows: attributed.rows }, host.busy, (metric) => thresholdsFor(metric, options));
  // And the converse: a row that reads unchanged while code places surely grew is held, not passed.
  const places = stored ? attributed.places : [];
  const { result, busy } = holdPlaced(a, b, unplaced.result, unplaced.busy, { places, thresholds: (m) => thresholdsFor(m, options) });

  return comparisonOf({
    thresholds,
    warnings,
    baseline: identity(a, opts.files?.a),
    candidate: identity(b, opts.files?.b),
    context,
    result,
    busy,
    host: hostRecord(context.sameHost, a, b, busy),
    attributed: { flame: attributed.flame, rows: result.rows },
    insights: insightChanges(a.repeats, b.repeats),
    design: { alpha, look, sequential, stored },
  });
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
