/**
 * The verdict stage (perf/compare/verdict.ts) on hand-made rows and records: the one line that says what decided the
 * verdict or what would, the timing and sequential notes, the exit code, and the compare JSON assembled in order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareExitCode,
  comparisonOf,
  gateSummary,
  primaryChoiceOf,
  sequentialNote,
  timingOf,
  type Judged,
} from '../src/perf/compare/verdict.js';
import type { RunIdentity, SampleContext } from '../src/perf/compare/types.js';
import { resultOf, rowOf, sequentialOf } from './run-inputs.js';

const chosen = (more: Partial<SampleContext['chosen']> = {}): SampleContext['chosen'] => ({
  by: 'noise',
  look: 1,
  metrics: [],
  demoted: [],
  promoted: [],
  note: 'chosen',
  ...more,
});
const id = (measured: number, timingRepeats: number): RunIdentity => ({
  file: null,
  scenario: 's',
  variant: null,
  label: 'l',
  startedAt: 't',
  measured,
  refused: 0,
  failed: 0,
  timingRepeats,
});

test('timingOf says which repeats the ms were judged on, or why they were not', { timeout: 10_000 }, () => {
  assert.equal(timingOf(true, 4, 5).note, 'ms metrics judged on timing-mode repeats only (4 vs 5); attribution-mode ms are shown');
  assert.match(timingOf(false, 0, 0).note, /^no timing-mode repeats in either run/);
  assert.match(timingOf(false, 0, 3).note, /^only the candidate has timing-mode repeats/);
});

test('gateSummary names what failed, at which look, and what the noise rule moved', { timeout: 10_000 }, () => {
  const failed = resultOf([rowOf('a.ms'), rowOf('b.count', { verdict: 'missing' }), rowOf('c.ms', { gated: false })]);
  assert.equal(gateSummary(failed, 2, chosen()), 'a.ms error, b.count missing (not measured) at look 2');
  const moved = chosen({ demoted: [{ metric: 'x', why: '' }] });
  assert.equal(gateSummary(failed, 1, moved), 'a.ms error, b.count missing (not measured); set aside as too noisy: x');
});

test('gateSummary: what is undecided and the repeats that would decide it; a pass counts its primaries', { timeout: 10_000 }, () => {
  const undecided = (need: (number | null)[]) =>
    resultOf(need.map((n, i) => rowOf(`m${i}`, { verdict: 'inconclusive', severity: 'none', decided: false, needRepeats: n })));
  assert.equal(
    gateSummary(undecided([25, 40]), 1, chosen()),
    'undecided: m0, m1 past warn but within noise; about 40 repeats per run would decide',
  );
  assert.match(gateSummary(undecided([25, null]), 1, chosen()), /more repeats than practical would be needed$/);
  const pass = resultOf([rowOf('a', { verdict: 'unchanged', severity: 'none' }), rowOf('b', { verdict: 'unchanged', severity: 'none' })]);
  assert.equal(gateSummary(pass, 1, chosen()), '2 primary metrics within thresholds');
  assert.equal(gateSummary(pass, 1, chosen({ by: 'registry', note: 'too few' })), '2 primary metrics within thresholds; too few');
  assert.equal(
    gateSummary(resultOf([]), 1, chosen()),
    'no primary metric could be judged, so nothing decided a pass: gate.metrics in the scenario names what gates here',
  );
});

test('sequentialNote: why sampling stopped, and whether drift cancels', { timeout: 10_000 }, () => {
  const stored = sequentialOf([{ a: 5, b: 5 }], 20, { storedBaseline: true, stopped: 'decided' });
  const note = sequentialNote(stored, 2, id(5, 5), id(9, 5));
  assert.match(note, /^sequential: look 2, 9 candidate repeats, stopped because the verdict was decided/);
  assert.match(note, /against a stored baseline of 5 repeats/);
  assert.match(sequentialNote(sequentialOf([], 20), 1, id(5, 5), id(5, 5)), /both arms interleaved A B B A/);
});

test('compareExitCode: 1 on fail, and on inconclusive only when strict', { timeout: 10_000 }, () => {
  assert.deepEqual(
    (['fail', 'warn', 'pass', 'inconclusive'] as const).map((verdict) => [
      compareExitCode({ verdict }),
      compareExitCode({ verdict }, true),
    ]),
    [
      [1, 1],
      [0, 0],
      [0, 0],
      [0, 1],
    ],
  );
});

test(
  'comparisonOf: the compare JSON in DESIGN.md order, set-aside rows listed, a busy host first in the summary',
  { timeout: 10_000 },
  () => {
    const rows = [
      rowOf('a.ms', { verdict: 'inconclusive', severity: 'none', decided: false, needRepeats: 30 }),
      rowOf('b.ms', { verdict: 'unchanged', severity: 'none', setAside: 'too noisy', deltaPct: 4 }),
    ];
    const result = resultOf(rows);
    const context: SampleContext = {
      timingGated: true,
      sameHost: true,
      painted: { a: 60, b: 61 },
      primary: ['a.ms'],
      notJudged: [],
      chosen: chosen(),
    };
    const judged: Judged = {
      thresholds: { warnPct: 10, errorPct: 25, metrics: {} },
      warnings: ['w'],
      baseline: id(6, 3),
      candidate: id(6, 3),
      context,
      result,
      busy: undefined,
      host: { same: true },
      attributed: { rows, flame: { a: null, b: null } },
      insights: [],
      design: { alpha: 0.05, look: 1, sequential: undefined, stored: false },
    };
    const c = comparisonOf(judged);
    assert.deepEqual(Object.keys(c).slice(0, 7), ['verdict', 'thresholds', 'frames', 'rows', 'unchanged', 'timing', 'warnings']);
    assert.equal('blind' in c, false);
    assert.deepEqual([c.verdict, c.frames.painted, c.gate.sequential], ['inconclusive', { a: 60, b: 61 }, null]);
    assert.deepEqual(c.gate.setAside, [{ metric: 'b.ms', why: 'too noisy', deltaPct: 4 }]);
    assert.equal(c.gate.summary, 'undecided: a.ms past warn but within noise; about 30 repeats per run would decide');
    // Against a stored baseline the summary says why it may stay undecided, and what would decide it.
    const stored = comparisonOf({ ...judged, design: { ...judged.design, stored: true } });
    assert.match(stored.gate.summary, /would decide; the stored baseline is another moment of the machine .*perf run --against/);
    const busy = comparisonOf({
      ...judged,
      busy: { repeats: 4, of: 12, metrics: ['a.ms'], note: 'n', headline: 'host busy during 4 of 12 repeats' },
    });
    assert.equal(busy.gate.summary, 'host busy during 4 of 12 repeats: a.ms followed the host, not the build');
  },
);

test('primaryChoiceOf copies the recorded choice without its note', { timeout: 10_000 }, () => {
  const gate = { primary: [], notJudged: [], alpha: 0.05, look: 1, sequential: null, summary: '' };
  const c = { gate: { ...gate, chosen: chosen({ demoted: [{ metric: 'x', why: 'w' }] }) } };
  const copy = primaryChoiceOf(c);
  assert.deepEqual(copy, { by: 'noise', look: 1, metrics: [], demoted: [{ metric: 'x', why: 'w' }], promoted: [] });
  assert.equal(primaryChoiceOf({ gate }), undefined);
  copy!.demoted[0]!.why = 'changed';
  assert.equal(c.gate.chosen.demoted[0]!.why, 'w');
});
