/**
 * Properties of src/perf/change-points.ts (E-Divisive means with a permutation test) over thousands of seeded
 * simulated series: the false-alarm rate on A/A series, the power and the exact position on a +20% step,
 * two steps, a step below the minimum magnitude; and, printed only (never asserted: the machine is shared),
 * how long 10,000 runs take.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changePoints, DEFAULT_MIN_MAGNITUDE, type ChangePoint } from '../src/perf/change-points.js';
import { isPerfError } from '../src/errors.js';
import { gaussian, mulberry32 } from './gate-sim.js';

const TIMEOUT = { timeout: 300_000 };
const BASE = 100;

/** One simulated history: `n` run medians around BASE·level(i) with noise of CV `cv`. */
function series(rng: () => number, n: number, cv: number, level: (i: number) => number = () => 1): number[] {
  return Array.from({ length: n }, (_, i) => BASE * level(i) * (1 + cv * gaussian(rng)));
}

/** A noise CV drawn uniformly from 2–10%, the spread of real run medians. */
const someCv = (rng: () => number): number => 0.02 + 0.08 * rng();

test('A/A: 30 runs at CV 2–10% give no change point in ≥ 99% of 3,000 series', TIMEOUT, () => {
  const rng = mulberry32(31_001);
  const trials = 3000;
  let alarms = 0;
  for (let t = 0; t < trials; t++) if (changePoints(series(rng, 30, someCv(rng)), { seed: t }).length > 0) alarms++;
  const rate = alarms / trials;
  console.log(`# A/A false-alarm rate: ${alarms}/${trials} = ${(100 * rate).toFixed(2)}%`);
  assert.ok(rate <= 0.01, `false-alarm rate ${(100 * rate).toFixed(2)}% > 1%`);
});

/**
 * Where exactly: at CV 2–4% a +20% step is ≥ 5σ, and run 16 must be named alone. At CV 10% it is 2σ, and no
 * estimator places it exactly much more than 70% of the time (the first run of the new level falls nearer the
 * old one with P(z < −1) ≈ 16%, and the last old run nearer the new one as often): there it must be found, near;
 * ≥ 90%, as the search over κ (which finds a step up and back down) widens the permutations' maxima at 2σ.
 */
test('+20% at run 16 of 30: run 16 alone in ≥ 95% of 2,000 series at CV 2–4%; within ±2 runs in ≥ 90% at CV 2–10%', TIMEOUT, () => {
  const rng = mulberry32(31_002);
  const trials = 2000;
  let exact = 0;
  let near = 0;
  for (let t = 0; t < trials; t++) {
    const step = (i: number): number => (i >= 15 ? 1.2 : 1);
    const quiet = changePoints(series(rng, 30, 0.02 + 0.02 * rng(), step), { seed: t });
    if (quiet.length === 1 && quiet[0]!.index === 15) exact++;
    const noisy = changePoints(series(rng, 30, someCv(rng), step), { seed: t });
    if (noisy.length === 1 && Math.abs(noisy[0]!.index - 15) <= 2) near++;
  }
  console.log(`# +20% step: run 16 alone at CV 2–4% in ${exact}/${trials}; one change within ±2 at CV 2–10% in ${near}/${trials}`);
  assert.ok(exact / trials >= 0.95, `run 16 alone in ${exact}/${trials}`);
  assert.ok(near / trials >= 0.9, `near run 16 in ${near}/${trials}`);
});

test('the reported change carries the medians either side and a small p-value', TIMEOUT, () => {
  const rng = mulberry32(31_003);
  const found = changePoints(series(rng, 30, 0.02, (i) => (i >= 15 ? 1.2 : 1)));
  assert.equal(found.length, 1);
  const c: ChangePoint = found[0]!;
  assert.equal(c.index, 15);
  assert.ok(Math.abs(c.beforeMedian - 100) < 3 && Math.abs(c.afterMedian - 120) < 4, JSON.stringify(c));
  assert.ok(Math.abs(c.relativeChange - 0.2) < 0.05, JSON.stringify(c));
  assert.ok(c.pValue <= 0.01, JSON.stringify(c));
});

