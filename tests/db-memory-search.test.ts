/**
 * Nearest-fact queries on a real Postgres with pgvector (PGlite, pgvector 0.8.7). There is no vector
 * index (migration 0003 dropped the HNSW one): a one-user query is an exact scan of that user's facts,
 * so a user whose facts are all farther from the query than other users' facts still gets their k
 * nearest, exactly ordered, ties going to the more recently updated fact.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { EMBEDDING_DIMENSIONS } from '../src/db/embedding-dimensions.js';
import { memoryFacts } from '../src/db/schema.js';
import { createPostgresStore } from '../src/memory/postgres-store.js';
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

beforeAll(async () => {
  pg = await startTestPostgres();
  database = createDatabase(pg.url, { max: 2 });
  let t = Date.parse('2026-11-02T00:00:00Z');
  // One second per write, so "more recently updated" is never a tie itself.
  store = createPostgresStore({ database, embeddingModel: 'text-embedding-3-small', now: () => new Date((t += 1000)) });
  await store.init();
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

describe('postgres store: exact nearest facts of one user', () => {
  it('has no vector index, and plans a one-user search without one', async () => {
    const indexes = await database.sql<{ indexdef: string }[]>`
      select indexdef from pg_indexes where tablename = 'memory_facts'`;
    expect(indexes.length).toBeGreaterThan(0);
    expect(indexes.map((i) => i.indexdef).join('\n')).not.toMatch(/hnsw|ivfflat/i);
    const plan = await database.sql.unsafe<{ 'QUERY PLAN': string }[]>(
      `explain select id from memory_facts where user_id = $1 and embedding is not null
       order by embedding <=> $2::vector limit 5`,
      ['other-3', JSON.stringify(query)],
    );
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toMatch(/Sort/);
    expect(text).not.toMatch(/hnsw/i);
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

  it('breaks a tie in distance towards the more recently updated fact', async () => {
    const target = user();
    const older = await store.add({ userId: target, kind: 'learned', text: 'Likes quiet study rooms', embedding: vec(2, 1) });
    const newer = await store.add({ userId: target, kind: 'learned', text: 'Studies late at night', embedding: vec(5, 1) });
    const found = await store.search(target, query, 2);
    expect(found.map((f) => f.id)).toEqual([newer.fact.id, older.fact.id]);
    expect(found[0]!.similarity).toBeCloseTo(found[1]!.similarity, 10);
  });
});
