/**
 * What perf bisect follows (src/runner/bisect-follow.ts, issue 56 item 6), on compare rows as the gate writes them: the
 * endpoints follow every gated row that regressed (a set-aside one included, a secondary one never), a midpoint is bad
 * when any followed metric is like the step and good when all are like GOOD, and the compare's own row verdicts are the
 * fallback in the same any/all way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareMetrics, type CompareRow, type MetricSamples } from '../src/perf/compare.js';
import {
  endpointJudgement,
  followedOf,
  judgementOn,
  regressedPastWarn,
  sideJudgement,
  stepsOf,
  type ComparisonView,
} from '../src/runner/bisect-follow.js';

const ALPHA = 0.05;

/** A compare row: `deltaPct` with an interval of ±`half` at 90%, 10 + 10 repeats. */
function row(metric: string, deltaPct: number, over: Partial<CompareRow> = {}, half = 4): CompareRow {
  return {
    metric,
    a: { median: 100, n: 10 },
    b: { median: 100 + deltaPct, n: 10 },
    deltaPct,
    scale: { kind: 'baseline', value: 100 },
    ci: { lowPct: deltaPct - half, highPct: deltaPct + half, level: 0.9 },
    pValue: 0.5,
    pNeeded: 0.05,
    verdict: 'unchanged',
    severity: 'none',
    gated: true,
    role: 'primary',
    decided: true,
    reason: 'test row',
    shift: deltaPct,
    ...over,
  };
}

/** A comparison of these rows: a regressed row was rejected worse, and so was every metric in `worse` (a shift below warn). */
const compare = (rows: CompareRow[], verdict: ComparisonView['verdict'] = 'pass', worse: string[] = []): ComparisonView => ({
  rows,
  verdict,
  rejected: Object.fromEntries([...rows.filter((r) => r.verdict === 'regressed').map((r) => r.metric), ...worse].map((m) => [m, 'worse'])),
  gate: { alpha: ALPHA, summary: 'the gate summary' },
});

const regressed = (severity: 'warn' | 'error'): Partial<CompareRow> => ({ verdict: 'regressed', severity });

test('the endpoints follow every gated row that regressed, a set-aside one included, largest first; never a secondary', () => {
  const c = compare(
    [
      row('memory.heapUsedAfterGcBytes', 0.01),
      row('longFrames.blockingMs', 31, { ...regressed('error') }),
      row('counters.threadCpuMs', 12, { ...regressed('warn'), setAside: 'too noisy here' }),
      row('counters.scriptMs', 43, { ...regressed('warn'), gated: false, role: 'secondary', severity: 'info' }),
    ],
    'fail',
  );
  const j = endpointJudgement(c, null);
  assert.equal(j.judgement, 'worse');
  assert.equal(j.metric, 'longFrames.blockingMs', 'the figures are the largest regression');
  assert.deepEqual(
    j.readings!.map((r) => [r.metric, r.setAside ?? false]),
    [
      ['longFrames.blockingMs', false],
      ['counters.threadCpuMs', true],
    ],
  );
  const followed = followedOf(j.readings!, false);
  assert.match(followed[1]!.why, /regressed past warn from GOOD to BAD; set aside as noisy/);
  assert.equal(followedOf(j.readings!, true)[0]!.why, '--metric');
  // A warn-level regression is one: the gate's compare rejected "no change" past warn (the gate passes it, bisect follows it).
  const warnOnly = endpointJudgement(compare([row('counters.threadCpuMs', 10.9, regressed('warn'))], 'warn'), null);
  assert.equal(warnOnly.judgement, 'worse');
  assert.deepEqual(stepsOf(j.readings!), [
    { metric: 'longFrames.blockingMs', pct: 31, sign: 1 },
    { metric: 'counters.threadCpuMs', pct: 12, sign: 1 },
  ]);
});

test('the endpoints without a regression: same, or undecided when the gate could not decide; the figures of what moved most', () => {
  const quiet = endpointJudgement(compare([row('counters.layouts', 0), row('counters.threadCpuMs', 3.6)]), null);
  assert.equal(quiet.judgement, 'same');
  assert.equal(quiet.metric, 'counters.threadCpuMs');
  assert.equal(quiet.readings, undefined);
  const held = compare([row('counters.threadCpuMs', 14, { verdict: 'inconclusive', decided: false, setAside: 'noisy' })], 'inconclusive');
  const undecided = endpointJudgement(held, null);
  assert.equal(undecided.judgement, 'undecided');
  assert.equal(undecided.why, 'the gate summary');
  // A lost primary measurement fails the gate but gives no step to follow.
  const lost = endpointJudgement(compare([row('counters.layouts', 0, { verdict: 'missing', severity: 'error' })], 'fail'), null);
  assert.equal(lost.judgement, 'undecided');
  assert.equal(endpointJudgement(undefined, null).judgement, 'untestable');
  // --metric: that row alone, whatever else regressed.
  const c = compare([row('counters.threadCpuMs', 12, regressed('warn')), row('counters.layouts', 0)], 'warn');
  assert.equal(endpointJudgement(c, 'counters.layouts').judgement, 'same');
  assert.equal(endpointJudgement(c, 'counters.threadCpuMs').judgement, 'worse');
});

