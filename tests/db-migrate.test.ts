/**
 * Migrations on a real Postgres with pgvector (PGlite over the wire protocol): from an empty database,
 * idempotent re-runs, two instances migrating at once, the HNSW index, and the dimension check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { EMBEDDING_DIMENSIONS } from '../src/db/embedding-dimensions.js';
import { checkEmbeddingDimensions, EmbeddingDimensionError, runMigrations } from '../src/db/migrate.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';

describe('runMigrations', () => {
  let pg: TestPostgres;
  const open: Database[] = [];
  const connect = () => {
    const d = createDatabase(pg.url, { max: 2 });
    open.push(d);
    return d;
  };

  beforeAll(async () => {
    pg = await startTestPostgres();
  });
  afterAll(async () => {
    for (const d of open) await d.close();
    await pg.stop();
  });

  it('creates the extension, tables and indexes on an empty database, concurrently and idempotently', async () => {
    const [a, b] = [connect(), connect()];
    // Two service instances starting together: exactly one applies the migrations.
    const results = await Promise.all([runMigrations(a), runMigrations(b)]);
    expect(results.map((r) => r.applied).sort()).toEqual([0, 2]);
    expect((await runMigrations(a)).applied).toBe(0);

    const ext = await a.sql`select extname from pg_extension where extname = 'vector'`;
    expect(ext).toHaveLength(1);
    const tables = await a.sql<{ table_name: string }[]>`
      select table_name from information_schema.tables where table_schema = 'public' order by table_name`;
    expect(tables.map((t) => t.table_name)).toEqual(['memory_facts', 'token_usage']);
    const [hnsw] = await a.sql<{ indexdef: string }[]>`
      select indexdef from pg_indexes where indexname = 'memory_facts_embedding_hnsw_idx'`;
    expect(hnsw?.indexdef).toMatch(/USING hnsw \(embedding vector_cosine_ops\)/);
    const [count] = await a.sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
    expect(count?.n).toBe(2);
  });

  it('accepts the default model and refuses a model with other dimensions, naming both sizes', async () => {
    const d = connect();
    await runMigrations(d, { embeddingModel: 'text-embedding-3-small' });
    await expect(checkEmbeddingDimensions(d, 'openai/text-embedding-3-small')).resolves.toBeUndefined();
    const err = await runMigrations(d, { embeddingModel: 'text-embedding-3-large' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingDimensionError);
    expect((err as Error).message).toContain(`vector(${EMBEDDING_DIMENSIONS})`);
    expect((err as Error).message).toContain('3072');
  });
});
