/**
 * The noise rule (metrics.ts PRIMARY_BY_NOISE) applied: which candidate metrics of one comparison are
 * primary, from the baseline's own repeats. Pure: numbers in, roles and reasons out; compare/primaries.ts
 * decides which metrics are candidates and from which repeats, and records the choice in a sequential
 * design so later looks reuse it.
 *
 * Noise: a robust coefficient of variation, 1.4826 · MAD / max(|median|, floor). 1.4826 = 1/Φ⁻¹(3/4)
 * makes the median absolute deviation a consistent estimate of σ at the normal (Hampel 1974, JASA
 * 69:383–393; Rousseeuw & Croux 1993, "Alternatives to the median absolute deviation", JASA 88:1273–1283);
 * the median and MAD ignore the one slow repeat in five that a busy machine produces, which a standard
 * deviation would turn into noise. The floor is the scale compare.ts takes relative changes against.
 *
 * Size: the repeats per arm the one-sided rank test needs to tell a warn-size change with 80% power at
 * the compare's α (compare.ts repeatsToDetect: Noether 1987 over Mann–Whitney's efficiency 3/π), against
 * the design's reach (maxRepeat per arm; the harmonic mean of the two arms' reach when only the
 * candidate grows, since the shift's variance goes as 1/n_a + 1/n_b).
 */
import { MAX_NEED_REPEATS, repeatsToDetect } from './compare.js';
import { MAX_PRIMARY, PRIMARY_BY_NOISE } from './metrics.js';
import { mad, MAD_NORMAL_CONSISTENCY, median } from './stats.js';

export interface NoiseCandidate {
  /** The metric, in the form that is judged (e.g. its `.perFrame` form). */
  metric: string;
  /** The baseline's repeats of the form that is judged (timing-mode ones for ms when both runs have them). */
  baseline: readonly number[];
  /** metrics.ts floor of the judged form. */
  floor: number;
  /** The metric's warn threshold, %. */
  warnPct: number;
  /** In the registry's default family (may be demoted), or promotable (may be promoted). */
  kind: 'default' | 'promotable';
  /** Most repeats per arm the comparison can reach. */
  reach: { a: number; b: number };
  /** The rounds of an interleaved run, aligned (compare/pairs.ts): the noise is then that of their differences. */
  pairs?: { a: readonly number[]; b: readonly number[] };
}

/** What the rule made of one candidate. */
export interface NoiseChoice {
  metric: string;
  primary: boolean;
  /** Demoted from the default family, promoted into it, or left as the registry says. */
  change: 'demoted' | 'promoted' | 'none';
  /** Robust CV, % (null: too few baseline repeats to say). */
  cvPct: number | null;
  /** Repeats per arm a warn-size change needs at this noise (null: more than MAX_NEED_REPEATS, or unknown). */
  needRepeats: number | null;
  /** One line for the row's note and the gate block. */
  why: string;
}

/** Robust CV in % of max(|median|, floor): the noise rule's measure of a baseline's spread. */
export function robustCvPct(xs: readonly number[], floor: number): number {
  const med = median(xs);
  const scale = Math.max(Math.abs(med), floor) || 1;
  return (100 * mad(xs, MAD_NORMAL_CONSISTENCY)) / scale;
}

/**
 * The paired design's noise on the same scale: the differences' robust spread over √2 (the per-arm σ that gives the
 * differences' variance 2σ²), so repeatsToDetect sizes a paired test with the two-sample formula.
 */
export function pairedCvPct(pairs: NonNullable<NoiseCandidate['pairs']>, floor: number): number {
  const d = pairs.b.map((v, i) => v - pairs.a[i]!);
  const scale = Math.max(Math.abs(median(pairs.a)), floor) || 1;
  return (100 * mad(d, MAD_NORMAL_CONSISTENCY)) / Math.SQRT2 / scale;
}

/** Per-arm repeats of a design reaching na and nb: 2 / (1/na + 1/nb), equal arms of the same information. */
function effectiveReach(r: NoiseCandidate['reach']): number {
  return r.a > 0 && r.b > 0 ? 2 / (1 / r.a + 1 / r.b) : 0;
}

const pct = (v: number): string => `${v >= 10 ? v.toFixed(0) : Number(v.toPrecision(2))}%`;

