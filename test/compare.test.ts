/**
 * Properties of the gate's judgement (src/perf/compare.ts) over simulated sequences: seeded repeats drawn
 * from known distributions, judged look by look as the runner does (first look at 5 per arm, +2 per arm
 * per look, up to 20). Each property runs ≥ 10,000 sequences. Plus single-compare rules: direction,
 * severity by the estimate, the floor, zero spread, Poisson events, inconclusive with needRepeats.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareMetrics, type CompareRow, type MetricSamples } from '../src/perf/compare.js';
import { isPerfError } from '../src/errors.js';
import { gaussian, mulberry32, normalMetric, poisson, simulate, type SimMetric, type SimOutcome, type SimPlan } from './gate-sim.js';
import { chooseByNoise, robustCvPct } from '../src/perf/primaries.js';
import { MAX_PRIMARY } from '../src/perf/metrics.js';

const SEQUENCES = Number(process.env.GATE_SEQUENCES ?? 10_000);
const PLAN: SimPlan = { repeat: 5, maxRepeat: 20 };

/** Lognormal noise with coefficient of variation `cv` around `mean` (σ_log from the CV). */
function lognormalMetric(name: string, mean: number, cv: number, factor = 1): SimMetric {
  const s = Math.sqrt(Math.log(1 + cv * cv));
  return { name, floor: 0, draw: (rng, arm) => mean * (arm === 'b' ? factor : 1) * Math.exp(s * gaussian(rng) - (s * s) / 2) };
}

/** A machine-paced event count (frames over budget): Poisson with this mean per repeat. */
function eventMetric(name: string, mean: number, factor = 1): SimMetric {
  return { name, floor: 10, events: true, draw: (rng, arm) => poisson(rng, mean * (arm === 'b' ? factor : 1)) };
}

/** A count that varies by a binomial few around `base` (layouts that now and then run twice). */
function wobblingCount(name: string, base: number, trials: number, p: number, delta = 0): SimMetric {
  return {
    name,
    floor: 1,
    exact: true,
    draw: (rng, arm) => {
      let k = 0;
      for (let i = 0; i < trials; i++) if (rng() < p) k++;
      return base + k + (arm === 'b' ? delta : 0);
    },
  };
}

/** Blocking time: mostly 0 ms, now and then one long frame. */
function blockingMetric(): SimMetric {
  return { name: 'longFrames.blockingMs', floor: 50, draw: (rng) => (rng() < 0.02 ? 5 + 20 * rng() : 0) };
}

/**
 * The default primary family at the noise measured on the demo app (bench/noise.ts, timing repeats,
 * 2-core machine, quiet and beside a busy process): CPU time at 10% CV, layouts and style recalcs that
 * wobble by one or two, frames over budget and dropped frames as rare Poisson events, blocking time
 * mostly zero (it was zero in every measured repeat; a spike in 1 of 50 here is harsher).
 */
function aaFamily(): SimMetric[] {
  return [
    normalMetric('counters.threadCpuMs', 30, 0.1, 1, { floor: 10 }),
    wobblingCount('counters.layouts', 13, 2, 0.4),
    wobblingCount('counters.styleRecalcs', 27, 2, 0.5),
    eventMetric('frames.overBudget', 0.3),
    eventMetric('frames.dropped', 0.1),
    blockingMetric(),
  ];
}

function run(
  n: number,
  seed: number,
  metrics: () => SimMetric[],
  plan: SimPlan = PLAN,
): { verdicts: Record<string, number>; looks: number[]; rows: Map<string, CompareRow>[] } {
  const rng = mulberry32(seed);
  const verdicts: Record<string, number> = {};
  const looks: number[] = [];
  const rows: Map<string, CompareRow>[] = [];
  for (let i = 0; i < n; i++) {
    const out = simulate(metrics(), plan, rng);
    verdicts[out.result.verdict] = (verdicts[out.result.verdict] ?? 0) + 1;
    looks.push(out.looks);
    rows.push(new Map(out.result.rows.map((r) => [r.metric, r])));
  }
  return { verdicts, looks, rows };
}

const rate = (count: number | undefined, n: number): number => (count ?? 0) / n;

