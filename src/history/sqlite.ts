/**
 * The embedded backend: one SQLite file (better-sqlite3). WAL so that readers (perf history show, the
 * report) never wait for a recording; a busy timeout so that two processes recording at once (CI shards on
 * one machine) queue instead of failing; each run recorded in one IMMEDIATE transaction.
 */
import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { PerfError } from '../errors.js';
import { ensureDir, refuseSymlinks } from '../files.js';
import { SQLITE_DIALECT } from './schema.js';
import type { Query, Row, SqlDb } from './sql.js';

// 10 s: a run's transaction takes milliseconds; ten seconds of waiting means another process holds the file for good.
const BUSY_TIMEOUT_MS = 10_000;

export function openSqlite(file: string): SqlDb {
  // Its folder one part at a time: a recursive mkdir under /proc spins forever (src/files.ts), and a path
  // that cannot hold a file is the user's to fix (exit 2 naming it), not a history that failed to open.
  if (file !== ':memory:') {
    ensureDir(dirname(file), `--history ${file}`);
    // SQLite opens the database through a link at its path, creating what a dangling one names (measured): a
    // link planted in a repository's .perf/ would have it write wherever that leads. The journals it creates
    // and removes beside it are held to the same rule.
    refuseSymlinks([file, `${file}-wal`, `${file}-shm`, `${file}-journal`], '--history');
  }
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    db.pragma('journal_mode = WAL');
    // NORMAL under WAL: a power cut may lose the last run recorded, never corrupt the file (the run file is on disk anyway).
    db.pragma('synchronous = NORMAL');
    // Reads through a memory map (256 MiB covers a 10,000-run history): a series touches pages without a syscall each.
    db.pragma('mmap_size = 268435456');
  } catch (e) {
    throw new PerfError({
      code: 'history_unavailable',
      message: `history ${file}: cannot open the SQLite file: ${(e as Error).message}`,
      cause: e,
    });
  }
  const statements = new Map<string, Database.Statement>();
  const query: Query = async (sql, params = []) => {
    let st = statements.get(sql);
    if (!st) statements.set(sql, (st = db.prepare(sql)));
    if (st.reader) return st.all(...params) as Row[];
    st.run(...params);
    return [];
  };
  // One connection, many async callers (gate --parallel): transactions take turns.
  let turn: Promise<unknown> = Promise.resolve();
  return {
    kind: 'sqlite',
    location: file,
    dialect: SQLITE_DIALECT,
    migrationLock: null,
    tx<T>(fn: (q: Query) => Promise<T>): Promise<T> {
      const run = turn.then(async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const out = await fn(query);
          db.exec('COMMIT');
          return out;
        } catch (e) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw e;
        }
      });
      turn = run.catch(() => undefined);
      return run.catch((e: unknown) => {
        throw wrap(e, file);
      });
    },
    async close() {
      await turn;
      db.close();
    },
  };
}

/** A SQLite failure (disk full, read-only, locked past the timeout) names the file; a PerfError passes as it is. */
function wrap(e: unknown, file: string): unknown {
  if (e instanceof PerfError || !(e instanceof Error) || !('code' in e) || !String(e.code).startsWith('SQLITE_')) return e;
  return new PerfError({ code: 'history_unavailable', message: `history ${file}: ${e.message}`, cause: e });
}
