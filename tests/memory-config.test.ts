/**
 * Memory built from configuration: the in-memory store without DATABASE_URL, the Postgres store with
 * it, start failures that name the problem without the URL, and the embeddings client's checks
 * against the fake gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { EmbeddingSizeError } from '../src/memory/embeddings.js';
import { createEmbedderFromConfig, createMemoryStoreFromConfig, MemoryStartError } from '../src/memory/memory-from-config.js';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { testConfig } from './support/deps.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';

let gw: FakeGateway;
let pg: TestPostgres;
beforeAll(async () => {
  [gw, pg] = await Promise.all([startFakeGateway(), startTestPostgres()]);
});
afterAll(async () => {
  await Promise.all([gw.close(), pg.stop()]);
});

describe('createMemoryStoreFromConfig', () => {
  it('uses the in-memory store without DATABASE_URL and reports recency recall without a key', async () => {
    const { store, database } = await createMemoryStoreFromConfig(testConfig());
    expect(database).toBeNull();
    expect(await store.health()).toEqual({
      backend: 'in-memory',
      initialized: true,
      semantic_search: false,
      embedding_model: null,
      ready: true,
    });
  });

  it('uses Postgres with DATABASE_URL, migrated and ready, sharing its pool', async () => {
    const { store, database } = await createMemoryStoreFromConfig(
      testConfig({ DATABASE_URL: pg.url, EMBEDDINGS_API_KEY: 'sk-embed-test' }),
    );
    try {
      expect(database).not.toBeNull();
      expect(await store.health()).toEqual({
        backend: 'postgres',
        initialized: true,
        semantic_search: true,
        embedding_model: 'text-embedding-3-small',
        ready: true,
      });
      const [row] = await database!.sql<{ n: number }[]>`select count(*)::int as n from memory_facts`;
      expect(row?.n).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('refuses to start on a vector size mismatch, and on an unreachable database without printing its URL', async () => {
    const mismatch = await createMemoryStoreFromConfig(
      testConfig({ DATABASE_URL: pg.url, EMBEDDINGS_API_KEY: 'sk-embed-test', EMBEDDING_MODEL: 'text-embedding-3-large' }),
    ).catch((e: unknown) => e);
    expect(mismatch).toBeInstanceOf(MemoryStartError);
    expect((mismatch as Error).message).toMatch(/vector\(1536\).*3072/);

    const url = 'postgres://admin:s3cret-pass@127.0.0.1:1/campus';
    const unreachable = await createMemoryStoreFromConfig(testConfig({ DATABASE_URL: url }), undefined, { startTimeoutMs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(unreachable).toBeInstanceOf(MemoryStartError);
    expect((unreachable as Error).message).toMatch(/cannot connect to or migrate the database at DATABASE_URL \(ECONNREFUSED\)/);
    expect((unreachable as Error).message).not.toMatch(/s3cret|127\.0\.0\.1|admin/);
  });
});

describe('database at start', () => {
  it('retries an unreachable database with backoff for the start timeout, then refuses without its URL', async () => {
    let t = 0;
    const waits: number[] = [];
    const lines: string[] = [];
    const url = 'postgres://admin:s3cret-pass@127.0.0.1:1/campus';
    const err = await createMemoryStoreFromConfig(testConfig({ DATABASE_URL: url }), createLogger({ sink: (l) => void lines.push(l) }), {
      startTimeoutMs: 20_000,
      now: () => t,
      sleep: async (ms) => {
        waits.push(ms);
        t += ms;
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryStartError);
    expect(waits).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    expect(lines.filter((l) => l.includes('retrying'))).toHaveLength(6);
    expect(lines.join('\n')).not.toMatch(/s3cret|admin@/);
  });

  it('does not retry a vector size mismatch', async () => {
    let sleeps = 0;
    const mismatch = await createMemoryStoreFromConfig(
      testConfig({ DATABASE_URL: pg.url, EMBEDDINGS_API_KEY: 'sk-embed-test', EMBEDDING_MODEL: 'text-embedding-3-large' }),
      undefined,
      { sleep: async () => void sleeps++ },
    ).catch((e: unknown) => e);
    expect(mismatch).toBeInstanceOf(MemoryStartError);
    expect(sleeps).toBe(0);
  });
});

describe('embeddings client', () => {
  const config = () => testConfig({ EMBEDDINGS_API_KEY: 'sk-embed-test', EMBEDDINGS_BASE_URL: gw.baseUrl });

  it('is off without EMBEDDINGS_API_KEY', () => {
    expect(createEmbedderFromConfig(testConfig())).toBeNull();
  });

  it('embeds in order with the configured model and key', async () => {
    const embedder = createEmbedderFromConfig(config())!;
    const first = new Array(1536).fill(0).map((_, i) => (i === 0 ? 1 : 0));
    gw.setEmbedding('first', first);
    const vectors = await embedder.embed(['first', 'second']);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toEqual(first);
    expect(vectors[1]).toHaveLength(1536);
    const request = gw.requests.at(-1)!;
    expect(request).toMatchObject({ path: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: ['first', 'second'] } });
    expect(request.headers.authorization).toBe('Bearer sk-embed-test');
  });

  it('fails loudly on vectors of another size', async () => {
    gw.setEmbedding('short', [0.6, 0.8]);
    await expect(createEmbedderFromConfig(config())!.embed(['short'])).rejects.toBeInstanceOf(EmbeddingSizeError);
  });
});