test('A/A: the gate raises a false alarm (fail or warn) in ≤ 5% of sequences over all looks and the 6 default primary metrics', (t) => {
  const r = run(SEQUENCES, 1, aaFamily);
  const alarms = rate(r.verdicts.fail, SEQUENCES) + rate(r.verdicts.warn, SEQUENCES);
  t.diagnostic(`false alarms ${(alarms * 100).toFixed(2)}% of ${SEQUENCES}: ${JSON.stringify(r.verdicts)}`);
  assert.ok(alarms <= 0.05, `false alarms ${(alarms * 100).toFixed(2)}% (${JSON.stringify(r.verdicts)})`);
});

test('A/A: a sequence ends at the first look ≥ 80% of the time (futility), at the measured noise', (t) => {
  const r = run(SEQUENCES, 2, aaFamily);
  const first = r.looks.filter((l) => l === 1).length / SEQUENCES;
  t.diagnostic(`ended at look 1 in ${(first * 100).toFixed(1)}% of ${SEQUENCES}`);
  assert.ok(first >= 0.8, `ended at look 1 in ${(first * 100).toFixed(1)}%`);
});

test('+30% at CV 5% is caught as an error ≥ 95% of the time by the last look; +25% (exactly the error threshold) is caught as a regression ≥ 95%', (t) => {
  for (const [factor, seed] of [
    [1.3, 3],
    [1.25, 4],
  ] as const) {
    const r = run(SEQUENCES, seed, () => [normalMetric('counters.threadCpuMs', 30, 0.05, factor, { floor: 10 }), ...aaFamily().slice(1)]);
    const error = r.rows.filter((m) => m.get('counters.threadCpuMs')!.severity === 'error').length / SEQUENCES;
    const caught = r.rows.filter((m) => m.get('counters.threadCpuMs')!.verdict === 'regressed').length / SEQUENCES;
    t.diagnostic(`×${factor} at CV 5%: error ${(error * 100).toFixed(1)}%, regressed ${(caught * 100).toFixed(1)}%`);
    if (factor === 1.3) assert.ok(error >= 0.95, `+30%: error in ${(error * 100).toFixed(1)}%`);
    else assert.ok(caught >= 0.95, `+25%: regressed in ${(caught * 100).toFixed(1)}% (error ${(error * 100).toFixed(1)}%)`);
  }
});

test('+30% at CV 20% is caught by the last look: flagged (regressed, or inconclusive past warn) ≥ 90%, regressed ≥ 80%', (t) => {
  const r = run(SEQUENCES, 5, () => [
    lognormalMetric('longFrames.blockingMs', 120, 0.2, 1.3),
    ...aaFamily().filter((m) => m.name !== 'longFrames.blockingMs'),
  ]);
  const verdicts = r.rows.map((m) => m.get('longFrames.blockingMs')!.verdict);
  const regressed = verdicts.filter((v) => v === 'regressed').length / SEQUENCES;
  const flagged = verdicts.filter((v) => v === 'regressed' || v === 'inconclusive').length / SEQUENCES;
  t.diagnostic(`+30% at CV 20%: regressed ${(regressed * 100).toFixed(1)}%, flagged ${(flagged * 100).toFixed(1)}%`);
  assert.ok(flagged >= 0.9, `flagged in ${(flagged * 100).toFixed(1)}% (regressed ${(regressed * 100).toFixed(1)}%)`);
  assert.ok(regressed >= 0.8, `regressed in ${(regressed * 100).toFixed(1)}%`);
});

test('better: higher — a metric that falls 30% regressed; one that rises 30% never regressed, and improved in a fixed compare', () => {
  const higher = (factor: number): SimMetric => ({ ...normalMetric('throughput', 100, 0.05, factor), better: 'higher' });
  const down = run(SEQUENCES, 6, () => [higher(0.7), ...aaFamily()]);
  const regressed = down.rows.filter((m) => m.get('throughput')!.verdict === 'regressed').length / SEQUENCES;
  assert.ok(regressed >= 0.95, `−30% regressed in ${(regressed * 100).toFixed(1)}%`);
  const up = run(SEQUENCES, 7, () => [higher(1.3), ...aaFamily()]);
  assert.equal(up.rows.filter((m) => m.get('throughput')!.verdict === 'regressed').length, 0);
  // Improvements do not keep a sequence sampling; a fixed 10 vs 10 compare names them.
  const fixed = run(1000, 8, () => [higher(1.3), ...aaFamily()], { repeat: 10, maxRepeat: 10, fixed: true });
  assert.ok(fixed.rows.filter((m) => m.get('throughput')!.verdict === 'improved').length / 1000 >= 0.95);
});

