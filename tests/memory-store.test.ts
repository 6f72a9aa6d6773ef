/**
 * The store suite, run against both implementations: in-memory, and Postgres with pgvector (PGlite over
 * the wire protocol, reached through a DATABASE_URL-style URL). Each test uses its own user ids, so
 * tests are independent while sharing one database.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { EMBEDDING_DIMENSIONS } from '../src/db/embedding-dimensions.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import { createPostgresStore } from '../src/memory/postgres-store.js';
import { MAX_FACTS_PER_USER, type MemoryStore } from '../src/memory/store.js';
import { admitFact } from '../src/memory/fact-guard.js';
import { MemoryStoreError } from '../src/memory/store-error.js';
import { baseLeakPolicy } from '../src/security/leak-policy.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';

/** A clock that advances one second per reading, so every write has its own time. */
function steppingClock(start = Date.parse('2026-11-01T00:00:00Z')) {
  let t = start;
  return () => new Date((t += 1000));
}

/** Unit vector along axis `i`, optionally tilted towards axis `j` by `tilt` (cosine 1/√(1+tilt²)). */
function vec(i: number, j?: number, tilt = 0): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[i] = 1;
  if (j !== undefined) v[j] = tilt;
  return v;
}

const user = () => `u-${randomUUID().slice(0, 8)}`;

type Factory = (o: { maxFactsPerUser?: number }) => Promise<MemoryStore>;

let pg: TestPostgres;
let database: Database;

beforeAll(async () => {
  pg = await startTestPostgres();
  database = createDatabase(pg.url, { max: 4 });
});
afterAll(async () => {
  await database.close();
  await pg.stop();
});

const factories: [string, Factory][] = [
  [
    'in-memory',
    async (o) => {
      const s = createInMemoryStore({ embeddingModel: 'text-embedding-3-small', now: steppingClock(), ...o });
      await s.init();
      return s;
    },
  ],
  [
    'postgres',
    async (o) => {
      const s = createPostgresStore({ database, embeddingModel: 'text-embedding-3-small', now: steppingClock(), ...o });
      await s.init();
      return s;
    },
  ],
];

