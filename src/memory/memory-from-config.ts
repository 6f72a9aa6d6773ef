/**
 * Builds long-term memory from the configuration, for `server.ts`: the Postgres store when
 * DATABASE_URL is set (migrated and checked before serving), else the in-memory store; and the
 * embeddings client when EMBEDDINGS_API_KEY is set. Start failures name the problem without the URL.
 */
import type { Config } from '../config.js';
import { createDatabase, type Database } from '../db/client.js';
import { EmbeddingDimensionError } from '../db/migrate.js';
import type { Logger } from '../logger.js';
import { createEmbedder, type Embedder } from './embeddings.js';
import { createInMemoryStore } from './in-memory-store.js';
import { createPostgresStore } from './postgres-store.js';
import type { MemoryStore } from './store.js';

/** Thrown when the configured memory store cannot start; the message is safe to print. */
export class MemoryStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MemoryStartError';
  }
}

export interface MemoryFromConfig {
  store: MemoryStore;
  /** The open pool when Postgres is used (owned by the store, which closes it): others may share it. */
  database: Database | null;
}

/** Opens and initialises the configured store. */
export async function createMemoryStoreFromConfig(
  config: Pick<Config, 'databaseUrl' | 'embeddings'>,
  logger?: Logger,
): Promise<MemoryFromConfig> {
  const embeddingModel = config.embeddings.apiKey ? config.embeddings.model : null;
  if (!config.databaseUrl) {
    const store = createInMemoryStore({ embeddingModel });
    await store.init();
    return { store, database: null };
  }
  const database = createDatabase(config.databaseUrl);
  const store = createPostgresStore({ database, ownsDatabase: true, embeddingModel, logger });
  try {
    await store.init();
  } catch (err) {
    await store.close().catch(() => undefined);
    if (err instanceof EmbeddingDimensionError) throw new MemoryStartError(`memory store: ${err.message}`, { cause: err });
    // Driver messages can carry the host; only the error code leaves (the URL is a secret).
    const code = (err as { code?: unknown }).code;
    throw new MemoryStartError(
      `memory store: cannot connect to or migrate the database at DATABASE_URL${typeof code === 'string' ? ` (${code})` : ''}`,
      { cause: err },
    );
  }
  return { store, database };
}

/** The embeddings client, or null when EMBEDDINGS_API_KEY is unset (recall by recency). */
export function createEmbedderFromConfig(config: Pick<Config, 'embeddings'>, fetch?: typeof globalThis.fetch): Embedder | null {
  const { apiKey, baseUrl, model } = config.embeddings;
  if (!apiKey) return null;
  return createEmbedder({ apiKey, baseUrl, model, ...(fetch && { fetch }) });
}
