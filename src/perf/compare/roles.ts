/**
 * The roles stage of a comparison: what one metric is judged on and as what (primary, secondary, shown). Milliseconds
 * from timing-mode repeats when both runs have them; per-frame forms only over enough painted frames; host-dependent
 * metrics shown when the baseline is another host's; a primary one run lost stays primary (a missing row); repeats of
 * one interleaved round paired. Pure: run files and the context of the two runs in, one MetricSamples out.
 */
import type { MetricRole, MetricSamples } from '../compare.js';
import { floorOf, isTimingMetric, MIN_PAINTED_FOR_PER_FRAME, resolveMetric, type ResolvedMetric } from '../metrics.js';
import type { RepeatRecord, RunFile } from '../run-file.js';
import { pairBySequence } from './pairs.js';
import { hostKey } from './preflight.js';
import { driverOf, eventCounts, interleaved, lostIn, pacedCount, sequenced, sequentialSizes, values, type Measured } from './samples.js';
import type { SampleContext, SampleOptions } from './types.js';

/** What decides one metric's role in metricSamples; `notJudged` collects the primaries set aside. */
export interface RoleContext {
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

/** One metric's samples and role (see metricSamples). */
export function sampleOf(metric: string, ctx: RoleContext): MetricSamples {
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
    if (role === 'primary')
      ctx.notJudged.push({ metric, why: 'no timing-mode repeats in both runs (timing: false, or an older baseline)' });
    return {
      role: 'secondary',
      note: 'ms from attribution-mode repeats (the profiler inflates them): not gated; record both with timing repeats',
    };
  }
  return { role, note: undefined };
}
