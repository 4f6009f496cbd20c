/**
 * What a backend gives the store: parameterised SQL (`?` placeholders) and transactions. The store's logic
 * (store.ts) is written once against this; sqlite.ts and postgres.ts differ only below it.
 */
import { PerfError } from '../errors.js';
import { dialectSql, LATEST_VERSION, MIGRATIONS, type Dialect } from './schema.js';

export type Row = Record<string, unknown>;
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

async function versionIn(q: Query): Promise<number> {
  await q('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  const rows = await q('SELECT version FROM schema_version');
  return rows.length ? Number(rows[0]!.version) : 0;
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
      if (current > LATEST_VERSION) {
        throw new PerfError({
          code: 'history_schema_newer',
          message: `history ${db.location}: schema version ${current} is newer than this perf knows (${LATEST_VERSION})`,
        });
      }
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
