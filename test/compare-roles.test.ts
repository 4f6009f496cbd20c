/**
 * The roles stage (perf/compare/roles.ts) on hand-made run files: which repeats a metric is read from and the role it
 * ends with (primary, secondary, shown), why, and which primaries are listed as not judged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sampleOf, type RoleContext } from '../src/perf/compare/roles.js';
import { counted, measuredRepeats } from '../src/perf/compare/samples.js';
import type { RepeatRecord, RunFile } from '../src/perf/run-file.js';
import { ENV, measured, runOf } from './run-inputs.js';

/** The context metricSamples would build for these runs, with `primary` as the primary forms. */
function ctxOf(a: RunFile, b: RunFile, primary: string[], more: Partial<RoleContext> = {}): RoleContext {
  const [recA, recB] = [counted(a), counted(b)];
  const [repA, repB] = [measuredRepeats(recA), measuredRepeats(recB)];
  return {
    a,
    b,
    recA,
    recB,
    repA,
    repB,
    opts: {},
    timingGated: repA.some((r) => r.mode === 'timing') && repB.some((r) => r.mode === 'timing'),
    sameHost: true,
    painted: { a: 60, b: 60 },
    perFrameOk: true,
    primaryForms: new Map(primary.map((m) => [m, m])),
    tentative: () => false,
    notJudged: [],
    ...more,
  };
}

const cpu = (ms: number, mode: 'timing' | 'attribution' = 'timing'): RepeatRecord => measured({ 'counters.threadCpuMs': ms }, { mode });

test('an unknown name is shown, read from every measured repeat', { timeout: 10_000 }, () => {
  const a = runOf([measured({ 'made.up': 1 }), measured({ 'made.up': 2 }, { mode: 'attribution' })]);
  const s = sampleOf('made.up', ctxOf(a, a, []));
  assert.equal(s.role, 'shown');
  assert.deepEqual(s.a, [1, 2]);
  assert.equal(s.note, 'not a metric this version declares');
});

test('ms are read from the timing-mode repeats when both runs have them', { timeout: 10_000 }, () => {
  const a = runOf([cpu(100), cpu(900, 'attribution'), cpu(110)]);
  const b = runOf([cpu(120), cpu(950, 'attribution')]);
  const ctx = ctxOf(a, b, ['counters.threadCpuMs']);
  const s = sampleOf('counters.threadCpuMs', ctx);
  assert.equal(s.role, 'primary');
  assert.deepEqual([s.a, s.b], [[100, 110], [120]]);
  assert.deepEqual(ctx.notJudged, []);
});

test('a primary in ms without timing repeats in both runs is secondary, read from all, and listed not judged', { timeout: 10_000 }, () => {
  const a = runOf([cpu(100, 'attribution'), cpu(110, 'attribution')]);
  const b = runOf([cpu(120), cpu(130, 'attribution')]);
  const ctx = ctxOf(a, b, ['counters.threadCpuMs']);
  const s = sampleOf('counters.threadCpuMs', ctx);
  assert.equal(s.role, 'secondary');
  assert.deepEqual(s.b, [120, 130]);
  assert.match(s.note ?? '', /attribution-mode repeats/);
  assert.deepEqual(
    ctx.notJudged.map((x) => x.metric),
    ['counters.threadCpuMs'],
  );
});

