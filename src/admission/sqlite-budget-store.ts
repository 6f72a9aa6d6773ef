/**
 * The daily budget in SQLite (better-sqlite3): the default store, one file shared by every process on
 * the machine. WAL mode lets readers run beside the single writer; `busy_timeout` makes a second
 * process wait for the write lock instead of failing; every statement is prepared once. A reservation
 * or a charge that touches the service row as well runs in one IMMEDIATE transaction (the write lock
 * taken first), so another process's reservation cannot slip between the check and the write.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { dayBefore, SERVICE_BUCKET, type Reservation, type BudgetStore, type UtcDay } from './budget-store.js';

export interface SqliteBudgetStoreOptions {
  /** File path (config.budget.sqlitePath), or `:memory:` for a private database. */
  path: string;
  /** How long a writer waits for another process's lock before the store reports a failure. */
  busyTimeoutMs?: number;
  /** The clock for `updated_at` (diagnostics only; days come from the caller). */
  now?: () => Date;
}

/** Opens (creating when needed) the SQLite budget file and prepares its statements. */
export function createSqliteBudgetStore(options: SqliteBudgetStoreOptions): BudgetStore {
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
    nano_usd INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (bucket, day)
  ) WITHOUT ROWID`);
  // A file written before money was counted (issue 47) gains the column; its rows start at $0.
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(token_usage)').all();
  if (!columns.some((c) => c.name === 'nano_usd')) db.exec('ALTER TABLE token_usage ADD COLUMN nano_usd INTEGER NOT NULL DEFAULT 0');

  const selectRow = db.prepare<[string, string], { tokens: number; nano_usd: number }>('SELECT tokens, nano_usd FROM token_usage WHERE bucket = ? AND day = ?');
  // One statement per charge: the addition happens inside SQLite, so no read-modify-write race.
  type Row = { bucket: string; day: string; tokens: number; nano: number; at: string };
  const upsert = db
    .prepare<[Row], number>(
      `INSERT INTO token_usage (bucket, day, tokens, nano_usd, updated_at) VALUES (@bucket, @day, max(0, @tokens), max(0, @nano), @at)
       ON CONFLICT (bucket, day) DO UPDATE SET tokens = max(0, tokens + @tokens), nano_usd = max(0, nano_usd + @nano), updated_at = excluded.updated_at
       RETURNING tokens`,
    )
    .pluck();
  // The row is written only when its new totals stay within the limits (SQLite runs one writer at a
  // time, so two reservations cannot both see the old totals).
  type Limits = { limit: number; nanoLimit: number | null };
  const reserveRow = db
    .prepare<[Row & Limits], number>(
      `INSERT INTO token_usage (bucket, day, tokens, nano_usd, updated_at) SELECT @bucket, @day, @tokens, @nano, @at
         WHERE @tokens <= @limit AND (@nanoLimit IS NULL OR @nano <= @nanoLimit)
       ON CONFLICT (bucket, day) DO UPDATE SET tokens = tokens + excluded.tokens, nano_usd = nano_usd + excluded.nano_usd, updated_at = excluded.updated_at
         WHERE tokens + excluded.tokens <= @limit AND (@nanoLimit IS NULL OR nano_usd + excluded.nano_usd <= @nanoLimit)
       RETURNING tokens`,
    )
    .pluck();
  db.exec(`CREATE TABLE IF NOT EXISTS model_price_ratios (
    model TEXT NOT NULL,
    day TEXT NOT NULL,
    ratio REAL NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (model, day)
  ) WITHOUT ROWID`);
  const selectRatios = db.prepare<[string], { model: string; ratio: number }>('SELECT model, max(ratio) AS ratio FROM model_price_ratios WHERE day >= ? GROUP BY model');
  const raiseRatio = db
    .prepare<[{ model: string; day: string; ratio: number; at: string }], number>(
      `INSERT INTO model_price_ratios (model, day, ratio, updated_at) VALUES (@model, @day, @ratio, @at)
       ON CONFLICT (model, day) DO UPDATE SET ratio = max(ratio, excluded.ratio), updated_at = excluded.updated_at
       RETURNING ratio`,
    )
    .pluck();
  const claimCheck = db.prepare<[{ model: string; day: string; at: string; before: string }]>(
    `INSERT INTO model_price_ratios (model, day, ratio, updated_at) VALUES (@model, @day, 0, @at)
     ON CONFLICT (model, day) DO UPDATE SET updated_at = excluded.updated_at WHERE ratio = 0 AND updated_at < @before
     RETURNING ratio`,
  );
  const releaseCheck = db.prepare<[string, string]>('DELETE FROM model_price_ratios WHERE model = ? AND day = ? AND ratio = 0');
  const prune = db.prepare<[string]>('DELETE FROM token_usage WHERE day < ?');
  const pruneRatios = db.prepare<[string]>('DELETE FROM model_price_ratios WHERE day < ?');
  const row = (bucket: string, day: string) => selectRow.get(bucket, day);
  // Under a service cap: the service row is read and written inside the same write transaction.
  const reserveWithService = db.transaction((r: Row & Limits, serviceLimit: number): Reservation => {
    const service = row(SERVICE_BUCKET, r.day)?.nano_usd ?? 0;
    if (service + r.nano > serviceLimit) return { held: false, refusedBy: 'service' };
    if (reserveRow.get(r) === undefined) return refusal(r);
    upsert.get({ ...r, bucket: SERVICE_BUCKET });
    return { held: true, serviceNanoUsd: service + r.nano };
  });
  const chargeWithService = db.transaction((r: Row) => {
    upsert.get({ ...r, bucket: SERVICE_BUCKET });
    return upsert.get(r);
  });
  const chargeAll = db.transaction((rows: readonly (Row & { service: boolean })[]) => {
    for (const { service, ...r } of rows) {
      if (service) upsert.get({ ...r, bucket: SERVICE_BUCKET });
      upsert.get(r);
    }
  });
  /** Which limit refused a reservation that wrote nothing. */
  const refusal = (r: Row & Limits): Reservation => ({ held: false, refusedBy: (row(r.bucket, r.day)?.tokens ?? 0) + r.tokens > r.limit ? 'tokens' : 'spend' });
  let closed = false;

  return {
    async used(bucket: string, day: UtcDay) {
      return row(bucket, day)?.tokens ?? 0;
    },
    async spent(bucket: string, day: UtcDay) {
      return row(bucket, day)?.nano_usd ?? 0;
    },
    async charge(bucket, day, tokens, spend) {
      const r = { bucket, day, tokens: Math.round(tokens), nano: Math.round(spend?.nanoUsd ?? 0), at: now().toISOString() };
      const total = spend?.service ? chargeWithService.immediate(r) : upsert.get(r);
      if (total === undefined) throw new Error('token budget upsert returned no row');
      return total;
    },
    async chargeAll(charges) {
      const at = now().toISOString();
      chargeAll.immediate(charges.map((c) => ({ bucket: c.bucket, day: c.day, tokens: Math.round(c.tokens), nano: Math.round(c.nanoUsd), at, service: c.service })));
    },
    async reserve(bucket, day, amount, limits) {
      const r = {
        bucket,
        day,
        tokens: Math.max(0, Math.round(amount.tokens)),
        nano: Math.max(0, Math.round(amount.nanoUsd)),
        at: now().toISOString(),
        limit: limits.tokens,
        nanoLimit: limits.nanoUsd,
      };
      if (limits.serviceNanoUsd !== null) return reserveWithService.immediate(r, limits.serviceNanoUsd);
      return reserveRow.get(r) === undefined ? refusal(r) : { held: true, serviceNanoUsd: null };
    },
    async priceRatios(day: UtcDay) {
      // A ratio of 0 is a claimed check, not a price.
      return new Map(selectRatios.all(dayBefore(day)).filter((r) => r.ratio > 0).map((r) => [r.model, r.ratio]));
    },
    async claimPriceCheck(model, day, leaseMs) {
      const at = now();
      const before = new Date(at.getTime() - Math.max(0, leaseMs)).toISOString();
      return claimCheck.get({ model, day, at: at.toISOString(), before }) !== undefined;
    },
    async releasePriceCheck(model, day) {
      releaseCheck.run(model, day);
    },
    async raisePriceRatio(model, day, ratio) {
      return raiseRatio.get({ model, day, ratio, at: now().toISOString() }) ?? ratio;
    },
    async pruneBefore(day: UtcDay) {
      return prune.run(day).changes + pruneRatios.run(day).changes;
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
