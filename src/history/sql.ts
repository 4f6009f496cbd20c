/**
 * What a backend gives the store: parameterised SQL (`?` placeholders) and transactions. The store's logic
 * (store.ts) is written once against this; sqlite.ts and postgres.ts differ only below it.
 */
import { PerfError } from '../errors.js';
import { dialectSql, LATEST_VERSION, MIGRATIONS, VERSION_TABLE, type Dialect } from './schema.js';

export type Row = Record<string, unknown>;
/**
 * What a command does with a history: `read` changes nothing (show, changes, perf_history); `write` changes one that
 * exists (prune); `create` records, creating the file or tables, or migrating them, as needed (run, gate, add, bisect).
 */
export type Access = 'read' | 'write' | 'create';
export type Query = (sql: string, params?: readonly unknown[]) => Promise<Row[]>;

export interface SqlDb {
  readonly kind: 'sqlite' | 'postgres';
  readonly location: string;
  readonly dialect: Dialect;
  /** Taken first in a migration's transaction so that writers opening one database at once migrate it once (PG). */
  readonly migrationLock: string | null;
  /** One transaction: committed when fn resolves, rolled back when it throws. */
  tx<T>(fn: (q: Query) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function storedVersion(q: Query): Promise<number> {
  const rows = await q('SELECT version FROM schema_version');
  return rows.length ? Number(rows[0]!.version) : 0;
}

async function versionIn(q: Query): Promise<number> {
  await q(VERSION_TABLE.replace('CREATE TABLE', 'CREATE TABLE IF NOT EXISTS'));
  return storedVersion(q);
}

// Whether the version table exists, asked of the catalog: a reader must not create it to find out.
const HAS_VERSION_TABLE: Record<SqlDb['kind'], string> = {
  sqlite: "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
  postgres: "SELECT 1 AS found FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_version'",
};

/**
 * The check of a reader or pruner, in place of migrating: the database holds a history this perf can read. Every
 * version from 1 reads and prunes as the latest does (versions 2 and 3 added indexes and bisect's cache, which no
 * read uses); none of perf's tables: not a history (exit 2); newer than this perf: refused as a writer refuses it.
 */
export async function checkReadable(db: SqlDb): Promise<void> {
  const version = await db.tx(async (q) => ((await q(HAS_VERSION_TABLE[db.kind])).length ? storedVersion(q) : 0));
  if (version === 0 || !Number.isInteger(version))
    throw new PerfError({
      code: 'history_not_ours',
      message: `history ${db.location}: holds no rehearse history (no runs were ever recorded into it)`,
    });
  if (version > LATEST_VERSION) throw newerSchema(db, version);
}

function newerSchema(db: SqlDb, version: number): PerfError {
  return new PerfError({
    code: 'history_schema_newer',
    message: `history ${db.location}: schema version ${version} is newer than this perf knows (${LATEST_VERSION})`,
  });
}

/** The applied schema version (0: empty database). */
export function schemaVersion(db: SqlDb): Promise<number> {
  return db.tx(versionIn);
}

/**
 * Migrate up or down to `target`, each step in its own transaction (a failed step leaves the previous
 * version whole). A database newer than this perf is refused rather than written with an older layout.
 */
export async function migrateTo(db: SqlDb, target: number = LATEST_VERSION): Promise<void> {
  for (;;) {
    const done = await db.tx(async (q) => {
      if (db.migrationLock) await q(db.migrationLock);
      const current = await versionIn(q);
      if (current > LATEST_VERSION) throw newerSchema(db, current);
      if (current === target) return true;
      const up = current < target;
      const step = up ? MIGRATIONS.find((m) => m.version === current + 1) : MIGRATIONS.find((m) => m.version === current);
      if (!step) return true;
      for (const sql of up ? step.up : step.down) await q(dialectSql(sql, db.dialect));
      await q('DELETE FROM schema_version');
      await q('INSERT INTO schema_version (version) VALUES (?)', [up ? step.version : step.version - 1]);
      return false;
    });
    if (done) return;
  }
}

/** Rows of `values` in chunks, as one multi-row INSERT each: 100 rows keeps every backend far under its parameter limit. */
export async function insertMany(q: Query, head: string, rows: readonly unknown[][], tail = ''): Promise<void> {
  const CHUNK = 100; // SQLite allows 32,766 parameters, PostgreSQL 65,535: 100 rows × 5 columns is far under both
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    const one = `(${part[0]!.map(() => '?').join(', ')})`;
    await q(`${head} VALUES ${part.map(() => one).join(', ')}${tail}`, part.flat());
  }
}

/** `?, ?, …` for an IN list. */
export function marks(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}