test('two steps (+20% at run 11, back to −4% at run 21 of 30, CV 2–4%): both exactly in ≥ 95% of 1,000 series', TIMEOUT, () => {
  const rng = mulberry32(31_004);
  const trials = 1000;
  let both = 0;
  for (let t = 0; t < trials; t++) {
    const level = (i: number): number => (i >= 20 ? 0.96 : i >= 10 ? 1.2 : 1);
    const found = changePoints(series(rng, 30, 0.02 + 0.02 * rng(), level), { seed: t }).map((c) => c.index);
    if (found.length === 2 && found.includes(10) && found.includes(20)) both++;
  }
  console.log(`# two steps: both exactly in ${both}/${trials}`);
  assert.ok(both / trials >= 0.95, `both in ${both}/${trials}`);
});

test('a clear but small step (+3% at CV 0.5%) is significant yet below the minimum magnitude: not reported', TIMEOUT, () => {
  const rng = mulberry32(31_005);
  const trials = 500;
  let reported = 0;
  let withoutMinimum = 0;
  for (let t = 0; t < trials; t++) {
    const xs = series(rng, 30, 0.005, (i) => (i >= 15 ? 1.03 : 1));
    if (changePoints(xs, { seed: t }).length > 0) reported++;
    if (changePoints(xs, { seed: t, minMagnitude: 0 }).some((c) => c.index === 15)) withoutMinimum++;
  }
  console.log(
    `# +3% step (min ${DEFAULT_MIN_MAGNITUDE * 100}%): reported ${reported}/${trials}; without the minimum ${withoutMinimum}/${trials}`,
  );
  assert.equal(reported, 0);
  assert.ok(withoutMinimum / trials >= 0.95, `the step itself is detectable: ${withoutMinimum}/${trials}`);
});

test('flat and constant series, counts with ties, short series: no change; a step in a count is one', TIMEOUT, () => {
  assert.deepEqual(changePoints(Array(40).fill(12)), []);
  assert.deepEqual(changePoints([1, 2, 3]), []);
  assert.deepEqual(changePoints([]), []);
  const counts = [...Array(15).fill(10), ...Array(15).fill(12)];
  const found = changePoints(counts);
  assert.deepEqual(
    found.map((c) => [c.index, c.beforeMedian, c.afterMedian]),
    [[15, 10, 12]],
  );
  // A 0 → 3 step has no ratio of its own: it reads as +100% without a floor, against the floor with one.
  const fromZero = changePoints([...Array(10).fill(0), ...Array(10).fill(3)], { floor: 50 });
  assert.equal(fromZero.length, 1);
  assert.ok(Math.abs(fromZero[0]!.relativeChange - 0.06) < 1e-12);
});

test('deterministic: the same series and seed give the same answer', TIMEOUT, () => {
  const rng = mulberry32(31_006);
  const xs = series(rng, 60, 0.05, (i) => (i >= 30 ? 1.15 : 1));
  assert.deepEqual(changePoints(xs), changePoints(xs));
});

test('bad input is a PerfError naming the option', TIMEOUT, () => {
  for (const [opts, code] of [
    [{ alpha: 0 }, 'bad_change_options'],
    [{ permutations: 0.5 }, 'bad_change_options'],
    [{ minSegment: 1 }, 'bad_change_options'],
  ] as const) {
    assert.throws(
      () => changePoints([1, 2, 3], opts),
      (e: unknown) => isPerfError(e) && e.code === code,
    );
  }
  assert.throws(
    () => changePoints([1, NaN, 3]),
    (e: unknown) => isPerfError(e) && e.code === 'non_finite_sample',
  );
});

test('10,000 runs with 20 steps: every step found; the time is printed, not asserted', TIMEOUT, () => {
  const rng = mulberry32(31_007);
  const steps = Array.from({ length: 20 }, (_, k) => 500 * (k + 1) - 17);
  const level = (i: number): number => 1 + 0.15 * (steps.filter((s) => i >= s).length % 2);
  const xs = series(rng, 10_000, 0.04, level);
  const flat = series(rng, 10_000, 0.04);
  const t0 = performance.now();
  const found = changePoints(xs);
  const t1 = performance.now();
  const none = changePoints(flat);
  const t2 = performance.now();
  console.log(
    `# 10,000 runs, 20 steps: ${found.length} change points in ${(t1 - t0).toFixed(0)} ms; A/A: ${none.length} in ${(t2 - t1).toFixed(0)} ms`,
  );
  const near = steps.filter((s) => found.some((c) => Math.abs(c.index - s) <= 1)).length;
  assert.equal(near, steps.length, `found ${found.map((c) => c.index).join(', ')}`);
});
