/**
 * Budgets that name an insight (issue 59): `insights.RenderBlocking.count == 0`, `insights.RenderBlocking.savingsMs < 300`,
 * `insights.ImageDelivery.savingsBytes <= 100KB`. The id is one of perf_insight's vocabulary: our rules (INSIGHTS) and
 * DevTools' insights under their names (DEVTOOLS_INSIGHTS). The values are read off the repeats' reports, not off the
 * summary's metrics: an insight is a finding of one repeat, not a number every repeat has.
 */
import { closest, PerfError } from '../errors.js';
import { DEVTOOLS_INSIGHTS, SOURCE_INSIGHTS } from './devtools-insights.js';
import { INSIGHTS } from './insights.js';
import { median } from './stats.js';
import type { MetricKind } from './metrics.js';
import type { RepeatRecord } from './run-file.js';

export const INSIGHT_BUDGET_PREFIX = 'insights.';

/** What a budget may read of an insight, and the kind of number each is (which units its limit may carry). */
export const INSIGHT_BUDGET_FIELDS = {
  /** In how many of the analysed repeats it fired. */
  count: 'count',
  /** Its estimated savings in ms (estimatedSavingsMs), median over the analysed repeats. */
  savingsMs: 'ms',
  /** Its estimated savings in bytes over the wire (estimatedSavingsBytes), median over the analysed repeats. */
  savingsBytes: 'bytes',
} as const satisfies Record<string, MetricKind>;

export type InsightBudgetField = keyof typeof INSIGHT_BUDGET_FIELDS;
const FIELD_NAMES = Object.keys(INSIGHT_BUDGET_FIELDS) as InsightBudgetField[];

/** Our rules' ids (frames, layouts, sources): computed on every analysed repeat, a load or a window of steps. */
export function rehearseInsightIds(): string[] {
  return INSIGHTS.map((r) => r.id);
}

/** Every insight id a budget may name: ours, then DevTools'. */
export function insightIds(): string[] {
  return [...rehearseInsightIds(), ...DEVTOOLS_INSIGHTS];
}

const DEVTOOLS_IDS: ReadonlySet<string> = new Set(DEVTOOLS_INSIGHTS);

/** A DevTools insight: computed only where the engine ran (a measured load's attribution repeats, Chromium). */
export function isDevtoolsInsight(id: string): boolean {
  return DEVTOOLS_IDS.has(id);
}

/** A DevTools insight that reads the scripts' sources: a run never records them, so a run never fires it. */
export function needsSources(id: string): boolean {
  return (SOURCE_INSIGHTS as ReadonlySet<string>).has(id);
}

export interface InsightKey {
  id: string;
  field: InsightBudgetField;
}

/** `insights.<id>.<field>` as written, unchecked; undefined for a name that is not of that form (a metric). */
function splitKey(name: string): { id: string; field: string } | undefined {
  if (!name.startsWith(INSIGHT_BUDGET_PREFIX)) return undefined;
  const rest = name.slice(INSIGHT_BUDGET_PREFIX.length);
  const dot = rest.lastIndexOf('.');
  return dot < 0 ? { id: rest, field: '' } : { id: rest.slice(0, dot), field: rest.slice(dot + 1) };
}

function isField(s: string): s is InsightBudgetField {
  return Object.hasOwn(INSIGHT_BUDGET_FIELDS, s);
}

/** A valid insight key, or undefined (a metric's name, or a malformed key: checkInsightKey says why). */
export function parseInsightKey(name: string): InsightKey | undefined {
  const k = splitKey(name);
  return k && isField(k.field) && insightIds().includes(k.id) ? { id: k.id, field: k.field } : undefined;
}

/** The kind of an insight key's number (count, ms, bytes), for the reporters; undefined for a metric's name. */
export function insightKeyKind(name: string): MetricKind | undefined {
  const k = parseInsightKey(name);
  return k ? INSIGHT_BUDGET_FIELDS[k.field] : undefined;
}

