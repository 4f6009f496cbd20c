/**
 * `openHistory(url, cwd, access)`: the backend a --history value names. To record (`create`) it is migrated to this
 * perf's schema (a new file or the tables created); to read or prune it must already hold a history.
 */
import { resolve } from 'node:path';
import { PerfError } from '../errors.js';
import { shownLocation } from '../url.js';
import { checkReadable, migrateTo, type Access } from './sql.js';
import { SqlHistoryStore } from './store.js';
import { DEFAULT_HISTORY } from './schema.js';

export { DEFAULT_HISTORY };
export type { Access };

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * postgres:// or postgresql:// → PostgreSQL; anything else is a SQLite file path. `create` (record, bisect's cache)
 * creates the file and its folder or the tables; `read` (show, changes, perf_history) changes nothing; `read` and
 * `write` (prune) refuse a file or database that does not already hold a rehearse history.
 */
export async function openHistory(url: string = DEFAULT_HISTORY, cwd = process.cwd(), access: Access = 'create'): Promise<SqlHistoryStore> {
  if (url.trim() === '' || (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !isPostgresUrl(url))) {
    throw new PerfError({
      code: 'history_bad_url',
      message: `--history: expected a file path or postgres://…, got "${shownLocation(url)}"`,
    });
  }
  // The backends load here, not with this module: every CLI command imports it, and pg alone costs ~50 ms of
  // each process's start (better-sqlite3 loads a native addon).
  const db = isPostgresUrl(url)
    ? (await import('./postgres.js')).openPostgres(url, access)
    : await (await import('./sqlite.js')).openSqlite(resolve(cwd, url), access);
  try {
    await (access === 'create' ? migrateTo(db) : checkReadable(db));
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
  return new SqlHistoryStore(db);
}