test("zero spread: +1 frame over budget in every repeat (a machine-paced event) is not an error; +1 layout in every repeat (the app's own work) is", () => {
  const constant = (name: string, a: number, b: number, extra: Partial<SimMetric>): SimMetric => ({
    name,
    floor: 1,
    ...extra,
    draw: (_rng, arm) => (arm === 'a' ? a : b),
  });
  for (const n of [5, 10, 20]) {
    const events = simulate(
      [constant('frames.overBudget', 2, 3, { events: true, floor: 5 })],
      { repeat: n, maxRepeat: 20, fixed: true },
      mulberry32(8),
    );
    assert.notEqual(events.result.rows[0]!.severity, 'error', `n=${n}: ${events.result.rows[0]!.reason}`);
  }
  const layouts = simulate([constant('counters.layouts', 4, 5, { exact: true })], PLAN, mulberry32(9));
  const row = layouts.result.rows[0]!;
  assert.equal(row.verdict, 'regressed');
  assert.equal(row.severity, 'error');
  assert.equal(layouts.looks, 1, 'decided at the first look');
  assert.match(row.reason, /zero spread/);
});

// ─── single compares ────────────────────────────────────────────────────────────────────────────────

const sample = (metric: string, a: number[], b: number[], extra: Partial<MetricSamples> = {}): MetricSamples => ({
  metric,
  a,
  b,
  role: 'primary',
  better: 'lower',
  floor: 0,
  ...extra,
});
const T = { thresholds: { warnPct: 10, errorPct: 25 } };

test('severity follows the estimate: +17% whose interval reaches +30% is a warn, and the reason says how large it could be', () => {
  const a = [80, 88, 95, 100, 105, 112, 120, 90, 98, 110];
  const b = [92, 100, 118, 113, 128, 124, 150, 99, 115, 140];
  const r = compareMetrics([sample('counters.threadCpuMs', a, b)], T);
  const row = r.rows[0]!;
  assert.equal(row.verdict, 'regressed', row.reason);
  assert.ok(row.deltaPct! > 10 && row.deltaPct! < 25, `${row.deltaPct}`);
  assert.ok(row.ci!.highPct > 25, `interval ${row.ci!.lowPct}…${row.ci!.highPct}`);
  assert.equal(row.severity, 'warn');
  assert.match(row.reason, /could be as large as \+\d/);
  assert.equal(r.verdict, 'warn');
});

test('inconclusive: an estimate past warn the samples cannot decide, with needRepeats; the compare says inconclusive', () => {
  const a = [90, 100, 110, 120, 130];
  const b = [100, 112, 122, 134, 146];
  const r = compareMetrics([sample('longFrames.blockingMs', a, b)], T);
  const row = r.rows[0]!;
  assert.equal(row.verdict, 'inconclusive', row.reason);
  assert.ok(typeof row.needRepeats === 'number' && row.needRepeats > 5, String(row.needRepeats));
  assert.equal(r.verdict, 'inconclusive');
  assert.equal(r.decided, false);
  // A secondary metric in the same state is not inconclusive: it cannot change the verdict.
  const secondary = compareMetrics([sample('longFrames.blockingMs', a, b, { role: 'secondary' })], T);
  assert.equal(secondary.rows[0]!.verdict, 'unchanged');
  // With no primary judged at all nothing decided a pass.
  assert.equal(secondary.verdict, 'inconclusive');
});

test('better: none is shown, never improved or regressed; a big change reads "changed"', () => {
  const r = compareMetrics([sample('frames.painted', [60, 61, 60, 62, 61], [50, 51, 50, 52, 51], { better: 'none', role: 'shown' })], T);
  assert.equal(r.rows[0]!.verdict, 'changed');
  assert.equal(r.rows[0]!.severity, 'none');
  // A shown metric never decides: alone, it leaves the compare undecided.
  assert.equal(r.verdict, 'inconclusive');
});

