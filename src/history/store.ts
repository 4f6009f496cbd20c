/**
 * The history store (types.ts HistoryStore) over any SqlDb: recording, series, runs, rebuilding a run
 * file, prune. Names are stored once (projects, scenarios, hosts, metrics) and referenced by integer.
 */
import { hostKey } from '../perf/compare-runs.js';
import { isTimingMetric } from '../perf/metrics.js';
import type { RunFile } from '../perf/run-file.js';
import { median } from '../perf/stats.js';
import { insertMany, marks, type Query, type Row, type SqlDb } from './sql.js';
import { rebuildRunFile, runMeta, storedSamples } from './rebuild.js';
import type { HistoryStore, RecordInput, SeriesPoint, SeriesQuery, StoredRun, VerdictInput } from './types.js';

const RUN_COLUMNS =
  'r.id, p.name AS project, sc.name AS scenario, sc.variant, r.label, r.git_commit, r.branch, r.merge_base, r.subject, ' +
  'r.author_date, h.host_key, r.tool_version, r.started_at, r.finished_at, r.complete, r.measured';
const RUN_JOINS =
  'FROM runs r JOIN scenarios sc ON sc.id = r.scenario_id JOIN projects p ON p.id = sc.project_id JOIN hosts h ON h.id = r.host_id';

