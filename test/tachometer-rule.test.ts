/**
 * bench/tachometer-rule.ts, the peer's stopping rule the verdict bench runs beside ours: its t quantile against
 * published values, its horizon test on tachometer's own examples (stats.ts horizonsResolved comment), and the
 * property tachometer's stats test checks, over 20,000 simulated A/As: the 95 % interval of the difference covers
 * the true difference (0) about 95 % of the time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { difference, horizonsResolved, outcomeOf, parseConditions, t975, verdictOf, type Difference } from '../bench/tachometer-rule.js';
import { gaussian, mulberry32 } from './gate-sim.js';

test('t975 matches Student t tables (two-sided 95 %) within 0.1 %', { timeout: 10_000 }, () => {
  const table: [number, number][] = [
    [1, 12.706],
    [4, 2.776],
    [6, 2.447],
    [9, 2.262],
    [10, 2.228],
    [20, 2.086],
    [30, 2.042],
    [60, 2.0],
    [120, 1.98],
  ];
  for (const [df, t] of table) assert.ok(Math.abs(t975(df) - t) / t < 0.001, `df ${df}: ${t975(df)} vs ${t}`);
});

test('conditions parse as tachometer reads them: 10% is ±10 %, +10% one side, 0% zero', { timeout: 10_000 }, () => {
  assert.deepEqual(parseConditions(['10%']), [-0.1, 0.1]);
  assert.deepEqual(parseConditions(['+10%']), [0.1]);
  assert.deepEqual(parseConditions(['-10%', '+10%']), [-0.1, 0.1]);
  assert.deepEqual(parseConditions(['0%', '10%']), [-0.1, 0, 0.1]);
  assert.throws(() => parseConditions(['0.5ms']), /relative/);
});

test('horizons resolve only when every one lies outside the interval (tachometer stats.ts examples)', { timeout: 10_000 }, () => {
  const rel = (low: number, high: number): Difference => ({ absolute: { low, high }, relative: { low, high } });
  const h = [0, 0.01];
  // The diagram in horizonsResolved: horizons 0 and 1 (here 0 and 1 %), intervals left to right.
  assert.equal(horizonsResolved(rel(-0.01, -0.0025), h), true);
  assert.equal(horizonsResolved(rel(-0.005, 0.0025), h), false);
  assert.equal(horizonsResolved(rel(0.0025, 0.0075), h), true);
  assert.equal(horizonsResolved(rel(0.0075, 0.0125), h), false);
  assert.equal(horizonsResolved(rel(0.0125, 0.02), h), true);
  assert.equal(horizonsResolved(rel(-0.005, 0.0125), h), false);
  const ten = parseConditions(['10%']);
  assert.equal(verdictOf(outcomeOf(rel(0.12, 0.2), ten)), 'fail (slower >10%)');
  assert.equal(verdictOf(outcomeOf(rel(-0.05, 0.04), ten)), 'pass (within ±10%)');
  assert.equal(verdictOf(outcomeOf(rel(-0.3, -0.15), ten)), 'improved (>10%)');
  assert.equal(verdictOf(outcomeOf(rel(0.05, 0.15), ten)), 'unsure (timeout)');
});

test('over 20,000 simulated A/As of 10 vs 10, the 95 % interval of the difference covers 0 in 93–97 %', { timeout: 60_000 }, () => {
  const rng = mulberry32(27);
  const draw = (n: number): number[] => Array.from({ length: n }, () => 200 * (1 + 0.08 * gaussian(rng)));
  const trials = 20_000;
  let covered = 0;
  for (let i = 0; i < trials; i++) {
    const d = difference(draw(10), draw(10));
    if (d.relative.low <= 0 && d.relative.high >= 0) covered++;
  }
  const rate = covered / trials;
  assert.ok(rate > 0.93 && rate < 0.97, `coverage ${rate}`);
});