test('the floor: 0 → 3 ms of blocking is +6% of the 50 ms floor, not +∞', () => {
  const r = compareMetrics([sample('longFrames.blockingMs', [0, 0, 0, 0, 0], [3, 3, 3, 3, 3], { floor: 50 })], T);
  const row = r.rows[0]!;
  assert.ok(Math.abs(row.deltaPct! - 6) < 1e-9, `${row.deltaPct}`);
  assert.deepEqual(row.scale, { kind: 'floor', value: 50 });
  assert.equal(row.verdict, 'unchanged');
});

test('a compare that cannot detect anything says so up front (3 vs 3 repeats)', () => {
  const r = compareMetrics(
    [sample('counters.threadCpuMs', [10, 11, 12], [20, 21, 22]), sample('interactions.latencyMs.p90', [30, 31, 32], [30, 33, 31])],
    T,
  );
  assert.match(r.blind ?? '', /3 vs 3 repeats/);
});

test('rejections carry over looks: a metric rejected at an earlier look stays rejected', () => {
  const a = [100, 101, 99, 100, 102];
  const b = [112, 95, 130, 104, 118];
  const without = compareMetrics([sample('counters.threadCpuMs', a, b)], T).rows[0]!;
  assert.notEqual(without.verdict, 'regressed');
  const carried = compareMetrics([sample('counters.threadCpuMs', a, b)], { ...T, rejected: { 'counters.threadCpuMs': 'worse' } }).rows[0]!;
  assert.equal(carried.verdict, 'regressed');
});

test('invalid options throw usage errors', () => {
  assert.throws(
    () => compareMetrics([], { thresholds: { warnPct: 30, errorPct: 10 } }),
    (e) => isPerfError(e) && e.code === 'bad_thresholds',
  );
  assert.throws(
    () => compareMetrics([], { ...T, alpha: 0.7 }),
    (e) => isPerfError(e) && e.code === 'bad_alpha',
  );
  assert.throws(
    () => compareMetrics([sample('x', [1], [1]), sample('x', [1], [1])], T),
    (e) => isPerfError(e) && e.code === 'duplicate_metric',
  );
});

// ─── the noise rule: primaries chosen by the baseline's own noise (metrics.ts PRIMARY_BY_NOISE) ─────

// 4,000 sequences: the rule's two properties in under a minute on a busy 2-core machine; the false-alarm
// rate's standard error is then 0.3 points at 5%.
const NOISE_SEQUENCES = Number(process.env.NOISE_SEQUENCES ?? 4_000);

/**
 * Mixed noise, as on a data-grid page (issue 27): a CV-50% blocking time that the rule must demote, CPU
 * time at 10% and a 15% default between (kept or demoted by chance: the rule's own selection at work), a
 * quiet promotable script time (5%) and a borderline promotable task time (8%: promoted by chance), the
 * app's counts and a rare event; a secondary wall time beside them.
 */
function mixedFamily(scriptFactor = 1): SimMetric[] {
  return [
    normalMetric('counters.threadCpuMs', 30, 0.1, 1, { floor: 10 }),
    lognormalMetric('longFrames.blockingMs', 120, 0.5),
    normalMetric('frames.dropped-like', 40, 0.15, 1, { floor: 10 }),
    wobblingCount('counters.layouts', 13, 2, 0.4),
    eventMetric('frames.overBudget', 0.3),
    normalMetric('counters.scriptMs', 40, 0.05, scriptFactor, { floor: 10, promote: true }),
    normalMetric('counters.taskMs', 60, 0.08, 1, { floor: 10, promote: true }),
    normalMetric('durationMs', 800, 0.1, 1, { floor: 50, role: 'secondary' }),
  ];
}

const NOISE_PLAN: SimPlan = { ...PLAN, noiseRule: true };

function runNoise(n: number, seed: number, family: () => SimMetric[]): { verdicts: Record<string, number>; outs: SimOutcome[] } {
  const rng = mulberry32(seed);
  const verdicts: Record<string, number> = {};
  const outs: SimOutcome[] = [];
  for (let i = 0; i < n; i++) {
    const out = simulate(family(), NOISE_PLAN, rng);
    verdicts[out.result.verdict] = (verdicts[out.result.verdict] ?? 0) + 1;
    outs.push(out);
  }
  return { verdicts, outs };
}

const share = (outs: SimOutcome[], pick: (o: SimOutcome) => boolean): number => outs.filter(pick).length / outs.length;
const choiceOf = (o: SimOutcome, metric: string) => o.choices!.find((c) => c.metric === metric)!;
const rowOf = (o: SimOutcome, metric: string) => o.result.rows.find((r) => r.metric === metric)!;

