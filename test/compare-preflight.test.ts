/**
 * The preflight stage (perf/compare/preflight.ts) on hand-made run files: which pairs of runs are refused, what a
 * reader is warned of (env, left-out repeats, unfinished runs, thresholds), the thresholds used and who the runs are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { envWarnings, hostKey, identity, networkFact, preflight, runName } from '../src/perf/compare/preflight.js';
import { isPerfError } from '../src/errors.js';
import type { RepeatRecord } from '../src/perf/run-file.js';
import { ENV, measured, runOf } from './run-inputs.js';

const files = { a: 'A.json', b: 'B.json' };
const ok = runOf([measured({ x: 1 })]);
const refused: RepeatRecord = { index: 0, mode: 'timing', warmup: false, wallMs: 1, steps: [], status: 'refused', reason: 'blank' };

test('runs of different scenarios are refused unless forced, then warned of', { timeout: 10_000 }, () => {
  const other = runOf([measured({ x: 1 })], { scenario: 'dialog', variant: null });
  assert.throws(
    () => preflight(ok, other, files, {}),
    (e: unknown) =>
      isPerfError(e) && e.code === 'runs_not_comparable' && /A\.json is list-scroll \(desktop\) but B\.json is dialog$/.test(e.message),
  );
  assert.deepEqual(preflight(ok, other, files, { force: true }).warnings, ['forced: A.json is list-scroll (desktop) but B.json is dialog']);
});

test('a run without a measured repeat is refused, with what it holds', { timeout: 10_000 }, () => {
  const none = runOf([refused, measured({ x: 1 }, { warmup: true })]);
  assert.throws(
    () => preflight(ok, none, files, {}),
    (e: unknown) =>
      isPerfError(e) &&
      e.code === 'run_file_unmeasured' &&
      e.message === 'B.json: no measured repeat to compare (1 counted: 1 refused, 0 failed)',
  );
});

test('what a reader must know: left-out repeats, unfinished runs, other thresholds', { timeout: 10_000 }, () => {
  const partial = runOf([measured({ x: 1 }), refused], {
    interrupted: true,
    complete: false,
    thresholds: { warnPct: 5, errorPct: 25, metrics: {} },
  });
  const { warnings, thresholds } = preflight(ok, partial, files, {});
  assert.deepEqual(warnings, [
    'B.json: 1 refused and 0 failed repeat(s) left out; 1 measured repeat(s) compared',
    'B.json: the run was interrupted; partial results',
    'B.json: the run did not finish (killed after 2 repeat(s)); judged on what it holds',
    "the runs were made with different thresholds; using the candidate's (warn +5%, error +25%)",
  ]);
  assert.deepEqual(thresholds, { warnPct: 5, errorPct: 25, metrics: {} });
  // Thresholds given by the caller (the gate's scenario) are used as they are, without a warning.
  const given = { warnPct: 7, errorPct: 20, metrics: {} };
  const forced = preflight(ok, partial, files, { thresholds: given });
  assert.equal(forced.thresholds, given);
  assert.equal(
    forced.warnings.some((w) => w.includes('thresholds')),
    false,
  );
});

test('envWarnings: each difference in how the runs were made, one line each', { timeout: 10_000 }, () => {
  const slow = { profile: 'slow-3g', offline: false, latencyMs: 2000, downloadKbps: 400, uploadKbps: 400 };
  const b = runOf([], { env: { ...ENV, cpuThrottle: 4, network: slow, browser: { ...ENV.browser!, product: 'HeadlessChrome/141' } } });
  assert.deepEqual(envWarnings(ok, b), [
    'browser version differs: HeadlessChrome/140.0.0.0 (baseline) vs HeadlessChrome/141 (candidate)',
    'CPU throttling differs: 1 (baseline) vs 4 (candidate)',
    'network throttling differs: none (baseline) vs slow-3g (2000 ms, 400/400 kbit/s) (candidate)',
  ]);
  assert.deepEqual(envWarnings(ok, ok), []);
  assert.equal(networkFact({ ...slow, offline: true }), 'slow-3g (no connection)');
});

test('identity, runName and hostKey', { timeout: 10_000 }, () => {
  const run = runOf([measured({ x: 1 }), measured({ x: 1 }, { mode: 'attribution' }), refused, measured({ x: 1 }, { warmup: true })]);
  assert.deepEqual(identity(run, 'R.json'), {
    file: 'R.json',
    scenario: 'list-scroll',
    variant: 'desktop',
    label: 'run',
    startedAt: '2026-01-01T00:00:00.000Z',
    measured: 2,
    refused: 1,
    failed: 0,
    timingRepeats: 1,
  });
  assert.equal(runName({ scenario: 's', variant: null }), 's');
  assert.equal(hostKey(ENV), 'Test CPU ×2, linux/x64, HeadlessChrome/140.0.0.0');
  assert.equal(hostKey(undefined), 'unknown host');
});
