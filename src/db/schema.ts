/**
 * Drizzle schema (pg-core): long-term memory facts with a pgvector embedding, and the daily token
 * budget table used by the Postgres budget store. Migrations in `drizzle/` are generated from this file
 * by drizzle-kit (`npm run db:generate`) and committed; never pushed.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  bigserial,
  check,
  integer,
  json,
  jsonb,
  date,
  doublePrecision,
  index,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  vector,
} from 'drizzle-orm/pg-core';
import { EMBEDDING_DIMENSIONS } from './embedding-dimensions.js';

/**
 * The kinds of fact a row holds. The memory room owns the idea (`FACT_KINDS` in src/memory/store.ts);
 * the schema keeps its own copy so it depends on nothing above it, and the Postgres store checks at
 * compile time that the two agree.
 */
export const FACT_KIND_VALUES = ['learned', 'remembered'] as const;

export const memoryFacts = pgTable(
  'memory_facts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: text('user_id').notNull(),
    kind: text('kind', { enum: FACT_KIND_VALUES }).notNull(),
    text: text('text').notNull(),
    /** Lower-cased, punctuation-free, single-spaced text: exact duplicates per user meet on this. */
    normalized: text('normalized').notNull(),
    /** Null when embeddings are off (no EMBEDDINGS_API_KEY) or the embedding call failed. */
    embedding: vector('embedding', { dimensions: EMBEDDING_DIMENSIONS }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    check('memory_facts_kind_check', sql`${t.kind} in ('learned', 'remembered')`),
    // One row per normalised text per user: dedupe holds even when two writers race.
    uniqueIndex('memory_facts_user_normalized_idx').on(t.userId, t.normalized),
    // Newest-first listing and recency recall per user; also eviction of the oldest learned facts.
    index('memory_facts_user_created_idx').on(t.userId, t.createdAt.desc(), t.id.desc()),
    // No vector index (migration 0003 dropped the HNSW one): nearest-fact queries always name one user,
    // who holds at most MAX_FACTS_PER_USER (1,000) facts, and the planner serves them from the btree
    // above followed by an exact sort by cosine distance (measured in bench/recall.bench.ts at 1k and
    // 100k facts, plan printed there). That answer is exact and complete; an HNSW index over all users
    // was never chosen for it, cost every insert a graph update, and needed `hnsw.iterative_scan` in a
    // transaction to keep a per-user result from starving.
  ],
);

export type MemoryFactRow = typeof memoryFacts.$inferSelect;

/** Where a change to a fact came from (CONTRACT.md "Fact history"); `FACT_SOURCES` in src/memory/store.ts. */
export const FACT_SOURCE_VALUES = ['extraction', 'remember', 'forget', 'user'] as const;
export const FACT_CHANGE_VALUES = ['created', 'updated', 'deleted'] as const;

/**
 * Every change to a fact: what it read after the change, when, and why. Rows go with their fact (the
 * foreign key cascades): deleting a fact, evicting it or clearing a user leaves nothing of it here.
 */
export const memoryFactHistory = pgTable(
  'memory_fact_history',
  {
    /** Orders changes of the same instant (a create and an update in one transaction). */
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    factId: uuid('fact_id')
      .notNull()
      .references(() => memoryFacts.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    change: text('change', { enum: FACT_CHANGE_VALUES }).notNull(),
    source: text('source', { enum: FACT_SOURCE_VALUES }).notNull(),
    /** The fact's text after the change; null for a deletion. */
    text: text('text'),
  },
  (t) => [
    check('memory_fact_history_change_check', sql`${t.change} in ('created', 'updated', 'deleted')`),
    check('memory_fact_history_source_check', sql`${t.source} in ('extraction', 'remember', 'forget', 'user')`),
    index('memory_fact_history_fact_idx').on(t.factId, t.seq),
  ],
);

/**
 * Daily usage per budget bucket (`user_id`, `anonymous`, or `#service` for the whole service's spend
 * under SERVICE_DAILY_SPEND_LIMIT_USD), one row per UTC day: tokens, and money in whole nano-dollars.
 * Reservations and charges go through the `budget_reserve` and `budget_charge` functions
 * (drizzle/0006_budget-functions.sql), which lock the service row before a user's.
 */
export const tokenUsage = pgTable(
  'token_usage',
  {
    bucket: text('bucket').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    tokens: bigint('tokens', { mode: 'number' }).notNull().default(0),
    nanoUsd: bigint('nano_usd', { mode: 'number' }).notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.day] })],
);

/**
 * What the gateway's reported cost showed a model really costs against MODEL_PRICES (issue 61): the
 * highest ratio of reported cost to cost at the configured price seen on a day, per model. Reservations
 * hold the worst case at the configured price times this ratio, so a price written too low cannot take
 * a money cap past itself turn after turn; every replica of the Postgres budget reads the same rows.
 * Pruned with the budget's days.
 */
export const modelPriceRatios = pgTable(
  'model_price_ratios',
  {
    model: text('model').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    ratio: doublePrecision('ratio').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.model, t.day] })],
);

/**
 * Background jobs claimed by key (the turn a memory extraction belongs to): the queue may hand a job
 * to a second replica (its first worker killed, or a retry), and the key makes the work happen once in
 * effect. A claim older than the job's expiry is a dead worker's and may be taken over; `done_at`
 * set means finished.
 */
