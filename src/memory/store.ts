/**
 * The memory store interface: durable facts per user, kept apart by `user_id`. Two implementations:
 * in-memory (no DATABASE_URL) and Postgres with pgvector. Raw chat turns are never stored.
 */

/** What `/api/health` reports under `memory` (CONTRACT.md "Health"). */
export interface MemoryHealth {
  backend: 'postgres' | 'in-memory';
  initialized: boolean;
  semantic_search: boolean;
  embedding_model: string | null;
  /** False when the store cannot be queried right now: health answers 503 `degraded`. */
  ready: boolean;
}

export interface MemoryStore {
  readonly backend: MemoryHealth['backend'];
  /** Connects and migrates; throws (startup fails) on a store that cannot be used. */
  init(): Promise<void>;
  /** Queries the store cheaply; never throws. */
  health(): Promise<MemoryHealth>;
  /** Releases connections; idempotent. */
  close(): Promise<void>;
}
