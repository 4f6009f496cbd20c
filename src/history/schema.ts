/**
 * The history's tables, as versioned migrations applied in order (`schema_version` holds the applied one).
 * One SQL text serves SQLite and PostgreSQL: `{id}`, `{real}` and `{norowid}` are the only words that differ.
 *
 * Size (issue 31: ≤ 200 bytes per stored sample): a sample row is four small integers and a value, keyed
 * (run, metric, repeat) in a table WITHOUT ROWID on SQLite, so the key is the row and no second index exists;
 * names (project, scenario, host, metric) are stored once and referenced by integer.
 */

/** The history file when --history names none. */
export const DEFAULT_HISTORY = '.perf/history.sqlite';

export interface Dialect {
  /** An auto-numbered integer primary key. */
  id: string;
  /** An 8-byte float. */
  real: string;
  /** Appended to a table whose primary key is its whole identity (SQLite: no hidden rowid b-tree). */
  norowid: string;
}

export const SQLITE_DIALECT: Dialect = { id: 'INTEGER PRIMARY KEY', real: 'REAL', norowid: ' WITHOUT ROWID' };
export const POSTGRES_DIALECT: Dialect = { id: 'SERIAL PRIMARY KEY', real: 'DOUBLE PRECISION', norowid: '' };

export interface Migration {
  version: number;
  /** Statements, run in one transaction. */
  up: string[];
  down: string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: [
      'CREATE TABLE projects (id {id}, name TEXT NOT NULL UNIQUE)',
      // variant '' for none: a NULL in a UNIQUE key would let the same scenario be inserted twice.
      'CREATE TABLE scenarios (id {id}, project_id INTEGER NOT NULL REFERENCES projects(id), name TEXT NOT NULL, ' +
        "variant TEXT NOT NULL DEFAULT '', UNIQUE (project_id, name, variant))",
      'CREATE TABLE hosts (id {id}, host_key TEXT NOT NULL UNIQUE)',
      'CREATE TABLE metrics (id {id}, name TEXT NOT NULL UNIQUE, timing SMALLINT NOT NULL)',
      'CREATE TABLE runs (id {id}, scenario_id INTEGER NOT NULL REFERENCES scenarios(id), ' +
        'host_id INTEGER NOT NULL REFERENCES hosts(id), label TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT NOT NULL, ' +
        'complete SMALLINT NOT NULL, git_commit TEXT, branch TEXT, merge_base TEXT, subject TEXT, author_date TEXT, ' +
        'tool_version TEXT NOT NULL, measured INTEGER NOT NULL, timing_only SMALLINT NOT NULL, meta TEXT NOT NULL, ' +
        'recorded_at TEXT NOT NULL, UNIQUE (scenario_id, label, started_at, host_id))',
      // mode: 0 timing, 1 attribution (RepeatMode).
      'CREATE TABLE samples (run_id INTEGER NOT NULL REFERENCES runs(id), metric_id INTEGER NOT NULL REFERENCES metrics(id), ' +
        'repeat_index INTEGER NOT NULL, mode SMALLINT NOT NULL, value {real} NOT NULL, ' +
        'PRIMARY KEY (run_id, metric_id, repeat_index)){norowid}',
      'CREATE TABLE verdicts (id {id}, candidate_run_id INTEGER NOT NULL REFERENCES runs(id), baseline_run_id INTEGER, ' +
        'verdict TEXT NOT NULL, metrics TEXT NOT NULL, recorded_at TEXT NOT NULL)',
    ],
    down: [
      'DROP TABLE verdicts',
      'DROP TABLE samples',
      'DROP TABLE runs',
      'DROP TABLE metrics',
      'DROP TABLE hosts',
      'DROP TABLE scenarios',
      'DROP TABLE projects',
    ],
  },
  {
    version: 2,
    // A series is one scenario's runs in time order (host and timing_only in the index: its sample lookups never read a
    // runs row); a baseline is a commit's runs; a verdict is read by its candidate.
    up: [
      'CREATE INDEX runs_by_scenario ON runs (scenario_id, started_at, host_id, timing_only)',
      'CREATE INDEX runs_by_commit ON runs (git_commit)',
      'CREATE INDEX verdicts_by_candidate ON verdicts (candidate_run_id)',
    ],
    down: ['DROP INDEX verdicts_by_candidate', 'DROP INDEX runs_by_commit', 'DROP INDEX runs_by_scenario'],
  },
  {
    version: 3,
    // perf bisect's finished comparisons (runner/bisect.ts), by their key (scenario, variant, metric, vars, build and the two
    // commits), as JSON: a re-run on any machine that shares the store reuses them.
    up: ['CREATE TABLE bisect_comparisons (cache_key TEXT PRIMARY KEY, comparison TEXT NOT NULL, recorded_at TEXT NOT NULL){norowid}'],
    down: ['DROP TABLE bisect_comparisons'],
  },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The table that holds the applied version (created before the first migration, IF NOT EXISTS). */
export const VERSION_TABLE = 'CREATE TABLE schema_version (version INTEGER NOT NULL)';

/** A table or index the migrations create: its kind, its CREATE statement and the version that adds it. */
export interface SchemaObject {
  type: 'table' | 'index';
  sql: string;
  version: number;
}

/**
 * Every table and index of a history up to LATEST_VERSION, by name, with the statement that creates it: what a
 * SQLite file must hold, exactly (sqlite_master keeps each CREATE statement as it was run), to be read as a history.
 */
export function schemaObjects(d: Dialect): Map<string, SchemaObject> {
  const out = new Map<string, SchemaObject>([['schema_version', { type: 'table', sql: VERSION_TABLE, version: 0 }]]);
  for (const m of MIGRATIONS) {
    for (const sql of m.up) {
      const created = /^CREATE (TABLE|INDEX) (\w+)/.exec(sql);
      if (created) out.set(created[2]!, { type: created[1] === 'TABLE' ? 'table' : 'index', sql: dialectSql(sql, d), version: m.version });
    }
  }
  return out;
}

export function dialectSql(sql: string, d: Dialect): string {
  return sql
    .replace(/\{id\}/g, d.id)
    .replace(/\{real\}/g, d.real)
    .replace(/\{norowid\}/g, d.norowid);
}
