/**
 * Migrations on a real Postgres with pgvector (PGlite over the wire protocol): from an empty database,
 * idempotent re-runs, two instances migrating at once, the upgrade of a database holding the previous
 * schema with data (fact history backfilled, HNSW index dropped, nothing lost), and the dimension check.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { EMBEDDING_DIMENSIONS } from '../src/db/embedding-dimensions.js';
import { checkEmbeddingDimensions, defaultMigrationsFolder, EmbeddingDimensionError, runMigrations } from '../src/db/migrate.js';
import { createPostgresStore } from '../src/memory/postgres-store.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';

/** The committed migrations (drizzle/meta/_journal.json). */
const MIGRATIONS = (JSON.parse(readFileSync(join(defaultMigrationsFolder(), 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;

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
  const stops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const stop of stops) await stop();
    for (const d of open) await d.close();
    await pg.stop();
  });

  it('creates the extension, tables and indexes on an empty database, concurrently and idempotently', async () => {
    const [a, b] = [connect(), connect()];
    // Two service instances starting together: exactly one applies the migrations.
    const results = await Promise.all([runMigrations(a), runMigrations(b)]);
    expect(results.map((r) => r.applied).sort()).toEqual([0, MIGRATIONS]);
    expect((await runMigrations(a)).applied).toBe(0);

    const ext = await a.sql`select extname from pg_extension where extname = 'vector'`;
    expect(ext).toHaveLength(1);
    const tables = await a.sql<{ table_name: string }[]>`
      select table_name from information_schema.tables where table_schema = 'public' order by table_name`;
    expect(tables.map((t) => t.table_name)).toEqual(['agent_run_frames', 'agent_run_replicas', 'agent_runs', 'job_runs', 'jobs', 'memory_fact_history', 'memory_facts', 'model_price_ratios', 'token_usage']);
    const vectorIndexes = await a.sql`select indexdef from pg_indexes where indexdef ~* 'hnsw|ivfflat'`;
    expect(vectorIndexes).toHaveLength(0);
    const [count] = await a.sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
    expect(count?.n).toBe(MIGRATIONS);
  });

  it('upgrades a database holding the previous schema with data: history backfilled, nothing lost', async () => {
    // A database of its own (PGlite serves one database per server), migrated with the first two
    // migrations only (the schema before fact history), then filled as the previous release would have.
    const previous = await startTestPostgres();
    const old = createDatabase(previous.url, { max: 2 });
    stops.push(async () => {
      await old.close();
      await previous.stop();
    });
    const folder = mkdtempSync(join(tmpdir(), 'migrations-'));
    try {
      cpSync(defaultMigrationsFolder(), folder, { recursive: true });
      const journalPath = join(folder, 'meta', '_journal.json');
      const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: unknown[] };
      writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, 2) }));
      expect((await runMigrations(old, { migrationsFolder: folder })).applied).toBe(2);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    const vector = `[${Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => (i === 0 ? 1 : 0)).join(',')}]`;
    await old.sql`
      insert into memory_facts (id, user_id, kind, text, normalized, embedding, created_at, updated_at) values
        ('00000000-0000-4000-8000-000000000001', 'alice', 'remembered', 'Is vegetarian', 'is vegetarian', ${vector}::vector,
         '2026-10-01T10:00:00Z', '2026-10-01T10:00:00Z'),
        ('00000000-0000-4000-8000-000000000002', 'alice', 'learned', 'Lives in Mudge House', 'lives in mudge house', null,
         '2026-10-02T12:00:00Z', '2026-10-05T12:00:00Z')`;
    await old.sql`insert into token_usage (bucket, day, tokens) values ('alice', '2026-10-02', 1234)`;

    expect((await runMigrations(old)).applied).toBe(MIGRATIONS - 2);

    const store = createPostgresStore({ database: old, embeddingModel: 'text-embedding-3-small' });
    await store.init();
    const { items } = await store.list('alice');
    expect(items.map((f) => [f.id, f.kind, f.text, f.createdAt.toISOString(), f.updatedAt.toISOString()])).toEqual([
      ['00000000-0000-4000-8000-000000000002', 'learned', 'Lives in Mudge House', '2026-10-02T12:00:00.000Z', '2026-10-05T12:00:00.000Z'],
      ['00000000-0000-4000-8000-000000000001', 'remembered', 'Is vegetarian', '2026-10-01T10:00:00.000Z', '2026-10-01T10:00:00.000Z'],
    ]);
    expect((await store.search('alice', JSON.parse(vector) as number[], 8)).map((f) => f.text)).toEqual(['Is vegetarian']);
    expect(await store.history('alice', '00000000-0000-4000-8000-000000000002')).toEqual([
      { at: new Date('2026-10-02T12:00:00Z'), change: 'created', source: 'extraction', text: 'Lives in Mudge House' },
    ]);
    expect(await store.history('alice', '00000000-0000-4000-8000-000000000001')).toEqual([
      { at: new Date('2026-10-01T10:00:00Z'), change: 'created', source: 'remember', text: 'Is vegetarian' },
    ]);
    const [usage] = await old.sql<{ tokens: string }[]>`select tokens from token_usage where bucket = 'alice'`;
    expect(Number(usage?.tokens)).toBe(1234);
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
