/**
 * Attribution (issue 27): where a regression is. Every attribution-mode repeat keeps a compact record of
 * where its main thread went (RepeatAttribution, in the run file); a comparison diffs the two runs'
 * records for each regressed or inconclusive primary row (RowAttribution) and keeps the folded stacks of
 * each run's median attribution repeat for a differential flame graph (ComparisonFlame).
 *
 * This module is pure: records in, ranked lines out. Types first; the functions below them.
 */
import type { CpuProfile, RawSession } from '../drivers/measure.js';
import { isPageWork, locationOf, readProfile, round, type ProfileData, type ProfileFunction } from './profile.js';
import { clockOffsetMs } from './report.js';
import { hodgesLehmann, median } from './stats.js';
import { layoutsFromTrace, longTasksFromTrace, type LayoutSpan } from './trace-layouts.js';
import * as M from './metrics.js';

/** One function as the CPU profile names it. `url` is "path:line:col" (1-based), or a VM bucket name. */
export interface AttributedFunction {
  name: string;
  url: string;
}

/** What one attribution repeat keeps (run file: `repeats[].report.attribution`). Every list is capped and ranked by ms. */
export interface RepeatAttribution {
  /** Self ms of each page function over the measured window (idle, (program) and the harness probe left out). */
  functions: (AttributedFunction & { selfMs: number })[];
  /** Forced (synchronous) layouts and style recalculations, charged to the script function on top of the stack when they ran. */
  forced: (AttributedFunction & { kind: 'layout' | 'style'; ms: number; count: number })[];
  /** Long tasks (> 50 ms on the main thread), charged to the function with the most self time in each. */
  longTasks: (AttributedFunction & { ms: number; count: number })[];
  /** Folded stacks: frames root → leaf, each "name url", with their self ms; the heaviest kept. */
  stacks: { frames: string[]; selfMs: number }[];
}

export type AttributionKind = 'function' | 'forcedLayout' | 'forcedStyle' | 'longTask' | 'step';

/** One line of a row's attribution: a place whose time per repeat changed. */
export interface AttributionLine {
  kind: AttributionKind;
  /** A function's name, or a step's label. */
  name: string;
  /** "path:line:col" of the function; null for a step. */
  url: string | null;
  /** Median ms per repeat in the baseline (a) and the candidate (b). */
  a: number;
  b: number;
  /** Hodges–Lehmann shift b − a, ms per repeat. */
  deltaMs: number;
  /**
   * Its interval (same level as the row's), ms; null when either side has fewer than 2 repeats, or when
   * the repeats are too few to reach that level at all (2 + 2 repeats: 67% at most).
   */
  ci: { lowMs: number; highMs: number } | null;
  /** deltaMs as a share of the row's own shift when the row is in ms (0..1, may exceed 1); null otherwise. */
  share: number | null;
}

/** Where the change behind one compare row is (compare JSON: `rows[].attribution`). */
export interface RowAttribution {
  /** Ranked by |deltaMs| in the row's direction; at most MAX_ATTRIBUTION_LINES. */
  lines: AttributionLine[];
  /** Attribution repeats read from each run. */
  repeats: { a: number; b: number };
  /** Set when nothing could be named, and why (e.g. "the webdriver driver records no CPU profile"). */
  missing?: string;
}

/** The folded stacks of each run's median attribution repeat (compare JSON: `attribution.flame`). */
export interface ComparisonFlame {
  a: { repeat: number; stacks: RepeatAttribution['stacks'] } | null;
  b: { repeat: number; stacks: RepeatAttribution['stacks'] } | null;
}

// ─── one repeat ─────────────────────────────────────────────────────────────────────────────────────

// Caps of a repeat's record: a run file of 200 repeats stays a few MB. 40 functions cover every one
// above 1% of a busy window; 20 forcing functions and long-task owners are more than a page has.
export const MAX_FUNCTIONS = 40;
export const MAX_FORCED = 20;
export const MAX_LONG_TASKS = 20;
// 200 stacks: the heaviest hold nearly all self time of a page's window (the tail is single samples).
export const MAX_STACKS = 200;
// 64 frames per stack: deeper stacks are recursion; their root end is cut (the leaf is what costs).
export const MAX_STACK_DEPTH = 64;
// 2 ms either side of a forced layout: 20 sampling intervals (SAMPLING_INTERVAL_US, 100 µs), so a sample
// is found next to a layout even on a loaded machine where the sampler runs late; a nearer one wins.
const NEAREST_SAMPLE_SLACK_MS = 2;

/** Long tasks with no page function sampled inside them (rendering, parsing, GC): charged to this bucket. */
export const NO_SCRIPT = '(no script)';

/**
 * The attribution record of one attribution-mode repeat: its CPU profile read over the measured window,
 * forced layouts and style recalcs charged to the function on top of the stack when they ran, long
 * tasks to the function with the most self time in each, and folded stacks. Undefined without a profile.
 */