test('a baseline from another host: ms are shown; a count the same in every baseline repeat still gates', { timeout: 10_000 }, () => {
  const layouts = (n: number): RepeatRecord => measured({ 'counters.layouts': n, 'counters.threadCpuMs': 100 });
  const a = runOf([layouts(4), layouts(4), layouts(4)]);
  const b = runOf([layouts(5), layouts(5), layouts(5)], { env: { ...ENV, host: { ...ENV.host!, cpuModel: 'Other CPU' } } });
  const ctx = ctxOf(a, b, ['counters.layouts', 'counters.threadCpuMs'], { sameHost: false });
  assert.equal(sampleOf('counters.threadCpuMs', ctx).role, 'shown');
  const counts = sampleOf('counters.layouts', ctx);
  assert.equal(counts.role, 'primary');
  assert.equal(counts.exact, true);
  assert.match(ctx.notJudged[0]!.why, /baseline from another host \(Test CPU ×2, .*this run: Other CPU ×2/);
  // The same count varying within the baseline is paced by the machine: shown too.
  const varying = runOf([layouts(4), layouts(6), layouts(4)]);
  const paced = sampleOf('counters.layouts', ctxOf(varying, b, ['counters.layouts'], { sameHost: false }));
  assert.equal(paced.role, 'shown');
  assert.match(paced.note ?? '', /varies from repeat to repeat/);
});

test('a primary one run lost stays primary (a missing row), unmeasurable when its driver cannot produce it', { timeout: 10_000 }, () => {
  const a = runOf([measured({ 'counters.layouts': 4 }), measured({ 'counters.layouts': 4 })]);
  const b = runOf([measured({ other: 1 })]);
  const lost = sampleOf('counters.layouts', ctxOf(a, b, ['counters.layouts']));
  assert.equal(lost.role, 'primary');
  assert.deepEqual([lost.a, lost.b, lost.unmeasurable], [[4, 4], [], undefined]);
  const bidi = runOf([measured({ other: 1 })], { env: { ...ENV, browser: { ...ENV.browser!, driver: 'bidi' } } });
  assert.equal(
    sampleOf('counters.layouts', ctxOf(a, bidi, ['counters.layouts'])).unmeasurable,
    'the bidi-firefox driver does not produce it',
  );
});

test('a recent primary the baseline never measured is shown, with how to gate it', { timeout: 10_000 }, () => {
  const a = runOf([measured({ other: 1 }), measured({ other: 1 })]);
  const b = runOf([measured({ 'interactions.processingMs': 30 })]);
  const ctx = ctxOf(a, b, ['interactions.processingMs']);
  const s = sampleOf('interactions.processingMs', ctx);
  assert.equal(s.role, 'shown');
  assert.match(s.note ?? '', /perf gate --update/);
  assert.equal(ctx.notJudged.length, 1);
});

test('under enough painted frames: a paced frame count is secondary, its per-frame ratio shown', { timeout: 10_000 }, () => {
  const reps = [measured({ 'frames.overBudget': 1, 'frames.painted': 6 }), measured({ 'frames.overBudget': 2, 'frames.painted': 7 })];
  const run = runOf(reps);
  const ctx = ctxOf(run, run, ['frames.overBudget'], { perFrameOk: false, painted: { a: 6.5, b: 6.5 } });
  const count = sampleOf('frames.overBudget', ctx);
  assert.equal(count.role, 'secondary');
  assert.deepEqual(count.events, { a: [1, 2], b: [1, 2], exposureA: [1, 1], exposureB: [1, 1] });
  assert.match(ctx.notJudged[0]!.why, /too coarse to gate/);
  assert.equal(sampleOf('frames.overBudget.perFrame', ctx).role, 'shown');
});

test('arms of one interleaved run are paired round by round; exact counts are not', { timeout: 10_000 }, () => {
  const arm = (role: 'baseline' | 'candidate', at: number, ms: number[]): RunFile =>
    runOf(
      ms.map((v, i) => measured({ 'counters.threadCpuMs': v, 'counters.layouts': 4 }, { sequence: at + 4 * i })),
      { against: { role, other: 'x', order: 'ABBA' } },
    );
  const a = arm('baseline', 0, [10, 11, 12, 13, 14]);
  const b = arm('candidate', 1, [20, 21, 22, 23, 24]);
  const ctx = ctxOf(a, b, ['counters.threadCpuMs', 'counters.layouts']);
  assert.deepEqual(sampleOf('counters.threadCpuMs', ctx).pairs, { a: [10, 11, 12, 13, 14], b: [20, 21, 22, 23, 24] });
  assert.equal(sampleOf('counters.layouts', ctx).pairs, undefined);
  // The same runs not marked as one --against run: no pairs.
  const plain = ctxOf({ ...a, against: undefined }, b, ['counters.threadCpuMs']);
  assert.equal(sampleOf('counters.threadCpuMs', plain).pairs, undefined);
});
