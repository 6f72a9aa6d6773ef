/**
 * The daily budget in Postgres (table `token_usage`, migrations in drizzle/): the store for several
 * replicas, which then share one budget per user and one service-wide spend. Same semantics as the
 * SQLite store: a reservation is one call of `budget_reserve` and a charge one call of `budget_charge`
 * (drizzle/0006_budget-functions.sql), each one round trip that checks and adds tokens, money and the
 * service's spend together under the rows' locks, so concurrent calls from any number of replicas never
 * lose an update nor pass a limit. Reads and the prune are Drizzle's prepared statements; the function
 * calls go through the driver, which prepares them once per connection.
 */
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { tokenUsage } from '../db/schema.js';
import type { Reservation, TokenBudgetStore, UtcDay } from './token-budget.js';

export interface PostgresBudgetStoreOptions {
  /** The service's database handle (src/db/client.ts); migrations must have run. */
  database: Database;
  /** Whether `close()` ends the database pool (true when the store owns its own handle). */
  ownsDatabase?: boolean;
}

/** A budget store over the `token_usage` table. */
export function createPostgresBudgetStore(options: PostgresBudgetStoreOptions): TokenBudgetStore {
  const { db, sql: driver } = options.database;
  const selectRow = db
    .select({ tokens: tokenUsage.tokens, nanoUsd: tokenUsage.nanoUsd })
    .from(tokenUsage)
    .where(and(eq(tokenUsage.bucket, sql.placeholder('bucket')), eq(tokenUsage.day, sql.placeholder('day'))))
    .prepare('token_usage_row');
  const prune = db
    .delete(tokenUsage)
    .where(lt(tokenUsage.day, sql.placeholder('day')))
    .returning({ bucket: tokenUsage.bucket })
    .prepare('token_usage_prune');
  const whole = (n: number) => Math.round(n);

  return {
    async used(bucket: string, day: UtcDay) {
      const [row] = await selectRow.execute({ bucket, day });
      return row ? Number(row.tokens) : 0;
    },
    async spent(bucket: string, day: UtcDay) {
      const [row] = await selectRow.execute({ bucket, day });
      return row ? Number(row.nanoUsd) : 0;
    },
    async charge(bucket, day, tokens, spend) {
      const [row] = await driver<{ tokens: string }[]>`
        select budget_charge(${bucket}::text, ${day}::date, ${whole(tokens)}::bigint, ${whole(spend?.nanoUsd ?? 0)}::bigint, ${spend?.service === true}::boolean) as tokens`;
      if (!row || row.tokens === null) throw new Error('token budget charge returned no row');
      return Number(row.tokens);
    },
    async reserve(bucket, day, amount, limits): Promise<Reservation> {
      const [row] = await driver<{ outcome: string; service_nano: string | null }[]>`
        select outcome, service_nano from budget_reserve(${bucket}::text, ${day}::date,
          ${Math.max(0, whole(amount.tokens))}::bigint, ${Math.max(0, whole(amount.nanoUsd))}::bigint,
          ${limits.tokens}::bigint, ${limits.nanoUsd}::bigint, ${limits.serviceNanoUsd}::bigint)`;
      if (!row) throw new Error('token budget reservation returned no row');
      if (row.outcome === 'ok') return { held: true, serviceNanoUsd: row.service_nano === null ? null : Number(row.service_nano) };
      return { held: false, refusedBy: row.outcome === 'service' ? 'service' : row.outcome === 'spend' ? 'spend' : 'tokens' };
    },
    async pruneBefore(day: UtcDay) {
      const rows = await prune.execute({ day });
      return rows.length;
    },
    async close() {
      if (options.ownsDatabase) await options.database.close();
    },
  };
}