export function repeatAttribution(raw: RawSession): RepeatAttribution | undefined {
  if (!raw.profile) return undefined;
  const offsetMs = clockOffsetMs(raw);
  const window = { startAt: raw.startedAt, endAt: raw.endedAt };
  // No trace clock: the profile's own window (it was started and stopped inside the session), as report.ts does.
  const p =
    offsetMs !== undefined
      ? readProfile(raw.profile, offsetMs, window)
      : readProfile(raw.profile, 0, { startAt: -Infinity, endAt: Infinity });
  const layouts = raw.trace && offsetMs !== undefined ? layoutsFromTrace(raw.trace, window, offsetMs) : undefined;
  const tasks = raw.trace && offsetMs !== undefined ? longTasksFromTrace(raw.trace, window, offsetMs) : [];
  const functions = p.functions
    .map((f, i) => ({ f, ms: p.selfMs[i] ?? 0 }))
    .filter((x) => isPageWork(x.f) && x.ms > 0)
    .sort((x, y) => y.ms - x.ms)
    .slice(0, MAX_FUNCTIONS)
    .map((x) => ({ ...place(x.f), selfMs: round(x.ms) }));
  const forced = [
    ...chargeSpans(p, layouts?.forcedSpans ?? [], 'nearest').map((x) => ({ ...x, kind: 'layout' as const })),
    ...chargeSpans(p, layouts?.forcedStyleSpans ?? [], 'nearest').map((x) => ({ ...x, kind: 'style' as const })),
  ]
    .sort((x, y) => y.ms - x.ms)
    .slice(0, MAX_FORCED)
    .map(({ kind, name, url, ms, count }) => ({ name, url, kind, ms, count }));
  const longTasks = chargeSpans(p, tasks, 'heaviest').slice(0, MAX_LONG_TASKS);
  return { functions, forced, longTasks, stacks: foldedStacks(raw.profile, p) };
}

function place(f: ProfileFunction): AttributedFunction {
  return { name: f.name, url: locationOf(f, true) };
}

type Charged = AttributedFunction & { ms: number; count: number };

/**
 * Charge each span to a page function, summed by function: `nearest`, the one on top of the stack at
 * the sample nearest the span (a forced layout: the script that read geometry); `heaviest`, the one with
 * the most self time inside it (a long task). Sorted by ms.
 */
function chargeSpans(p: ProfileData, spans: readonly LayoutSpan[], how: 'nearest' | 'heaviest'): Charged[] {
  const samples = p.samples.filter((s) => {
    const f = p.functions[s.fn];
    return f !== undefined && isPageWork(f) && !f.meta;
  });
  const byKey = new Map<string, Charged>();
  for (const sp of spans) {
    const fn = how === 'nearest' ? nearestSample(samples, sp) : heaviestIn(samples, sp);
    // A forced layout with no script sample near it cannot be charged: left out rather than guessed.
    if (fn === undefined && how === 'nearest') continue;
    const who = fn === undefined ? { name: NO_SCRIPT, url: NO_SCRIPT } : place(p.functions[fn]!);
    const key = `${who.name}\u0000${who.url}`;
    const cur = byKey.get(key) ?? { ...who, ms: 0, count: 0 };
    cur.ms += sp.ms;
    cur.count++;
    byKey.set(key, cur);
  }
  return [...byKey.values()].map((x) => ({ ...x, ms: round(x.ms) })).sort((x, y) => y.ms - x.ms || x.name.localeCompare(y.name));
}

/** Index of the first sample at or after `at` (samples in time order). */
function firstAtOrAfter(samples: readonly { at: number }[], at: number): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid]!.at < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function nearestSample(samples: readonly { at: number; fn: number }[], sp: LayoutSpan): number | undefined {
  const from = firstAtOrAfter(samples, sp.at - NEAREST_SAMPLE_SLACK_MS);
  let best: { fn: number; d: number } | undefined;
  for (let i = from; i < samples.length && samples[i]!.at <= sp.at + sp.ms + NEAREST_SAMPLE_SLACK_MS; i++) {
    const s = samples[i]!;
    const d = s.at < sp.at ? sp.at - s.at : s.at > sp.at + sp.ms ? s.at - sp.at - sp.ms : 0;
    if (!best || d < best.d) best = { fn: s.fn, d };
  }
  return best?.fn;
}

function heaviestIn(samples: readonly { at: number; fn: number; ms: number }[], sp: LayoutSpan): number | undefined {
  const ms = new Map<number, number>();
  for (let i = firstAtOrAfter(samples, sp.at); i < samples.length && samples[i]!.at <= sp.at + sp.ms; i++) {
    const s = samples[i]!;
    ms.set(s.fn, (ms.get(s.fn) ?? 0) + s.ms);
  }
  let best: [number, number] | undefined;
  for (const e of ms) if (!best || e[1] > best[1]) best = e;
  return best?.[0];
}

