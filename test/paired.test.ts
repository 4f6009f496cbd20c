/**
 * The paired design (perf/paired.ts, perf/compare/pairs.ts): Wilcoxon's signed-rank test and the one-sample
 * Hodges–Lehmann interval, checked against published values and by simulation (false alarms at most α, interval
 * coverage at least its level), and the gate's power on drifting rounds against the unpaired rank test.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { compareMetrics, type MetricSamples } from '../src/perf/compare.js';
import { MAX_PAIR_GAP, pairBySequence } from '../src/perf/compare/pairs.js';
import { hodgesLehmannPaired, wilcoxonSignedRank } from '../src/perf/paired.js';
import { gaussian, mulberry32 } from './gate-sim.js';

// 4,000 draws: a rate's standard error is then 0.35 points at 5%, well inside the margins below.
const DRAWS = Number(process.env.GATE_SEQUENCES ?? 4_000);

test(
  'signed-rank: exact tails match the textbook (n = 5 all positive: 1/32; n = 10 W+ = 45: P(W+ ≥ 45) = 0.042)',
  { timeout: 10_000 },
  () => {
    const all = wilcoxonSignedRank([1, 2, 3, 4, 5]);
    assert.equal(all.pGreater, 1 / 32);
    assert.equal(all.minAttainableOneSidedP, 1 / 32);
    assert.equal(all.method, 'exact');
    // Ranks 1…10, negatives at ranks 2, 4 (sum 6): W+ = 55 − 6 = 49; negatives 1, 9 (sum 10): W+ = 45.
    const d = [-1, 2, 3, 4, 5, 6, 7, 8, -9, 10];
    const r = wilcoxonSignedRank(d);
    assert.equal(r.wPlus, 45);
    // Hollander, Wolfe & Chicken Table A.4, n = 10: P(T+ ≥ 45) = 0.042.
    assert.ok(Math.abs(r.pGreater - 0.042) < 0.001, `p ${r.pGreater}`);
    assert.ok(r.pGreater + r.pLess > 1, 'the two tails overlap at the observed value');
    // Zeros are dropped (Wilcoxon's convention); nothing left is no evidence either way.
    assert.deepEqual(wilcoxonSignedRank([0, 0, 0]), { wPlus: 0, n: 0, pGreater: 1, pLess: 1, minAttainableOneSidedP: 1, method: 'exact' });
  },
);

test('signed-rank under the null: one-sided false alarms ≤ α at n = 5, 10 and 30 (exact, ties and normal)', { timeout: 60_000 }, (t) => {
  const rng = mulberry32(41);
  for (const n of [5, 10, 30]) {
    for (const rounded of [false, true]) {
      let alarms = 0;
      for (let k = 0; k < DRAWS; k++) {
        // Rounded to 8 ms steps, as Event Timing reports durations: many ties and zeros.
        const d = Array.from({ length: n }, () => (rounded ? 8 * Math.round((20 * gaussian(rng)) / 8) : 20 * gaussian(rng)));
        if (wilcoxonSignedRank(d).pGreater <= 0.05) alarms++;
      }
      t.diagnostic(`n ${n}${rounded ? ' (8 ms steps)' : ''}: ${((100 * alarms) / DRAWS).toFixed(2)}% at α 5%`);
      assert.ok(alarms / DRAWS <= 0.05 + 0.01, `n ${n}: ${alarms} of ${DRAWS}`);
    }
  }
});

test(
  'paired Hodges–Lehmann: the interval covers the true shift at least at its level (n = 8, 20; normal and skewed)',
  { timeout: 60_000 },
  (t) => {
    const rng = mulberry32(42);
    for (const n of [8, 20]) {
      for (const skewed of [false, true]) {
        let covered = 0;
        let level = 0;
        for (let k = 0; k < DRAWS; k++) {
          // A shift of 30 on symmetric noise (the interval's model: differences symmetric about the shift).
          const noise = (): number => (skewed ? 10 * (gaussian(rng) - gaussian(rng)) * (1 + Math.abs(gaussian(rng))) : 10 * gaussian(rng));
          const d = Array.from({ length: n }, () => 30 + noise());
          const hl = hodgesLehmannPaired(d, 0.9);
          level = hl.level;
          if (hl.low <= 30 && 30 <= hl.high) covered++;
        }
        t.diagnostic(
          `n ${n}${skewed ? ' (heavy tails)' : ''}: covered ${((100 * covered) / DRAWS).toFixed(1)}% at level ${level.toFixed(3)}`,
        );
        assert.ok(covered / DRAWS >= level - 0.015, `n ${n}: ${covered} of ${DRAWS} at level ${level}`);
      }
    }
  },
);

test(
  'pairing: repeats of one round pair by position; runs without positions, or with too few pairs, stay unpaired',
  { timeout: 10_000 },
  () => {
    // A B | B A | A B with profiled repeats between (positions 1, 3, 7 …): the timing repeats of a round are ≤ 3 apart.
    const a = [0, 5, 6, 11, 12].map((sequence, i) => ({ sequence, value: 100 + i }));
    const b = [2, 4, 8, 10, 14].map((sequence, i) => ({ sequence, value: 200 + i }));
    assert.deepEqual(pairBySequence(a, b), { a: [100, 101, 102, 103, 104], b: [200, 201, 202, 203, 204] });
    assert.equal(
      pairBySequence(
        a.map((x) => ({ ...x, sequence: undefined })),
        b,
      ),
      undefined,
    );
    const far = b.map((x) => ({ ...x, sequence: x.sequence + 40 }));
    assert.equal(pairBySequence(a, far), undefined, `nothing within ${MAX_PAIR_GAP} positions`);
    assert.equal(pairBySequence(a.slice(0, 4), b.slice(0, 4)), undefined, 'four pairs cannot reach 5%');
  },
);

/**
 * Rounds whose machine speed drifts (a busy job comes and goes; up to ~2× slower, as beside a spinning core): both
 * repeats of a round share the round's factor, and each has 5% of its own noise.
 */