/**
 * Check a budget's name written by a user: undefined for a metric's name (no `insights.` prefix), the key when valid;
 * throws PerfError unknown_insight naming the closest ids or fields.
 */
export function checkInsightKey(name: string): InsightKey | undefined {
  const k = splitKey(name);
  if (!k) return undefined;
  const ids = insightIds();
  const fields = `insights.<id>.${FIELD_NAMES.join('|')}`;
  if (!ids.includes(k.id)) {
    const near = closest(k.id, ids);
    throw new PerfError({
      code: 'unknown_insight',
      message: `unknown insight "${k.id}" in "${name}"${near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(' or ')}?` : ''}`,
      suggestion: `write ${fields} with one of perf_insight's ids: ${ids.join(', ')}`,
      candidates: near.map((n) => `${INSIGHT_BUDGET_PREFIX}${n}.${isField(k.field) ? k.field : 'count'}`),
    });
  }
  if (!isField(k.field)) {
    const near = closest(k.field, FIELD_NAMES);
    throw new PerfError({
      code: 'unknown_insight',
      message:
        `"${name}": an insight budget reads ${FIELD_NAMES.join(', ')}, not "${k.field}"` +
        (near.length ? `; did you mean ${near.map((f) => `"${INSIGHT_BUDGET_PREFIX}${k.id}.${f}"`).join(' or ')}?` : ''),
      suggestion: `write ${fields}`,
      candidates: near.map((f) => `${INSIGHT_BUDGET_PREFIX}${k.id}.${f}`),
    });
  }
  return { id: k.id, field: k.field };
}

type Measured = Extract<RepeatRecord, { status: 'measured' }>;

/**
 * The repeats whose insights count: the measured attribution repeats (their profiles name functions, and only they
 * run DevTools' engine on a load), or the timing repeats when the run measured no attribution repeat. The run
 * file's `insights` are picked among the same.
 */
export function analysedRepeats(records: readonly RepeatRecord[]): Measured[] {
  const measured = records.filter((r): r is Measured => r.status === 'measured' && !r.warmup);
  const attribution = measured.filter((r) => r.mode === 'attribution');
  return attribution.length ? attribution : measured;
}

/** Did this repeat compute the insight at all: DevTools' ran (no error, not failed on this one); ours always do. */
function computed(r: Measured, id: string): boolean {
  if (!isDevtoolsInsight(id)) return true;
  const d = r.report.devtools;
  return d !== undefined && d.error === undefined && !(d.failed ?? []).includes(id);
}

interface FiredInsight {
  id: string;
  estimatedSavingsMs?: number;
  estimatedSavingsBytes?: number;
}

function firedIn(r: Measured, id: string): FiredInsight | undefined {
  return (r.report.insights ?? []).find((i): i is FiredInsight => typeof i === 'object' && i !== null && 'id' in i && i.id === id);
}

/**
 * An insight budget's value over the repeats that computed the insight (`of` of them; value null when none did, as
 * a metric no repeat measured: the budget then fails, so a DevTools budget on a run without a load cannot pass unseen).
 *
 * count is how many of them it fired in, not a median: a user writing `insights.RenderBlocking.count == 0` means
 * "this must never fire", and a median would pass a stylesheet that blocks rendering in 2 of 5 repeats. The savings
 * are medians, a repeat where it did not fire saving 0: what fixing it typically saves, judged like any other median.
 */
export function insightBudgetValue(records: readonly RepeatRecord[], key: InsightKey): { value: number | null; of: number } {
  const pool = analysedRepeats(records).filter((r) => computed(r, key.id));
  if (pool.length === 0) return { value: null, of: 0 };
  const fired = pool.map((r) => firedIn(r, key.id));
  if (key.field === 'count') return { value: fired.filter((f) => f !== undefined).length, of: pool.length };
  const field = key.field === 'savingsMs' ? 'estimatedSavingsMs' : 'estimatedSavingsBytes';
  return { value: median(fired.map((f) => (typeof f?.[field] === 'number' ? f[field] : 0))), of: pool.length };
}
