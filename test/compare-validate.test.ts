/**
 * Before the stages (perf/compare/validate.ts, schema.ts): a run file is checked against its schema and what a schema
 * cannot say per metric (counts of events are whole numbers ≥ 0); a compare result read back is checked against
 * COMPARISON_SCHEMA. Every refusal is a usage error naming the file and the JSON path. Hand-made inputs, no browser.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateComparison, validateRunFile } from '../src/perf/compare/validate.js';
import { compareRuns } from '../src/perf/compare-runs.js';
import { isPerfError } from '../src/errors.js';
import { measured, runOf } from './run-inputs.js';

const usage = (code: string, message: RegExp) => (e: unknown) =>
  isPerfError(e) && e.kind === 'usage' && e.code === code && message.test(e.message);

test('a count of events must be a whole number ≥ 0; other metrics need not be', { timeout: 10_000 }, () => {
  const ok = runOf([measured({ 'frames.overBudget': 3, 'counters.threadCpuMs': 12.5 })]);
  assert.equal(validateRunFile(JSON.parse(JSON.stringify(ok)), 'ok.json').repeats.length, 1);
  for (const bad of [-1, 2.5]) {
    const run = runOf([measured({ 'frames.overBudget': 1 }), measured({ 'frames.overBudget': bad })]);
    assert.throws(
      () => validateRunFile(JSON.parse(JSON.stringify(run)), 'bad.json'),
      usage(
        'run_file_invalid',
        /^bad\.json: .*repeats\[1\]\.report\.metrics\["frames\.overBudget"\] must be a whole number of frames, at least 0$/,
      ),
    );
  }
});

test('another schemaVersion is refused with what this perf reads', { timeout: 10_000 }, () => {
  assert.throws(
    () => validateRunFile({ ...runOf([]), schemaVersion: 2 }, 'v2.json'),
    usage('run_file_schema', /^v2\.json: run file schemaVersion 2; this perf reads schemaVersion 1$/),
  );
});

test('a comparison reads back as written; a changed verdict is refused at its path', { timeout: 10_000 }, () => {
  const run = runOf([1, 2, 3, 4].map((v) => measured({ 'counters.layouts': 4 + v })));
  const written = JSON.parse(JSON.stringify(compareRuns(run, run)));
  assert.deepEqual(validateComparison(written, 'c.json'), written);
  assert.throws(() => validateComparison({ ...written, verdict: 'maybe' }, 'c.json'), usage('compare_file_invalid', /^c\.json: .*verdict/));
});
