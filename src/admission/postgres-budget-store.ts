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
      tokens: sql`greatest(0, ${sql.placeholder('delta')}::bigint)`,
    })
    .onConflictDoUpdate({
      target: [tokenUsage.bucket, tokenUsage.day],
      set: { tokens: sql`greatest(0, ${tokenUsage.tokens} + ${sql.placeholder('delta')}::bigint)`, updatedAt: sql`now()` },
    })
    .returning({ tokens: tokenUsage.tokens })
    .prepare('token_usage_charge');
  // A conditional upsert: Postgres locks the row for the update, so concurrent reservations from any
  // replica are applied one after another, each against the total the previous one left.
  const reserveRow = db
    .insert(tokenUsage)
    .select(
      db
        .select({
          bucket: sql<string>`${sql.placeholder('bucket')}::text`.as('bucket'),
          day: sql<string>`${sql.placeholder('day')}::date`.as('day'),
          tokens: sql<number>`${sql.placeholder('tokens')}::bigint`.as('tokens'),
          updatedAt: sql<Date>`now()`.as('updated_at'),
        })
        .from(sql`(select 1) as one`)
        .where(sql`${sql.placeholder('tokens')}::bigint <= ${sql.placeholder('limit')}::bigint`),
    )
    .onConflictDoUpdate({
      target: [tokenUsage.bucket, tokenUsage.day],
      set: { tokens: sql`${tokenUsage.tokens} + excluded.tokens`, updatedAt: sql`now()` },
      setWhere: sql`${tokenUsage.tokens} + excluded.tokens <= ${sql.placeholder('limit')}::bigint`,
    })
    .returning({ tokens: tokenUsage.tokens })
    .prepare('token_usage_reserve');
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
      const [row] = await upsert.execute({ bucket, day, delta: Math.round(tokens) });
      if (!row) throw new Error('token budget upsert returned no row');
      return Number(row.tokens);
    },
    async reserve(bucket: string, day: UtcDay, tokens: number, limit: number) {
      const [row] = await reserveRow.execute({ bucket, day, tokens: Math.max(0, Math.round(tokens)), limit });
      return row ? Number(row.tokens) : null;
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
