/**
 * The token budget in Postgres (table `token_usage`, migration in drizzle/): the store for several
 * replicas, which then share one budget per user. Same semantics as the SQLite store: the addition
 * happens inside one `INSERT ... ON CONFLICT DO UPDATE`, which Postgres serialises per row, so
 * concurrent charges from any number of replicas never lose an update. Queries are prepared once.
 */
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { tokenUsage } from '../db/schema.js';
import type { TokenBudgetStore, UtcDay } from './token-budget.js';

export interface PostgresBudgetStoreOptions {
  /** The service's database handle (src/db/client.ts); migrations must have run. */
  database: Database;
  /** Whether `close()` ends the database pool (true when the store owns its own handle). */
  ownsDatabase?: boolean;
}

/** A budget store over the `token_usage` table. */
export function createPostgresBudgetStore(options: PostgresBudgetStoreOptions): TokenBudgetStore {
  const { db } = options.database;
  const selectUsed = db
    .select({ tokens: tokenUsage.tokens })
    .from(tokenUsage)
    .where(and(eq(tokenUsage.bucket, sql.placeholder('bucket')), eq(tokenUsage.day, sql.placeholder('day'))))
    .prepare('token_usage_used');
  const upsert = db
    .insert(tokenUsage)
    .values({
      bucket: sql.placeholder('bucket'),
      day: sql.placeholder('day'),
      tokens: sql.placeholder('tokens'),
    })
    .onConflictDoUpdate({
      target: [tokenUsage.bucket, tokenUsage.day],
      set: { tokens: sql`${tokenUsage.tokens} + excluded.tokens`, updatedAt: sql`now()` },
    })
    .returning({ tokens: tokenUsage.tokens })
    .prepare('token_usage_charge');
  const prune = db
    .delete(tokenUsage)
    .where(lt(tokenUsage.day, sql.placeholder('day')))
    .returning({ bucket: tokenUsage.bucket })
    .prepare('token_usage_prune');

  return {
    async used(bucket: string, day: UtcDay) {
      const [row] = await selectUsed.execute({ bucket, day });
      return row ? Number(row.tokens) : 0;
    },
    async charge(bucket: string, day: UtcDay, tokens: number) {
      const [row] = await upsert.execute({ bucket, day, tokens: Math.max(0, Math.round(tokens)) });
      if (!row) throw new Error('token budget upsert returned no row');
      return Number(row.tokens);
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