/**
 * Folded stacks (Brendan Gregg's flame graph input: frames root → leaf, self time per distinct stack)
 * of the page's samples. Native frames are dropped, as readProfile charges them to their caller.
 */
function foldedStacks(profile: CpuProfile, p: ProfileData): RepeatAttribution['stacks'] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string>();
  const framesOf = (id: number): string => {
    const hit = memo.get(id);
    if (hit !== undefined) return hit;
    const chain: string[] = [];
    for (let cur: number | undefined = id; cur !== undefined && chain.length < MAX_STACK_DEPTH; cur = parent.get(cur)) {
      const cf = byId.get(cur)?.callFrame;
      if (!cf || cf.functionName === '(root)') break;
      if (!cf.url && cf.scriptId === '0' && !cf.functionName.startsWith('(')) continue;
      const meta = !cf.url && cf.scriptId === '0';
      const f = { name: cf.functionName || '(anonymous)', url: cf.url, line: cf.lineNumber + 1, column: cf.columnNumber + 1, meta };
      chain.push(`${f.name} ${locationOf(f, true)}`);
    }
    const key = chain.reverse().join('\n');
    memo.set(id, key);
    return key;
  };
  const ms = new Map<string, number>();
  for (const s of p.samples) {
    const f = p.functions[s.fn];
    if (!f || !isPageWork(f)) continue;
    const key = framesOf(s.node);
    if (key) ms.set(key, (ms.get(key) ?? 0) + s.ms);
  }
  return [...ms.entries()]
    .sort((x, y) => y[1] - x[1])
    .slice(0, MAX_STACKS)
    .map(([key, v]) => ({ frames: key.split('\n'), selfMs: round(v) }));
}

/** Summed self ms of a repeat's record: what picks the median repeat of a run. */
export function attributedMs(r: RepeatAttribution): number {
  return r.functions.reduce((t, f) => t + f.selfMs, 0);
}

// ─── a compare row ──────────────────────────────────────────────────────────────────────────────────

// 8 lines per row: a reader acts on the first few; the HTML report shows them all, the CLI 3.
export const MAX_ATTRIBUTION_LINES = 8;

/** One run's side of the diff: the attribution records of its measured attribution repeats, or why there are none. */
export interface AttributionSide {
  records: { repeat: number; attribution: RepeatAttribution }[];
  /** Why nothing could be named from this run (its driver records no profile, no attribution repeat…). */
  missing?: string;
}

/**
 * Every place in either run's records (functions, forced layouts and styles, long tasks), with its
 * per-repeat ms in a and b (0 in a repeat that did not list it) and the Hodges–Lehmann shift b − a with
 * its interval at `level` (stats.ts hodgesLehmann: Hodges & Lehmann 1963, the estimator compare.ts uses
 * for every row). Share left null: it depends on the row.
 */
export function diffPlaces(a: readonly RepeatAttribution[], b: readonly RepeatAttribution[], level: number): AttributionLine[] {
  if (a.length === 0 || b.length === 0) return [];
  type Kind = Exclude<AttributionKind, 'step'>;
  const series = new Map<string, { kind: Kind; name: string; url: string; a: number[]; b: number[] }>();
  const add = (side: 'a' | 'b', i: number, kind: Kind, x: AttributedFunction, ms: number): void => {
    const key = `${kind}\u0000${x.name}\u0000${x.url}`;
    let s = series.get(key);
    const zeros = (n: number): number[] => new Array<number>(n).fill(0);
    if (!s) series.set(key, (s = { kind, name: x.name, url: x.url, a: zeros(a.length), b: zeros(b.length) }));
    s[side][i]! += ms;
  };
  for (const [side, recs] of [
    ['a', a],
    ['b', b],
  ] as const) {
    recs.forEach((r, i) => {
      for (const f of r.functions) add(side, i, 'function', f, f.selfMs);
      for (const f of r.forced) add(side, i, f.kind === 'layout' ? 'forcedLayout' : 'forcedStyle', f, f.ms);
      for (const f of r.longTasks) add(side, i, 'longTask', f, f.ms);
    });
  }
  return [...series.values()].flatMap((s) => line(s.kind, s.name, s.url, s.a, s.b, level));
}

/** Step lines: `steps.<label>.ms` per repeat in each run (the repeats the row was judged on). */
export function diffSteps(a: Readonly<Record<string, number[]>>, b: Readonly<Record<string, number[]>>, level: number): AttributionLine[] {
  const out: AttributionLine[] = [];
  for (const label of Object.keys(a).sort()) {
    const xs = a[label]!;
    const ys = b[label];
    if (!ys || xs.length === 0 || ys.length === 0) continue;
    out.push(...line('step', label, null, xs, ys, level));
  }
  return out;
}

