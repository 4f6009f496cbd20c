/**
 * The history store on a real PostgreSQL server the test starts (test/pg-server.ts): migrations up and down
 * both ways, record/series/runFile, a password never shown; and many writers at once (issue 31 part 5): 4
 * processes (`perf history add`) record 25 runs each into one server → exactly 100 runs and every sample; the
 * same 4 again → still 100. Without PostgreSQL's binaries the tests fail saying what to install.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgres } from '../src/history/postgres.js';
import { migrateTo, schemaVersion } from '../src/history/sql.js';
import { LATEST_VERSION } from '../src/history/schema.js';
import { openHistory } from '../src/history/open.js';
import { storedSamples } from '../src/history/rebuild.js';
import { readRunFile } from '../src/perf/compare-runs.js';
import type { RunFile } from '../src/perf/run-file.js';
import { perfCli, ROOT } from './helpers.js';
import { postgresBin, POSTGRES_MISSING, startPostgres, type PgServer } from './pg-server.js';

const work = mkdtempSync(join(tmpdir(), 'rehearse-history-pg-'));
const BASE = readRunFile(join(ROOT, 'baselines/routes.json'));
const GIT = { commit: 'c0', branch: 'main', mergeBase: 'c0', subject: 's', authorDate: '2026-01-01T00:00:00Z' };
let server: PgServer | undefined;

before(async () => {
  if (postgresBin()) server = await startPostgres();
});
after(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

function pgServer(): PgServer {
  if (!server) assert.fail(POSTGRES_MISSING);
  return server;
}

async function newDatabase(name: string): Promise<string> {
  const c = new pg.Client({ connectionString: pgServer().url, connectionTimeoutMillis: 10_000 });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  return pgServer().url.replace(/\/postgres$/, `/${name}`);
}

function nthRun(i: number): RunFile {
  const startedAt = new Date(Date.parse('2026-01-01T00:00:00Z') + i * 60_000).toISOString();
  return { ...BASE, startedAt, finishedAt: startedAt };
}

test(
  'PostgreSQL: migrations up, down to empty and up again; record, series and runFile; no password shown',
  { timeout: 120_000 },
  async () => {
    const url = (await newDatabase('migrate')).replace('postgres@', 'postgres:s3cret@');
    const db = openPostgres(url);
    assert.doesNotMatch(db.location, /s3cret/);
    assert.equal(await schemaVersion(db), 0);
    await migrateTo(db);
    assert.equal(await schemaVersion(db), LATEST_VERSION);
    const tables = async (): Promise<string[]> =>
      (await db.tx((q) => q("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"))).map((r) =>
        String(r.name),
      );
    assert.deepEqual(await tables(), [
      'bisect_comparisons',
      'hosts',
      'metrics',
      'projects',
      'runs',
      'samples',
      'scenarios',
      'schema_version',
      'verdicts',
    ]);
    await migrateTo(db, 0);
    assert.deepEqual(await tables(), ['schema_version']);
    await migrateTo(db, 1);
    await migrateTo(db);
    await db.close();

    const store = await openHistory(url);
    try {
      assert.equal(store.kind, 'postgres');
      assert.deepEqual(await store.recordRun({ run: nthRun(0), git: GIT, project: 'p' }), { runId: 1, created: true });
      assert.deepEqual(await store.recordRun({ run: nthRun(0), git: GIT, project: 'p' }), { runId: 1, created: false });
      // perf bisect's comparisons, replaced under the same key (ON CONFLICT … DO UPDATE on PostgreSQL too).
      await store.putBisectComparison('k', '{"judgement":"same"}');
      await store.putBisectComparison('k', '{"judgement":"worse"}');
      assert.equal(await store.bisectComparison('k'), '{"judgement":"worse"}');
      const series = await store.series({ scenario: 'routes', metric: 'durationMs' });
      assert.equal(series.length, 1);
      assert.equal(series[0]!.median, BASE.summary.metrics.durationMs!.median);
      assert.deepEqual((await store.runFile(1)).summary.metrics, BASE.summary.metrics);
    } finally {
      await store.close();
    }
    // A server that is not there: an environment error naming it, without the password, within the connect deadline.
    const down = await perfCli(work, ['history', 'prune', '--keep-runs', '1', '--history', 'postgres://u:s3cret@127.0.0.1:1/x'], 60_000);
    assert.equal(down.code, 3, down.stderr);
    assert.match(down.stderr, /history postgres:\/\/u@127\.0\.0\.1:1\/x: cannot connect/);
    assert.doesNotMatch(down.stderr, /s3cret/);
  },
);

test(
  '4 writers at once record 25 runs each into one PostgreSQL: 100 runs, every sample; again: still 100',
  { timeout: 240_000 },
  async () => {
    const url = await newDatabase('writers');
    const writers = [0, 1, 2, 3].map((w) =>
      Array.from({ length: 25 }, (_, i) => {
        const file = join(work, `w${w}-${i}.json`);
        writeFileSync(file, JSON.stringify(nthRun(w * 25 + i)));
        return file;
      }),
    );
    for (const round of [1, 2]) {
      const results = await Promise.all(
        writers.map((files) => perfCli(work, ['history', 'add', ...files, '--history', url, '--json'], 180_000)),
      );
      for (const r of results) assert.equal(r.code, 0, r.stderr);
      const created = results.flatMap((r) => JSON.parse(r.stdout).results as { created: boolean }[]).filter((x) => x.created).length;
      assert.equal(created, round === 1 ? 100 : 0);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const runs = Number((await c.query('SELECT COUNT(*) AS n FROM runs')).rows[0].n);
      const distinct = Number((await c.query('SELECT COUNT(DISTINCT started_at) AS n FROM runs')).rows[0].n);
      const samples = Number((await c.query('SELECT COUNT(*) AS n FROM samples')).rows[0].n);
      await c.end();
      assert.equal(runs, 100);
      assert.equal(distinct, 100);
      assert.equal(samples, 100 * storedSamples(BASE).length);
    }
  },
);