function str(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

function storedRun(row: Row): StoredRun {
  return {
    runId: Number(row.id),
    project: String(row.project),
    scenario: String(row.scenario),
    variant: row.variant === '' ? null : String(row.variant),
    label: String(row.label),
    git: {
      commit: str(row.git_commit),
      branch: str(row.branch),
      mergeBase: str(row.merge_base),
      subject: str(row.subject),
      authorDate: str(row.author_date),
    },
    hostKey: String(row.host_key),
    toolVersion: String(row.tool_version),
    startedAt: String(row.started_at),
    finishedAt: String(row.finished_at),
    complete: Number(row.complete) === 1,
    repeats: Number(row.measured),
  };
}

/** The id of a name row, inserted when new (ON CONFLICT: two writers adding the same name both get the one row). */
async function idOf(q: Query, table: string, cols: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<number> {
  const keys = Object.keys(cols);
  const where = keys.map((k) => `${k} = ?`).join(' AND ');
  const found = await q(`SELECT id FROM ${table} WHERE ${where}`, Object.values(cols));
  if (found.length) return Number(found[0]!.id);
  const all = { ...cols, ...extra };
  await q(
    `INSERT INTO ${table} (${Object.keys(all).join(', ')}) VALUES (${marks(Object.keys(all).length)}) ` +
      `ON CONFLICT (${keys.join(', ')}) DO NOTHING`,
    Object.values(all),
  );
  return Number((await q(`SELECT id FROM ${table} WHERE ${where}`, Object.values(cols)))[0]!.id);
}

/** Metric name → id for every name, new ones inserted in sorted order (concurrent writers lock them in one order: no deadlock). */
async function metricIds(q: Query, names: string[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const r of await q('SELECT id, name FROM metrics')) ids.set(String(r.name), Number(r.id));
  const missing = [...new Set(names)].filter((n) => !ids.has(n)).sort();
  if (missing.length) {
    await insertMany(
      q,
      'INSERT INTO metrics (name, timing)',
      missing.map((n) => [n, isTimingMetric(n) ? 1 : 0]),
      ' ON CONFLICT (name) DO NOTHING',
    );
    const got = await q(`SELECT id, name FROM metrics WHERE name IN (${marks(missing.length)})`, missing);
    for (const r of got) ids.set(String(r.name), Number(r.id));
  }
  return ids;
}

type VariantFilter = { project?: string; scenario?: string; variant?: string | null };

export class SqlHistoryStore implements HistoryStore {
  readonly kind: 'sqlite' | 'postgres';
  readonly location: string;
  constructor(readonly db: SqlDb) {
    this.kind = db.kind;
    this.location = db.location;
  }

  recordRun(input: RecordInput): Promise<{ runId: number; created: boolean }> {
    const { run, git, project } = input;
    const samples = storedSamples(run);
    return this.db.tx(async (q) => {
      const projectId = await idOf(q, 'projects', { name: project });
      const scenarioId = await idOf(q, 'scenarios', { project_id: projectId, name: run.scenario, variant: run.variant ?? '' });
      const hostId = await idOf(q, 'hosts', { host_key: hostKey(run.env) });
      const ids = await metricIds(
        q,
        samples.map((s) => s.metric),
      );
      const key = [scenarioId, run.label, run.startedAt, hostId];
      const inserted = await q(
        'INSERT INTO runs (scenario_id, label, started_at, host_id, finished_at, complete, git_commit, branch, merge_base, subject, ' +
          'author_date, tool_version, measured, timing_only, meta, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ' +
          'ON CONFLICT (scenario_id, label, started_at, host_id) DO NOTHING RETURNING id',
        [
          ...key,
          run.finishedAt,
          run.complete === false ? 0 : 1,
          git.commit,
          git.branch,
          git.mergeBase,
          git.subject,
          git.authorDate,
          run.env.tool.version,
          new Set(samples.map((s) => s.repeat)).size,
          run.summary.timingOnly ? 1 : 0,
          JSON.stringify(runMeta(run)),
          new Date().toISOString(),
        ],
      );
      if (!inserted.length) {
        const found = await q('SELECT id FROM runs WHERE scenario_id = ? AND label = ? AND started_at = ? AND host_id = ?', key);
        return { runId: Number(found[0]!.id), created: false };
      }
      const runId = Number(inserted[0]!.id);
      const rows = samples.map((s) => [runId, ids.get(s.metric)!, s.repeat, s.mode === 'timing' ? 0 : 1, s.value]);
      await insertMany(q, 'INSERT INTO samples (run_id, metric_id, repeat_index, mode, value)', rows);
      return { runId, created: true };
    });
  }

  recordVerdict(v: VerdictInput): Promise<void> {
    return this.db.tx(async (q) => {
      await q('DELETE FROM verdicts WHERE candidate_run_id = ? AND COALESCE(baseline_run_id, 0) = ?', [
        v.candidateRunId,
        v.baselineRunId ?? 0,
      ]);
      await q('INSERT INTO verdicts (candidate_run_id, baseline_run_id, verdict, metrics, recorded_at) VALUES (?, ?, ?, ?, ?)', [
        v.candidateRunId,
        v.baselineRunId,
        v.verdict,
        JSON.stringify(v.metrics),
        new Date().toISOString(),
      ]);
    });
  }

  /** The scenario ids a filter names (several when the variant or project is left open). */
  private async scenarioIds(q: Query, f: VariantFilter): Promise<number[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (f.scenario !== undefined) where.push('sc.name = ?') && params.push(f.scenario);
    if (f.variant !== undefined) where.push('sc.variant = ?') && params.push(f.variant ?? '');
    if (f.project !== undefined) where.push('p.name = ?') && params.push(f.project);
    const rows = await q(
      `SELECT sc.id FROM scenarios sc JOIN projects p ON p.id = sc.project_id${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`,
      params,
    );
    return rows.map((r) => Number(r.id));
  }

  series(sq: SeriesQuery): Promise<SeriesPoint[]> {
    return this.db.tx(async (q) => {
      const scenarios = await this.scenarioIds(q, sq);
      const metric = (await q('SELECT id, timing FROM metrics WHERE name = ?', [sq.metric]))[0];
      if (!scenarios.length || !metric) return [];
      const where = [`r.scenario_id IN (${marks(scenarios.length)})`];
      const params: unknown[] = [...scenarios];
      if (sq.branch !== undefined) where.push('r.branch = ?') && params.push(sq.branch);
      if (sq.hostKey !== undefined) {
        const host = (await q('SELECT id FROM hosts WHERE host_key = ?', [sq.hostKey]))[0];
        if (!host) return [];
        where.push('r.host_id = ?') && params.push(host.id);
      }
      if (sq.since !== undefined) where.push('r.started_at >= ?') && params.push(sq.since);
      if (sq.limit !== undefined) {
        where.push(
          `r.id IN (SELECT r2.id FROM runs r2 WHERE ${where.join(' AND ').replace(/\br\./g, 'r2.')} ` +
            'AND EXISTS (SELECT 1 FROM samples s2 WHERE s2.run_id = r2.id AND s2.metric_id = ?) ' +
            'ORDER BY r2.started_at DESC, r2.id DESC LIMIT ?)',
        );
        params.push(...params, metric.id, sq.limit);
      }
      // With timing repeats beside attribution ones, a run's ms metrics are its timing repeats' (as its summary's).
      const modes = Number(metric.timing) === 1 ? ' AND (r.timing_only = 0 OR s.mode = 0)' : '';
      // Two lean queries, not one wide join: the values (one row each), then the runs (one row per run): a series of
      // 10,000 runs × 10 repeats then builds 10,000 run rows rather than 100,000.
      const values = await q(
        `SELECT r.id, s.value FROM runs r JOIN samples s ON s.run_id = r.id AND s.metric_id = ?${modes} ` +
          // By start time only: the runs index yields that order, so no sort of every value (a run's values come together).
          `WHERE ${where.join(' AND ')} ORDER BY r.started_at`,
        [metric.id, ...params],
      );
      const runs = new Map<number, Row>();
      for (const row of await q(`SELECT ${RUN_COLUMNS} ${RUN_JOINS} WHERE ${where.join(' AND ')}`, params)) runs.set(Number(row.id), row);
      const byRun = new Map<number, SeriesPoint>();
      for (const row of values) {
        const id = Number(row.id);
        const point = byRun.get(id);
        if (point) point.values.push(Number(row.value));
        else byRun.set(id, { run: storedRun(runs.get(id)!), values: [Number(row.value)], median: 0 });
      }
      const points = [...byRun.values()];
      for (const p of points) p.median = median(p.values);
      return points;
    });
  }

  metrics(mq: { project?: string; scenario: string; variant?: string | null }): Promise<string[]> {
    return this.db.tx(async (q) => {
      const scenarios = await this.scenarioIds(q, mq);
      if (!scenarios.length) return [];
      const rows = await q(
        'SELECT m.name FROM metrics m WHERE EXISTS (SELECT 1 FROM runs r JOIN samples s ON s.run_id = r.id AND s.metric_id = m.id ' +
          `WHERE r.scenario_id IN (${marks(scenarios.length)})) ORDER BY m.name`,
        scenarios,
      );
      return rows.map((r) => String(r.name));
    });
  }

  runs(rq: Parameters<HistoryStore['runs']>[0]): Promise<StoredRun[]> {
    return this.db.tx(async (q) => {
      const where: string[] = [];
      const params: unknown[] = [];
      if (rq.scenario !== undefined || rq.project !== undefined || rq.variant !== undefined) {
        const scenarios = await this.scenarioIds(q, rq);
        if (!scenarios.length) return [];
        where.push(`r.scenario_id IN (${marks(scenarios.length)})`) && params.push(...scenarios);
      }
      if (rq.commit !== undefined) where.push('r.git_commit = ?') && params.push(rq.commit);
      if (rq.branch !== undefined) where.push('r.branch = ?') && params.push(rq.branch);
      if (rq.hostKey !== undefined) where.push('h.host_key = ?') && params.push(rq.hostKey);
      const limit = rq.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(rq.limit))}` : '';
      const rows = await q(
        `SELECT ${RUN_COLUMNS} ${RUN_JOINS}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ` +
          `ORDER BY r.started_at DESC, r.id DESC${limit}`,
        params,
      );
      return rows.map(storedRun);
    });
  }

  runFile(runId: number): Promise<RunFile> {
    return this.db.tx(async (q) => {
      const run = (await q(`SELECT ${RUN_COLUMNS}, r.meta ${RUN_JOINS} WHERE r.id = ?`, [runId]))[0];
      if (!run) throw new Error(`history ${this.location}: no run ${runId}`);
      const samples = await q(
        'SELECT m.name, s.repeat_index, s.mode, s.value FROM samples s JOIN metrics m ON m.id = s.metric_id WHERE s.run_id = ? ' +
          'ORDER BY s.repeat_index, m.name',
        [runId],
      );
      return rebuildRunFile(
        storedRun(run),
        String(run.meta),
        samples.map((s) => ({ metric: String(s.name), repeat: Number(s.repeat_index), value: Number(s.value) })),
        `${this.location} run ${runId}`,
      );
    });
  }

  prune(pq: { keepDays?: number; keepRuns?: number }): Promise<{ runsDeleted: number; samplesDeleted: number }> {
    return this.db.tx(async (q) => {
      const doomed = new Set<number>();
      if (pq.keepDays !== undefined) {
        const cutoff = new Date(Date.now() - pq.keepDays * 86_400_000).toISOString();
        for (const r of await q('SELECT id FROM runs WHERE started_at < ?', [cutoff])) doomed.add(Number(r.id));
      }
      if (pq.keepRuns !== undefined) {
        const rows = await q(
          'SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY scenario_id ORDER BY started_at DESC, id DESC) AS n ' +
            'FROM runs) ranked ' +
            'WHERE n > ?',
          [pq.keepRuns],
        );
        for (const r of rows) doomed.add(Number(r.id));
      }
      return deleteRuns(q, [...doomed]);
    });
  }

  bisectComparison(key: string): Promise<string | undefined> {
    return this.db.tx(async (q) => {
      const rows = await q('SELECT comparison FROM bisect_comparisons WHERE cache_key = ?', [key]);
      return rows.length ? String(rows[0]!.comparison) : undefined;
    });
  }

  putBisectComparison(key: string, json: string): Promise<void> {
    return this.db.tx(async (q) => {
      await q(
        'INSERT INTO bisect_comparisons (cache_key, comparison, recorded_at) VALUES (?, ?, ?) ' +
          'ON CONFLICT (cache_key) DO UPDATE SET comparison = excluded.comparison, recorded_at = excluded.recorded_at',
        [key, json, new Date().toISOString()],
      );
    });
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

async function deleteRuns(q: Query, ids: number[]): Promise<{ runsDeleted: number; samplesDeleted: number }> {
  let samplesDeleted = 0;
  const CHUNK = 500; // far under every backend's parameter limit
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = ids.slice(i, i + CHUNK);
    const inList = `(${marks(part.length)})`;
    samplesDeleted += Number((await q(`SELECT COUNT(*) AS n FROM samples WHERE run_id IN ${inList}`, part))[0]!.n);
    await q(`DELETE FROM samples WHERE run_id IN ${inList}`, part);
    await q(`DELETE FROM verdicts WHERE candidate_run_id IN ${inList}`, part);
    await q(`UPDATE verdicts SET baseline_run_id = NULL WHERE baseline_run_id IN ${inList}`, part);
    await q(`DELETE FROM runs WHERE id IN ${inList}`, part);
  }
  return { runsDeleted: ids.length, samplesDeleted };
}
