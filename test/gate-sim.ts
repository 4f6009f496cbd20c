/**
 * A simulated sequential gate for the property tests: repeats drawn from known distributions, fed to the
 * pure compareMetrics() look by look exactly as the runner's SequentialJudge does (first look at
 * `repeat` per arm, +2 per arm per look up to `maxRepeat`, rejections carried, stop when decided).
 */
import { compareMetrics, type CompareResult, type Direction, type MetricSamples } from '../src/perf/compare.js';
import { chooseByNoise, type NoiseChoice } from '../src/perf/primaries.js';
import assert from 'node:assert/strict';
import type { Better } from '../src/perf/metrics.js';

export { mulberry32 } from '../src/perf/prng.js';

/** Standard normal by Box–Muller. */
export function gaussian(rng: () => number): number {
  const u = Math.max(rng(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** A stream of standard normals from `rng`. */
export const normals =
  (rng: () => number): (() => number) =>
  () =>
    gaussian(rng);

export const close = (actual: number, expected: number, tol: number, what = ''): void =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what} expected ${expected} ± ${tol}, got ${actual}`);

/** Poisson by inversion (small means only). */
export function poisson(rng: () => number, mean: number): number {
  const l = Math.exp(-mean);
  let k = 0;
  let p = rng();
  while (p > l) {
    k++;
    p *= rng();
  }
  return k;
}

export interface SimMetric {
  name: string;
  role?: 'primary' | 'secondary';
  /** Under the noise rule: a secondary metric the rule may promote (metrics.ts `promote`). */
  promote?: boolean;
  better?: Better;
  floor?: number;
  exact?: boolean;
  /** Poisson events: values are counts, tested with their Poisson floor too. */
  events?: boolean;
  /** One repeat of the baseline (arm a) and of the candidate (arm b). */
  draw: (rng: () => number, arm: 'a' | 'b') => number;
}

export interface SimPlan {
  repeat: number;
  maxRepeat: number;
  /** Units per look after the first. */
  step?: number;
  alpha?: number;
  thresholds?: { warnPct: number; errorPct: number };
  /** Fixed compare at `repeat` (no looks). */
  fixed?: boolean;
  /**
   * Apply the noise rule (primaries.ts chooseByNoise) at the first look, on the baseline's repeats then,
   * with maxRepeat as the reach, as perf/compare/primaries.ts does; the roles stay fixed for every later look.
   */
  noiseRule?: boolean;
}

export interface SimOutcome {
  result: CompareResult;
  looks: number;
  n: number;
  /** What the noise rule chose at the first look, per candidate metric (noiseRule only). */
  choices?: NoiseChoice[];
}

/** Roles fixed at the first look by the noise rule, from arm a's repeats then. */
function noiseRoles(
  metrics: SimMetric[],
  data: { a: number[] }[],
  plan: SimPlan,
): { roles: ('primary' | 'secondary')[]; setAside: (string | undefined)[]; choices: NoiseChoice[] } {
  const roles = metrics.map((m) => m.role ?? (m.promote ? 'secondary' : 'primary'));
  const idx = metrics.flatMap((m, i) => ((m.role ?? 'primary') === 'primary' || m.promote ? [i] : []));
  const warnPct = plan.thresholds?.warnPct ?? 10;
  const choices = chooseByNoise(
    idx.map((i) => ({
      metric: metrics[i]!.name,
      baseline: [...data[i]!.a],
      floor: metrics[i]!.floor ?? 0,
      warnPct,
      kind: metrics[i]!.promote ? 'promotable' : 'default',
      reach: { a: plan.maxRepeat, b: plan.maxRepeat },
    })),
    plan.alpha ?? 0.05,
  );
  // As perf/compare/primaries.ts: a demoted default stays primary, set aside (its own family at a quarter of α).
  const setAside = metrics.map((): string | undefined => undefined);
  idx.forEach((i, k) => {
    const c = choices[k]!;
    roles[i] = c.primary || c.change === 'demoted' ? 'primary' : 'secondary';
    if (c.change === 'demoted') setAside[i] = c.why;
  });
  return { roles, setAside, choices };
}

/** Normal noise around `mean` with coefficient of variation `cv`, scaled by `factor` in arm b. */
export function normalMetric(name: string, mean: number, cv: number, factor = 1, extra: Partial<SimMetric> = {}): SimMetric {
  return { name, floor: 0, ...extra, draw: (rng, arm) => mean * (arm === 'b' ? factor : 1) * (1 + cv * gaussian(rng)) };
}

export function simulate(metrics: SimMetric[], plan: SimPlan, rng: () => number): SimOutcome {
  const step = plan.step ?? 2;
  const data = metrics.map(() => ({ a: [] as number[], b: [] as number[] }));
  const grow = (units: number): void => {
    for (let i = 0; i < metrics.length; i++) {
      for (let k = 0; k < units; k++) {
        data[i]!.a.push(metrics[i]!.draw(rng, 'a'));
        data[i]!.b.push(metrics[i]!.draw(rng, 'b'));
      }
    }
  };
  grow(plan.repeat);
  const chosen = plan.noiseRule ? noiseRoles(metrics, data, plan) : undefined;
  const roleOf = (i: number): 'primary' | 'secondary' => chosen?.roles[i] ?? metrics[i]!.role ?? 'primary';
  const looks: { a: number; b: number }[] = [];
  let rejected: Record<string, Direction> = {};
  let n = plan.repeat;
  for (;;) {
    const samples: MetricSamples[] = metrics.map((m, i) => ({
      metric: m.name,
      a: [...data[i]!.a],
      b: [...data[i]!.b],
      role: roleOf(i),
      ...(chosen?.setAside[i] !== undefined ? { setAside: chosen.setAside[i] } : {}),
      better: m.better ?? 'lower',
      floor: m.floor ?? 0,
      ...(m.exact ? { exact: true } : {}),
      ...(m.events
        ? { events: { a: data[i]!.a, b: data[i]!.b, exposureA: data[i]!.a.map(() => 1), exposureB: data[i]!.b.map(() => 1) } }
        : {}),
      ...(plan.fixed ? {} : { looks: looks.map((l) => ({ ...l })), maxN: { a: plan.maxRepeat, b: plan.maxRepeat } }),
    }));
    const result = compareMetrics(samples, {
      thresholds: plan.thresholds ?? { warnPct: 10, errorPct: 25 },
      alpha: plan.alpha ?? 0.05,
      rejected,
    });
    rejected = result.rejected;
    if (plan.fixed || result.decided || n >= plan.maxRepeat)
      return { result, looks: looks.length + 1, n, ...(chosen ? { choices: chosen.choices } : {}) };
    looks.push({ a: n, b: n });
    const add = Math.min(step, plan.maxRepeat - n);
    grow(add);
    n += add;
  }
}
