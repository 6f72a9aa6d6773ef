/**
 * The token budget in SQLite (better-sqlite3): the default store, one file shared by every process on
 * the machine. WAL mode lets readers run beside the single writer; `busy_timeout` makes a second
 * process wait for the write lock instead of failing; every statement is prepared once.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TokenBudgetStore, UtcDay } from './token-budget.js';

export interface SqliteBudgetStoreOptions {
  /** File path (config.budget.sqlitePath), or `:memory:` for a private database. */
  path: string;
  /** How long a writer waits for another process's lock before the store reports a failure. */
  busyTimeoutMs?: number;
  /** The clock for `updated_at` (diagnostics only; days come from the caller). */
  now?: () => Date;
}

/** Opens (creating when needed) the SQLite budget file and prepares its statements. */
export function createSqliteBudgetStore(options: SqliteBudgetStoreOptions): TokenBudgetStore {
  const now = options.now ?? (() => new Date());
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
  // NORMAL is durable enough in WAL mode: a power cut may lose the last charges, never corrupt the file.
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS token_usage (
    bucket TEXT NOT NULL,
    day TEXT NOT NULL,
    tokens INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (bucket, day)
  ) WITHOUT ROWID`);

  const selectUsed = db.prepare<[string, string], number>('SELECT tokens FROM token_usage WHERE bucket = ? AND day = ?').pluck();
  // One statement per charge: the addition happens inside SQLite, so no read-modify-write race.
  type Row = { bucket: string; day: string; tokens: number; at: string };
  const upsert = db
    .prepare<[Row], number>(
      `INSERT INTO token_usage (bucket, day, tokens, updated_at) VALUES (@bucket, @day, max(0, @tokens), @at)
       ON CONFLICT (bucket, day) DO UPDATE SET tokens = max(0, tokens + @tokens), updated_at = excluded.updated_at
       RETURNING tokens`,
    )
    .pluck();
  // One statement per reservation: the row is written only when the new total stays within the limit
  // (SQLite runs one writer at a time, so two reservations cannot both see the old total).
  const reserveRow = db
    .prepare<[Row & { limit: number }], number>(
      `INSERT INTO token_usage (bucket, day, tokens, updated_at) SELECT @bucket, @day, @tokens, @at WHERE @tokens <= @limit
       ON CONFLICT (bucket, day) DO UPDATE SET tokens = tokens + excluded.tokens, updated_at = excluded.updated_at
         WHERE tokens + excluded.tokens <= @limit
       RETURNING tokens`,
    )
    .pluck();
  const prune = db.prepare<[string]>('DELETE FROM token_usage WHERE day < ?');
  let closed = false;

  return {
    async used(bucket: string, day: UtcDay) {
      return selectUsed.get(bucket, day) ?? 0;
    },
    async charge(bucket: string, day: UtcDay, tokens: number) {
      const total = upsert.get({ bucket, day, tokens: Math.round(tokens), at: now().toISOString() });
      if (total === undefined) throw new Error('token budget upsert returned no row');
      return total;
    },
    async reserve(bucket: string, day: UtcDay, tokens: number, limit: number) {
      const total = reserveRow.get({ bucket, day, tokens: Math.max(0, Math.round(tokens)), at: now().toISOString(), limit });
      return total ?? null;
    },
    async pruneBefore(day: UtcDay) {
      return prune.run(day).changes;
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
