/**
 * The embedded backend: one SQLite file (better-sqlite3). WAL so that readers (perf history show, the
 * report) never wait for a recording; a busy timeout so that two processes recording at once (CI shards on
 * one machine) queue instead of failing; each run recorded in one IMMEDIATE transaction.
 *
 * A file is someone's data until it proves to be a history: before any statement touches a table, its schema is
 * compared with the one perf creates (checkSchema), so a view or trigger planted in it never runs, and a file that
 * is not a history is never changed. Only `create` makes a new file; a reader opens it read-only.
 */
import type Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { PerfError } from '../errors.js';
import { ensureDir, refuseSymlinks } from '../files.js';
import { withDefaultSignals } from '../processes.js';
import { LATEST_VERSION, schemaObjects, SQLITE_DIALECT } from './schema.js';
import type { Access, Query, Row, SqlDb } from './sql.js';

// 10 s: a run's transaction takes milliseconds; ten seconds of waiting means another process holds the file for good.
const BUSY_TIMEOUT_MS = 10_000;
// The first 16 bytes of every SQLite database file (sqlite.org/fileformat.html, "The Database Header").
const SQLITE_MAGIC = 'SQLite format 3\0';

/**
 * better-sqlite3, loaded on first use: an optional dependency (a native addon that compiles where no prebuilt binary
 * is reachable), so that installing perf never compiles or fails for someone who keeps no history.
 */
async function loadSqlite(): Promise<typeof Database> {
  try {
    return (await import('better-sqlite3')).default;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') throw sqliteMissing('it is not installed', e);
    throw e;
  }
}

function sqliteMissing(why: string, cause: unknown): PerfError {
  return new PerfError({
    code: 'history_sqlite_missing',
    message: `a SQLite history needs better-sqlite3 (an optional dependency): ${why}`,
    cause,
  });
}

function notOurs(file: string, why: string): PerfError {
  return new PerfError({ code: 'history_not_ours', message: `history ${file}: not a rehearse history: ${why}` });
}

/** What is at `file`, read without SQLite: a SQLite file, or (to create a history) nothing yet. */
function checkFile(file: string, access: Access): void {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw notOurs(file, 'it is not a regular file');
    size = st.size;
  } catch (e) {
    if (e instanceof PerfError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && access === 'create') return;
    if (code === 'ENOENT')
      throw new PerfError({
        code: 'history_not_recorded',
        message: `no history at ${file}`,
        suggestion: 'record runs into it first (perf run --history, perf history add RUN.json), or name the history that holds them',
      });
    throw new PerfError({ code: 'history_unavailable', message: `history ${file}: cannot read it: ${code ?? String(e)}`, cause: e });
  }
  // SQLite writes a new file's first page with its first table, in the same call that creates it: an empty file is
  // someone else's (notes.txt), not a history in the making.
  if (size === 0) throw notOurs(file, 'the file is empty');
  const head = Buffer.alloc(SQLITE_MAGIC.length);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== SQLITE_MAGIC) throw notOurs(file, 'it is not a SQLite database');
}

/**
 * The file's schema against perf's, read from sqlite_master only (reading it runs nothing the file defines). Every
 * object must be one the migrations create, with their exact statement, and all of them up to the recorded version:
 * no view, trigger or table of anyone else's. A database with nothing in it passes when creating (it becomes a history).
 */
function checkSchema(db: Database.Database, file: string, access: Access): void {
  const rows = db.prepare('SELECT type, name, sql FROM sqlite_master').all() as { type: string; name: string; sql: string | null }[];
  if (rows.length === 0) {
    if (access === 'create') return;
    throw notOurs(file, 'the database is empty');
  }
  const ours = schemaObjects(SQLITE_DIALECT);
  for (const r of rows) {
    const auto = /^sqlite_autoindex_(\w+)_\d+$/.exec(r.name);
    if (auto && r.type === 'index' && r.sql === null && ours.get(auto[1]!)?.type === 'table') continue;
    const mine = ours.get(r.name);
    if (r.type === 'view' || r.type === 'trigger')
      throw notOurs(file, `it holds a ${r.type} "${r.name}" (perf creates none; it would run its own SQL when read)`);
    if (!mine) throw notOurs(file, `it holds ${r.type} "${r.name}", which perf never creates`);
    if (mine.type !== r.type || mine.sql !== r.sql) throw notOurs(file, `${r.type} "${r.name}" is not the one perf creates`);
  }
  if (!rows.some((r) => r.name === 'schema_version')) throw notOurs(file, 'it has no schema_version table');
  const versions = db.prepare('SELECT version FROM schema_version').all() as { version: unknown }[];
  const version = versions.length === 0 ? 0 : Number(versions[0]!.version);
  if (versions.length > 1 || !Number.isInteger(version) || version < 0) throw notOurs(file, 'its schema_version is not one perf writes');
  // Newer than this perf: migrateTo or checkReadable says so; its objects are not known here.
  if (version > LATEST_VERSION) return;
  const names = new Set(rows.map((r) => r.name));
  const missing = [...ours].find(([name, o]) => o.version <= version && !names.has(name));
  if (missing) throw notOurs(file, `${missing[1].type} "${missing[0]}" of schema version ${version} is missing`);
}

