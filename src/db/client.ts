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

/** Connects lazily: the first query opens a connection. */
export function createDatabase(url: string, options: DatabaseOptions = {}): Database {
  const sql = postgres(url, {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
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
