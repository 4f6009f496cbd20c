/**
 * The committed baselines (baselines/*.json, real Chromium runs of every bundled scenario) gated against the
 * unchanged code through the real CLI. Its assertions are counts of the app's own work and, on another
 * host, the verdict that only those gate: nothing here depends on measured time, so it runs in the
 * browser lane beside other jobs, not alone in the timing lane (it is the suite's longest single test).
 *
 * The gate waits mostly on its pages (about a sixth of its wall time is CPU), so it runs as SHARDS shards at
 * once (`--shard I/N`, as CI splits a gate across machines): the verdicts asserted are on counts, which
 * runs beside each other do not change, and the shards together must cover every scenario exactly once.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunFile } from '../src/perf/run-file.js';
import type { RunsComparison } from '../src/perf/compare-runs.js';
import { perfCli, ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-gate-baselines-'));
after(() => rmSync(work, { recursive: true, force: true }));

// Nine runs in three shards of three: each shard's wall time is about a third of the whole gate's.
const SHARDS = 3;
type GateJson = { runs: { id: string; status: string; verdict: string; compare?: RunsComparison }[] };

test(
  "the committed baselines on unchanged code: every scenario is compared, the app's own work never regresses, another host passes",
  { timeout: 600_000 },
  async () => {
    const scenarios = readdirSync(join(ROOT, 'scenarios'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(ROOT, 'scenarios', f));
    // Three fixed repeats, no timing repeats: the assertions are on counts, which a constant baseline and three
    // candidate repeats judge exactly (any change of a constant count is a regression at any n); the baselines'
    // own 10-15 repeats, the sequential extension and the uninstrumented repeats only add time here.
    const gate = [
      'gate',
      ...scenarios,
      '--baselines',
      join(ROOT, 'baselines'),
      '--repeat',
      '3',
      '--warmup',
      '0',
      '--fixed',
      '--no-timing',
      '--json',
    ];
    const shards = await Promise.all(
      Array.from({ length: SHARDS }, (_, i) =>
        perfCli(work, [...gate, '--out', `committed-${i + 1}`, '--shard', `${i + 1}/${SHARDS}`], 540_000),
      ),
    );
    const runs: GateJson['runs'] = [];
    for (const r of shards) {
      assert.ok(r.code === 0 || r.code === 1, r.stderr);
      runs.push(...(JSON.parse(r.stdout) as GateJson).runs);
    }
    assert.equal(runs.length, 9);
    assert.equal(new Set(runs.map((r) => r.id)).size, 9, 'every run in exactly one shard');
    for (const run of runs) {
      assert.equal(run.status, 'compared', `${run.id}: ${run.status}`);
      const c = run.compare!;
      // Counts of the app's own work that are the same in every baseline repeat do not depend on the
      // machine: unchanged code never regresses them. (One that varies, like dialog's style recalcs during
      // a CSS transition, is work per drawn frame: gated on the recording host only, a timing.)
      const baseline = JSON.parse(readFileSync(join(ROOT, 'baselines', `${run.id}.json`), 'utf8')) as RunFile;
      const constant = (m: string): boolean =>
        new Set(baseline.repeats.flatMap((x) => (x.status === 'measured' && !x.warmup ? [x.report.metrics[m]] : []))).size === 1;
      const own = c.rows.filter(
        (x) => /^counters\.(layouts|styleRecalcs)$/.test(x.metric) && constant(x.metric) && x.verdict === 'regressed',
      );
      assert.deepEqual(
        own.map((x) => x.metric),
        [],
        run.id,
      );
      // On another host only those are gated, so the verdict is a pass; on the recording host CPU time and
      // frame pacing are gated too, and their verdict is a timing we do not assert on.
      if (!c.host.same) assert.equal(c.verdict, 'pass', `${run.id}: ${c.gate.summary}`);
    }
  },
);
