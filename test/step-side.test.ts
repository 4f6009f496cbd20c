/**
 * perf bisect's side test (src/perf/step-side.ts): fixed cases, then simulated midpoints as the bisect samples them
 * (5 repeats per arm, then 2 more per look, up to 20), judged from the compare's Hodges–Lehmann estimate and interval.
 * Counts only: how often a commit is put on the wrong side, how many repeats it took, against the interval rule the
 * side test replaced (the interval clear of D/2). Seeded: the same numbers on every run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stepSide } from '../src/perf/step-side.js';
import { hodgesLehmann, median } from '../src/perf/stats.js';
import { gaussian, mulberry32 } from './gate-sim.js';

const ALPHA = 0.05;

test('a shift at the step is bad, at zero good, halfway undecided; the bound is ln((1 − α)/α)', () => {
  const at = (shiftPct: number): string => stepSide({ shiftPct, lowPct: shiftPct - 8, highPct: shiftPct + 8, level: 0.9 }, 20, ALPHA).side;
  assert.equal(at(20), 'bad');
  assert.equal(at(0), 'good');
  assert.equal(at(10), 'undecided');
  assert.equal(at(30), 'bad');
  assert.equal(at(-10), 'good');
  const r = stepSide({ shiftPct: 20, lowPct: 12, highPct: 28, level: 0.9 }, 20, ALPHA);
  assert.ok(Math.abs(r.bound - Math.log(19)) < 1e-12);
  // se = 16 / (2 · 1.645) ≈ 4.86; llr = 20 · 10 / se² ≈ 8.5.
  assert.ok(r.llr !== null && Math.abs(r.llr - (20 * 10) / (16 / (2 * 1.6448536269514722)) ** 2) < 1e-6, String(r.llr));
});

test('a wider interval needs a shift further from D/2; no spread, a too-low level or a bad step decides nothing', () => {
  assert.equal(stepSide({ shiftPct: 17, lowPct: 12, highPct: 22, level: 0.9 }, 20, ALPHA).side, 'bad');
  assert.equal(stepSide({ shiftPct: 17, lowPct: 2, highPct: 32, level: 0.9 }, 20, ALPHA).side, 'undecided');
  assert.equal(stepSide({ shiftPct: 20, lowPct: 20, highPct: 20, level: 0.9 }, 20, ALPHA).side, 'undecided');
  // 2 + 2 repeats reach 67% at most: [min, max] is no 90% interval.
  assert.equal(stepSide({ shiftPct: 20, lowPct: 18, highPct: 22, level: 0.67 }, 20, ALPHA).side, 'undecided');
  for (const step of [0, -5, NaN])
    assert.equal(stepSide({ shiftPct: 20, lowPct: 18, highPct: 22, level: 0.9 }, step, ALPHA).side, 'undecided');
  assert.equal(stepSide({ shiftPct: NaN, lowPct: 18, highPct: 22, level: 0.9 }, 20, ALPHA).side, 'undecided');
});

interface Noise {
  cv: number;
  /** Share of repeats slowed by a busy host, and by how much. */
  outliers: number;
  outlierFactor: number;
}

type Rule = 'sprt' | 'interval';

/** One simulated midpoint: its side when decided (or undecided at the cap) and the repeats per arm it took. */
function simulate(rule: Rule, shiftPct: number, stepPct: number, noise: Noise, rnd: () => number): { side: string; n: number } {
  const draw = (shift: number): number =>
    1000 * Math.exp(noise.cv * gaussian(rnd)) * (rnd() < noise.outliers ? noise.outlierFactor : 1) * (1 + shift / 100);
  const a: number[] = [];
  const b: number[] = [];
  for (let n = 5; n <= 20; n += 2) {
    while (a.length < n) {
      a.push(draw(0));
      b.push(draw(shiftPct));
    }
    const scale = median(a) / 100;
    const hl = hodgesLehmann(a, b, 1 - 2 * ALPHA);
    const x = { shiftPct: hl.shift / scale, lowPct: hl.low / scale, highPct: hl.high / scale, level: hl.level };
    const side =
      rule === 'sprt' ? stepSide(x, stepPct, ALPHA).side : x.lowPct >= stepPct / 2 ? 'bad' : x.highPct < stepPct / 2 ? 'good' : 'undecided';
    if (side !== 'undecided' || n + 2 > 20) return { side, n };
  }
  throw new Error('unreachable');
}

function rates(rule: Rule, shiftPct: number, noise: Noise, trials: number): { wrong: number; undecided: number; meanN: number } {
  const rnd = mulberry32(32);
  const truth = shiftPct === 0 ? 'good' : 'bad';
  let wrong = 0;
  let undecided = 0;
  let total = 0;
  for (let i = 0; i < trials; i++) {
    const r = simulate(rule, shiftPct, 20, noise, rnd);
    total += r.n;
    if (r.side === 'undecided') undecided++;
    else if (r.side !== truth) wrong++;
  }
  return { wrong: wrong / trials, undecided: undecided / trials, meanN: total / trials };
}

const NOISES: [string, Noise][] = [
  // What bench:bisect's midpoints measured (counters.threadCpuMs of the grid page): ~7% CV, now and then a slow repeat.
  ['CV 7%, 3% of repeats 1.4× slow', { cv: 0.07, outliers: 0.03, outlierFactor: 1.4 }],
  ['CV 10%, 5% of repeats 1.4× slow', { cv: 0.1, outliers: 0.05, outlierFactor: 1.4 }],
];

