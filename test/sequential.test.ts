/**
 * Tests for src/perf/sequential.ts: the Lan–DeMets group-sequential boundaries behind sequential sampling.
 *
 * Three kinds of evidence, so a regression cannot hide behind one of them:
 * - published values: the ldbounds vignette (Reboussin et al. 2000's example) and rpact's own unit tests,
 *   including unequal spacing and a design stopped early;
 * - exact values for two looks from the bivariate normal (SciPy's `multivariate_normal.cdf`, Genz's
 *   algorithm), which exercise the close-looks path a table never reaches;
 * - Monte Carlo: simulated Brownian paths must cross at each look as often as the design spends.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alphaSpent, sequentialBoundaries, type LookBoundary, type SpendingKind } from '../src/perf/sequential.js';
import { normalQuantile } from '../src/perf/stats.js';
import { isPerfError } from '../src/errors.js';
import { close, mulberry32, normals as gaussian } from './gate-sim.js';

const zs = (b: LookBoundary[]): number[] => b.map((x) => x.z);
const equalLooks = (k: number): number[] => Array.from({ length: k }, (_, i) => (i + 1) / k);

test('alphaSpent: the two Lan–DeMets spending functions at known points', () => {
  // rpact's unit tests (test-f_design_group_sequential.R, designs x6b and x7a): alphaSpent columns.
  close(alphaSpent('pocock', 0.025, 0.4), 0.013078429, 1e-9);
  close(alphaSpent('pocock', 0.025, 0.7), 0.0197432, 1e-7);
  close(alphaSpent('obrien-fleming', 0.13, 0.4), 0.016665509, 1e-8);
  close(alphaSpent('obrien-fleming', 0.13, 0.75), 0.080406163, 1e-8);
  close(alphaSpent('obrien-fleming', 0.13, 0.85), 0.10053322, 1e-8);
  for (const kind of ['pocock', 'obrien-fleming'] as const) {
    assert.equal(alphaSpent(kind, 0.05, 0), 0);
    assert.equal(alphaSpent(kind, 0.05, -1), 0);
    assert.equal(alphaSpent(kind, 0.05, 1), 0.05);
    assert.equal(alphaSpent(kind, 0.05, 1.4), 0.05, 'an overrun past the planned maximum spends no more');
    let last = 0;
    for (let t = 0.01; t < 1; t += 0.01) {
      const a = alphaSpent(kind, 0.05, t);
      assert.ok(a > last && a < 0.05, `${kind}: spending must increase within (0, α), t = ${t}`);
      last = a;
    }
  }
  // Pocock-type spends a lot early, O'Brien–Fleming-type almost nothing.
  assert.ok(alphaSpent('pocock', 0.05, 0.2) > 10 * alphaSpent('obrien-fleming', 0.05, 0.2));
});

test('a single final look is the fixed-sample one-sided test', () => {
  for (const kind of ['pocock', 'obrien-fleming'] as const) {
    for (const alpha of [0.05, 0.025, 0.01]) {
      const [look] = sequentialBoundaries(alpha, [1], kind);
      close(look!.z, -normalQuantile(alpha), 1e-9, `${kind} α = ${alpha}`);
      close(look!.nominalP, alpha, 1e-8);
      assert.equal(look!.spent, alpha);
      assert.equal(look!.t, 1);
    }
    close(sequentialBoundaries(0.05, [1], kind)[0]!.z, 1.6449, 1e-4);
    // An overrun final look (t > 1) spends the same α.
    close(sequentialBoundaries(0.05, [1.3], kind)[0]!.z, 1.6449, 1e-4);
  }
});

test("O'Brien–Fleming-type, 5 equal looks: Reboussin et al. (2000) via the ldbounds vignette", () => {
  // Casper, "An R Package for Group Sequential Boundaries Using Alpha Spending Functions" (ldbounds
  // vignette, 2021), summary(ldBounds(5)), reproducing Reboussin, DeMets, Kim & Lan (2000), Controlled
  // Clinical Trials 21:190–207: two-sided α = 0.05, symmetric, 5 equally spaced looks. Its upper
  // boundary is the one-sided α = 0.025 design's to ~1e-4: paths that cross both boundaries have
  // probability below 1e-9. (ldbounds prints 4 decimals and its grid is coarser than ours.)
  const b = sequentialBoundaries(0.025, equalLooks(5), 'obrien-fleming');
  [4.8769, 3.3569, 2.6803, 2.2898, 2.031].forEach((z, k) => close(b[k]!.z, z, 1e-3, `look ${k + 1}`));
  // ldbounds' "Diff. pr." column is the two-sided spend per look; one side is half of it.
  close(b[0]!.spent, 1.0777e-6 / 2, 1e-10);
  close(b[1]!.spent - b[0]!.spent, 7.8723e-4 / 2, 1e-8);
  close(b[4]!.spent, 0.025, 1e-15);
});

test('Pocock-type, 5 equal looks: 2.438, 2.427, 2.410, 2.397, 2.386', () => {
  // Two-sided α = 0.05 (one-sided 0.025 per side) Lan–DeMets Pocock-type boundaries. Checked
  // independently: the crossing probabilities of these boundaries under the multivariate normal
  // (SciPy's multivariate_normal.cdf, Genz's algorithm) equal each look's spend to < 1e-5 relative.
  const b = sequentialBoundaries(0.025, equalLooks(5), 'pocock');
  [2.438, 2.427, 2.41, 2.397, 2.386].forEach((z, k) => close(b[k]!.z, z, 1e-3, `look ${k + 1}`));
});

test("rpact's one-sided designs: unequal spacing, and a design stopped early", () => {
  // rpact (Wassmer & Pahlke), tests/testthat/test-f_design_group_sequential.R. With non-binding futility
  // bounds rpact computes the critical values without them, so they are exactly our efficacy-only ones.
  const cases: Array<[number, number[], SpendingKind, number[]]> = [
    [0.025, [0.4, 0.7], 'pocock', [2.223875, 2.3050796]], // x6b: information rate < 1 at the last stage
    [0.13, [0.35, 0.7, 1], 'pocock', [1.5446617, 1.4828682, 1.4620058]], // x6a, non-binding futility
    [0.13, [0.4, 0.75, 1], 'obrien-fleming', [2.1280732, 1.4368565, 1.2468994]], // x7a (kMax = 3)
    [0.13, [0.4, 0.75, 0.85, 1], 'obrien-fleming', [2.1280732, 1.4368565, 1.422873, 1.2970881]], // x7a (kMax = 4)
  ];
  for (const [alpha, fractions, kind, expected] of cases) {
    const b = sequentialBoundaries(alpha, fractions, kind);
    expected.forEach((z, k) => close(b[k]!.z, z, 1e-4, `${kind} α=${alpha} ${fractions.join(',')} look ${k + 1}`));
  }
  // x6b stops at t = 0.7: it spends α(0.7) = 0.0197432 and leaves the rest unspent.
  close(sequentialBoundaries(0.025, [0.4, 0.7], 'pocock')[1]!.spent, 0.0197432, 1e-7);
});

test('two close looks match the bivariate normal (the narrow-kernel path)', () => {
  // Look 2 at 0.5 + d spends α(0.5 + d) − α(0.5); its boundary solves Φ(c1) − Φ₂(c1, c2; √(t1/t2)) =
  // that increment, solved with SciPy's bivariate normal CDF (Genz 2004) and brentq to 1e-12.
  const exact: Array<[number, number]> = [
    [1e-4, 1.8974011],
    [1e-5, 1.8778128],
    [1e-6, 1.8703738],
  ];
  for (const [d, z2] of exact) {
    const b = sequentialBoundaries(0.05, [0.5, 0.5 + d, 1], 'pocock');
    close(b[0]!.z, 1.8662139, 1e-6);
    close(b[1]!.z, z2, 1e-4, `d = ${d}`);
  }
  // The look right after a near-duplicate is unaffected by it: the duplicate adds a few paths' worth.
  const withDuplicate = sequentialBoundaries(0.05, [0.5, 0.5 + 1e-6, 1], 'pocock');
  const without = sequentialBoundaries(0.05, [0.5, 1], 'pocock');
  close(withDuplicate[2]!.z, without[1]!.z, 1e-3);
});

/**
 * Simulate n standard Brownian paths observed at `fractions`, stopping at the first look with
 * Z_k = W(t_k)/√t_k ≥ z_k. Returns the stopping count per look.
 */
