/**
 * The host stage (perf/compare/host.ts over perf/host-busy.ts) on hand-made rows and host records: a difference that
 * followed a busy candidate or a saturated machine becomes inconclusive and the verdict follows; the app's own counts
 * still decide; interleaved arms are never judged saturated; and the host record of the comparison.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { holdPlaced, hostRecord, judgeHost, judgeUnplaced, placedPct } from '../src/perf/compare/host.js';
import type { AttributionLine } from '../src/perf/attribution.js';
import type { CompareResult } from '../src/perf/compare.js';
import type { RunFile } from '../src/perf/run-file.js';
import { ENV, measured, resultOf, rowOf, runOf } from './run-inputs.js';

/** Six repeats whose host records say other processes used `foreign` % of the CPU. */
function armOf(foreign: number, more: Partial<RunFile> = {}): RunFile {
  const host = { benchmarkIndex: 100, loadAverage1: 1, stealPct: 0, foreignCpuPct: foreign };
  return runOf(
    Array.from({ length: 6 }, () => measured({ 'counters.threadCpuMs': 100 }, { host })),
    more,
  );
}

const never = {
  rejudge: (): CompareResult => assert.fail('no repeat was busier than the other arm: nothing to re-judge'),
  thresholds: () => ({ warnPct: 10, errorPct: 25 }),
};

test("a stored baseline on a saturated machine: ms rows inconclusive, the app's own counts still decide", { timeout: 10_000 }, () => {
  const rows = resultOf([rowOf('counters.threadCpuMs'), rowOf('counters.layouts', { severity: 'warn' })]);
  const { result, busy } = judgeHost(armOf(70), armOf(75), rows, never);
  const cpu = result.rows.find((r) => r.metric === 'counters.threadCpuMs')!;
  assert.deepEqual([cpu.verdict, cpu.severity, cpu.decided, cpu.needRepeats], ['inconclusive', 'none', false, null]);
  assert.equal(
    cpu.reason,
    "machine saturated: other processes used 70% of the CPU during the baseline's repeats and 75% during the candidate's, " +
      'so their milliseconds compare two moments of that load, not two builds. Was: as judged',
  );
  assert.equal(result.rows.find((r) => r.metric === 'counters.layouts')!.verdict, 'regressed');
  // The verdict follows the rows again: the count's warn stands behind the undecided ms.
  assert.equal(result.verdict, 'inconclusive');
  assert.deepEqual(result.rejected, { 'counters.layouts': 'worse' });
  assert.deepEqual(busy?.metrics, ['counters.threadCpuMs']);
  assert.match(busy?.note ?? '', /counters\.threadCpuMs not judged; rerun on a quieter machine/);
});

test(
  'saturated: a noisy row that settled unchanged on a drift past warn is inconclusive too; one within warn stands',
  { timeout: 10_000 },
  () => {
    const settled = { verdict: 'unchanged', severity: 'none', decided: true } as const;
    const drifted = rowOf('counters.scriptMs', { ...settled, deltaPct: -12.7, b: { median: 87.3, n: 6 } });
    const near = rowOf('counters.taskMs', { ...settled, deltaPct: -4, b: { median: 96, n: 6 } });
    const secondary = rowOf('counters.styleMs', { ...settled, deltaPct: -30, gated: false, role: 'secondary' });
    const { result, busy } = judgeHost(armOf(70), armOf(65), resultOf([drifted, near, secondary]), never);
    const by = Object.fromEntries(result.rows.map((r) => [r.metric, r.verdict]));
    assert.deepEqual(by, { 'counters.scriptMs': 'inconclusive', 'counters.taskMs': 'unchanged', 'counters.styleMs': 'unchanged' });
    assert.equal(result.verdict, 'inconclusive');
    assert.deepEqual(busy?.metrics, ['counters.scriptMs']);
  },
);

test('the arms of one interleaved run share the moment: never judged saturated', { timeout: 10_000 }, () => {
  const rows = resultOf([rowOf('counters.threadCpuMs')]);
  const a = armOf(70, { against: { role: 'baseline', other: 'b', order: 'ABBA' } });
  const b = armOf(75, { against: { role: 'candidate', other: 'a', order: 'ABBA' } });
  const judged = judgeHost(a, b, rows, never);
  assert.equal(judged.result, rows);
  assert.equal(judged.busy, undefined);
  // Below the saturation level nothing is said either.
  assert.equal(judgeHost(armOf(30), armOf(30), rows, never).result, rows);
});

