/**
 * The shared backend: a team's PostgreSQL (pg Pool). Each run is recorded in one transaction on one pooled
 * connection; connecting and every query have deadlines that name the server, and no secret of the URL is
 * ever shown (`location` is its shownLocation; a driver's message is cleaned of them). A reader's transactions are
 * READ ONLY: the server refuses any write in them.
 */
import pg from 'pg';
import { PerfError } from '../errors.js';
import { POSTGRES_DIALECT } from './schema.js';
import { shownLocation, withoutSecretsOf } from '../url.js';
import type { Access, Query, Row, SqlDb } from './sql.js';

// 10 s to connect: a reachable server answers in milliseconds; past that it is down or firewalled.
const CONNECT_TIMEOUT_MS = 10_000;
// 60 s per query: the slowest one is a prune of a large history; longer means a lock held by someone else.
const QUERY_TIMEOUT_MS = 60_000;
// 4 connections: one process records runs one at a time; a few more serve gate --parallel and reads.
const POOL_SIZE = 4;
// A deadlock or serialization failure is retried: the other writer's transaction has finished by then.
const RETRIES = 3;

function unavailable(url: string, e: unknown, doing: string): PerfError {
  const msg = e instanceof Error ? e.message : String(e);
  return new PerfError({
    code: 'history_unavailable',
    message: `history ${shownLocation(url)}: ${doing}: ${withoutSecretsOf(url, msg.split(/\n/)[0]!)}`,
    cause: e,
  });
}

export function openPostgres(url: string, access: Access = 'create'): SqlDb {
  const location = shownLocation(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  // An idle connection the server drops must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const once = async <T>(fn: (q: Query) => Promise<T>): Promise<T> => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (e) {
      throw unavailable(url, e, `cannot connect within ${CONNECT_TIMEOUT_MS / 1000} s`);
    }
    const q: Query = async (sql, params = []) => {
      let n = 0;
      const text = sql.replace(/\?/g, () => `$${++n}`);
      return (await client.query(text, params as unknown[])).rows as Row[];
    };
    try {
      await client.query(access === 'read' ? 'BEGIN READ ONLY' : 'BEGIN');
      const out = await fn(q);
      await client.query('COMMIT');
      client.release();
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      throw e;
    }
  };
  return {
    kind: 'postgres',
    location,
    dialect: POSTGRES_DIALECT,
    migrationLock: 'SELECT pg_advisory_xact_lock(31031)',
    async tx<T>(fn: (q: Query) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(fn);
        } catch (e) {
          const code = (e as { code?: string }).code;
          if ((code === '40P01' || code === '40001') && attempt < RETRIES) continue;
          if (e instanceof PerfError) throw e;
          throw unavailable(url, e, 'query failed');
        }
      }
    },
    async close() {
      await pool.end();
    },
  };
}