test('noise rule, A/A: false alarms stay ≤ 5% over all looks with the family chosen at look 1; the CV-50% metric is set aside and rarely news', (t) => {
  const r = runNoise(NOISE_SEQUENCES, 11, () => mixedFamily());
  const alarms = rate(r.verdicts.fail, NOISE_SEQUENCES) + rate(r.verdicts.warn, NOISE_SEQUENCES);
  const demoted = share(r.outs, (o) => choiceOf(o, 'longFrames.blockingMs').change === 'demoted');
  const promoted = share(r.outs, (o) => choiceOf(o, 'counters.scriptMs').change === 'promoted');
  const taskPromoted = share(r.outs, (o) => choiceOf(o, 'counters.taskMs').change === 'promoted');
  const midDemoted = share(r.outs, (o) => choiceOf(o, 'frames.dropped-like').change === 'demoted');
  const noisyNews = share(r.outs, (o) => ['improved', 'regressed'].includes(rowOf(o, 'longFrames.blockingMs').verdict));
  const primaries = Math.max(...r.outs.map((o) => o.result.rows.filter((x) => x.gated).length));
  t.diagnostic(`false alarms ${(alarms * 100).toFixed(2)}% of ${NOISE_SEQUENCES}: ${JSON.stringify(r.verdicts)}`);
  t.diagnostic(
    `demoted: blocking (CV 50%) ${(demoted * 100).toFixed(1)}%, CV-15% default ${(midDemoted * 100).toFixed(1)}%; promoted: script (CV 5%) ${(promoted * 100).toFixed(1)}%, task (CV 8%) ${(taskPromoted * 100).toFixed(1)}%`,
  );
  t.diagnostic(`blocking improved or regressed (secondary) in ${(noisyNews * 100).toFixed(2)}%; at most ${primaries} primaries`);
  assert.ok(alarms <= 0.05, `false alarms ${(alarms * 100).toFixed(2)}% (${JSON.stringify(r.verdicts)})`);
  // Five baseline repeats estimate a CV loosely (a MAD of five values is the second smallest of four
  // deviations): measured, the CV-50% metric is demoted ~90% and the CV-5% one promoted ~95% of the time.
  assert.ok(demoted >= 0.85, `CV-50% metric demoted in ${(demoted * 100).toFixed(1)}%`);
  assert.ok(promoted >= 0.9, `CV-5% promotable promoted in ${(promoted * 100).toFixed(1)}%`);
  assert.ok(
    midDemoted > 0.05 && midDemoted < 0.95,
    `the borderline default is chosen by the data: demoted in ${(midDemoted * 100).toFixed(1)}%`,
  );
  assert.ok(noisyNews <= 0.05, `a demoted metric reads as changed in ${(noisyNews * 100).toFixed(2)}%`);
  // A demoted default is set aside: still gated (at a quarter of α), and its row says why.
  for (const o of r.outs) {
    const row = rowOf(o, 'longFrames.blockingMs');
    const c = choiceOf(o, 'longFrames.blockingMs');
    assert.equal(row.gated, c.primary || c.change === 'demoted');
    assert.equal(row.setAside !== undefined, c.change === 'demoted');
  }
  const held = share(r.outs, (o) => o.result.verdict === 'inconclusive');
  t.diagnostic(`A/A ended inconclusive (a set-aside estimate past warn at maxRepeat) in ${(held * 100).toFixed(1)}%`);
  assert.ok(primaries <= MAX_PRIMARY, `${primaries} primaries`);
});

