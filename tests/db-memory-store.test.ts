/**
 * The Postgres store's life cycle on a real Postgres with pgvector (PGlite over the wire protocol):
 * a restart keeps the facts, two service instances initialise together, a vector column of the wrong
 * size refuses to start, and a database that stops answering makes health not ready.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { EmbeddingDimensionError } from '../src/db/migrate.js';
import { createPostgresStore } from '../src/memory/postgres-store.js';
import { MemoryStoreError } from '../src/memory/store-error.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function start(dataDir?: string): Promise<TestPostgres> {
  const pg = await startTestPostgres(dataDir ? { dataDir } : {});
  cleanups.push(() => pg.stop());
  return pg;
}

function connect(url: string): Database {
  const d = createDatabase(url, { max: 2, connectTimeoutSeconds: 2 });
  cleanups.push(() => d.close());
  return d;
}

describe('postgres memory store', () => {
  it('keeps facts across a restart of the database and the service', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-restart-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    let pg = await start(dir);
    let database = connect(pg.url);
    const first = createPostgresStore({ database, embeddingModel: null });
    await first.init();
    const { fact } = await first.add({ userId: 'alice', kind: 'remembered', text: 'Is vegetarian' });
    await database.close();
    await pg.stop();
    cleanups.length = 1; // only the directory removal is left

    pg = await start(dir);
    database = connect(pg.url);
    const second = createPostgresStore({ database, embeddingModel: null });
    await second.init();
    expect((await second.list('alice')).items).toEqual([fact]);
  });

  it('lets two service instances initialise the same empty database at once', async () => {
    const pg = await start();
    const stores = [connect(pg.url), connect(pg.url)].map((database) =>
      createPostgresStore({ database, embeddingModel: 'text-embedding-3-small' }),
    );
    await Promise.all(stores.map((s) => s.init()));
    const [a, b] = stores as [(typeof stores)[0], (typeof stores)[0]];
    await a.add({ userId: 'bob', kind: 'learned', text: 'Studies physics' });
    expect((await b.list('bob')).total).toBe(1);
    expect((await b.health()).ready).toBe(true);
  });

  it('refuses to start when the vector column has other dimensions than the model', async () => {
    const pg = await start();
    const database = connect(pg.url);
    await createPostgresStore({ database, embeddingModel: 'text-embedding-3-small' }).init();
    const wrong = createPostgresStore({ database, embeddingModel: 'text-embedding-3-large' });
    const err = await wrong.init().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingDimensionError);
    expect((err as Error).message).toMatch(/vector\(1536\).*text-embedding-3-large.*3072/);
    expect((await wrong.health()).initialized).toBe(false);
  });

  it('reports not ready when the database stops answering, and queries fail instead of hanging', async () => {
    const pg = await start();
    const database = connect(pg.url);
    const store = createPostgresStore({ database, embeddingModel: null, healthTimeoutMs: 1500 });
    await store.init();
    expect(await store.health()).toMatchObject({ backend: 'postgres', initialized: true, ready: true, semantic_search: false, embedding_model: null });
    await pg.stop();
    cleanups.length = 0;
    cleanups.push(() => database.close());
    expect(await store.health()).toMatchObject({ initialized: true, ready: false });
    const err = await store.list('alice', { q: 'private words' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryStoreError);
    expect(String((err as Error).stack)).not.toMatch(/alice|private words/);
  });

  it('fails with an error that names the operation and code, never the parameters (user text)', async () => {
    const pg = await start();
    const store = createPostgresStore({ database: connect(pg.url), embeddingModel: 'text-embedding-3-small' });
    await store.init();
    // A vector of the wrong size is refused by Postgres; drizzle's own error would carry every parameter.
    const err = await store
      .add({ userId: 'alice', kind: 'remembered', text: 'Takes insulin before lunch', embedding: [0.6, 0.8] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryStoreError);
    expect((err as Error).message).toMatch(/^memory store: add failed \(\w+\)$/);
    expect(`${(err as Error).stack} ${JSON.stringify(err)}`).not.toMatch(/alice|insulin/);
    expect(await store.count('alice')).toBe(0);
  });

  it('leaves no history row of a deleted fact, an evicted fact or a cleared user', async () => {
    const pg = await start();
    const database = connect(pg.url);
    const store = createPostgresStore({ database, embeddingModel: null, maxFactsPerUser: 2 });
    await store.init();
    const rowsOf = async (ids: string[]) =>
      (await database.sql<{ n: number }[]>`select count(*)::int as n from memory_fact_history where fact_id = any(${ids}::uuid[])`)[0]!.n;
    const a = await store.add({ userId: 'carol', kind: 'learned', text: 'Lives in Mudge House' });
    await store.update('carol', a.fact.id, { text: 'Lives in Donner House', source: 'extraction' });
    const b = await store.add({ userId: 'carol', kind: 'remembered', text: 'Is vegetarian' });
    expect(await rowsOf([a.fact.id, b.fact.id])).toBe(3);
    await store.remove('carol', [b.fact.id]);
    expect(await rowsOf([b.fact.id])).toBe(0);
    const c = await store.add({ userId: 'carol', kind: 'remembered', text: 'Plays cello' });
    const d = await store.add({ userId: 'carol', kind: 'remembered', text: 'Bikes to campus' }); // evicts a
    expect(d.evicted).toBe(1);
    expect(await rowsOf([a.fact.id])).toBe(0);
    expect(await store.clear('carol')).toBe(2);
    expect(await rowsOf([c.fact.id, d.fact.id])).toBe(0);
    const [left] = await database.sql<{ n: number }[]>`select count(*)::int as n from memory_fact_history`;
    expect(left!.n).toBe(0);
  });
});
