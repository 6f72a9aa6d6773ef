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

/** How long a start waits for the database (a database starting beside the service, a failover). */
export const DATABASE_START_TIMEOUT_MS = 30_000;

/**
 * Opens and initialises the configured store. A database that cannot be reached is retried with
 * backoff (0.5 s doubling to 5 s) for `startTimeoutMs`; a wrong vector size is final at once.
 */
export async function createMemoryStoreFromConfig(
  config: Pick<Config, 'databaseUrl' | 'embeddings'>,
  logger?: Logger,
  options: { startTimeoutMs?: number; sleep?: (ms: number) => Promise<void>; now?: () => number } = {},
): Promise<MemoryFromConfig> {
  const embeddingModel = config.embeddings.apiKey ? config.embeddings.model : null;
  if (!config.databaseUrl) {
    const store = createInMemoryStore({ embeddingModel });
    await store.init();
    return { store, database: null };
  }
  const now = options.now ?? Date.now;
  const deadline = now() + (options.startTimeoutMs ?? DATABASE_START_TIMEOUT_MS);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1, wait = 500; ; attempt++, wait = Math.min(wait * 2, 5_000)) {
    try {
      return await openPostgres(config.databaseUrl, embeddingModel, logger);
    } catch (err) {
      const final = err instanceof MemoryStartError && err.cause instanceof EmbeddingDimensionError;
      if (final || now() + wait > deadline) throw err;
      logger?.warn('database not reachable at start; retrying', { attempt, retry_in_ms: wait, reason: (err as Error).message });
      await sleep(wait);
    }
  }
}

async function openPostgres(url: string, embeddingModel: string | null, logger: Logger | undefined): Promise<MemoryFromConfig> {
  const database = createDatabase(url);
  const store = createPostgresStore({ database, ownsDatabase: true, embeddingModel });
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
