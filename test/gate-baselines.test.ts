/**
 * The committed baselines (baselines/*.json, real Chromium runs of every bundled scenario) gated against the
 * unchanged code through the real CLI. Its assertions are counts of the app's own work and, on another
 * host, the verdict that only those gate: nothing here depends on measured time, so it runs in the
 * browser lane beside other jobs, not alone in the timing lane (it is the suite's longest single test).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunFile } from '../src/perf/run-file.js';
import type { RunsComparison } from '../src/perf/compare-runs.js';
import { ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-gate-baselines-'));
after(() => rmSync(work, { recursive: true, force: true }));

function perf(args: string[], timeoutMs: number): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/perf'), ...args], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_STEP_SUMMARY: '' },
    timeout: timeoutMs,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test(
  "the committed baselines on unchanged code: every scenario is compared, the app's own work never regresses, another host passes",
  { timeout: 600_000 },
  () => {
    const scenarios = readdirSync(join(ROOT, 'scenarios'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(ROOT, 'scenarios', f));
    const r = perf(['gate', ...scenarios, '--baselines', join(ROOT, 'baselines'), '--out', 'committed', '--json'], 600_000);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const j = JSON.parse(r.stdout) as { runs: { id: string; status: string; verdict: string; compare?: RunsComparison }[] };
    assert.equal(j.runs.length, 9);
    for (const run of j.runs) {
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