test('a midpoint on two followed metrics: bad when either is like the step, good when both are like GOOD, else undecided', () => {
  const steps = stepsOf([
    { metric: 'counters.threadCpuMs', deltaPct: 20, ci: null, verdict: 'regressed' },
    { metric: 'interactions.latencyMs.p90', deltaPct: 30, ci: null, verdict: 'regressed' },
  ]);
  const at = (cpu: number, latency: number): ReturnType<typeof sideJudgement> =>
    sideJudgement(compare([row('counters.threadCpuMs', cpu), row('interactions.latencyMs.p90', latency)]), steps);
  const onlyLatency = at(0, 30);
  assert.equal(onlyLatency?.judgement, 'worse');
  assert.equal(onlyLatency?.metric, 'interactions.latencyMs.p90', 'the figures of the metric that decided');
  assert.match(onlyLatency!.why!, /^interactions\.latencyMs\.p90 like the whole 30\.0% step: SPRT log LR \+\d/);
  assert.deepEqual(
    onlyLatency!.readings!.map((r) => r.side),
    ['good', 'bad'],
  );
  const good = at(0, 0);
  assert.equal(good?.judgement, 'same');
  assert.match(good!.why!, /counters\.threadCpuMs like no change[^;]*; interactions\.latencyMs\.p90 like no change/);
  // Like GOOD on one, halfway on the other: sample on.
  assert.equal(at(0, 15), undefined);
  // A followed metric the midpoint did not measure can never be "like GOOD".
  assert.equal(sideJudgement(compare([row('counters.threadCpuMs', 0)]), steps), undefined);
  // A step downwards (a metric better higher) is read in its own direction.
  const down = stepsOf([{ metric: 'frames.painted', deltaPct: -20, ci: null, verdict: 'regressed' }]);
  assert.equal(sideJudgement(compare([row('frames.painted', -20)]), down)?.judgement, 'worse');
  assert.equal(sideJudgement(compare([row('frames.painted', 0)]), down)?.judgement, 'same');
});

test('no primary past warn, one confirmed worse below it: that one is followed, and said to be below warn', () => {
  // The Tabulator grid's scroll loop at a load average of 20: thread CPU +7.3% [3.2, 11.0], "a real change but smaller
  // than warn"; blocking time set aside and undecided.
  const rows = [
    row('longFrames.blockingMs', 46, { verdict: 'inconclusive', setAside: 'too noisy here', decided: false }, 50),
    row('counters.threadCpuMs', 7.3),
    row('counters.scriptMs', 41, { gated: false, role: 'secondary' }),
  ];
  const j = endpointJudgement(compare(rows, 'inconclusive', ['counters.threadCpuMs', 'counters.scriptMs']), null);
  assert.equal(j.judgement, 'worse');
  assert.deepEqual(
    j.readings!.map((r) => r.metric),
    ['counters.threadCpuMs'],
    'a secondary confirmed worse is never followed',
  );
  assert.match(followedOf(j.readings!, false)[0]!.why, /a real change from GOOD to BAD but smaller than warn/);
  // Without that confirmation: the gate could not decide, and nothing is followed.
  assert.equal(endpointJudgement(compare(rows, 'inconclusive'), null).judgement, 'undecided');
  // Beside a primary past warn, a shift below it is not followed: the regressions are.
  const both = [row('counters.threadCpuMs', 7.3), row('interactions.latencyMs.p90', 30, regressed('error'))];
  const withRegressed = endpointJudgement(compare(both, 'fail', ['counters.threadCpuMs']), null);
  assert.deepEqual(
    withRegressed.readings!.map((r) => r.metric),
    ['interactions.latencyMs.p90'],
  );
  // Only a regression past warn ends the endpoints' sampling; a shift confirmed below warn is followed when they end.
  assert.equal(regressedPastWarn(compare(rows, 'inconclusive', ['counters.threadCpuMs']), null), false);
  assert.equal(regressedPastWarn(compare(both, 'fail'), null), true);
  assert.equal(regressedPastWarn(compare(both, 'fail'), 'counters.threadCpuMs'), false, '--metric: that metric alone');
  // --metric: its own confirmed shift below warn is worse too.
  assert.equal(endpointJudgement(compare(rows, 'inconclusive', ['counters.threadCpuMs']), 'counters.threadCpuMs').judgement, 'worse');
  assert.equal(endpointJudgement(compare(rows, 'inconclusive'), 'counters.threadCpuMs').judgement, 'same');
});

