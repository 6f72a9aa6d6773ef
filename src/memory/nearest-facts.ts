/**
 * Nearest facts of one user through the HNSW index that all users' facts share.
 *
 * Why iterative scans: an HNSW index scan yields only `hnsw.ef_search` (default 40) candidates over
 * ALL users, and `user_id = $1` is applied to those afterwards, so a user whose facts are not among the
 * globally nearest gets fewer than k facts, often none. pgvector 0.8 added iterative index scans
 * (`hnsw.iterative_scan`): the scan goes on until k rows pass the filter, bounded by
 * `hnsw.max_scan_tuples`. `strict_order` keeps results exactly ordered by distance. On pgvector < 0.8
 * setting it is an error once the extension is loaded (the `hnsw.` prefix is reserved), so it is only
 * set when the installed version supports it.
 */
import { and, cosineDistance, eq, isNotNull, sql } from 'drizzle-orm';
import type { Database, Db } from '../db/client.js';
import { memoryFacts, type MemoryFactRow } from '../db/schema.js';
import type { Fact, ScoredFact } from './store.js';

/** Transaction-scoped, so a pooled connection never keeps it (and nothing else sees it). */
export const ITERATIVE_SCAN = sql`set local hnsw.iterative_scan = strict_order`;

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

/** Whether a `vector` extension version (`extversion`, e.g. "0.8.7") has `hnsw.iterative_scan` (0.8.0+). */
export function supportsIterativeScan(extversion: string | null | undefined): boolean {
  const match = /^(\d+)\.(\d+)/.exec(extversion ?? '');
  if (!match) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 0 || minor >= 8;
}

/** The installed pgvector version, or null when the extension is not installed. */
export async function vectorExtensionVersion(database: Database): Promise<string | null> {
  const rows = await database.sql<{ extversion: string }[]>`
    select extversion from pg_extension where extname = 'vector'`;
  return rows[0]?.extversion ?? null;
}

/** The database or a transaction: both can select. */
type Queryable = Pick<Db, 'select'>;

/**
 * The user's `k` facts with an embedding, nearest first. Ordered by distance with LIMIT k so the HNSW
 * index (vector_cosine_ops) can serve it; callers apply their similarity thresholds after. Run it after
 * ITERATIVE_SCAN in the same transaction when supported, or the user filter can starve the result.
 */
export async function nearestFacts(q: Queryable, userId: string, embedding: readonly number[], k: number): Promise<ScoredFact[]> {
  const distance = cosineDistance(memoryFacts.embedding, [...embedding]);
  const rows = await q
    .select({ ...factColumns, distance: sql<number>`${distance}` })
    .from(memoryFacts)
    .where(and(eq(memoryFacts.userId, userId), isNotNull(memoryFacts.embedding)))
    .orderBy(distance)
    .limit(k);
  return rows.map((r) => ({ ...toFact(r), similarity: 1 - Number(r.distance) }));
}