function drifting(rng: () => number, n: number, shift: number): { a: number[]; b: number[] } {
  const a: number[] = [];
  const b: number[] = [];
  for (let k = 0; k < n; k++) {
    const round = 1 + 0.6 * Math.abs(gaussian(rng));
    a.push(100 * round * (1 + 0.05 * gaussian(rng)));
    b.push((100 + shift) * round * (1 + 0.05 * gaussian(rng)));
  }
  return { a, b };
}

function verdictOn(x: { a: number[]; b: number[] }, paired: boolean): string {
  const s: MetricSamples = {
    metric: 'interactions.processingMs',
    a: x.a,
    b: x.b,
    role: 'primary',
    better: 'lower',
    floor: 16,
    ...(paired ? { pairs: x } : {}),
  };
  return compareMetrics([s], { thresholds: { warnPct: 10, errorPct: 25 } }).verdict;
}

test(
  'paired gate on drifting rounds: +30% caught ≥ 10 points more often than unpaired at 8 per arm; A/A false alarms ≤ 5%',
  { timeout: 60_000 },
  (t) => {
    const rng = mulberry32(43);
    const n = Math.min(DRAWS, 2_000);
    let pairedFail = 0;
    let unpairedFail = 0;
    let aaAlarms = 0;
    for (let k = 0; k < n; k++) {
      const x = drifting(rng, 8, 30);
      if (verdictOn(x, true) === 'fail') pairedFail++;
      if (verdictOn(x, false) === 'fail') unpairedFail++;
      const v = verdictOn(drifting(rng, 8, 0), true);
      if (v === 'fail' || v === 'warn') aaAlarms++;
    }
    t.diagnostic(`+30%: paired fail ${((100 * pairedFail) / n).toFixed(1)}%, unpaired ${((100 * unpairedFail) / n).toFixed(1)}%`);
    t.diagnostic(`A/A paired false alarms ${((100 * aaAlarms) / n).toFixed(2)}%`);
    assert.ok(pairedFail / n >= 0.8, `paired caught ${pairedFail} of ${n}`);
    // Measured: 94% against 72% (seed 43, 2,000 draws).
    assert.ok(pairedFail - unpairedFail >= 0.1 * n, `paired ${pairedFail} vs unpaired ${unpairedFail}`);
    assert.ok(aaAlarms / n <= 0.05, `A/A alarms ${aaAlarms} of ${n}`);
  },
);
