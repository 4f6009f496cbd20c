/**
 * The history store on SQLite (issue 31): migrations up and down both ways, recording (idempotent), series,
 * a stored run rebuilt as a run file that compare accepts, prune; `perf history add|prune` through the CLI;
 * `perf run --history` of a real bundled scenario in Chromium records every measured sample; a history that
 * cannot be opened keeps the run file and exits 3.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqlite } from '../src/history/sqlite.js';
import { migrateTo, schemaVersion } from '../src/history/sql.js';
import { LATEST_VERSION } from '../src/history/schema.js';
import { openHistory } from '../src/history/open.js';
import { storedSamples } from '../src/history/rebuild.js';
import { compareRuns, readRunFile } from '../src/perf/compare-runs.js';
import type { RunFile } from '../src/perf/run-file.js';
import type { GitInfo } from '../src/history/types.js';
import { perfCli, ROOT } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-history-'));
after(() => rmSync(work, { recursive: true, force: true }));
const BASE = readRunFile(join(ROOT, 'baselines/routes.json'));
const GIT: GitInfo = { commit: 'c0', branch: 'main', mergeBase: 'c0', subject: 'first', authorDate: '2026-01-01T00:00:00Z' };

/** The committed routes baseline as the i-th run of a series: its own start time, every value times `factor`. */
function nthRun(base: RunFile, i: number, factor = 1): RunFile {
  const startedAt = new Date(Date.parse('2026-01-01T00:00:00Z') + i * 3_600_000).toISOString();
  return {
    ...base,
    startedAt,
    finishedAt: startedAt,
    repeats: base.repeats.map((r) =>
      r.status === 'measured'
        ? { ...r, report: { ...r.report, metrics: Object.fromEntries(Object.entries(r.report.metrics).map(([k, v]) => [k, v * factor])) } }
        : r,
    ),
  };
}

const tables = (file: string): string[] => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name").all() as { name: string }[]).map(
      (r) => r.name,
    );
  } finally {
    db.close();
  }
};

test('migrations: up to the latest, down to empty, and up again; each step in order', { timeout: 30_000 }, async () => {
  const file = join(work, 'migrate.sqlite');
  const db = await openSqlite(file);
  assert.equal(await schemaVersion(db), 0);
  await migrateTo(db);
  assert.equal(await schemaVersion(db), LATEST_VERSION);
  const full = tables(file);
  for (const t of ['projects', 'scenarios', 'hosts', 'metrics', 'runs', 'samples', 'verdicts', 'runs_by_scenario', 'bisect_comparisons'])
    assert.ok(full.includes(t), t);
  await migrateTo(db, 1);
  assert.equal(await schemaVersion(db), 1);
  assert.ok(!tables(file).includes('runs_by_scenario'));
  await migrateTo(db, 0);
  assert.deepEqual(tables(file), ['schema_version']);
  await migrateTo(db);
  assert.deepEqual(tables(file), full);
  await db.close();
});

test('record is idempotent; series, metrics, runs, runFile (compare accepts it) and prune', { timeout: 60_000 }, async () => {
  const store = await openHistory(join(work, 'store.sqlite'));
  try {
    const first = await store.recordRun({ run: nthRun(BASE, 0), git: GIT, project: 'p' });
    assert.deepEqual(first, { runId: first.runId, created: true });
    assert.deepEqual(await store.recordRun({ run: nthRun(BASE, 0), git: GIT, project: 'p' }), { runId: first.runId, created: false });
    for (let i = 1; i < 6; i++)
      await store.recordRun({ run: nthRun(BASE, i, i < 3 ? 1 : 2), git: { ...GIT, commit: `c${i}` }, project: 'p' });
    const series = await store.series({ scenario: 'routes', metric: 'durationMs' });
    assert.equal(series.length, 6);
    assert.deepEqual(
      series.map((p) => p.run.git.commit),
      ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'],
    );
    assert.equal(series[0]!.values.length, BASE.summary.measured);
    assert.equal(series[0]!.median, BASE.summary.metrics.durationMs!.median);
    assert.ok(Math.abs(series[5]!.median - 2 * series[0]!.median) < 1e-9);
    const last2 = await store.series({ scenario: 'routes', metric: 'durationMs', limit: 2 });
    assert.deepEqual(
      last2.map((p) => p.run.git.commit),
      ['c4', 'c5'],
    );
    assert.deepEqual(await store.series({ scenario: 'routes', metric: 'no.such.metric' }), []);
    assert.deepEqual(await store.metrics({ scenario: 'routes' }), Object.keys(BASE.summary.metrics).sort());
    assert.equal((await store.runs({ scenario: 'routes', commit: 'c3' })).length, 1);

    const rebuilt = await store.runFile(first.runId);
    assert.deepEqual(rebuilt.summary.metrics, BASE.summary.metrics);
    assert.equal(storedSamples(rebuilt).length, storedSamples(BASE).length);
    assert.equal(compareRuns(rebuilt, nthRun(BASE, 1)).verdict, 'pass');
    assert.equal(compareRuns(rebuilt, nthRun(BASE, 1, 2)).verdict, 'fail');

    await store.recordVerdict({ baselineRunId: first.runId, candidateRunId: first.runId + 5, verdict: 'fail', metrics: [] });
    const pruned = await store.prune({ keepRuns: 2 });
    assert.equal(pruned.runsDeleted, 4);
    assert.equal(pruned.samplesDeleted, 4 * storedSamples(BASE).length);
    assert.equal((await store.runs({})).length, 2);
    assert.deepEqual(await store.prune({ keepDays: 100_000 }), { runsDeleted: 0, samplesDeleted: 0 });
    assert.equal((await store.prune({ keepDays: 0 })).runsDeleted, 2);

    // perf bisect's comparisons: absent, kept, replaced under the same key.
    assert.equal(await store.bisectComparison('grid.yaml|a|b'), undefined);
    await store.putBisectComparison('grid.yaml|a|b', '{"judgement":"undecided"}');
    await store.putBisectComparison('grid.yaml|a|b', '{"judgement":"worse"}');
    assert.equal(await store.bisectComparison('grid.yaml|a|b'), '{"judgement":"worse"}');
  } finally {
    await store.close();
  }
});