test("a candidate on a busier host: a change the host's slowdown accounts for is inconclusive", { timeout: 10_000 }, () => {
  const rows = resultOf([rowOf('counters.threadCpuMs')]);
  let asked = 0;
  const quiet = {
    rejudge: (_a: RunFile, b: RunFile): CompareResult => {
      asked++;
      // No candidate repeat was quiet: none is left to judge.
      assert.equal(b.repeats.length, 0);
      return resultOf([rowOf('counters.threadCpuMs', { b: { median: NaN, n: 0 }, verdict: 'missing' })]);
    },
    thresholds: () => ({ warnPct: 10, errorPct: 25 }),
  };
  const { result, busy } = judgeHost(armOf(2), armOf(50), rows, quiet);
  assert.equal(asked, 1);
  const cpu = result.rows[0]!;
  assert.equal(cpu.verdict, 'inconclusive');
  assert.match(
    cpu.reason,
    /^host busy during 6 of 12 repeats: the \+30% regression follows the host's speed, not the build; the host's own slowdown \(\+96%/,
  );
  assert.match(cpu.reason, /\. Was: as judged$/);
  assert.deepEqual([result.verdict, result.rejected], ['inconclusive', {}]);
  assert.match(busy?.note ?? '', /mostly the candidate's/);
});

test('hostRecord: one kind of machine, or what another host means for the verdict; and the busy host', { timeout: 10_000 }, () => {
  const a = armOf(0);
  const b = armOf(0, { env: { ...ENV, host: { ...ENV.host!, cpus: 8 } } });
  assert.deepEqual(hostRecord(true, a, a, undefined), { same: true });
  const other = hostRecord(false, a, b, undefined);
  assert.equal(other.same, false);
  assert.match(
    other.note ?? '',
    /^baseline from another host \(Test CPU ×2, linux\/x64, HeadlessChrome\/140\.0\.0\.0; this run: Test CPU ×8,/,
  );
  const busy = { repeats: 3, of: 12, metrics: ['m'], note: 'busy', headline: 'host busy during 3 of 12 repeats' };
  assert.deepEqual(hostRecord(true, a, a, busy), { same: true, busy: { repeats: 3, of: 12, note: 'busy' } });
});

/** An attribution line of `kind` whose shift explains `share` of a +30 ms row, its interval clear of zero or not. */
function line(kind: AttributionLine['kind'], share: number, sure = true): AttributionLine {
  const deltaMs = 30 * share;
  return {
    kind,
    name: `f${share}`,
    url: '/app.js:1:1',
    a: 10,
    b: 10 + deltaMs,
    deltaMs,
    ci: { lowMs: sure ? deltaMs / 2 : -1, highMs: deltaMs * 2 },
    share,
  };
}

const T = (): { warnPct: number; errorPct: number } => ({ warnPct: 10, errorPct: 25 });

test(
  'a stored baseline: an ms regression its code places do not add up to is inconclusive; a placed one stays',
  { timeout: 10_000 },
  () => {
    // Rows of +30 % on a baseline median of 100 ms; a line of share s grew 30·s ms.
    const placed = rowOf('interactions.processingMs', { attribution: { lines: [line('function', 1.02)], repeats: { a: 3, b: 3 } } });
    const spread = rowOf('longFrames.blockingMs', {
      // A slower moment: the top functions grew a little each (6 %, 5 % of the change), a long task by most of it (not a
      // code place), and one function by 30 % without a sure interval.
      attribution: {
        lines: [line('longTask', 0.9), line('function', 0.06), line('function', 0.05), line('function', 0.3, false)],
        repeats: { a: 3, b: 3 },
      },
    });
    // Half of the change placed (+15 ms on 100): a real regression, but a warn, not the error the whole row reads.
    const half = rowOf('counters.scriptMs', { attribution: { lines: [line('function', 0.5)], repeats: { a: 3, b: 3 } } });
    const noProfile = rowOf('counters.threadCpuMs', { attribution: { lines: [], repeats: { a: 0, b: 0 }, missing: 'no CPU profile' } });
    // A step's wall time and a load's milestones also wait on the network, which no profile places: judged as they were.
    const step = rowOf('steps.open.ms', { attribution: { lines: [line('function', 0.05)], repeats: { a: 3, b: 3 } } });
    const layouts = rowOf('counters.layouts', { attribution: { lines: [], repeats: { a: 3, b: 3 } } });
    assert.ok(Math.abs(placedPct(placed)! - 30.6) < 1e-9);
    assert.ok(Math.abs(placedPct(spread)! - 3.3) < 1e-9);
    assert.equal(placedPct(noProfile), null);
    const rows = resultOf([placed, spread, half, noProfile, step, layouts]);
    const { result, busy } = judgeUnplaced(armOf(40), armOf(40), rows, undefined, T);
    const judged = Object.fromEntries(result.rows.map((r) => [r.metric, `${r.verdict} ${r.severity}`]));
    assert.deepEqual(judged, {
      'interactions.processingMs': 'regressed error',
      'longFrames.blockingMs': 'inconclusive none',
      'counters.scriptMs': 'regressed warn',
      'counters.threadCpuMs': 'regressed error',
      'steps.open.ms': 'regressed error',
      'counters.layouts': 'regressed error',
    });
    assert.match(result.rows[1]!.reason, /^stored baseline: the code places that surely grew add up to \+3% of the \+30%, below warn/);
    assert.deepEqual(busy?.metrics, ['longFrames.blockingMs']);
    // No repeat was slow: 0 of the 12 with a host record (the code's places said it, not the host's readings).
    assert.deepEqual([busy?.repeats, busy?.of], [0, 12]);
    assert.equal(result.verdict, 'fail');
    // Interleaved arms share the moment: judged as they were.
    const a = armOf(40, { against: { role: 'baseline', other: 'b', order: 'ABBA' } });
    const b = armOf(40, { against: { role: 'candidate', other: 'a', order: 'ABBA' } });
    assert.equal(judgeUnplaced(a, b, rows, undefined, T).result, rows);
    // Only the spread row regressed: no longer a fail; only the half-placed one: a warn.
    assert.equal(judgeUnplaced(armOf(40), armOf(40), resultOf([spread]), undefined, T).result.verdict, 'inconclusive');
    assert.equal(judgeUnplaced(armOf(40), armOf(40), resultOf([half]), undefined, T).result.verdict, 'warn');
  },
);

test(
  'a stored row that reads unchanged while code places surely grew by warn or more is held inconclusive; interleaved arms are not',
  { timeout: 10_000 },
  () => {
    const T = () => ({ warnPct: 10, errorPct: 25 });
    const settled = { verdict: 'unchanged', severity: 'none', decided: true, deltaPct: 4, b: { median: 104, n: 6 } } as const;
    const rows = resultOf([rowOf('counters.scriptMs', settled), rowOf('counters.layouts', settled), rowOf('steps.open.ms', settled)]);
    // trackScroll +30 ms a repeat on a 100 ms row (+30 %), its interval clear of zero; a place not sure counts nothing.
    const places = [{ ...line('function', 1), name: 'trackScroll' }, line('function', 0.5, false)];
    const { result, busy } = holdPlaced(armOf(40), armOf(40), rows, undefined, { places, thresholds: T });
    const by = Object.fromEntries(result.rows.map((r) => [r.metric, r.verdict]));
    // Only a main-thread ms total is held: a count is the app's own work, a step's wall time waits on more than code.
    assert.deepEqual(by, { 'counters.scriptMs': 'inconclusive', 'counters.layouts': 'unchanged', 'steps.open.ms': 'unchanged' });
    assert.match(
      result.rows[0]!.reason,
      /code places surely grew \+30 ms a repeat \(\+30% of the row; trackScroll \/app\.js:1:1 \+30\.0 ms\)/,
    );
    assert.equal(result.verdict, 'inconclusive');
    assert.deepEqual([busy?.metrics, busy?.repeats, busy?.of], [['counters.scriptMs'], 0, 12]);
    // Places below warn of the row, or arms of one interleaved run: judged as they were.
    const small = [{ ...line('function', 0.2) }];
    assert.equal(holdPlaced(armOf(40), armOf(40), rows, undefined, { places: small, thresholds: T }).result, rows);
    const a = armOf(40, { against: { role: 'baseline', other: 'b', order: 'ABBA' } });
    const b = armOf(40, { against: { role: 'candidate', other: 'a', order: 'ABBA' } });
    assert.equal(holdPlaced(a, b, rows, undefined, { places, thresholds: T }).result, rows);
  },
);