test('noise rule, power: +15% on a quiet promotable metric (CV 5%) is promoted ≥ 90% and decides (warn or fail) ≥ 80%; without the rule it is only info', (t) => {
  const r = runNoise(NOISE_SEQUENCES, 12, () => mixedFamily(1.15));
  const promoted = share(r.outs, (o) => choiceOf(o, 'counters.scriptMs').change === 'promoted');
  const decided = share(r.outs, (o) => rowOf(o, 'counters.scriptMs').gated && rowOf(o, 'counters.scriptMs').verdict === 'regressed');
  // Flagged: warn or fail, or inconclusive while the script row regressed (a set-aside metric still past warn holds
  // the gate open: the warning is printed, the verdict waits for it).
  const flagged = share(
    r.outs,
    (o) =>
      o.result.verdict === 'warn' ||
      o.result.verdict === 'fail' ||
      (o.result.verdict === 'inconclusive' && rowOf(o, 'counters.scriptMs').verdict === 'regressed'),
  );
  const demoted = share(r.outs, (o) => choiceOf(o, 'longFrames.blockingMs').change === 'demoted');
  const withoutRule = simulate(
    mixedFamily(1.15).map((m) => ({ ...m, role: m.promote ? 'secondary' : (m.role ?? 'primary') })),
    PLAN,
    mulberry32(13),
  );
  t.diagnostic(
    `+15% script: promoted ${(promoted * 100).toFixed(1)}%, regressed as primary ${(decided * 100).toFixed(1)}%, compare warn/fail ${(flagged * 100).toFixed(1)}%; blocking demoted ${(demoted * 100).toFixed(1)}%`,
  );
  // Decided < promoted: at the first look the estimate of a +15% change falls below warn ~7% of the
  // time (its spread at CV 5% over 5 repeats), and the gate's futility rule then stops as unchanged.
  assert.ok(promoted >= 0.9, `promoted in ${(promoted * 100).toFixed(1)}%`);
  assert.ok(decided >= 0.8, `decided in ${(decided * 100).toFixed(1)}%`);
  assert.ok(flagged >= 0.8, `compare flagged in ${(flagged * 100).toFixed(1)}%`);
  assert.ok(demoted >= 0.85, `CV-50% metric demoted in ${(demoted * 100).toFixed(1)}%`);
  const script = withoutRule.result.rows.find((x) => x.metric === 'counters.scriptMs')!;
  assert.equal(script.gated, false, 'without the rule the registry keeps it secondary');
  assert.notEqual(script.severity, 'warn');
});

