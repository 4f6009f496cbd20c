/**
 * The pairing stage of a comparison: which baseline and candidate repeats ran side by side in one A B | B A
 * round of an interleaved run, so that their difference cancels the machine's state of that moment
 * (perf/paired.ts tests the differences). Pure: positions and values in, aligned pairs out.
 */

/** One repeat's value of a metric and its position in the interleaved order (RepeatRecord.sequence). */
export interface Sequenced {
  sequence: number | undefined;
  value: number;
}

/**
 * A round runs one unit of each arm, A first or B first; a unit is a timing repeat, followed by a profiled one every
 * other unit (runner/records.ts repeatSlots), so the two timing repeats of one round are at most 3 positions apart
 * (A:T A:P B:T B:P → 2; with the next round's first unit in between, 3). Farther apart, two repeats are not of one round.
 */
export const MAX_PAIR_GAP = 3;

/**
 * Below this share of the smaller arm paired (repeats lost to failures or a busy host, or arms of unequal length)
 * the pairs no longer stand for the runs: the comparison stays unpaired. Four in five keeps one lost repeat in five.
 */
const MIN_PAIRED_SHARE = 0.8;

/** Fewer pairs than this and the signed-rank test cannot reach 5% even with every difference of one sign (2⁻⁴ > 0.05). */
export const MIN_PAIRS = 5;

/**
 * Pairs of one round, in order: each baseline repeat takes the nearest candidate repeat not yet taken within
 * MAX_PAIR_GAP positions. Undefined when the runs were not interleaved (no positions) or too few repeats pair.
 */
export function pairBySequence(a: readonly Sequenced[], b: readonly Sequenced[]): { a: number[]; b: number[] } | undefined {
  if (!a.length || !b.length || a.some((x) => x.sequence === undefined) || b.some((x) => x.sequence === undefined)) return undefined;
  const bs = [...b].sort((p, q) => p.sequence! - q.sequence!);
  const taken = new Set<number>();
  const out = { a: [] as number[], b: [] as number[] };
  for (const x of [...a].sort((p, q) => p.sequence! - q.sequence!)) {
    let best = -1;
    for (let j = 0; j < bs.length; j++) {
      const gap = Math.abs(bs[j]!.sequence! - x.sequence!);
      if (taken.has(j) || gap > MAX_PAIR_GAP) continue;
      if (best < 0 || gap < Math.abs(bs[best]!.sequence! - x.sequence!)) best = j;
    }
    if (best < 0) continue;
    taken.add(best);
    out.a.push(x.value);
    out.b.push(bs[best]!.value);
  }
  const enough = out.a.length >= MIN_PAIRS && out.a.length >= MIN_PAIRED_SHARE * Math.min(a.length, b.length);
  return enough ? out : undefined;
}