// Achieved levels are computed in floating point: 3 + 3 repeats reach exactly the 0.90 a row asks for.
const LEVEL_SLACK = 1e-9;

/** The line of one place, or none when its numbers overflow (values near the float limit in a hand-made file). */
function line(kind: AttributionKind, name: string, url: string | null, a: number[], b: number[], level: number): AttributionLine[] {
  const hl = hodgesLehmann(a, b, level);
  // Rounded first: round() scales by 100, which overflows past 1.8e306.
  const [medA, medB, shift, low, high] = [median(a), median(b), hl.shift, hl.low, hl.high].map((x) => round(x));
  if (![medA, medB, shift].every(Number.isFinite)) return [];
  // An interval below the asked level (too few repeats: stats.ts returns [min, max]) would read as significant.
  const reached = a.length >= 2 && b.length >= 2 && hl.level >= level - LEVEL_SLACK && Number.isFinite(low) && Number.isFinite(high);
  const ci = reached ? { lowMs: low!, highMs: high! } : null;
  return [{ kind, name, url, a: medA!, b: medB!, deltaMs: shift!, ci, share: null }];
}

/** What a compare row is, as far as attribution needs it. */
export interface AttributedRow {
  metric: string;
  /** The row's Hodges–Lehmann shift b − a in its own unit. */
  shift: number | null;
}

/**
 * The kind of place that explains a metric before any other: a layout count is explained by what
 * forced layouts, style recalcs by what forced style, long frames by long tasks. Keyed by declaration
 * (metrics.ts), not by name.
 */
const EXPLAINED_FIRST_BY = new Map<M.MetricDefinition, AttributionKind>([
  [M.layouts, 'forcedLayout'],
  [M.layoutMs, 'forcedLayout'],
  [M.styleRecalcs, 'forcedStyle'],
  [M.styleMs, 'forcedStyle'],
  [M.longFramesBlockingMs, 'longTask'],
  [M.longFramesCount, 'longTask'],
]);

/**
 * A row's attribution: the places and steps whose time per repeat moved in the row's worse direction,
 * ranked: lines whose interval excludes 0 first; among them, places before steps (a step's window holds
 * the functions run in it: it says where, a function says what) and the kind that explains the metric
 * first (forced layouts for a layout count); then by Δms. Share of the row's shift when it is in ms.
 */
export function rowAttribution(
  row: AttributedRow,
  places: readonly AttributionLine[],
  steps: readonly AttributionLine[],
  sides: { a: AttributionSide; b: AttributionSide },
): RowAttribution {
  const r = M.resolveMetric(row.metric);
  const worse = r?.def.better === 'higher' ? -1 : 1;
  const inMs = r !== undefined && r.def.kind === 'ms' && !r.perFrame && row.shift !== null && Number.isFinite(row.shift) && row.shift !== 0;
  const first = r ? EXPLAINED_FIRST_BY.get(r.def) : undefined;
  const significant = (l: AttributionLine): boolean => l.ci !== null && (worse > 0 ? l.ci.lowMs > 0 : l.ci.highMs < 0);
  const kindRank = (l: AttributionLine): number => (l.kind === 'step' ? 2 : l.kind === first || !first ? 0 : 1);
  const rank = (l: AttributionLine): number => (significant(l) ? 0 : 4) + kindRank(l);
  const missing = [sides.a.missing, sides.b.missing].filter((m): m is string => m !== undefined);
  const lines = [...(missing.length ? [] : places), ...steps]
    .filter((l) => worse * l.deltaMs > 0)
    .sort((x, y) => rank(x) - rank(y) || worse * (y.deltaMs - x.deltaMs) || x.name.localeCompare(y.name))
    .slice(0, MAX_ATTRIBUTION_LINES)
    .map((l) => ({ ...l, share: inMs && Number.isFinite(round(l.deltaMs / row.shift!, 3)) ? round(l.deltaMs / row.shift!, 3) : null }));
  return {
    lines,
    repeats: { a: sides.a.records.length, b: sides.b.records.length },
    ...(missing.length ? { missing: [...new Set(missing)].join('; ') } : {}),
  };
}

/** The folded stacks of each run's median attribution repeat (by summed self ms). */
export function comparisonFlame(a: AttributionSide, b: AttributionSide): ComparisonFlame {
  return { a: medianStacks(a), b: medianStacks(b) };
}

function medianStacks(side: AttributionSide): ComparisonFlame['a'] {
  if (side.records.length === 0) return null;
  const sorted = [...side.records].sort((x, y) => attributedMs(x.attribution) - attributedMs(y.attribution));
  const pick = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return { repeat: pick.repeat, stacks: pick.attribution.stacks };
}
