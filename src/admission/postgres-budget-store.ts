/**
 * The daily budget in Postgres (table `token_usage`, migrations in drizzle/): the store for several
 * replicas, which then share one budget per user and one service-wide spend. Same semantics as the
 * SQLite store: a reservation is one call of `budget_reserve` and a charge one call of `budget_charge`
 * (drizzle/0006_budget-functions.sql), each one round trip that checks and adds tokens, money and the
 * service's spend together under the rows' locks, so concurrent calls from any number of replicas never
 * lose an update nor pass a limit. Reads and the prune are Drizzle's prepared statements; the function
 * calls go through the driver, which prepares them once per connection.
 */
import { and, eq, gte, lt, max, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { modelPriceRatios, tokenUsage } from '../db/schema.js';
import { dayBefore, type Reservation, type BudgetStore, type UtcDay } from './budget-store.js';

export interface PostgresBudgetStoreOptions {
  /** The service's database handle (src/db/client.ts); migrations must have run. */
  database: Database;
  /** Whether `close()` ends the database pool (true when the store owns its own handle). */
  ownsDatabase?: boolean;
}

/** A budget store over the `token_usage` table. */
export function createPostgresBudgetStore(options: PostgresBudgetStoreOptions): BudgetStore {
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
  const selectRatios = db
    .select({ model: modelPriceRatios.model, ratio: max(modelPriceRatios.ratio) })
    .from(modelPriceRatios)
    .where(gte(modelPriceRatios.day, sql.placeholder('since')))
    .groupBy(modelPriceRatios.model)
    .prepare('model_price_ratios_since');
  const raiseRatio = db
    .insert(modelPriceRatios)
    .values({ model: sql.placeholder('model'), day: sql.placeholder('day'), ratio: sql.placeholder('ratio') })
    .onConflictDoUpdate({
      target: [modelPriceRatios.model, modelPriceRatios.day],
      set: { ratio: sql`greatest(${modelPriceRatios.ratio}, excluded.ratio)`, updatedAt: sql`now()` },
    })
    .returning({ ratio: modelPriceRatios.ratio })
    .prepare('model_price_ratio_raise');
  const pruneRatios = db
    .delete(modelPriceRatios)
    .where(lt(modelPriceRatios.day, sql.placeholder('day')))
    .returning({ model: modelPriceRatios.model })
    .prepare('model_price_ratios_prune');
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
    async chargeAll(charges) {
      if (charges.length === 0) return;
      const rows = charges.map((c) => ({ bucket: c.bucket, day: c.day, tokens: whole(c.tokens), nano: whole(c.nanoUsd), service: c.service }));
      // One statement, so one transaction: the function runs once a row, in the given order.
      await driver`
        select count(budget_charge(c.bucket, c.day, c.tokens, c.nano, c.service))::int as charged
        from json_to_recordset(${JSON.stringify(rows)}::json) as c(bucket text, day date, tokens bigint, nano bigint, service boolean)`;
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
    async priceRatios(day: UtcDay) {
      const rows = await selectRatios.execute({ since: dayBefore(day) });
      // A ratio of 0 is a claimed check, not a price.
      return new Map(rows.filter((r) => r.ratio !== null && Number(r.ratio) > 0).map((r) => [r.model, Number(r.ratio)]));
    },
    async raisePriceRatio(model, day, ratio) {
      const [row] = await raiseRatio.execute({ model, day, ratio });
      return row ? Number(row.ratio) : ratio;
    },
    async claimPriceCheck(model, day, leaseMs) {
      const rows = await driver`
        insert into model_price_ratios (model, day, ratio) values (${model}::text, ${day}::date, 0)
        on conflict (model, day) do update set updated_at = now()
          where model_price_ratios.ratio = 0 and model_price_ratios.updated_at < now() - ${Math.max(0, leaseMs)}::double precision * interval '1 millisecond'
        returning ratio`;
      return rows.length === 1;
    },
    async releasePriceCheck(model, day) {
      await driver`delete from model_price_ratios where model = ${model}::text and day = ${day}::date and ratio = 0`;
    },
    async pruneBefore(day: UtcDay) {
      const rows = await prune.execute({ day });
      const ratios = await pruneRatios.execute({ day });
      return rows.length + ratios.length;
    },
    async close() {
      if (options.ownsDatabase) await options.database.close();
    },
  };
}
