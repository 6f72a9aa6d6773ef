/**
 * The database handle: one `postgres` driver pool and the Drizzle instance over it. Built by
 * `server.ts` (or a test) from DATABASE_URL and passed to the stores; never a module-level client.
 */
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema.js';

export type Db = PostgresJsDatabase<typeof schema>;

export interface Database {
  db: Db;
  /** The raw driver, for the few statements Drizzle does not model (advisory locks, catalog reads). */
  sql: postgres.Sql;
  /** Ends the pool, waiting up to a few seconds for running queries; idempotent. */
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** Pool size; the service is I/O-light per turn, so a small pool is enough. */
  max?: number;
  /** Seconds before a connection attempt fails (startup must not hang on a dead host). */
  connectTimeoutSeconds?: number;
}

/**
 * The longest wait, in seconds, before a pooled connection tries the database again. The driver's own
 * backoff grows as 3^n / 100 seconds up to 20 s over the retries of every connection of the pool, so
 * after an outage of a few seconds a query waited 10-20 s for a connection to the database that was
 * already back (measured: docs/perf-log/2026-11-29-database-return.md). Trying again within a second
 * costs a refused connect a second per connection while the database is away.
 */
export const MAX_RECONNECT_DELAY_SECONDS = 1;

/** The wait before the pool's `retries`-th attempt to reach the database again: doubling from 50 ms to MAX_RECONNECT_DELAY_SECONDS, with jitter so a pool's connections do not try in step. */
export function reconnectDelaySeconds(retries: number): number {
  return Math.min(0.05 * 2 ** retries, MAX_RECONNECT_DELAY_SECONDS) * (0.5 + Math.random() / 2);
}

/**
 * Connects lazily: the first query opens a connection. The driver is mended at install
 * (scripts/patch-postgres-driver.mjs: a closed connection forgets its socket), and reconnects within a
 * second of the database's return (reconnectDelaySeconds).
 */
export function createDatabase(url: string, options: DatabaseOptions = {}): Database {
  const sql = postgres(url, {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    backoff: reconnectDelaySeconds,
    // Notices ("extension already exists, skipping") go to console by default: not our log format.
    onnotice: () => undefined,
  });
  const db = drizzle(sql, { schema });
  let closing: Promise<void> | null = null;
  return {
    db,
    sql,
    close() {
      closing ??= sql.end({ timeout: 5 });
      return closing;
    },
  };
}