export const jobRuns = pgTable(
  'job_runs',
  {
    key: text('key').primaryKey(),
    claimedAt: timestamp('claimed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    doneAt: timestamp('done_at', { withTimezone: true, mode: 'date' }),
    /** The lease of the job whose worker holds the claim: only that worker's writes change it (issue 63). */
    claim: uuid('claim'),
  },
  (t) => [index('job_runs_done_at_idx').on(t.doneAt)],
);

/**
 * The job queue (db/postgres-job-queue.ts): work that runs after the response, stored in the turn and
 * run by any replica. A row is waiting while `locked_until` is null, running (one replica's) while it is
 * in the future, and up for takeover once it has passed: its worker died. A finished job's row is
 * deleted; one whose attempts ran out keeps its row a day with `failed_at` and the error's type, and
 * without its payload (the turn's text).
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    payload: jsonb('payload'),
    /** The turn's span as a `traceparent`, so the job's trace links to it on whichever replica runs it. */
    link: text('link'),
    attempts: integer('attempts').notNull().default(0),
    runAfter: timestamp('run_after', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    /**
     * A fresh token each time a worker takes the row: every write after that (complete, give back, release,
     * fail) applies only while the row still carries it, so a worker whose lease passed and whose job
     * another replica took changes nothing (issue 63).
     */
    lease: uuid('lease'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    failedAt: timestamp('failed_at', { withTimezone: true, mode: 'date' }),
    lastError: text('last_error'),
  },
  (t) => [index('jobs_due_idx').on(t.kind, t.runAfter).where(sql`${t.failedAt} is null`)],
);

/**
 * Resumable runs (issue 62, runs/postgres-run-store.ts): one row per `/agent/respond/stream` turn,
 * owned by its user (`owner`: the user id or `anonymous`), produced by one replica (`replica`, which
 * heartbeats its running rows; a row whose heartbeat stopped belongs to a dead replica and is marked
 * `interrupted` by its first reader). Written lazily: with the run's first write or its replica's next
 * heartbeat (agent_run_replicas below). `response`/`error` hold the end; rows are deleted at
 * `expires_at` (the ending replica's RUN_RETENTION_SECONDS after the end), and with their owner's memory.
 */
/** A run's statuses (runs/run-log.ts `RunStatus`, the API's `RunState`, the check below): written once, here. */
export const RUN_STATUSES = ['running', 'done', 'failed', 'cancelled', 'interrupted'] as const;

export const agentRuns = pgTable(
  'agent_runs',
  {
    id: uuid('id').primaryKey(),
    owner: text('owner').notNull(),
    status: text('status').notNull().default('running'),
    replica: uuid('replica').notNull(),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastSeq: integer('last_seq').notNull().default(0),
    /** The producer wrote the run's own last frame (`done` or `error`). */
    closed: boolean('closed').notNull().default(false),
    response: jsonb('response'),
    error: jsonb('error'),
    /**
     * The frames its producer still held at the end, as the releases before issue 75's tail lines wrote
     * them: one JSON array (seq order, after every row of agent_run_frames). Read, no longer written.
     */
    tail: json('tail'),
    /**
     * The frames its producer still held at the end, written with the end as text, one line a frame
     * (`<seq> <event> <data>`, runs/run-log.ts `frameLines`; seq order, after every row of
     * agent_run_frames): a run read whole on its connection costs one value here, not a row, an index
     * entry and a foreign-key check per frame (docs/perf-log/2026-11-28-run-log-tail.md), and text the
     * database stores without parsing, where the JSON array cost it about 0.75 ms a run of 400 frames
     * (docs/perf-log/2026-11-30-tail-lines.md).
     */
    tailLines: text('tail_lines'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }),
    /**
     * When the ended run may be deleted: its end plus the RUN_RETENTION_SECONDS of the replica that ended
     * it (issue 74: a replica configured shorter no longer prunes runs the others still promise).
     */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('agent_runs_owner_idx').on(t.owner),
    index('agent_runs_expires_at_idx').on(t.expiresAt),
    index('agent_runs_running_idx').on(t.replica).where(sql`${t.status} = 'running'`),
    check('agent_runs_status_check', sql`${t.status} in (${sql.raw(RUN_STATUSES.map((s) => `'${s}'`).join(', '))})`),
  ],
);

/**
 * The replicas that produce runs (runs/postgres-run-store.ts): each heartbeats its row once a second,
 * with `beat` its heartbeat's number. A run's row is written at its producer's next heartbeat at the
 * latest, and its id names the producer and the beat before it, so a reader that finds no row can tell
 * a run too young to be written (the producer alive, `beat` not past the id's) from one whose producer
 * died first (its heartbeat stale) and from one written and deleted since. Rows are deleted
 * RUN_RETENTION_SECONDS after their last heartbeat.
 */
export const agentRunReplicas = pgTable('agent_run_replicas', {
  id: uuid('id').primaryKey(),
  beat: bigint('beat', { mode: 'number' }).notNull(),
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** A run's frames, as its SSE carried them (what the verify stage let out, never raw model text). */
export const agentRunFrames = pgTable(
  'agent_run_frames',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => agentRuns.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    event: text('event').notNull(),
    data: text('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);
