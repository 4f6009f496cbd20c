/**
 * The primaries stage of a comparison: which metrics decide the verdict. The scenario's gate.metrics as they are, the
 * family recorded at a sequential comparison's first look, a page load's fixed family, else the registry's default
 * fitted to the baseline's own noise (perf/primaries.ts chooseByNoise): a default too noisy to judge is set aside, a
 * quiet promotable one promoted. Pure: samples with their roles in, roles settled and the choice's record out.
 */
import { DEFAULT_ALPHA, thresholdsFor, type MetricSamples } from '../compare.js';
import { defaultPrimaryMetrics, isTimingMetric, loadTransferBytes, PER_FRAME_SUFFIX, resolveMetric } from '../metrics.js';
import { PRIMARY_BY_NOISE, promotableMetrics } from '../metrics.js';
import { chooseByNoise, type NoiseCandidate } from '../primaries.js';
import type { PrimaryChoiceRecord, RunFile, SequentialRecord } from '../run-file.js';
import { normalizeThresholds } from './preflight.js';
import { placeableMs } from './host.js';
import { perMetricThresholds } from './rows.js';
import { counted, measuredRepeats } from './samples.js';
import type { SampleContext, SampleOptions } from './types.js';

/**
 * The primary family as listed: the override, else the choice recorded at a sequential comparison's
 * first look, else the registry's default plus the promotable metrics as tentative candidates.
 */
export interface Family {
  wanted: string[];
  override?: string[];
  recorded?: PrimaryChoiceRecord;
  /** Promotable candidates: primary only if the noise rule promotes them. */
  tentative: Set<string>;
  /** The family is fixed without a scenario's say (a page load's): why the noise rule does not apply. */
  fixed?: string;
}

export const LOAD_FAMILY_NOTE =
  'a page load is judged on the load family (FCP, LCP, CLS, TBT, requests, transfer bytes): the noise rule does not apply';

export function primaryFamily(b: RunFile, opts: SampleOptions): Family {
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

/** The form of each family name judged here (per frame where enough frames were painted), and back. */
export function familyForms(wanted: readonly string[], perFrameOk: boolean): FamilyNames & { primaryForms: Map<string, string> } {
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

export interface ChoiceContext extends SampleOptions {
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

/**
 * A promotable main-thread ms total (script or task time) the noise rule left secondary (too noisy to decide) is set
 * aside instead, so a change it shows never passes silently (issue 56 item 3). Found twice on a Tabulator grid with an
 * 8 ms scroll handler, a core spinning:
 * - against a stored baseline, script +13.5 % (interval +1.9…+29 %) while thread CPU read −6.9 % (two moments of a
 *   shared machine: the thread's total follows the host), passed at look 1;
 * - interleaved (`--against`), script +14 % (interval +6…+22 %) and thread CPU +7.6 % (under warn), passed at look 5:
 *   a slower handler paints fewer frames, so fewer scroll events fire and the totals grow less than the handler did.
 * Set aside, it holds the gate while past warn, so the gate samples on and ends inconclusive naming it, or fails when
 * it is significant at its weight (or, stored, when code places account for it: compare/host.ts judgeUnplaced).
 */
function holdsNoisyMs(s: MetricSamples, c: { primary: boolean; cvPct: number | null }): boolean {
  // cvPct null: too few baseline repeats to size the noise, and the registry's default (secondary) stands.
  return !c.primary && c.cvPct !== null && placeableMs(s.metric);
}

/** Append a reason to a sample's note (the row's reason ends with it). */
function addNote(s: MetricSamples, why: string): void {
  s.note = s.note ? `${s.note}; ${why}` : why;
}

export interface FamilyNames {
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
export function choosePrimaries(
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
    if (c.change === 'none' && ctx.timingGated && holdsNoisyMs(s, c)) {
      const why = `${c.why}; set aside, it holds the gate while past warn`;
      demoted.push({ metric: names.familyOf(s.metric), why });
      setAside(s, why);
      addNote(s, why);
      return;
    }
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
export function choiceWords(c: PrimaryChoiceRecord): string {
  const parts = [
    c.demoted.length ? `set aside as too noisy: ${c.demoted.map((x) => x.metric).join(', ')}` : '',
    c.promoted.length ? `promoted as quiet: ${c.promoted.map((x) => x.metric).join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : "the registry's primary family stands";
}
