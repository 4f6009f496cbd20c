/**
 * The insights stage of a comparison (issue 59 item 3): which insights (ours and DevTools' trace engine's, one
 * vocabulary) appear, disappear, grow or shrink between two runs. Beside the attribution lines, it says what a
 * regression is made of in the words a reader of DevTools already knows ("RenderBlocking: new in the candidate,
 * est. savings 300 ms"). It explains; it never changes a verdict. Pure: repeat records in, changes out.
 *
 * An insight is judged per arm by the share of the arm's repeats it fired in, not by one repeat: a rule near its
 * threshold fires in some repeats and not others, and one repeat each would call that noise a change.
 */
import type { RepeatRecord } from '../run-file.js';
import { median } from '../stats.js';

export type InsightChangeKind = 'new' | 'gone' | 'grew' | 'shrank';

/** One arm's record of one insight. */
export interface InsightArm {
  /** Counted measured repeats the insight fired in. */
  fired: number;
  /** Counted measured repeats that ran the insights. */
  of: number;
  /** Median estimated savings over the repeats it fired in, ms; null when it gives none. */
  savingsMs: number | null;
}

export interface InsightChange {
  id: string;
  title: string;
  change: InsightChangeKind;
  /** What it points at (a URL, a function), the candidate's when both name one. */
  culprit?: string;
  a: InsightArm;
  b: InsightArm;
  /** One line for a reader: the id, what changed, in how many repeats, the savings. */
  line: string;
}

// Half the repeats: an insight that fires in most of an arm's repeats is that arm's; one that fires in a few is noise.
const FIRES_SHARE = 0.5;
// A quarter: "absent" leaves room for one stray repeat in four, so a rule at its threshold is neither new nor gone.
const ABSENT_SHARE = 0.25;
// 1 repeat per arm: a run's own insights come from one repeat (its median attribution repeat); each line says how
// many repeats stand behind it, so "1 of 1" reads as the thin evidence it is.
const MIN_REPEATS = 1;
// 50 ms and half the baseline's savings: a frame's worth of savings is within a load's spread on a busy host, and a
// smaller relative change in an estimate (itself a model of the trace) is no finding.
const GREW_MIN_MS = 50;
const GREW_MIN_SHARE = 0.5;
// 8 lines: the changes a reader can take in beside the metric rows; the rest stay in the compare file's count.
export const MAX_INSIGHT_CHANGES = 8;

interface Seen {
  title: string;
  culprit?: string;
  savings: number[];
  fired: number;
}

type Measured = Extract<RepeatRecord, { status: 'measured' }>;

const withInsights = (repeats: readonly RepeatRecord[]): Measured[] =>
  repeats.filter((r): r is Measured => r.status === 'measured' && !r.warmup && Array.isArray(r.report.insights));

/**
 * The repeats each arm is judged on: the attribution repeats when both arms have one (only they record what DevTools'
 * engine needs, and their profiles name functions: runner/records.ts insightsOf reads them too), else every measured
 * repeat. Mixing the two would count a DevTools insight as absent from every timing repeat.
 */
function pools(a: readonly RepeatRecord[], b: readonly RepeatRecord[]): [Measured[], Measured[]] {
  const [ma, mb] = [withInsights(a), withInsights(b)];
  const attribution = (m: Measured[]): Measured[] => m.filter((r) => r.mode === 'attribution');
  const [xa, xb] = [attribution(ma), attribution(mb)];
  return xa.length && xb.length ? [xa, xb] : [ma, mb];
}

/** The insights one arm's repeats hold, by id, and how many repeats ran them. */
function armInsights(repeats: readonly Measured[]): { of: number; byId: Map<string, Seen> } {
  const byId = new Map<string, Seen>();
  const of = repeats.length;
  for (const r of repeats) {
    if (!Array.isArray(r.report.insights)) continue;
    const ids = new Set<string>();
    for (const i of r.report.insights) {
      if (!isInsightLike(i) || ids.has(i.id)) continue;
      ids.add(i.id);
      const seen: Seen = byId.get(i.id) ?? { title: i.title, savings: [], fired: 0 };
      if (seen.culprit === undefined && typeof i.culprit === 'string' && i.culprit) seen.culprit = i.culprit;
      seen.fired++;
      if (typeof i.estimatedSavingsMs === 'number' && Number.isFinite(i.estimatedSavingsMs)) seen.savings.push(i.estimatedSavingsMs);
      byId.set(i.id, seen);
    }
  }
  return { of, byId };
}

