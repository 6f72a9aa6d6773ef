/**
 * Nearest-fact queries on the shared HNSW index, on a real Postgres with pgvector (PGlite, pgvector
 * 0.8.7). When the planner takes the HNSW path, a plain index scan yields `hnsw.ef_search` (40)
 * candidates over all users before `user_id = $1` is applied: a user whose facts are farther from the
 * query than 40 facts of other users gets nothing. The store must still return that user's k nearest.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { EMBEDDING_DIMENSIONS } from '../src/db/embedding-dimensions.js';
import { memoryFacts } from '../src/db/schema.js';
import { createLogger } from '../src/logger.js';
import { createPostgresStore } from '../src/memory/postgres-store.js';
import { supportsIterativeScan } from '../src/memory/nearest-facts.js';
import type { MemoryStore } from '../src/memory/store.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';

/** Unit vector along axis 0, tilted towards axis `j` by `tilt` (cosine to axis 0: 1/√(1+tilt²)). */
function vec(j?: number, tilt = 0): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[0] = 1;
  if (j !== undefined) v[j] = tilt;
  return v;
}

const query = vec();
const OTHER_FACTS = 300;
const user = () => `u-${randomUUID().slice(0, 8)}`;

let pg: TestPostgres;
let database: Database;
let store: MemoryStore;
const logLines: string[] = [];

beforeAll(async () => {
  pg = await startTestPostgres();
  // One connection: the session settings below then reach every query of the store, on any Postgres
  // (PGlite ignores ALTER DATABASE ... SET, so per-database defaults cannot be used to force the plan).
  database = createDatabase(pg.url, { max: 1 });
  const logger = createLogger({ sink: (line) => logLines.push(line) });
  store = createPostgresStore({ database, embeddingModel: 'text-embedding-3-small', logger });
  await store.init();
  // Force the HNSW path: without the per-user btrees and with sequential scans off, the planner's only
  // way to serve `ORDER BY embedding <=> $q LIMIT k` is the HNSW index. A large production table gets
  // there by cost alone.
  await database.sql`drop index memory_facts_user_created_idx`;
  await database.sql`drop index memory_facts_user_normalized_idx`;
  await database.sql`set enable_seqscan = off`;
  await database.sql`set enable_bitmapscan = off`;
  // Other users' facts, all nearer to the query (cosine 0.93–0.995) than the target users' facts.
  const at = new Date('2026-11-01T00:00:00Z');
  await database.db.insert(memoryFacts).values(
    Array.from({ length: OTHER_FACTS }, (_, n) => ({
      userId: `other-${n % 30}`,
      kind: 'learned' as const,
      text: `Other fact ${n}`,
      normalized: `other fact ${n}`,
      embedding: vec(1 + (n % 50), 0.1 + (0.4 * n) / OTHER_FACTS),
      createdAt: at,
      updatedAt: at,
    })),
  );
}, 60_000);

afterAll(async () => {
  await store.close();
  await database.close();
  await pg.stop();
});

describe('postgres store: nearest facts of one user on the shared HNSW index', () => {
  it('plans the search on the HNSW index (the premise of these tests)', async () => {
    const plan = await database.sql.unsafe<{ 'QUERY PLAN': string }[]>(
      `explain select id from memory_facts where user_id = $1 and embedding is not null
       order by embedding <=> $2::vector limit 5`,
      ['someone', JSON.stringify(query)],
    );
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan using memory_facts_embedding_hnsw_idx/);
  });

  it("returns the user's k nearest facts when other users' facts are all nearer", async () => {
    const target = user();
    const texts: string[] = [];
    for (let n = 0; n < 5; n++) {
      // Cosine to the query from 0.64 down to 0.49. The axes are shared with other users' facts, as real
      // embeddings share directions: a vector unlike every other one may get no incoming HNSW edge, and
      // then no scan reaches it.
      const embedding = vec(1 + 7 * n, 1.2 + 0.1 * n);
      const { fact } = await store.add({ userId: target, kind: 'learned', text: `Target fact ${n}`, embedding });
      texts.push(fact.text);
    }

    const five = await store.search(target, query, 5);
    expect(five.map((f) => f.text)).toEqual(texts);
    expect(five.every((f) => f.userId === target)).toBe(true);
    expect(five[0]!.similarity).toBeCloseTo(1 / Math.sqrt(1 + 1.2 ** 2), 5);

    const three = await store.search(target, query, 3);
    expect(three.map((f) => f.text)).toEqual(texts.slice(0, 3));
  });

  it("finds the user's near duplicate when many other users hold nearer copies", async () => {
    // "Is vegetarian" said by many users: the user's own copy (cosine 0.944 to the new wording) is
    // behind more than 40 other users' copies, yet it is the one dedupe must find.
    const target = user();
    await store.add({ userId: target, kind: 'learned', text: 'Is vegetarian', embedding: vec(3, 0.35) });
    const second = await store.add({ userId: target, kind: 'remembered', text: 'Eats no meat', embedding: query });
    expect(second.status).toBe('updated');
    expect(await store.count(target)).toBe(1);
    expect((await store.list(target)).items).toMatchObject([{ kind: 'remembered', text: 'Eats no meat' }]);
  });

  it('uses iterative scans without a warning on pgvector 0.8+', () => {
    expect(logLines.filter((l) => l.includes('"level":"warn"'))).toEqual([]);
  });
});

describe('supportsIterativeScan', () => {
  it('is true from pgvector 0.8.0 on, false before and for unknown versions', () => {
    expect(['0.8.0', '0.8.7', '0.10.1', '1.0.0'].map(supportsIterativeScan)).toEqual([true, true, true, true]);
    expect(['0.7.4', '0.5.1', '', null, undefined, 'dev'].map(supportsIterativeScan)).toEqual([false, false, false, false, false, false]);
  });
});