test('perf history add: imports run files once (a second add skips them); prune prints counts', { timeout: 60_000 }, async () => {
  const a = join(work, 'a.json');
  const b = join(work, 'b.json');
  writeFileSync(a, JSON.stringify(nthRun(BASE, 0)));
  writeFileSync(b, JSON.stringify(nthRun(BASE, 1)));
  const add = await perfCli(work, ['history', 'add', a, b, '--commit', 'abc123', '--branch', 'main', '--history', 'cli.sqlite'], 30_000);
  assert.equal(add.code, 0, add.stderr);
  assert.match(add.stdout, /^added {3}.*a\.json \(run 1\)\nadded {3}.*b\.json \(run 2\)\n$/);
  const again = await perfCli(work, ['history', 'add', a, '--history=cli.sqlite', '--json'], 30_000);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout).results, [{ file: a, runId: 1, created: false }]);
  const bad = await perfCli(work, ['history', 'add', join(ROOT, 'package.json'), '--history', 'cli.sqlite'], 30_000);
  assert.equal(bad.code, 2, bad.stderr);
  const prune = await perfCli(work, ['history', 'prune', '--keep-runs', '1', '--history', 'cli.sqlite'], 30_000);
  assert.equal(prune.code, 0, prune.stderr);
  assert.equal(prune.stdout, `pruned 1 runs (${storedSamples(BASE).length} samples) from ${join(work, 'cli.sqlite')}\n`);
  const none = await perfCli(work, ['history', 'prune', '--history', 'cli.sqlite'], 30_000);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--keep-days N, --keep-runs N/);
});

test(
  'perf run --history: a real scenario in Chromium records one sample per measured repeat and metric',
  { timeout: 240_000 },
  async () => {
    const routes = join(ROOT, 'scenarios/routes.yaml');
    const r = await perfCli(
      work,
      ['run', routes, '--repeat', '2', '--warmup', '0', '--out', 'out', '--quiet', '--history', 'run.sqlite'],
      200_000,
    );
    assert.equal(r.code, 0, r.stderr);
    const run = readRunFile(join(work, 'out/routes-run.json'));
    const store = await openHistory(join(work, 'run.sqlite'));
    try {
      const [stored] = await store.runs({ scenario: 'routes' });
      assert.ok(stored);
      assert.equal(stored.repeats, 2);
      assert.equal(stored.startedAt, run.startedAt);
      const rebuilt = await store.runFile(stored.runId);
      assert.equal(storedSamples(rebuilt).length, storedSamples(run).length);
      assert.deepEqual(rebuilt.summary.metrics, run.summary.metrics);
    } finally {
      await store.close();
    }
    // A history that cannot be opened: the run file is written, the reason is said, exit 3.
    const blocked = join(work, 'not-a-folder');
    writeFileSync(blocked, 'x');
    const bad = await perfCli(
      work,
      ['run', routes, '--repeat', '1', '--warmup', '0', '--out', 'out2', '--quiet', `--history=${join(blocked, 'h.sqlite')}`],
      200_000,
    );
    assert.equal(bad.code, 3, bad.stderr);
    assert.ok(existsSync(join(work, 'out2/routes-run.json')));
    assert.match(
      bad.stderr,
      /history .*not-a-folder.*\n {2}hint: the run files are kept; record them later with `perf history add out2\/routes-run\.json`/,
    );
  },
);
