/**
 * A busy host end to end (issue 27 item 3): an A/A `perf run --against` of the demo's list scroll, with
 * --timing so CPU milliseconds are gated, where a CPU hog per core (a spinning child process) runs only
 * during the candidate's repeats. The hogs start at the candidate's repeat-start progress event and are
 * killed at its repeat-end: the runner is not told, it only sees a busier machine. The verdict must never
 * be `fail`: `inconclusive` naming the busy host, or `pass` when no primary metric moved.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runAndJudge } from '../src/runner/judge.js';
import type { AgainstProgress } from '../src/runner/against.js';
import { loadScenario } from '../src/scenario/load.js';
import { median } from '../src/perf/stats.js';
import { defaultPrimaryMetrics } from '../src/perf/metrics.js';
import type { RepeatRecord } from '../src/perf/run-file.js';
import { ROOT } from './helpers.js';

const LIST = join(ROOT, 'scenarios/list-scroll.yaml');

/** One spinning process per core while the candidate's repeat runs; none otherwise. */
function hogsDuringCandidate(): { onProgress: (e: AgainstProgress) => void; stop: () => void } {
  let hogs: ChildProcess[] = [];
  const stop = (): void => {
    for (const h of hogs) h.kill('SIGKILL');
    hogs = [];
  };
  return {
    stop,
    onProgress: (e) => {
      if (e.kind === 'repeat-start' && e.arm === 'candidate') {
        const hog = (): ChildProcess => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
        hogs = Array.from({ length: availableParallelism() }, hog);
      } else if (e.kind === 'repeat-end') {
        stop();
      }
    },
  };
}

const counted = (repeats: RepeatRecord[]): RepeatRecord[] => repeats.filter((r) => !r.warmup && r.status === 'measured');

const NAME = "A/A --against with a CPU hog per core during the candidate's repeats only: never fail; inconclusive names the busy host";
test(NAME, { timeout: 600_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'rehearse-host-busy-'));
  const hogs = hogsDuringCandidate();
  t.after(() => {
    hogs.stop();
    rmSync(work, { recursive: true, force: true });
  });
  const sc = loadScenario(LIST, { cwd: ROOT, variant: 'desktop' });
  const { res, comparison } = await runAndJudge({
    kind: 'against',
    baseline: sc,
    candidate: sc,
    options: {
      outDir: work,
      labels: { baseline: 'quiet', candidate: 'busy' },
      repeat: 4,
      warmup: 0,
      timing: true,
      maxRepeat: 6,
      // Wall-clock metrics gated too (a scenario's gate.metrics may name them): CPU time barely moves on a
      // busy host, the window's wall time does, so this is where a busy host would fail a gate.
      compare: { primary: [...defaultPrimaryMetrics(), 'durationMs', 'counters.scriptMs'] },
      onProgress: hogs.onProgress,
    },
  });
  hogs.stop();
  assert.ok(comparison, 'both arms measured');
  // Every repeat carries the host record, and the calibration's cost is its own phase.
  for (const arm of [res.baseline.run, res.candidate.run]) {
    for (const r of arm.repeats) {
      assert.ok(r.host && r.host.benchmarkIndex > 0 && r.host.stealPct >= 0, `repeat ${r.index} of ${arm.label} has a host record`);
      assert.equal(typeof r.phasesMs?.host, 'number');
    }
  }
  const idx = (reps: RepeatRecord[]): number => median(counted(reps).map((r) => r.host!.benchmarkIndex));
  const cost = (reps: RepeatRecord[]): number => median(reps.map((r) => r.phasesMs!.host!));
  const wall = (reps: RepeatRecord[]): number => median(reps.map((r) => r.wallMs));
  const [qa, qb] = [res.baseline.run.repeats, res.candidate.run.repeats];
  t.diagnostic(
    `median benchmarkIndex quiet ${idx(qa).toFixed(1)}, busy ${idx(qb).toFixed(1)} units/ms; ` +
      `calibration cost median ${cost(qa).toFixed(1)} / ${cost(qb).toFixed(1)} ms ` +
      `of ${wall(qa).toFixed(0)} / ${wall(qb).toFixed(0)} ms per repeat`,
  );
  const both = [...res.baseline.run.repeats.map((r) => ['q', r] as const), ...res.candidate.run.repeats.map((r) => ['b', r] as const)];
  const seq = both.sort((x, y) => (x[1].sequence ?? 0) - (y[1].sequence ?? 0));
  t.diagnostic(`index by sequence: ${seq.map(([arm, r]) => `${arm}${r.host!.benchmarkIndex.toFixed(0)}`).join(' ')}`);
  t.diagnostic(`verdict ${comparison.verdict}: ${comparison.gate.summary}`);
  for (const r of comparison.rows.filter((x) => x.gated)) t.diagnostic(`${r.metric} ${r.verdict}: ${r.reason.slice(0, 200)}`);

  for (const r of comparison.rows.filter((x) => !x.gated && x.deltaPct !== null && Math.abs(x.deltaPct) >= 10)) {
    t.diagnostic(`  (${r.role}) ${r.metric} ${r.verdict} ${r.deltaPct!.toFixed(0)}%`);
  }
  assert.notEqual(comparison.verdict, 'fail', comparison.gate.summary);
  if (comparison.verdict === 'inconclusive') {
    assert.ok(comparison.host.busy, `inconclusive names the busy host: ${comparison.gate.summary}`);
    assert.match(comparison.gate.summary, /^host busy during \d+ of \d+ repeats/);
    assert.match(comparison.host.busy.note, /mostly the candidate's/);
  } else {
    assert.equal(comparison.verdict, 'pass', comparison.gate.summary);
  }
});
