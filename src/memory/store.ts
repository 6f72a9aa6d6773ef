/**
 * The memory store interface: durable facts per user, kept apart by `user_id`. Two implementations:
 * in-memory (no DATABASE_URL) and Postgres with pgvector. Raw chat turns are never stored.
 */

/** `learned`: extracted in the background; `remembered`: the user asked for it (CONTRACT.md). */
export const FACT_KINDS = ['learned', 'remembered'] as const;
export type FactKind = (typeof FACT_KINDS)[number];

/**
 * Why a fact changed (CONTRACT.md "Fact history"): background `extraction`, the `remember` tool, the
 * `forget` tool, or the `user` through the memory routes.
 */
export const FACT_SOURCES = ['extraction', 'remember', 'forget', 'user'] as const;
export type FactSource = (typeof FACT_SOURCES)[number];

/** One entry of a fact's history: the fact as it read after the change (null for a deletion). */
export interface FactChange {
  at: Date;
  change: 'created' | 'updated' | 'deleted';
  source: FactSource;
  text: string | null;
}

/** Issue 5: at most 1,000 facts per user; past that the oldest learned facts are evicted first. */
export const MAX_FACTS_PER_USER = 1000;

/** Issue 5: a new fact this similar (cosine) to a stored one updates it instead of adding a second. */
export const DUPLICATE_SIMILARITY = 0.92;

/** Longest fact text kept; a fact is one short sentence, not a transcript. */
export const MAX_FACT_LENGTH = 500;

/** One durable fact about one user. */
export interface Fact {
  id: string;
  userId: string;
  kind: FactKind;
  text: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A fact found by vector search; `similarity` is cosine similarity (1 − cosine distance). */
export interface ScoredFact extends Fact {
  similarity: number;
}

export interface FactInput {
  userId: string;
  kind: FactKind;
  /** As admission made it (admitFact, fact-guard.ts): the store writes it as it is and refuses one it could not hold. */
  text: string;
  /** Null or absent when embeddings are off or failed: such a fact is found by text only. */
  embedding?: number[] | null;
  /** Recorded in the fact's history; defaults to `remember` for remembered facts, else `extraction`. */
  source?: FactSource;
}

/** A new wording for a stored fact (a superseding fact: "Moved to Donner House"). */
export interface FactUpdate {
  /** As admission made it, like an added fact's text. */
  text: string;
  /** The new text's embedding; null or absent keeps no vector (the old one no longer describes it). */
  embedding?: number[] | null;
  /** A remember promotes the fact to `remembered`; absent keeps its kind. */
  kind?: FactKind;
  source: FactSource;
}

/**
 * `updated`: new text (and kind) stored, id and `createdAt` kept, `updatedAt` moved, one history entry.
 * `unchanged`: the text (normalised) and kind were already these; nothing was written.
 * `conflict`: another fact of the user already reads this way; nothing was written.
 */
export type UpdateResult = { status: 'updated' | 'unchanged'; fact: Fact } | { status: 'conflict'; fact: Fact };

export interface AddResult {
  /** The stored fact: the new one, or the existing duplicate after its update. */
  fact: Fact;
  /**
   * `updated`: a duplicate (same normalised text, or similarity ≥ DUPLICATE_SIMILARITY) took the new
   * wording or kind. `unchanged`: a duplicate already said this; nothing was written (a repeated fact
   * changes nothing, not even `updatedAt`).
   */
  status: 'created' | 'updated' | 'unchanged';
  /** How many facts were evicted to stay within the per-user limit. */
  evicted: number;
}

export interface ListOptions {
  /** Case-insensitive substring of the fact text. */
  q?: string;
  kind?: FactKind;
  limit?: number;
  offset?: number;
}

export interface FactPage {
  /** Newest first. */
  items: Fact[];
  /** Facts matching the filters, ignoring limit and offset. */
  total: number;
}

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

  /**
   * Stores a fact, or updates its duplicate: same normalised text, else the nearest embedding with
   * similarity ≥ DUPLICATE_SIMILARITY. A duplicate keeps the stronger kind (an explicit `remembered`
   * promotes a `learned` fact) and, when remembered, takes the new wording. Then evicts past the
   * per-user limit: learned before remembered, least recently updated first. A creation or a change is
   * one entry in the fact's history.
   */
  add(input: FactInput): Promise<AddResult>;
  /** Rewrites one fact of this user in place; null when this user has no such fact. */
  update(userId: string, id: string, update: FactUpdate): Promise<UpdateResult | null>;
  /** The fact's history, oldest first; null when this user has no such fact (of `kind` when given). */
  history(userId: string, id: string, kind?: FactKind): Promise<FactChange[] | null>;
  /** A page of one user's facts, newest first (CONTRACT.md "Memory page"). */
  list(userId: string, options?: ListOptions): Promise<FactPage>;
  /**
   * The `k` facts nearest to `embedding` (cosine), nearest first, the more recently updated first at
   * equal distance; facts without embedding excluded. Exact: every fact of the user is compared.
   */
  search(userId: string, embedding: readonly number[], k: number): Promise<ScoredFact[]>;
  /** One fact of this user, or null (also for an id that is not a fact id). */
  get(userId: string, id: string): Promise<Fact | null>;
  /**
   * Removes these facts of this user (only of `kind` when given) with their history; returns what was
   * removed.
   */
  remove(userId: string, ids: readonly string[], kind?: FactKind): Promise<Fact[]>;
  /** Removes every fact of this user and all their history; returns how many facts. */
  clear(userId: string): Promise<number>;
  /** How many facts this user has. */
  count(userId: string): Promise<number>;
}