/** "needs ~300 repeats per arm" / "more than 1000". */
function needWords(need: number | null): string {
  return need === null ? `needs more than ${MAX_NEED_REPEATS} repeats per arm` : `needs ~${need} repeat${need === 1 ? '' : 's'} per arm`;
}

/**
 * The fewest repeats per arm at which the one-sided rank test can reach `alpha` at all: complete
 * separation of n vs n has p = 1/C(2n, n) (Mann & Whitney 1947, Ann. Math. Statist. 18:50–60); 3 at 5%.
 */
function fewestRankRepeats(alpha: number): number {
  let n = 1;
  let ways = 2; // C(2, 1)
  while (1 / ways > alpha) {
    n++;
    ways = (ways * (2 * n) * (2 * n - 1)) / (n * n);
  }
  return n;
}

/** Judge one candidate on its own; the cap on the family is applied after. */
function judgeOne(c: NoiseCandidate, alpha: number): NoiseChoice {
  const isDefault = c.kind === 'default';
  if (c.baseline.length < PRIMARY_BY_NOISE.minBaselineRepeats) {
    return {
      metric: c.metric,
      primary: isDefault,
      change: 'none',
      cvPct: null,
      needRepeats: null,
      why: `fewer than ${PRIMARY_BY_NOISE.minBaselineRepeats} baseline repeats (${c.baseline.length}): the registry's default stands`,
    };
  }
  if (!(c.warnPct > 0)) {
    const why = `warn threshold ${c.warnPct}%: no change size to test the noise against; the registry's default stands`;
    return { metric: c.metric, primary: isDefault, change: 'none', cvPct: null, needRepeats: null, why };
  }
  const cvPct = c.pairs ? pairedCvPct(c.pairs, c.floor) : robustCvPct(c.baseline, c.floor);
  // The normal-theory size can be 1 for a quiet metric (or 0 without spread), but no rank test decides there.
  const raw = Math.max(fewestRankRepeats(alpha), cvPct === 0 ? 0 : Math.ceil(repeatsToDetect(cvPct, c.warnPct, alpha)));
  const needRepeats = raw > MAX_NEED_REPEATS ? null : raw;
  const reach = effectiveReach(c.reach);
  const reachWords = Math.round(reach);
  const noise = `CV ${pct(cvPct)} (${needWords(needRepeats)}`;
  const choice = (primary: boolean, change: NoiseChoice['change'], why: string): NoiseChoice => ({
    metric: c.metric,
    primary,
    change,
    cvPct,
    needRepeats,
    why,
  });
  const size = `±${c.warnPct}%`;
  if (isDefault) {
    const within = `${noise}, at most ${reachWords} here)`;
    if (needRepeats !== null && needRepeats <= reach) return choice(true, 'none', `can judge ${size}: ${within}`);
    return choice(
      false,
      'demoted',
      `too noisy here to judge ${size}: ${within}; set aside: decides at a quarter weight, holds the gate while past warn`,
    );
  }
  if (needRepeats !== null && needRepeats <= reach * PRIMARY_BY_NOISE.promoteShare) {
    return choice(true, 'promoted', `quiet here: judges ±${c.warnPct}% at ${noise}, within half of ${reachWords}); primary`);
  }
  return choice(false, 'none', `not quiet enough to decide here: ${noise}, more than half of ${reachWords})`);
}

/**
 * The rule over one comparison's candidates. At most `maxPrimary` primaries: defaults that stay are
 * kept first (they are the registry's family), promotions fill the free places, quietest first.
 */
export function chooseByNoise(candidates: readonly NoiseCandidate[], alpha: number, maxPrimary = MAX_PRIMARY): NoiseChoice[] {
  const out = candidates.map((c) => judgeOne(c, alpha));
  let room = maxPrimary - out.filter((x) => x.primary && x.change !== 'promoted').length;
  const need = (x: NoiseChoice): number => x.needRepeats ?? Infinity;
  const promoted = out.filter((x) => x.change === 'promoted').sort((p, q) => need(p) - need(q) || (p.metric < q.metric ? -1 : 1));
  for (const x of promoted) {
    if (room > 0) {
      room--;
      continue;
    }
    x.primary = false;
    x.change = 'none';
    x.why = `${x.why.replace(/; primary$/, '')}; not promoted: the family already has ${maxPrimary} primaries`;
  }
  return out;
}