test("a midpoint's fallback reads the compare's rows the same way: any regressed is worse, a lost one untestable", () => {
  const metrics = ['counters.threadCpuMs', 'longFrames.blockingMs'];
  const j = (rows: CompareRow[]): string => judgementOn(compare(rows), metrics).judgement;
  assert.equal(j([row(metrics[0]!, 1), row(metrics[1]!, 20, regressed('error'))]), 'worse');
  assert.equal(j([row(metrics[0]!, 1), row(metrics[1]!, 2)]), 'same');
  assert.equal(j([row(metrics[0]!, 1), row(metrics[1]!, 8, { verdict: 'inconclusive' })]), 'undecided');
  assert.equal(j([row(metrics[0]!, 1)]), 'untestable');
  assert.equal(j([row(metrics[0]!, 1), row(metrics[1]!, 0, { verdict: 'missing', deltaPct: null })]), 'untestable');
  // A midpoint at its last look (settled): only an interval clear of D/2 decides. The changelog commit that read
  // +7.9% [2.4, 13.6] against an 11.2% step (D/2 5.6) is undecided, not the culprit.
  const settled = (rows: CompareRow[]): string => judgementOn(compare(rows), [metrics[0]!], true).judgement;
  assert.equal(settled([row(metrics[0]!, 7.9, { ...regressed('error'), decided: false }, 5.6)]), 'undecided');
  assert.equal(settled([row(metrics[0]!, 12, { ...regressed('error'), decided: true }, 3)]), 'worse');
  assert.equal(settled([row(metrics[0]!, 3, { decided: false }, 5)]), 'undecided');
  assert.equal(settled([row(metrics[0]!, 1, { decided: true }, 3)]), 'same');
  assert.equal(settled([row(metrics[0]!, -9, { verdict: 'improved' })]), 'same');
  assert.equal(
    judgementOn(compare([row(metrics[0]!, 1), row(metrics[1]!, 3, { decided: false })]), metrics, true).judgement,
    'undecided',
    'good only when every followed metric is clear of its boundary',
  );
  // One metric: no readings (the comparison's figures are that metric's), as before several were followed.
  assert.equal(judgementOn(compare([row(metrics[0]!, 1)]), [metrics[0]!]).readings, undefined);
});

test('the endpoints hold a set-aside metric while its interval reaches past error; the gate settles it on its estimate', () => {
  // Long-frame blocking set aside as noisy, +5% by its estimate with an interval past +10% (10 + 10 repeats, CV ~15%):
  // the gate calls it unchanged (below warn); the bisect's endpoints (error = warn) keep sampling: "not reproduced"
  // ends a search.
  const a = [300, 340, 290, 360, 310, 330, 280, 370, 320, 350];
  const sampleOf = (metric: string): MetricSamples => ({
    metric,
    a,
    b: a.map((v, i) => v * 1.05 + (i % 2 ? 25 : -25)),
    role: 'primary',
    better: 'lower',
    floor: 0,
    setAside: 'too noisy here',
  });
  const sample = sampleOf('longFrames.blockingMs');
  const thresholds = { warnPct: 10, errorPct: 10 };
  const gate = compareMetrics([sample], { thresholds }).rows[0]!;
  const held = compareMetrics([sample], { thresholds, holdSetAside: true }).rows[0]!;
  assert.ok(gate.deltaPct! < 10 && gate.ci!.highPct > 10, JSON.stringify(gate.ci));
  assert.equal(gate.verdict, 'unchanged');
  assert.equal(gate.decided, true, gate.reason);
  assert.equal(held.decided, false, held.reason);
  // The main thread's CPU totals hold the gate itself that way: a slower handler must not pass on a wide interval.
  for (const cpu of ['counters.threadCpuMs', 'counters.scriptMs', 'counters.taskMs']) {
    const row = compareMetrics([sampleOf(cpu)], { thresholds }).rows[0]!;
    assert.equal(row.decided, false, `${cpu}: ${row.reason}`);
  }
  // Held, it is what the bisect reads as undecided, not as "not worse".
  const c = { rows: [held], verdict: 'pass' as const, rejected: {}, gate: { alpha: ALPHA, summary: 'pass' } };
  const undecided = endpointJudgement(c, null);
  assert.equal(undecided.judgement, 'undecided');
  assert.match(
    undecided.why!,
    /^undecided at the last look, [^:]*: longFrames\.blockingMs \+\d.*\(set aside as noisy\); --metric longFrames\.blockingMs/,
  );
  assert.equal(endpointJudgement({ ...c, rows: [gate] }, null).judgement, 'same');
});