for (const [name, noise] of NOISES) {
  test(`simulated midpoints (${name}): wrong side below α either way, fewer repeats than the interval rule`, (t) => {
    const trials = 2000;
    for (const shift of [0, 20]) {
      const sprt = rates('sprt', shift, noise, trials);
      const interval = rates('interval', shift, noise, trials);
      t.diagnostic(
        `shift ${shift}%: sprt wrong ${sprt.wrong}, undecided ${sprt.undecided}, mean n ${sprt.meanN.toFixed(2)}; ` +
          `interval wrong ${interval.wrong}, undecided ${interval.undecided}, mean n ${interval.meanN.toFixed(2)}`,
      );
      // Wald's bound is α/(1 − β); with σ read off a 5 + 5 interval the simulated rate must still stay under α.
      assert.ok(sprt.wrong < ALPHA, `wrong side ${sprt.wrong} at shift ${shift}%`);
      assert.ok(sprt.meanN < interval.meanN, `sprt ${sprt.meanN} vs interval ${interval.meanN} repeats per arm`);
      assert.ok(sprt.undecided <= interval.undecided, `undecided at the cap: sprt ${sprt.undecided}, interval ${interval.undecided}`);
    }
  });
}

test('several metrics: "the whole step" is held at α/k, "no change" at α (Wald’s bounds for unequal rates)', () => {
  const one = stepSide({ shiftPct: 20, lowPct: 12, highPct: 28, level: 0.9 }, 20, ALPHA);
  assert.ok(Math.abs(one.goodBound + one.bound) < 1e-12, 'one metric: ±ln((1 − α)/α)');
  const two = stepSide({ shiftPct: 20, lowPct: 12, highPct: 28, level: 0.9 }, 20, ALPHA, 2);
  assert.ok(Math.abs(two.bound - Math.log((1 - ALPHA) / (ALPHA / 2))) < 1e-12, String(two.bound));
  assert.ok(Math.abs(two.goodBound - Math.log(ALPHA / (1 - ALPHA / 2))) < 1e-12, String(two.goodBound));
  // A shift a little past D/2 that one metric calls bad needs more evidence among two.
  const x = { shiftPct: 12.2, lowPct: 6.2, highPct: 18.2, level: 0.9 };
  assert.equal(stepSide(x, 20, ALPHA).side, 'bad');
  assert.equal(stepSide(x, 20, ALPHA, 2).side, 'undecided');
  assert.equal(stepSide(x, 20, ALPHA, 0).side, 'undecided', 'a family of none decides nothing');
});

/**
 * A midpoint judged on k metrics as the bisect judges it (bisect-follow.ts sideJudgement): bad when any metric's SPRT
 * says "the whole step", good when all say "no change". `shifts`: each metric's true shift (% of GOOD).
 */
function simulateMany(shifts: number[], stepPct: number, noise: Noise, family: number, rnd: () => number): string {
  const draw = (shift: number): number =>
    1000 * Math.exp(noise.cv * gaussian(rnd)) * (rnd() < noise.outliers ? noise.outlierFactor : 1) * (1 + shift / 100);
  const arms = shifts.map(() => ({ a: [] as number[], b: [] as number[] }));
  for (let n = 5; n <= 20; n += 2) {
    const sides = shifts.map((shift, m) => {
      const { a, b } = arms[m]!;
      while (a.length < n) {
        a.push(draw(0));
        b.push(draw(shift));
      }
      const scale = median(a) / 100;
      const hl = hodgesLehmann(a, b, 1 - 2 * ALPHA);
      return stepSide(
        { shiftPct: hl.shift / scale, lowPct: hl.low / scale, highPct: hl.high / scale, level: hl.level },
        stepPct,
        ALPHA,
        family,
      ).side;
    });
    if (sides.includes('bad')) return 'bad';
    if (sides.every((s) => s === 'good')) return 'good';
  }
  return 'undecided';
}

test('two followed metrics (CV 10%, 5% of repeats 1.4× slow): a wrong side stays below α both ways; without α/k it does not', () => {
  const noise = NOISES[1]![1];
  const trials = 2000;
  const rate = (shifts: number[], family: number, wrong: string): number => {
    const rnd = mulberry32(56);
    let n = 0;
    for (let i = 0; i < trials; i++) if (simulateMany(shifts, 20, noise, family, rnd) === wrong) n++;
    return n / trials;
  };
  // Before the culprit: no change on either metric; a false "bad" on any names a wrong culprit.
  const falseBad = rate([0, 0], 2, 'bad');
  // After it, the hardest case: only one of the two metrics carries the step.
  const falseGood = rate([20, 0], 2, 'good');
  // The same two metrics, each at α (no Bonferroni split): more false "bad" calls.
  const naive = rate([0, 0], 1, 'bad');
  assert.ok(falseBad < ALPHA, `false bad ${falseBad}`);
  assert.ok(falseGood < ALPHA, `false good ${falseGood}`);
  assert.ok(naive >= falseBad, `α each: ${naive}, α/2 each: ${falseBad}`);
});
