/**
 * The primaries stage (perf/compare/primaries.ts) on hand-made samples: which family is wanted, in which form, and
 * what the noise rule does with it (a noisy default set aside, a quiet promotable one promoted), or why it does not run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choiceWords, choosePrimaries, familyForms, LOAD_FAMILY_NOTE, primaryFamily } from '../src/perf/compare/primaries.js';
import type { MetricSamples } from '../src/perf/compare.js';
import { defaultPrimaryMetrics, promotableMetrics } from '../src/perf/metrics.js';
import type { PrimaryChoiceRecord } from '../src/perf/run-file.js';
import { measured, runOf, sequentialOf } from './run-inputs.js';

const sample = (metric: string, a: number[], b: number[], role: MetricSamples['role'] = 'primary'): MetricSamples => ({
  metric,
  a,
  b,
  role,
  better: 'lower',
  floor: 1,
});
const run = runOf([measured({ 'counters.threadCpuMs': 100 })]);

test('primaryFamily: the override, else the recorded choice, else a load family, else default plus promotable', { timeout: 10_000 }, () => {
  assert.deepEqual(primaryFamily(run, { primary: ['counters.layouts'] }), {
    wanted: ['counters.layouts'],
    override: ['counters.layouts'],
    tentative: new Set(),
  });
  const recorded: PrimaryChoiceRecord = { by: 'noise', look: 1, metrics: ['counters.layouts'], demoted: [], promoted: [] };
  assert.equal(primaryFamily(run, { sequential: sequentialOf([], 10, { primaries: recorded }) }).recorded, recorded);
  const load = primaryFamily(runOf([measured({ 'load.transferBytes': 1000 })]), {});
  assert.deepEqual([load.wanted, load.fixed], [defaultPrimaryMetrics(true), LOAD_FAMILY_NOTE]);
  const plain = primaryFamily(run, {});
  assert.deepEqual(plain.wanted, [...defaultPrimaryMetrics(), ...promotableMetrics()]);
  assert.deepEqual([...plain.tentative], promotableMetrics());
});

test('familyForms: per-frame forms over enough painted frames, absolute counts otherwise, and back', { timeout: 10_000 }, () => {
  const enough = familyForms(['frames.overBudget', 'counters.threadCpuMs', 'terminal.bytesOut', 'made.up'], true);
  assert.deepEqual([...enough.primaryForms.keys()], ['frames.overBudget.perFrame', 'counters.threadCpuMs.perFrame', 'terminal.bytesOut']);
  assert.equal(enough.familyOf('frames.overBudget.perFrame'), 'frames.overBudget');
  assert.equal(enough.formOf('made.up'), undefined);
  const few = familyForms(['frames.overBudget.perFrame'], false);
  assert.deepEqual([...few.primaryForms.entries()], [['frames.overBudget', 'frames.overBudget.perFrame']]);
});

test("the scenario's metrics fix the family: no sample changes role", { timeout: 10_000 }, () => {
  const family = primaryFamily(run, { primary: ['counters.threadCpuMs'] });
  const noisy = sample('counters.threadCpuMs', [20, 300, 50, 250, 80, 200], [100]);
  const chosen = choosePrimaries([noisy], family, familyForms(family.wanted, false), {
    b: run,
    timingGated: true,
    notJudged: [],
  });
  assert.equal(chosen.by, 'scenario');
  assert.deepEqual([noisy.role, noisy.setAside], ['primary', undefined]);
});

test('the noise rule sets a noisy default aside and promotes a quiet promotable one', { timeout: 10_000 }, () => {
  const family = primaryFamily(run, {});
  const noisy = sample('counters.threadCpuMs', [20, 300, 50, 250, 80, 200], [100, 120]);
  const quiet = sample('counters.scriptMs', [100, 100, 101, 99, 100, 100], [100, 101]);
  const steady = sample('counters.layouts', [4, 4, 4, 4, 4, 4], [4, 4]);
  const other = sample('memory.domNodes', [500, 500, 500, 500, 500, 500], [], 'primary');
  const ctx = { b: run, timingGated: true, notJudged: [], look: 1 };
  const chosen = choosePrimaries([noisy, quiet, steady, other], family, familyForms(family.wanted, false), ctx);
  assert.equal(chosen.by, 'noise');
  assert.deepEqual(
    chosen.demoted.map((x) => x.metric),
    ['counters.threadCpuMs'],
  );
  assert.deepEqual(
    chosen.promoted.map((x) => x.metric),
    ['counters.scriptMs'],
  );
  // Set aside, not dropped: still primary, its note says why.
  assert.equal(noisy.role, 'primary');
  assert.match(noisy.setAside ?? '', /too noisy/);
  assert.equal(noisy.note, noisy.setAside);
  assert.deepEqual([quiet.role, steady.role], ['primary', 'primary']);
  // A promotable metric one run lost was never a candidate: secondary.
  assert.equal(other.role, 'secondary');
  assert.ok(chosen.metrics.includes('counters.scriptMs') && !chosen.metrics.includes('counters.threadCpuMs'));
  assert.match(chosen.note, /^chosen by the baseline's noise at look 1: set aside as too noisy: counters\.threadCpuMs/);
});

test('a noisy promotable main-thread ms total is set aside, not left secondary, on both paths', { timeout: 10_000 }, () => {
  const family = primaryFamily(run, {});
  // The Tabulator tries that passed (stored, then interleaved): script time too noisy to promote, past warn in the candidate.
  const script = () => sample('counters.scriptMs', [149, 120, 180, 140, 160, 110, 175, 150, 130, 170], [169, 165, 172, 160, 180]);
  const heap = () => sample('memory.heapUsedAfterGcBytes', [9e6, 6e6, 12e6, 7e6, 11e6, 5e6, 13e6, 9e6, 6.5e6, 12.5e6], [9e6]);
  const forms = familyForms(family.wanted, false);
  const [sb, hb] = [script(), heap()];
  const chosen = choosePrimaries([sb, hb], family, forms, { b: run, timingGated: true, notJudged: [], look: 1 });
  assert.equal(sb.role, 'primary');
  assert.match(sb.setAside ?? '', /not quiet enough to decide here.*set aside, it holds the gate while past warn/);
  assert.deepEqual(
    chosen.demoted.map((x) => x.metric),
    ['counters.scriptMs'],
    'recorded, so later looks keep holding',
  );
  // Not a main-thread ms total: left to the noise rule as it was.
  assert.deepEqual([hb.role, hb.setAside], ['secondary', undefined]);
  // Without timing repeats in both runs milliseconds do not gate: nothing to hold.
  const sc = script();
  choosePrimaries([sc], family, forms, { b: run, timingGated: false, notJudged: [], look: 1 });
  assert.equal(sc.setAside, undefined);
});

test('a later look keeps the recorded choice and its reasons', { timeout: 10_000 }, () => {
  const recorded: PrimaryChoiceRecord = {
    by: 'noise',
    look: 1,
    metrics: ['counters.layouts'],
    demoted: [{ metric: 'counters.threadCpuMs', why: 'too noisy here' }],
    promoted: [],
  };
  const family = primaryFamily(run, { sequential: sequentialOf([{ a: 4, b: 4 }], 10, { primaries: recorded }) });
  const cpu = sample('counters.threadCpuMs', [100, 101, 100], [100], 'secondary');
  const chosen = choosePrimaries([cpu], family, familyForms(family.wanted, false), {
    b: run,
    timingGated: true,
    notJudged: [],
  });
  assert.equal(chosen.note, 'chosen at look 1 and kept for every later look: set aside as too noisy: counters.threadCpuMs');
  assert.deepEqual([cpu.role, cpu.setAside, cpu.note], ['primary', 'too noisy here', 'too noisy here']);
});

test('choiceWords', { timeout: 10_000 }, () => {
  const none: PrimaryChoiceRecord = { by: 'noise', look: 1, metrics: [], demoted: [], promoted: [] };
  assert.equal(choiceWords(none), "the registry's primary family stands");
  const both = { ...none, demoted: [{ metric: 'x', why: '' }], promoted: [{ metric: 'y', why: '' }] };
  assert.equal(choiceWords(both), 'set aside as too noisy: x; promoted as quiet: y');
});