/** The connection, checked: the file is a history (or, for a writer, nothing yet). */
function connect(Sqlite: typeof Database, file: string, access: Access): Database.Database {
  const memory = file === ':memory:';
  if (!memory) {
    // SQLite opens the database through a link at its path, creating what a dangling one names (measured): a link
    // planted in a repository's .perf/ would have it write wherever that leads. Its journals are held to the same rule.
    refuseSymlinks([file, `${file}-wal`, `${file}-shm`, `${file}-journal`], '--history');
    checkFile(file, access);
  }
  let db: Database.Database | undefined;
  try {
    // Its folder one part at a time: a recursive mkdir under /proc spins forever (src/files.ts), and a path that cannot
    // hold a file is the user's to fix (exit 2 naming it), not a history that failed to open.
    if (!memory && access === 'create') ensureDir(dirname(file), `--history ${file}`);
    db = new Sqlite(file, { timeout: BUSY_TIMEOUT_MS, readonly: access === 'read', fileMustExist: access !== 'create' });
    // No SQL function with side effects runs from the schema (a view, trigger, default or index expression).
    db.pragma('trusted_schema = OFF');
    const opened = db;
    withDefaultSignals(() => checkSchema(opened, file, access));
    if (access !== 'read') {
      db.pragma('journal_mode = WAL');
      // NORMAL under WAL: a power cut may lose the last run recorded, never corrupt the file (the run file is on disk anyway).
      db.pragma('synchronous = NORMAL');
    }
    // Reads through a memory map (256 MiB covers a 10,000-run history): a series touches pages without a syscall each.
    db.pragma('mmap_size = 268435456');
    return db;
  } catch (e) {
    db?.close();
    if (e instanceof PerfError) throw e;
    // Installed with its install script skipped (npm's allowScripts, --ignore-scripts): the package without its addon.
    if (/Could not locate the bindings file|better_sqlite3\.node/.test((e as Error).message))
      throw sqliteMissing('its native addon was not built (its install script did not run)', e);
    const message = `history ${file}: cannot open the SQLite file: ${(e as Error).message}`;
    // SQLite's own "file is not a database" / "malformed schema": the file is not a history, not a broken machine.
    if (/SQLITE_(NOTADB|CORRUPT)/.test(String((e as { code?: unknown }).code))) throw notOurs(file, (e as Error).message);
    throw new PerfError({ code: 'history_unavailable', message, cause: e });
  }
}

export async function openSqlite(file: string, access: Access = 'create'): Promise<SqlDb> {
  const db = connect(await loadSqlite(), file, access);
  const statements = new Map<string, Database.Statement>();
  // Each statement runs under the default SIGINT/SIGTERM action (processes.ts withDefaultSignals): better-sqlite3 runs
  // it on this thread and offers no progress handler or interrupt, so a signal is the one way to stop a long one.
  const query: Query = async (sql, params = []) =>
    withDefaultSignals(() => {
      let st = statements.get(sql);
      if (!st) statements.set(sql, (st = db.prepare(sql)));
      if (st.reader) return st.all(...params) as Row[];
      st.run(...params);
      return [];
    });
  // A reader takes no write lock (IMMEDIATE would ask for one, which a read-only connection cannot have).
  const begin = access === 'read' ? 'BEGIN' : 'BEGIN IMMEDIATE';
  // One connection, many async callers (gate --parallel): transactions take turns.
  let turn: Promise<unknown> = Promise.resolve();
  return {
    kind: 'sqlite',
    location: file,
    dialect: SQLITE_DIALECT,
    migrationLock: null,
    tx<T>(fn: (q: Query) => Promise<T>): Promise<T> {
      const run = turn.then(async () => {
        db.exec(begin);
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