function simulate(boundaries: LookBoundary[], n: number, seed: number): number[] {
  const normal = gaussian(mulberry32(seed));
  const crossed = new Array<number>(boundaries.length).fill(0);
  for (let path = 0; path < n; path++) {
    let w = 0;
    let tPrev = 0;
    for (let k = 0; k < boundaries.length; k++) {
      const { t, z } = boundaries[k]!;
      w += Math.sqrt(t - tPrev) * normal();
      tPrev = t;
      if (w / Math.sqrt(t) >= z) {
        crossed[k]!++;
        break;
      }
    }
  }
  return crossed;
}

/**
 * Per-look and overall crossing rates within `sigmas` standard errors of what the design spends.
 * 3 for a design with a handful of looks; with dozens of per-look checks, 3 SE each would fail a
 * correct design for about one seed in six, so those use 4 (Bonferroni: 60 checks at 0.27 % overall).
 */
function assertCrossingRates(boundaries: LookBoundary[], n: number, seed: number, what: string, sigmas = 3): void {
  const crossed = simulate(boundaries, n, seed);
  // Binomial SEs, plus `sigmas`/n so a look expected to stop only a handful of paths (the first
  // O'Brien–Fleming look stops ~1 in 10⁵) is judged on counts, where the normal approximation fails.
  const within = (observed: number, p: number, label: string): void => {
    const tol = sigmas * Math.sqrt((p * (1 - p)) / n) + sigmas / n;
    assert.ok(Math.abs(observed / n - p) <= tol, `${what} ${label}: rate ${observed / n}, expected ${p} ± ${tol}`);
  };
  let spentBefore = 0;
  boundaries.forEach((b, k) => {
    within(crossed[k]!, b.spent - spentBefore, `look ${k + 1} (t = ${b.t})`);
    spentBefore = b.spent;
  });
  within(
    crossed.reduce((a, c) => a + c, 0),
    boundaries[boundaries.length - 1]!.spent,
    'overall',
  );
}

