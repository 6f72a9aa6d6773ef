/**
 * Drizzle schema (pg-core): long-term memory facts with a pgvector embedding, and the daily token
 * budget table used by the Postgres budget store. Migrations in `drizzle/` are generated from this file
 * by drizzle-kit (`npm run db:generate`) and committed; never pushed.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  date,
  index,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  vector,
} from 'drizzle-orm/pg-core';
import { EMBEDDING_DIMENSIONS } from './embedding-dimensions.js';

/**
 * The kinds of fact a row holds. The memory room owns the idea (`FACT_KINDS` in src/memory/store.ts);
 * the schema keeps its own copy so it depends on nothing above it, and the Postgres store checks at
 * compile time that the two agree.
 */
export const FACT_KIND_VALUES = ['learned', 'remembered'] as const;

export const memoryFacts = pgTable(
  'memory_facts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: text('user_id').notNull(),
    kind: text('kind', { enum: FACT_KIND_VALUES }).notNull(),
    text: text('text').notNull(),
    /** Lower-cased, punctuation-free, single-spaced text: exact duplicates per user meet on this. */
    normalized: text('normalized').notNull(),
    /** Null when embeddings are off (no EMBEDDINGS_API_KEY) or the embedding call failed. */
    embedding: vector('embedding', { dimensions: EMBEDDING_DIMENSIONS }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    check('memory_facts_kind_check', sql`${t.kind} in ('learned', 'remembered')`),
    // One row per normalised text per user: dedupe holds even when two writers race.
    uniqueIndex('memory_facts_user_normalized_idx').on(t.userId, t.normalized),
    // Newest-first listing and recency recall per user; also eviction of the oldest learned facts.
    index('memory_facts_user_created_idx').on(t.userId, t.createdAt.desc(), t.id.desc()),
    // Cosine distance (`<=>`, drizzle's cosineDistance) needs the cosine operator class to use the index.
    index('memory_facts_embedding_hnsw_idx').using('hnsw', t.embedding.op('vector_cosine_ops')),
  ],
);

export type MemoryFactRow = typeof memoryFacts.$inferSelect;

/** Daily token usage per budget bucket (`user_id` or `anonymous`), one row per UTC day. */
export const tokenUsage = pgTable(
  'token_usage',
  {
    bucket: text('bucket').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    tokens: bigint('tokens', { mode: 'number' }).notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.day] })],
);
