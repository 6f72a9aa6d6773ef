/**
 * Applies the committed migrations in `drizzle/` at start, and refuses a database whose vector column
 * has other dimensions than the configured embedding model.
 *
 * Why not drizzle's `migrate()` as is: it reads the last applied migration outside its transaction, so
 * two replicas starting together can both decide to apply the same files. Here the whole run is one
 * transaction that first takes a transaction-scoped advisory lock: the second replica waits, then sees
 * the first one's bookkeeping and applies nothing. The files are parsed by drizzle's own
 * `readMigrationFiles` and recorded in drizzle's `drizzle.__drizzle_migrations` table, so drizzle-kit
 * and this runner agree on what has been applied.
 */
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './client.js';
import { embeddingDimensions } from './embedding-dimensions.js';

/** `drizzle/` at the repository root (this file is src/db/ in source, dist/src/db/ when built). */
export function defaultMigrationsFolder(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = here.endsWith(join('dist', 'src', 'db'));
  return join(here, ...(built ? ['..', '..', '..'] : ['..', '..']), 'drizzle');
}

/** Arbitrary but fixed: every replica of this service must use the same advisory lock key. */
export const MIGRATION_LOCK_KEY = 0x63616d70; // "camp"

/** Thrown when the database cannot serve the configured embedding model; the message says what to do. */
export class EmbeddingDimensionError extends Error {
  constructor(
    readonly columnDimensions: number,
    readonly model: string,
    readonly modelDimensions: number,
  ) {
    super(
      `memory_facts.embedding is vector(${columnDimensions}) but EMBEDDING_MODEL "${model}" produces ` +
        `${modelDimensions} dimensions. Configure a model with ${columnDimensions} dimensions, or migrate ` +
        'the column (and re-embed the stored facts) before starting with this model.',
    );
    this.name = 'EmbeddingDimensionError';
  }
}

export interface MigrateOptions {
  migrationsFolder?: string;
  /** When given, the vector column is checked against this model's dimensions after migrating. */
  embeddingModel?: string;
}

export interface MigrateResult {
  /** How many migrations this call applied (0 when the database was already current). */
  applied: number;
}

/** Creates the extension, schema and tables as needed; safe to call from replicas starting together. */
export async function runMigrations(database: Database, options: MigrateOptions = {}): Promise<MigrateResult> {
  const folder = options.migrationsFolder ?? defaultMigrationsFolder();
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  let applied = 0;
  await database.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
    await tx`create schema if not exists drizzle`;
    await tx`create table if not exists drizzle.__drizzle_migrations (
      id serial primary key, hash text not null, created_at bigint)`;
    const [last] = await tx<{ created_at: string | null }[]>`
      select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`;
    const lastMillis = last?.created_at == null ? -1 : Number(last.created_at);
    for (const migration of migrations) {
      if (migration.folderMillis <= lastMillis) continue;
      for (const statement of migration.sql) {
        if (statement.trim()) await tx.unsafe(statement);
      }
      await tx`insert into drizzle.__drizzle_migrations (hash, created_at)
        values (${migration.hash}, ${migration.folderMillis})`;
      applied++;
    }
  });
  if (options.embeddingModel) await checkEmbeddingDimensions(database, options.embeddingModel);
  return { applied };
}

/** Throws EmbeddingDimensionError when the existing vector column does not fit `model`. */
export async function checkEmbeddingDimensions(database: Database, model: string): Promise<void> {
  // For the vector type, atttypmod is the declared dimension count (-1 when undeclared).
  const rows = await database.sql<{ dims: number }[]>`
    select a.atttypmod as dims from pg_attribute a
    where a.attrelid = to_regclass('public.memory_facts') and a.attname = 'embedding' and not a.attisdropped`;
  const dims = rows[0]?.dims;
  if (dims === undefined || dims < 0) return;
  const expected = embeddingDimensions(model);
  if (dims !== expected) throw new EmbeddingDimensionError(dims, model, expected);
}