test('Monte Carlo: Brownian paths at unequal looks cross as often as each look spends', () => {
  const fractions = [0.25, 0.35, 0.45, 0.7, 1];
  assertCrossingRates(sequentialBoundaries(0.05, fractions, 'pocock'), 200_000, 20240611, 'pocock');
  assertCrossingRates(sequentialBoundaries(0.05, fractions, 'obrien-fleming'), 200_000, 1000, 'obrien-fleming');
});

test('Monte Carlo: near-duplicate looks and a 30-look irregular design keep α', () => {
  // Looks 0.1 % and 0.2 % of information apart take the narrow-kernel path.
  const close1 = [0.2, 0.2002, 0.4, 0.4004, 0.7, 1];
  assertCrossingRates(sequentialBoundaries(0.05, close1, 'pocock'), 150_000, 99, 'pocock close looks');
  // 30 looks at irregular spacing (what a gate adding 1–3 repeats at a time produces), both kinds.
  const rand = mulberry32(12345);
  const irregular: number[] = [];
  for (let t = 0.05; irregular.length < 29; t += 0.01 + 0.04 * rand()) irregular.push(t);
  const scaled = irregular.map((t) => t / (irregular[28]! + 0.02));
  scaled.push(1);
  for (const kind of ['pocock', 'obrien-fleming'] as const) {
    const b = sequentialBoundaries(0.05, scaled, kind);
    assert.equal(b.length, 30);
    assertCrossingRates(b, 60_000, kind === 'pocock' ? 3 : 4, `${kind} 30 looks`, 4);
  }
});

test('a design stopped early spends α(t_last) and no more', () => {
  for (const kind of ['pocock', 'obrien-fleming'] as const) {
    const early = sequentialBoundaries(0.05, [0.2, 0.4, 0.6], kind);
    assert.equal(early[2]!.spent, alphaSpent(kind, 0.05, 0.6));
    assert.ok(early[2]!.spent < 0.05);
    // Boundaries depend only on the looks so far, so stopping early leaves the earlier ones unchanged.
    const full = sequentialBoundaries(0.05, [0.2, 0.4, 0.6, 0.8, 1], kind);
    early.forEach((b, k) => close(b.z, full[k]!.z, 1e-12, `${kind} look ${k + 1}`));
  }
});

test("shapes: Pocock-type nominal levels are nearly flat, O'Brien–Fleming-type boundaries fall", () => {
  const pocock = sequentialBoundaries(0.025, equalLooks(5), 'pocock');
  const ps = pocock.map((b) => b.nominalP);
  assert.ok(Math.max(...ps) / Math.min(...ps) < 1.25, `Pocock nominal p should be nearly constant: ${ps.join(', ')}`);
  for (const b of pocock) assert.ok(b.nominalP > 0.025 / 5 && b.nominalP < 0.025, 'between Bonferroni and unadjusted');
  for (const looks of [5, 20]) {
    const obf = zs(sequentialBoundaries(0.025, equalLooks(looks), 'obrien-fleming'));
    for (let k = 1; k < obf.length; k++) assert.ok(obf[k]! < obf[k - 1]!, `OBF z must fall: ${obf.join(', ')}`);
    // The last OBF look stays near the fixed-sample 1.96 (2.03 with 5 looks, 2.12 with 20): little α went early.
    assert.ok(obf[obf.length - 1]! < 2.2);
  }
  for (const kind of ['pocock', 'obrien-fleming'] as const) {
    const b = sequentialBoundaries(0.05, equalLooks(20), kind);
    for (let k = 1; k < b.length; k++) assert.ok(b[k]!.spent >= b[k - 1]!.spent);
    close(b[19]!.spent, 0.05, 1e-15);
  }
});

