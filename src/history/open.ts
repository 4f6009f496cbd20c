/** `openHistory(url)`: the backend a --history value names, migrated to this perf's schema. */
import { resolve } from 'node:path';
import { PerfError } from '../errors.js';
import { migrateTo } from './sql.js';
import { SqlHistoryStore } from './store.js';
import { DEFAULT_HISTORY } from './schema.js';

export { DEFAULT_HISTORY };

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** postgres:// or postgresql:// → PostgreSQL; anything else is a SQLite file path (its folder created). */
export async function openHistory(url: string = DEFAULT_HISTORY, cwd = process.cwd()): Promise<SqlHistoryStore> {
  if (url.trim() === '' || (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !isPostgresUrl(url))) {
    throw new PerfError({
      code: 'history_bad_url',
      message: `--history: expected a file path or postgres://…, got "${url.replace(/:[^:@/]*@/, ':***@')}"`,
    });
  }
  // The backends load here, not with this module: every CLI command imports it, and pg alone costs ~50 ms of
  // each process's start (better-sqlite3 loads a native addon).
  const db = isPostgresUrl(url)
    ? (await import('./postgres.js')).openPostgres(url)
    : (await import('./sqlite.js')).openSqlite(resolve(cwd, url));
  try {
    await migrateTo(db);
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
  return new SqlHistoryStore(db);
}
