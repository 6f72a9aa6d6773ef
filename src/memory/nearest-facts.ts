/**
 * Nearest facts of one user, exact. Every nearest-fact query names one user, who holds at most
 * MAX_FACTS_PER_USER (1,000) facts: the planner reads them through the per-user btree and sorts them by
 * cosine distance, which is exact and complete. There is no vector index (migration 0003 dropped the
 * HNSW one, see src/db/schema.ts): an approximate index over all users' facts was never chosen for a
 * one-user query at this size, and would need iterative scans to keep a user's result from starving.
 */
import { and, cosineDistance, desc, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { memoryFacts, type MemoryFactRow } from '../db/schema.js';
import type { Fact, ScoredFact } from './store.js';

export const factColumns = {
  id: memoryFacts.id,
  userId: memoryFacts.userId,
  kind: memoryFacts.kind,
  text: memoryFacts.text,
  createdAt: memoryFacts.createdAt,
  updatedAt: memoryFacts.updatedAt,
};

export const toFact = (row: Pick<MemoryFactRow, keyof typeof factColumns>): Fact => ({
  id: row.id,
  userId: row.userId,
  kind: row.kind,
  text: row.text,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** The database or a transaction: both can select. */
type Queryable = Pick<Db, 'select'>;

/**
 * The user's `k` facts with an embedding, nearest first, the more recently updated first at equal
 * distance. Callers apply their thresholds after.
 */
export async function nearestFacts(q: Queryable, userId: string, embedding: readonly number[], k: number): Promise<ScoredFact[]> {
  const distance = cosineDistance(memoryFacts.embedding, [...embedding]);
  const rows = await q
    .select({ ...factColumns, distance: sql<number>`${distance}` })
    .from(memoryFacts)
    .where(and(eq(memoryFacts.userId, userId), isNotNull(memoryFacts.embedding)))
    .orderBy(distance, desc(memoryFacts.updatedAt), desc(memoryFacts.id))
    .limit(k);
  return rows.map((r) => ({ ...toFact(r), similarity: 1 - Number(r.distance) }));
}
