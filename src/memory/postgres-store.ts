/**
 * Postgres store: facts in `memory_facts` with a pgvector embedding, through Drizzle and the `postgres`
 * driver. `init()` applies the committed migrations under an advisory lock and checks the vector
 * column's dimensions. Writes of one user are serialised by a per-user transaction-scoped advisory lock
 * so dedupe and eviction see a consistent set even with several replicas. Every change to a fact is a
 * row of `memory_fact_history` written in the same transaction; the rows go with their fact (foreign
 * key, on delete cascade). Nearest-fact queries are exact per-user scans (nearest-facts.ts).
 */
import { and, asc, count, desc, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { settleWithin } from '../lifecycle/settle-within.js';
import { FACT_KIND_VALUES, FACT_SOURCE_VALUES, memoryFactHistory, memoryFacts } from '../db/schema.js';
import { isFactId, normalizeFactText, storableText } from './fact-text.js';
import { factColumns, nearestFacts, toFact } from './nearest-facts.js';
import {
  DUPLICATE_SIMILARITY,
  FACT_KINDS,
  FACT_SOURCES,
  MAX_FACTS_PER_USER,
  type AddResult,
  type Fact,
  type FactPage,
  type ListOptions,
  type MemoryHealth,
  type MemoryStore,
  type ScoredFact,
  type UpdateResult,
} from './store.js';
import { withSafeErrors } from './store-error.js';
import { mergeDuplicate, pageBounds, sourceOf } from './store-rules.js';

/** The schema's kinds are exactly the store's (a compile-time check; see FACT_KIND_VALUES). */
type SameKinds<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const kindsAgree: SameKinds<(typeof FACT_KIND_VALUES)[number], (typeof FACT_KINDS)[number]> = true;
const sourcesAgree: SameKinds<(typeof FACT_SOURCE_VALUES)[number], (typeof FACT_SOURCES)[number]> = true;
void kindsAgree;
void sourcesAgree;


/** A store call's deadline: far above a healthy query (milliseconds), far below the driver's reconnect backoff. */
export const DEFAULT_QUERY_TIMEOUT_MS = 5_000;

export interface PostgresStoreOptions {
  /** The service's database handle (src/db/client.ts). */
  database: Database;
  /** Whether `close()` ends the pool (true when the store owns its handle). */
  ownsDatabase?: boolean;
  /** Null when semantic search is off; otherwise the vector column is checked against it at init. */
  embeddingModel: string | null;
  maxFactsPerUser?: number;
  now?: () => Date;
  /** Health gives up after this long: a hung database must not hang the platform's health check. */
  healthTimeoutMs?: number;
  /** Deadline of one store call (default 5 s): an unreachable database fails calls instead of queueing them. */
  queryTimeoutMs?: number;
}

/** First key of the two-key advisory lock serialising one user's writes ("memo"); the second is the user. */
const USER_LOCK_NAMESPACE = 0x6d656d6f;

/** Serialises one user's writes (dedupe, eviction, updates) across connections and replicas. */
async function lockUser(tx: Pick<Database['db'], 'execute'>, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${USER_LOCK_NAMESPACE}, hashtext(${userId}))`);
}

export function createPostgresStore(options: PostgresStoreOptions): MemoryStore {
  const { db } = options.database;
  const maxFacts = options.maxFactsPerUser ?? MAX_FACTS_PER_USER;
  const now = options.now ?? (() => new Date());
  const healthTimeoutMs = options.healthTimeoutMs ?? 2000;
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  let initialized = false;
  let closed = false;

  const listFilter = (userId: string, o: ListOptions): SQL | undefined =>
    and(
      eq(memoryFacts.userId, userId),
      o.kind ? eq(memoryFacts.kind, o.kind) : undefined,
      // strpos, not LIKE: the user's `q` needs no escaping of % and _.
      o.q ? sql`strpos(lower(${memoryFacts.text}), lower(${o.q})) > 0` : undefined,
    );

  const store: MemoryStore = {
    backend: 'postgres',

    async init() {
      await runMigrations(options.database, options.embeddingModel ? { embeddingModel: options.embeddingModel } : {});
      initialized = true;
    },

    async health(): Promise<MemoryHealth> {
      const base = {
        backend: 'postgres' as const,
        initialized,
        semantic_search: options.embeddingModel !== null,
        embedding_model: options.embeddingModel,
      };
      if (!initialized || closed) return { ...base, ready: false };
      const probe = db
        .select({ n: count() })
        .from(memoryFacts)
        .where(eq(memoryFacts.userId, ''))
        .then(() => true);
      return { ...base, ready: await settleWithin(probe, healthTimeoutMs, false) };
    },

    async close() {
      if (closed) return;
      closed = true;
      if (options.ownsDatabase) await options.database.close();
    },

    async add(input): Promise<AddResult> {
      const text = storableText('add', input.text);
      const normalized = normalizeFactText(text);
      const embedding = input.embedding ?? null;
      const at = now();
      return db.transaction(async (tx) => {
        await lockUser(tx, input.userId);
        const mine = eq(memoryFacts.userId, input.userId);
        let [duplicate] = await tx
          .select(factColumns)
          .from(memoryFacts)
          .where(and(mine, eq(memoryFacts.normalized, normalized)))
          .limit(1);
        if (!duplicate && embedding) {
          // The threshold is applied after the nearest one is found (the index's shape).
          const [nearest] = await nearestFacts(tx, input.userId, embedding, 1);
          if (nearest && nearest.similarity >= DUPLICATE_SIMILARITY) duplicate = nearest;
        }

        const source = sourceOf(input);
        let row: Fact;
        let status: AddResult['status'];
        if (duplicate) {
          const merged = mergeDuplicate(duplicate, { kind: input.kind, text });
          if (!merged.changed) return { fact: toFact(duplicate), status: 'unchanged' as const, evicted: 0 };
          const set: Partial<typeof memoryFacts.$inferInsert> = { kind: merged.kind, updatedAt: at };
          // A rewording found by similarity cannot clash with another row's normalised text: an exact
          // match would have been found first.
          if (merged.takeNewText) Object.assign(set, { text, normalized, ...(embedding ? { embedding } : {}) });
          [row] = (await tx.update(memoryFacts).set(set).where(eq(memoryFacts.id, duplicate.id)).returning(factColumns)) as [Fact];
          await tx.insert(memoryFactHistory).values({ factId: row.id, at, change: 'updated', source, text: row.text });
          status = 'updated';
        } else {
          [row] = (await tx
            .insert(memoryFacts)
            .values({ userId: input.userId, kind: input.kind, text, normalized, embedding, createdAt: at, updatedAt: at })
            .returning(factColumns)) as [Fact];
          await tx.insert(memoryFactHistory).values({ factId: row.id, at, change: 'created', source, text });
          status = 'created';
        }

        const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(memoryFacts).where(mine);
        let evicted = 0;
        if (n > maxFacts) {
          // Same order as store-rules.ts evictionOrder: learned first, least recently updated, oldest.
          const victims = tx
            .select({ id: memoryFacts.id })
            .from(memoryFacts)
            .where(mine)
            .orderBy(sql`(${memoryFacts.kind} = 'remembered')`, asc(memoryFacts.updatedAt), asc(memoryFacts.createdAt))
            .limit(n - maxFacts);
          const gone = await tx.delete(memoryFacts).where(inArray(memoryFacts.id, victims)).returning({ id: memoryFacts.id });
          evicted = gone.length;
        }
        return { fact: toFact(row), status, evicted };
      });
    },

    async list(userId, opts: ListOptions = {}): Promise<FactPage> {
      const { limit, offset } = pageBounds(opts);
      const where = listFilter(userId, opts);
      // One statement (issue 75: a turn's memory read was two): the total rides on every row of the page,
      // a window count taken before the limit. Only a page past the end, with no row, counts apart.
      const rows = await db
        .select({ ...factColumns, total: sql<number>`count(*) over ()`.mapWith(Number) })
        .from(memoryFacts)
        .where(where)
        .orderBy(desc(memoryFacts.createdAt), desc(memoryFacts.id))
        .limit(limit)
        .offset(offset);
      const total = rows[0]?.total ?? (offset > 0 ? ((await db.select({ n: count() }).from(memoryFacts).where(where))[0]?.n ?? 0) : 0);
      return { items: rows.map(toFact), total };
    },

    async update(userId, id, update): Promise<UpdateResult | null> {
      if (!isFactId(id)) return null;
      const text = storableText('update', update.text);
      const normalized = normalizeFactText(text);
      return db.transaction(async (tx) => {
        await lockUser(tx, userId);
        const mine = eq(memoryFacts.userId, userId);
        const [current] = await tx.select(factColumns).from(memoryFacts).where(and(mine, eq(memoryFacts.id, id))).limit(1);
        if (!current) return null;
        const kind = update.kind ?? current.kind;
        if (text === current.text && kind === current.kind) return { status: 'unchanged' as const, fact: toFact(current) };
        const [other] = await tx
          .select(factColumns)
          .from(memoryFacts)
          .where(and(mine, eq(memoryFacts.normalized, normalized), ne(memoryFacts.id, id)))
          .limit(1);
        if (other) return { status: 'conflict' as const, fact: toFact(other) };
        const at = now();
        const set: Partial<typeof memoryFacts.$inferInsert> = { text, normalized, kind, updatedAt: at };
        // Same words, new kind (a promotion): the vector still describes the text.
        if (text !== current.text) set.embedding = update.embedding ?? null;
        const [row] = (await tx.update(memoryFacts).set(set).where(eq(memoryFacts.id, id)).returning(factColumns)) as [Fact];
        await tx.insert(memoryFactHistory).values({ factId: id, at, change: 'updated', source: update.source, text });
        return { status: 'updated' as const, fact: toFact(row) };
      });
    },

    async history(userId, id, kind) {
      if (!isFactId(id)) return null;
      const rows = await db
        .select({
          at: memoryFactHistory.at,
          change: memoryFactHistory.change,
          source: memoryFactHistory.source,
          text: memoryFactHistory.text,
          factKind: memoryFacts.kind,
        })
        .from(memoryFacts)
        .leftJoin(memoryFactHistory, eq(memoryFactHistory.factId, memoryFacts.id))
        .where(and(eq(memoryFacts.userId, userId), eq(memoryFacts.id, id), kind ? eq(memoryFacts.kind, kind) : undefined))
        .orderBy(asc(memoryFactHistory.seq));
      if (rows.length === 0) return null;
      return rows.flatMap((r) => (r.at && r.change && r.source ? [{ at: r.at, change: r.change, source: r.source, text: r.text }] : []));
    },

    async search(userId, embedding, k): Promise<ScoredFact[]> {
      if (k <= 0) return [];
      return nearestFacts(db, userId, embedding, k);
    },

    async get(userId, id) {
      if (!isFactId(id)) return null;
      const [row] = await db
        .select(factColumns)
        .from(memoryFacts)
        .where(and(eq(memoryFacts.userId, userId), eq(memoryFacts.id, id)))
        .limit(1);
      return row ? toFact(row) : null;
    },

    async remove(userId, ids, kind) {
      const valid = ids.filter(isFactId);
      if (valid.length === 0) return [];
      const rows = await db
        .delete(memoryFacts)
        .where(
          and(
            eq(memoryFacts.userId, userId),
            inArray(memoryFacts.id, valid),
            kind ? eq(memoryFacts.kind, kind) : undefined,
          ),
        )
        .returning(factColumns);
      return rows.map(toFact);
    },

    async clear(userId) {
      const rows = await db.delete(memoryFacts).where(eq(memoryFacts.userId, userId)).returning({ id: memoryFacts.id });
      return rows.length;
    },

    async count(userId) {
      const [row] = await db.select({ n: count() }).from(memoryFacts).where(eq(memoryFacts.userId, userId));
      return row?.n ?? 0;
    },
  };
  // Data methods: failures leave as MemoryStoreError (op + code), never drizzle's message with parameters.
  return withSafeErrors(store, ['add', 'update', 'history', 'list', 'search', 'get', 'remove', 'clear', 'count'], {
    timeoutMs: queryTimeoutMs,
  });
}