test('a look that would spend ≤ 1e-12 gets no boundary, and later looks still work', () => {
  // OBF-type at t = 0.01 and 0.05 spends ~1e-110 and ~1e-23.
  const b = sequentialBoundaries(0.025, [0.01, 0.05, 0.5, 1], 'obrien-fleming');
  for (const k of [0, 1]) {
    assert.equal(b[k]!.z, Infinity);
    assert.equal(b[k]!.nominalP, 0);
    assert.equal(b[k]!.spent, 0);
  }
  assert.ok(Number.isFinite(b[2]!.z) && Number.isFinite(b[3]!.z));
  close(b[2]!.spent, alphaSpent('obrien-fleming', 0.025, 0.5), 1e-15);
  assert.equal(b[3]!.spent, 0.025);
  // Looks that stop nobody change nothing: same boundaries as the design without them.
  const plain = sequentialBoundaries(0.025, [0.5, 1], 'obrien-fleming');
  close(b[2]!.z, plain[0]!.z, 1e-6); // integrated from look 2's grid here, closed-form Φ⁻¹ there
  close(b[3]!.z, plain[1]!.z, 1e-5);
});

test('bad designs throw PerfError bad_sequential_design', () => {
  const bad: Array<[number, number[], string]> = [
    [0, [1], 'pocock'],
    [1, [1], 'pocock'],
    [-0.05, [1], 'pocock'],
    [NaN, [1], 'pocock'],
    [0.05, [], 'pocock'],
    [0.05, [0.5, 0.5, 1], 'pocock'],
    [0.05, [0.6, 0.4, 1], 'obrien-fleming'],
    [0.05, [0, 1], 'pocock'],
    [0.05, [-0.2, 1], 'pocock'],
    [0.05, [NaN, 1], 'pocock'],
    [0.05, [0.5, Infinity], 'pocock'],
    [0.05, [1, 1.2], 'pocock'],
    [0.05, [0.5, 1, 1.1], 'obrien-fleming'],
    [0.05, [0.5, 1], 'linear'],
  ];
  for (const [alpha, fractions, kind] of bad) {
    assert.throws(
      () => sequentialBoundaries(alpha, fractions, kind as SpendingKind),
      (e: unknown) => isPerfError(e) && e.code === 'bad_sequential_design' && e.kind === 'usage' && e.message.length > 20,
      `alpha=${alpha} fractions=${JSON.stringify(fractions)} kind=${kind}`,
    );
  }
  assert.throws(
    () => alphaSpent('pocock', 1.5, 0.5),
    (e: unknown) => isPerfError(e) && e.code === 'bad_sequential_design',
  );
  assert.throws(
    () => alphaSpent('pocock', 0.05, NaN),
    (e: unknown) => isPerfError(e) && e.code === 'bad_sequential_design',
  );
});

test('memoized results cannot be corrupted by the caller', () => {
  const first = sequentialBoundaries(0.05, [0.3, 0.6, 1], 'pocock');
  const snapshot = JSON.stringify(first);
  first[0]!.z = 0;
  first.pop();
  const again = sequentialBoundaries(0.05, [0.3, 0.6, 1], 'pocock');
  assert.equal(JSON.stringify(again), snapshot);
  assert.notEqual(again, first);
});

test('cost: 20 looks computed once per design and memoised (time shown, not asserted: the machine is shared)', (t) => {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    // A fresh α each time defeats the memo, so every call computes the whole design.
    const start = performance.now();
    const design = sequentialBoundaries(0.05 + i * 1e-6, equalLooks(20), i % 2 ? 'pocock' : 'obrien-fleming');
    times.push(performance.now() - start);
    assert.equal(design.length, 20, 'one boundary per look');
  }
  times.sort((a, b) => a - b);
  t.diagnostic(`median of 5 fresh 20-look designs: ${times[2]!.toFixed(1)} ms`);
  const memo = sequentialBoundaries(0.05, equalLooks(20), 'pocock');
  assert.deepEqual(sequentialBoundaries(0.05, equalLooks(20), 'pocock'), memo, 'the same design twice is the same boundaries');
});