function isInsightLike(v: unknown): v is { id: string; title: string; culprit?: unknown; estimatedSavingsMs?: unknown } {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.id === 'string' && typeof o.title === 'string';
}

function arm(seen: Seen | undefined, of: number): InsightArm {
  return { fired: seen?.fired ?? 0, of, savingsMs: seen?.savings.length ? median(seen.savings) : null };
}

/** What changed for one insight between the arms, or undefined when nothing did. */
function kindOf(a: InsightArm, b: InsightArm): InsightChangeKind | undefined {
  const share = (x: InsightArm): number => x.fired / x.of;
  if (share(a) <= ABSENT_SHARE && share(b) >= FIRES_SHARE) return 'new';
  if (share(a) >= FIRES_SHARE && share(b) <= ABSENT_SHARE) return 'gone';
  if (share(a) < FIRES_SHARE || share(b) < FIRES_SHARE || (a.savingsMs === null && b.savingsMs === null)) return undefined;
  // An insight that estimated no savings in one arm and N ms in the other changed by N ms: savings none → 700 ms grew.
  const [sa, sb] = [a.savingsMs ?? 0, b.savingsMs ?? 0];
  const delta = sb - sa;
  if (Math.abs(delta) < Math.max(GREW_MIN_MS, GREW_MIN_SHARE * sa)) return undefined;
  return delta > 0 ? 'grew' : 'shrank';
}

const ms = (v: number | null): string => (v === null ? 'none' : `${Math.round(v)} ms`);

function lineOf(id: string, title: string, change: InsightChangeKind, a: InsightArm, b: InsightArm): string {
  const saves = (x: InsightArm): string => (x.savingsMs === null ? '' : `, est. savings ${ms(x.savingsMs)}`);
  const what: Record<InsightChangeKind, string> = {
    new: `new in the candidate (${b.fired} of ${b.of} repeats${saves(b)})`,
    gone: `gone from the candidate (was in ${a.fired} of ${a.of} repeats${saves(a)})`,
    grew: `grew: est. savings ${ms(a.savingsMs)} → ${ms(b.savingsMs)}`,
    shrank: `shrank: est. savings ${ms(a.savingsMs)} → ${ms(b.savingsMs)}`,
  };
  return `${id} ${what[change]}: ${title}`;
}

// New and grown first (what the candidate costs), then what it fixed; larger savings first within each.
const ORDER: Record<InsightChangeKind, number> = { new: 0, grew: 1, gone: 2, shrank: 3 };

/** The insights that changed between a baseline's repeats and a candidate's, most telling first, at most `max`. */
export function insightChanges(a: readonly RepeatRecord[], b: readonly RepeatRecord[], max: number = MAX_INSIGHT_CHANGES): InsightChange[] {
  const [pa, pb] = pools(a, b);
  const [sa, sb] = [armInsights(pa), armInsights(pb)];
  if (sa.of < MIN_REPEATS || sb.of < MIN_REPEATS) return [];
  const out: InsightChange[] = [];
  for (const id of new Set([...sa.byId.keys(), ...sb.byId.keys()])) {
    const [x, y] = [arm(sa.byId.get(id), sa.of), arm(sb.byId.get(id), sb.of)];
    const change = kindOf(x, y);
    if (!change) continue;
    const seen = (sb.byId.get(id) ?? sa.byId.get(id))!;
    const culprit = sb.byId.get(id)?.culprit ?? sa.byId.get(id)?.culprit;
    out.push({ id, title: seen.title, change, ...(culprit ? { culprit } : {}), a: x, b: y, line: lineOf(id, seen.title, change, x, y) });
  }
  const size = (c: InsightChange): number => Math.max(c.a.savingsMs ?? 0, c.b.savingsMs ?? 0);
  return out.sort((p, q) => ORDER[p.change] - ORDER[q.change] || size(q) - size(p) || p.id.localeCompare(q.id)).slice(0, max);
}