describe.each(factories)('%s store', (backend, make) => {
  it('reports itself ready in health', async () => {
    const store = await make({});
    expect(await store.health()).toEqual({
      backend,
      initialized: true,
      semantic_search: true,
      embedding_model: 'text-embedding-3-small',
      ready: true,
    });
  });

  it('lists newest first with total, limit, offset, kind and a literal case-insensitive q', async () => {
    const store = await make({});
    const u = user();
    await store.add({ userId: u, kind: 'remembered', text: 'Is vegetarian' });
    await store.add({ userId: u, kind: 'learned', text: 'Studies computer science' });
    await store.add({ userId: u, kind: 'learned', text: 'Likes 100% dark chocolate' });

    const all = await store.list(u);
    expect(all.total).toBe(3);
    expect(all.items.map((f) => f.text)).toEqual(['Likes 100% dark chocolate', 'Studies computer science', 'Is vegetarian']);
    expect(all.items[0]).toMatchObject({ userId: u, kind: 'learned' });
    expect(all.items[0]!.createdAt).toBeInstanceOf(Date);

    const page = await store.list(u, { limit: 1, offset: 1 });
    expect(page).toMatchObject({ total: 3, items: [{ text: 'Studies computer science' }] });
    // A page past the end still says how many there are; a filter's total is the filter's.
    expect(await store.list(u, { limit: 2, offset: 3 })).toEqual({ total: 3, items: [] });
    expect(await store.list(u, { limit: 1, offset: 1, kind: 'learned' })).toMatchObject({ total: 2, items: [{ text: 'Studies computer science' }] });
    expect(await store.list(u, { offset: 1, kind: 'remembered' })).toEqual({ total: 1, items: [] });
    expect(await store.list(user())).toEqual({ total: 0, items: [] });
    expect((await store.list(u, { kind: 'remembered' })).items.map((f) => f.text)).toEqual(['Is vegetarian']);
    expect((await store.list(u, { q: 'VEGET' })).items.map((f) => f.text)).toEqual(['Is vegetarian']);
    // `%` and `_` are literal characters, not patterns.
    expect((await store.list(u, { q: '100%' })).total).toBe(1);
    expect((await store.list(u, { q: '_' })).total).toBe(0);
    expect(await store.count(u)).toBe(3);
  });

  it('refuses a text no store can hold (a NUL: Postgres 22021, a lone surrogate, empty, too long), and stores what admission made of it', async () => {
    const store = await make({});
    const u = user();
    for (const text of ['Lives\u0000 in Donner', 'Lives in Donner\uD800', '', 'x'.repeat(501)]) {
      await expect(store.add({ userId: u, kind: 'remembered', text })).rejects.toThrow(MemoryStoreError);
    }
    const admitted = admitFact('Lives\u0000 in \u0007Donner\uD800', baseLeakPolicy);
    expect(admitted).toEqual({ ok: true, text: 'Lives in Donner' });
    const { fact } = await store.add({ userId: u, kind: 'remembered', text: admitted.ok ? admitted.text : '' });
    await expect(store.update(u, fact.id, { text: 'Lives in\u0000 Mudge', source: 'remember' })).rejects.toThrow(MemoryStoreError);
    expect((await store.list(u)).items.map((f) => f.text)).toEqual(['Lives in Donner']);
  });

  it('keeps users apart in list, search, get, remove and clear', async () => {
    const store = await make({});
    const [a, b] = [user(), user()];
    const { fact } = await store.add({ userId: a, kind: 'remembered', text: 'Lives in Mudge House', embedding: vec(1) });
    await store.add({ userId: b, kind: 'remembered', text: 'Lives in Mudge House', embedding: vec(1) });

    expect((await store.list(b)).items.map((f) => f.id)).not.toContain(fact.id);
    expect((await store.search(b, vec(1), 5)).map((f) => f.id)).not.toContain(fact.id);
    expect(await store.get(b, fact.id)).toBeNull();
    expect(await store.remove(b, [fact.id])).toEqual([]);
    expect(await store.clear(b)).toBe(1);
    expect(await store.get(a, fact.id)).toMatchObject({ id: fact.id, text: 'Lives in Mudge House' });
    expect(await store.count(a)).toBe(1);
  });

  it('dedupes by normalised text; remember promotes a learned fact and takes its wording', async () => {
    const store = await make({});
    const u = user();
    const first = await store.add({ userId: u, kind: 'learned', text: 'is vegetarian' });
    expect(first.status).toBe('created');
    // A repetition changes nothing, not even updatedAt.
    const again = await store.add({ userId: u, kind: 'learned', text: 'Is VEGETARIAN.' });
    expect(again).toMatchObject({ status: 'unchanged', fact: { id: first.fact.id, kind: 'learned', text: 'is vegetarian' } });
    expect(again.fact.updatedAt).toEqual(first.fact.updatedAt);
    const promoted = await store.add({ userId: u, kind: 'remembered', text: 'Is vegetarian!' });
    expect(promoted).toMatchObject({ status: 'updated', fact: { id: first.fact.id, kind: 'remembered', text: 'Is vegetarian!' } });
    expect(promoted.fact.updatedAt.getTime()).toBeGreaterThan(first.fact.updatedAt.getTime());
    // A later background re-discovery never demotes what the user asked to keep.
    const relearned = await store.add({ userId: u, kind: 'learned', text: 'is vegetarian' });
    expect(relearned).toMatchObject({ status: 'unchanged', fact: { id: first.fact.id, kind: 'remembered', text: 'Is vegetarian!' } });
    expect(await store.count(u)).toBe(1);
    expect((await store.history(u, first.fact.id))!.map((h) => [h.change, h.source, h.text])).toEqual([
      ['created', 'extraction', 'is vegetarian'],
      ['updated', 'remember', 'Is vegetarian!'],
    ]);
  });

  it('dedupes by embedding similarity at 0.92 and above, not below', async () => {
    const store = await make({});
    const u = user();
    const base = await store.add({ userId: u, kind: 'learned', text: 'Prefers morning classes', embedding: vec(10) });
    // cos = 1/√(1+0.3²) ≈ 0.958: the same fact in other words.
    const near = await store.add({ userId: u, kind: 'learned', text: 'Likes early lectures', embedding: vec(10, 11, 0.3) });
    expect(near).toMatchObject({ status: 'unchanged', fact: { id: base.fact.id, text: 'Prefers morning classes' } });
    // cos = 1/√(1+0.5²) ≈ 0.894: related but different.
    const far = await store.add({ userId: u, kind: 'learned', text: 'Takes an 8am chemistry lab', embedding: vec(10, 12, 0.5) });
    expect(far.status).toBe('created');
    expect(await store.count(u)).toBe(2);
  });

  it('searches nearest first with cosine similarity, only facts with embeddings, at most k', async () => {
    const store = await make({});
    const u = user();
    await store.add({ userId: u, kind: 'learned', text: 'far', embedding: vec(20, 21, 3) });
    await store.add({ userId: u, kind: 'learned', text: 'exact', embedding: vec(20) });
    await store.add({ userId: u, kind: 'learned', text: 'close', embedding: vec(20, 22, 1) });
    await store.add({ userId: u, kind: 'remembered', text: 'no embedding' });
    const found = await store.search(u, vec(20), 2);
    expect(found.map((f) => f.text)).toEqual(['exact', 'close']);
    expect(found[0]!.similarity).toBeCloseTo(1, 5);
    expect(found[1]!.similarity).toBeCloseTo(Math.SQRT1_2, 5);
    expect((await store.search(u, vec(20), 10)).map((f) => f.text)).toEqual(['exact', 'close', 'far']);
  });

  it('evicts past the limit: learned before remembered, least recently updated first', async () => {
    const store = await make({ maxFactsPerUser: 3 });
    const u = user();
    const oldLearned = await store.add({ userId: u, kind: 'learned', text: 'old learned' });
    await store.add({ userId: u, kind: 'remembered', text: 'old remembered' });
    const refreshed = await store.add({ userId: u, kind: 'learned', text: 'refreshed learned' });
    // Rewritten by a superseding fact: now the most recently updated.
    await store.update(u, oldLearned.fact.id, { text: 'old learned, reworded', source: 'extraction' });
    await store.add({ userId: u, kind: 'learned', text: 'new learned' });
    let texts = (await store.list(u)).items.map((f) => f.text).sort();
    expect(texts).toEqual(['new learned', 'old learned, reworded', 'old remembered']);
    // The evicted fact's history went with it.
    expect(await store.history(u, refreshed.fact.id)).toBeNull();
    expect(await store.history(u, oldLearned.fact.id)).toHaveLength(2);

    const r1 = await store.add({ userId: u, kind: 'remembered', text: 'r1' });
    const r2 = await store.add({ userId: u, kind: 'remembered', text: 'r2' });
    expect(r1.evicted + r2.evicted).toBe(2);
    texts = (await store.list(u)).items.map((f) => f.text).sort();
    expect(texts).toEqual(['old remembered', 'r1', 'r2']);
    // Only remembered facts left: the oldest of them goes.
    await store.add({ userId: u, kind: 'remembered', text: 'r3' });
    expect((await store.list(u)).items.map((f) => f.text).sort()).toEqual(['r1', 'r2', 'r3']);
  });

  it(`holds at most ${MAX_FACTS_PER_USER} facts per user by default`, async () => {
    const store = await make({});
    const u = user();
    for (let i = 0; i < MAX_FACTS_PER_USER; i++) await store.add({ userId: u, kind: 'learned', text: `fact ${i}` });
    const last = await store.add({ userId: u, kind: 'remembered', text: 'one too many' });
    expect(last.evicted).toBe(1);
    expect(await store.count(u)).toBe(MAX_FACTS_PER_USER);
    expect((await store.list(u, { q: 'fact 0', limit: 200 })).items.map((f) => f.text)).not.toContain('fact 0');
  }, 120_000);

  it('removes by id only with the matching kind; clear counts; unknown ids are absent', async () => {
    const store = await make({});
    const u = user();
    const { fact } = await store.add({ userId: u, kind: 'learned', text: 'Plays violin' });
    await store.add({ userId: u, kind: 'remembered', text: 'Allergic to peanuts' });
    expect(await store.remove(u, [fact.id], 'remembered')).toEqual([]);
    expect(await store.get(u, 'not-a-uuid')).toBeNull();
    expect(await store.remove(u, ['not-a-uuid', randomUUID()])).toEqual([]);
    const removed = await store.remove(u, [fact.id.toUpperCase()], 'learned');
    expect(removed.map((f) => f.id)).toEqual([fact.id]);
    expect(await store.get(u, fact.id)).toBeNull();
    expect(await store.clear(u)).toBe(1);
    expect(await store.list(u)).toEqual({ items: [], total: 0 });
  });

  it('updates a fact in place: same id and createdAt, new text, kind and vector, updatedAt moved, one history entry', async () => {
    const store = await make({});
    const u = user();
    const { fact } = await store.add({ userId: u, kind: 'learned', text: 'Lives in Mudge House', embedding: vec(30) });
    const result = await store.update(u, fact.id, { text: 'Lives in Donner House', embedding: vec(31), source: 'extraction' });
    expect(result).toMatchObject({ status: 'updated', fact: { id: fact.id, kind: 'learned', text: 'Lives in Donner House' } });
    expect(result!.fact.createdAt).toEqual(fact.createdAt);
    expect(result!.fact.updatedAt.getTime()).toBeGreaterThan(fact.updatedAt.getTime());
    expect((await store.list(u)).items).toEqual([result!.fact]);
    // The new vector replaced the old one.
    expect((await store.search(u, vec(31), 1))[0]).toMatchObject({ id: fact.id });
    expect((await store.search(u, vec(31), 1))[0]!.similarity).toBeCloseTo(1, 5);
    expect(await store.history(u, fact.id)).toEqual([
      { at: fact.createdAt, change: 'created', source: 'extraction', text: 'Lives in Mudge House' },
      { at: result!.fact.updatedAt, change: 'updated', source: 'extraction', text: 'Lives in Donner House' },
    ]);

    // A remember promotes; the same words again change nothing.
    const promoted = await store.update(u, fact.id, { text: 'Lives in Donner House', kind: 'remembered', source: 'remember' });
    expect(promoted).toMatchObject({ status: 'updated', fact: { kind: 'remembered', text: 'Lives in Donner House' } });
    expect((await store.search(u, vec(31), 1))[0]).toMatchObject({ id: fact.id }); // same words: vector kept
    const same = await store.update(u, fact.id, { text: 'Lives in Donner House', source: 'extraction' });
    expect(same).toMatchObject({ status: 'unchanged', fact: { updatedAt: promoted!.fact.updatedAt } });
    expect((await store.history(u, fact.id))!.map((h) => h.source)).toEqual(['extraction', 'extraction', 'remember']);
  });

  it("refuses an update onto another fact's wording, and never touches another user's fact", async () => {
    const store = await make({});
    const [a, b] = [user(), user()];
    const mudge = await store.add({ userId: a, kind: 'learned', text: 'Lives in Mudge House' });
    const vegetarian = await store.add({ userId: a, kind: 'remembered', text: 'Is vegetarian' });
    const clash = await store.update(a, mudge.fact.id, { text: 'is VEGETARIAN', source: 'extraction' });
    expect(clash).toMatchObject({ status: 'conflict', fact: { id: vegetarian.fact.id } });
    expect(await store.get(a, mudge.fact.id)).toEqual(mudge.fact);

    expect(await store.update(b, mudge.fact.id, { text: 'Lives in Donner House', source: 'extraction' })).toBeNull();
    expect(await store.update(a, 'not-a-uuid', { text: 'x', source: 'extraction' })).toBeNull();
    expect(await store.update(a, randomUUID(), { text: 'x', source: 'extraction' })).toBeNull();
    expect(await store.get(a, mudge.fact.id)).toEqual(mudge.fact);
    expect(await store.history(b, mudge.fact.id)).toBeNull();
    expect((await store.history(a, mudge.fact.id))!).toHaveLength(1);
  });

  it('lists history oldest first, only of the given kind, and deletes it with the fact and with the user', async () => {
    const store = await make({});
    const u = user();
    const learned = await store.add({ userId: u, kind: 'learned', text: 'Studies physics' });
    const kept = await store.add({ userId: u, kind: 'remembered', text: 'Is a night owl' });
    await store.update(u, learned.fact.id, { text: 'Studies chemistry', source: 'extraction' });
    expect((await store.history(u, learned.fact.id, 'learned'))!.map((h) => h.text)).toEqual(['Studies physics', 'Studies chemistry']);
    expect(await store.history(u, learned.fact.id, 'remembered')).toBeNull();
    expect(await store.history(u, learned.fact.id.toUpperCase())).toHaveLength(2);

    await store.remove(u, [learned.fact.id]);
    expect(await store.history(u, learned.fact.id)).toBeNull();
    // Re-adding the same words starts a new fact with a history of one.
    const again = await store.add({ userId: u, kind: 'learned', text: 'Studies chemistry' });
    expect(again.fact.id).not.toBe(learned.fact.id);
    expect(await store.history(u, again.fact.id)).toHaveLength(1);

    expect(await store.clear(u)).toBe(2);
    expect(await store.history(u, kept.fact.id)).toBeNull();
    expect(await store.history(u, again.fact.id)).toBeNull();
  });
});
