/**
 * Postgres store: facts in `memory_facts` with a pgvector embedding, through Drizzle and the `postgres`
 * driver. `init()` applies the committed migrations under an advisory lock and checks the vector
 * column's dimensions. Writes of one user are serialised by a per-user transaction-scoped advisory lock
 * so dedupe and eviction see a consistent set even with several replicas. Nearest-fact queries use
 * pgvector's iterative index scans when installed (>= 0.8; see nearest-facts.ts).
 */
import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { FACT_KIND_VALUES, memoryFacts } from '../db/schema.js';
import type { Logger } from '../logger.js';
import { cleanFactText, isFactId, normalizeFactText } from './fact-text.js';
import {
  factColumns,
  ITERATIVE_SCAN,
  nearestFacts,
  supportsIterativeScan,
  toFact,
  vectorExtensionVersion,
} from './nearest-facts.js';
import {
  DUPLICATE_SIMILARITY,
  FACT_KINDS,
  MAX_FACTS_PER_USER,
  type AddResult,
  type Fact,
  type FactPage,
  type ListOptions,
  type MemoryHealth,
  type MemoryStore,
  type ScoredFact,
} from './store.js';
import { withSafeErrors } from './store-error.js';
import { mergeDuplicate, pageBounds } from './store-rules.js';

/** The schema's kinds are exactly the store's (a compile-time check; see FACT_KIND_VALUES). */
type SameKinds<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const kindsAgree: SameKinds<(typeof FACT_KIND_VALUES)[number], (typeof FACT_KINDS)[number]> = true;
void kindsAgree;

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
  /** Gets the one warning at init when pgvector is too old for iterative index scans. */
  logger?: Logger;
}

/** First key of the two-key advisory lock serialising one user's writes ("memo"); the second is the user. */
const USER_LOCK_NAMESPACE = 0x6d656d6f;

export function createPostgresStore(options: PostgresStoreOptions): MemoryStore {
  const { db } = options.database;
  const maxFacts = options.maxFactsPerUser ?? MAX_FACTS_PER_USER;
  const now = options.now ?? (() => new Date());
  const healthTimeoutMs = options.healthTimeoutMs ?? 2000;
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  let initialized = false;
  /** pgvector >= 0.8: nearest-fact queries run with `hnsw.iterative_scan` (decided at init). */
  let iterativeScan = false;
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
      const version = await vectorExtensionVersion(options.database);
      iterativeScan = supportsIterativeScan(version);
      // Without embeddings no vector is searched, so the old version cannot matter yet.
      if (!iterativeScan && options.embeddingModel) {
        options.logger?.warn(
          'semantic recall may return too few facts on a shared HNSW index; upgrade pgvector to 0.8+',
          { pgvector: version },
        );
      }
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
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), healthTimeoutMs);
      });
      const probe = db
        .select({ n: count() })
        .from(memoryFacts)
        .where(eq(memoryFacts.userId, ''))
        .then(() => true as const)
        .catch(() => false as const);
      try {
        return { ...base, ready: await Promise.race([probe, timeout]) };
      } finally {
        clearTimeout(timer);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      if (options.ownsDatabase) await options.database.close();
    },

    async add(input): Promise<AddResult> {
      const text = cleanFactText(input.text);
      const normalized = normalizeFactText(text);
      const embedding = input.embedding ?? null;
      const at = now();
      return db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(${USER_LOCK_NAMESPACE}, hashtext(${input.userId}))`);
        if (iterativeScan && embedding) await tx.execute(ITERATIVE_SCAN);
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

        let row: Fact;
        let status: AddResult['status'];
        if (duplicate) {
          const merged = mergeDuplicate(duplicate.kind, input.kind);
          const set: Partial<typeof memoryFacts.$inferInsert> = { kind: merged.kind, updatedAt: at };
          // A rewording found by similarity cannot clash with another row's normalised text: an exact
          // match would have been found first.
          if (merged.takeNewText) Object.assign(set, { text, normalized, ...(embedding ? { embedding } : {}) });
          [row] = (await tx.update(memoryFacts).set(set).where(eq(memoryFacts.id, duplicate.id)).returning(factColumns)) as [Fact];
          status = 'updated';
        } else {
          [row] = (await tx
            .insert(memoryFacts)
            .values({ userId: input.userId, kind: input.kind, text, normalized, embedding, createdAt: at, updatedAt: at })
            .returning(factColumns)) as [Fact];
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
      const [rows, totals] = await Promise.all([
        db
          .select(factColumns)
          .from(memoryFacts)
          .where(where)
          .orderBy(desc(memoryFacts.createdAt), desc(memoryFacts.id))
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(memoryFacts).where(where),
      ]);
      return { items: rows.map(toFact), total: totals[0]?.n ?? 0 };
    },

    async search(userId, embedding, k): Promise<ScoredFact[]> {
      if (k <= 0) return [];
      if (!iterativeScan) return nearestFacts(db, userId, embedding, k);
      // SET LOCAL needs a transaction; it ends with it, so the pooled connection is left as it was.
      return db.transaction(async (tx) => {
        await tx.execute(ITERATIVE_SCAN);
        return nearestFacts(tx, userId, embedding, k);
      });
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
  return withSafeErrors(store, ['add', 'list', 'search', 'get', 'remove', 'clear', 'count'], { timeoutMs: queryTimeoutMs });
}