test('noise rule: the wording names the warn size, the CV and the repeats; fewer than 3 baseline repeats keep the default; at most MAX_PRIMARY primaries', () => {
  const rand = mulberry32(14);
  const noisy = Array.from({ length: 10 }, () => 120 * Math.exp(0.47 * gaussian(rand)));
  const [c] = chooseByNoise(
    [{ metric: 'longFrames.blockingMs', baseline: noisy, floor: 50, warnPct: 10, kind: 'default', reach: { a: 20, b: 20 } }],
    0.05,
  );
  assert.equal(c!.change, 'demoted');
  assert.equal(c!.primary, false);
  assert.match(
    c!.why,
    /^too noisy here to judge ±10%: CV \d+% \(needs (~\d+|more than 1000) repeats per arm, at most 20 here\); set aside: decides at a quarter weight, holds the gate while past warn$/,
  );
  const quiet = [40, 41, 39, 40.5, 39.5];
  const [p] = chooseByNoise(
    [{ metric: 'counters.scriptMs', baseline: quiet, floor: 10, warnPct: 10, kind: 'promotable', reach: { a: 20, b: 20 } }],
    0.05,
  );
  assert.equal(p!.change, 'promoted');
  assert.match(p!.why, /^quiet here: judges ±10% at CV [\d.]+% \(needs ~\d+ repeats? per arm, within half of 20\); primary$/);
  const [few] = chooseByNoise(
    [{ metric: 'longFrames.blockingMs', baseline: [10, 300], floor: 50, warnPct: 10, kind: 'default', reach: { a: 20, b: 20 } }],
    0.05,
  );
  assert.equal(few!.primary, true);
  assert.match(few!.why, /fewer than 3 baseline repeats \(2\): the registry's default stands/);
  assert.equal(robustCvPct([0, 0, 0, 10, 0], 50), 0, 'a median below the floor: the floor is the scale');
  const eight = Array.from({ length: MAX_PRIMARY }, (_, i) => ({
    metric: `d${i}`,
    baseline: quiet,
    floor: 10,
    warnPct: 10,
    kind: 'default' as const,
    reach: { a: 20, b: 20 },
  }));
  const all = chooseByNoise(
    [...eight, { metric: 'counters.scriptMs', baseline: quiet, floor: 10, warnPct: 10, kind: 'promotable', reach: { a: 20, b: 20 } }],
    0.05,
  );
  assert.equal(all.filter((x) => x.primary).length, MAX_PRIMARY);
  assert.match(all.at(-1)!.why, /not promoted: the family already has 8 primaries/);
});

test("noise rule: a constant baseline needs the fewest repeats a rank test can decide with (3 at α 5%); a warn threshold of 0% leaves the registry's default", () => {
  const [constant] = chooseByNoise(
    [{ metric: 'counters.layouts', baseline: [40, 40, 40, 40, 40], floor: 1, warnPct: 10, kind: 'default', reach: { a: 20, b: 20 } }],
    0.05,
  );
  assert.deepEqual([constant!.primary, constant!.needRepeats, constant!.cvPct], [true, 3, 0]);
  const [strict] = chooseByNoise(
    [{ metric: 'counters.layouts', baseline: [40, 40, 40], floor: 1, warnPct: 10, kind: 'default', reach: { a: 20, b: 20 } }],
    0.02,
  );
  assert.equal(strict!.needRepeats, 4, 'at α 2%: 1/C(6,3) = 1/20 is too much, 1/C(8,4) = 1/70 is not');
  const [zero] = chooseByNoise(
    [{ metric: 'frames.overBudget', baseline: [0, 3, 9, 1, 30], floor: 10, warnPct: 0, kind: 'default', reach: { a: 20, b: 20 } }],
    0.05,
  );
  assert.deepEqual([zero!.primary, zero!.change], [true, 'none']);
  assert.match(zero!.why, /warn threshold 0%: no change size to test the noise against/);
});

/**
 * Issue 27's stored pair: two 5-repeat timing runs through `perf compare` (a fixed compare; the rule's
 * reach is 4 × the baseline's repeats). The busy loop adds +43% script time (CV 8%), +14.5% CPU time
 * (CV 10%) and +20% task time; long-frame blocking (CV 50%) does not move.
 */
function storedPair(busy: boolean, rule: boolean): SimMetric[] {
  const promotable = (m: SimMetric): SimMetric => (rule ? { ...m, promote: true } : { ...m, role: 'secondary' });
  return [
    normalMetric('counters.threadCpuMs', 200, 0.1, busy ? 1.145 : 1, { floor: 10 }),
    { ...lognormalMetric('longFrames.blockingMs', 300, 0.5), floor: 50 },
    normalMetric('counters.layouts', 40, 0, 1, { floor: 1 }),
    promotable(normalMetric('counters.scriptMs', 100, 0.08, busy ? 1.43 : 1, { floor: 10 })),
    promotable(normalMetric('counters.taskMs', 250, 0.15, busy ? 1.2 : 1, { floor: 10 })),
  ];
}

test("noise rule on a stored 5 vs 5 pair (issue 27): A/A false alarms ≤ 5%; the busy loop passes far less often than with the registry's family", (t) => {
  const n = Math.min(2000, NOISE_SEQUENCES);
  const verdicts = (busy: boolean, rule: boolean, seed: number): Record<string, number> => {
    const rng = mulberry32(seed);
    const v: Record<string, number> = {};
    for (let i = 0; i < n; i++) {
      const o = simulate(storedPair(busy, rule), { repeat: 5, maxRepeat: 20, fixed: true, noiseRule: rule }, rng);
      v[o.result.verdict] = (v[o.result.verdict] ?? 0) + 1;
    }
    return v;
  };
  const aa = verdicts(false, true, 21);
  const busyRule = verdicts(true, true, 22);
  const busyRegistry = verdicts(true, false, 22);
  t.diagnostic(
    `A/A with the rule: ${JSON.stringify(aa)}; busy with the rule: ${JSON.stringify(busyRule)}; busy, registry family: ${JSON.stringify(busyRegistry)}`,
  );
  assert.ok(rate(aa.fail, n) + rate(aa.warn, n) <= 0.05, JSON.stringify(aa));
  assert.ok(rate(busyRule.pass, n) <= 0.1, `busy loop passed in ${(rate(busyRule.pass, n) * 100).toFixed(1)}%`);
  assert.ok(rate(busyRule.fail, n) >= 0.7, `busy loop failed in ${(rate(busyRule.fail, n) * 100).toFixed(1)}%`);
  assert.ok(rate(busyRule.pass, n) < rate(busyRegistry.pass, n), "the rule passes a real change less often than the registry's family");
});
