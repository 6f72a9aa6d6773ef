/**
 * Recall latency on the Postgres store (PGlite with pgvector over the wire protocol, a local stand-in
 * for a networked server) at 1k and 100k facts spread over 1,000 users, and the per-turn cost of memory
 * on the in-memory store (plan + recall + binding the tools). The query embedding is precomputed: the
 * provider round trip is the provider's latency, not ours.
 */
import { EMBEDDING_DIMENSIONS } from '../src/db/embedding-dimensions.js';
import { createDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import { silentLogger } from '../src/logger.js';
import { createTurnMemory } from '../src/memory/create-turn-memory.js';
import type { Embedder } from '../src/memory/embeddings.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import { createPostgresStore } from '../src/memory/postgres-store.js';
import { createRecall } from '../src/memory/recall.js';
import type { MemoryStore } from '../src/memory/store.js';
import type { ModelGateway } from '../src/model/gateway.js';
import { startPgliteServer } from '../tests/support/pglite-server.js';
import { ms, quantile, timeRuns } from './support/stats.js';
import { baseLeakPolicy } from '../src/security/leak-policy.js';

const USERS = 1_000;
const RUNS = 300;
const signal = new AbortController().signal;

/** Deterministic pseudo-random unit-ish vector (no network, same every run). */
function vector(seed: number): number[] {
  let x = seed * 2654435761 + 1;
  return Array.from({ length: EMBEDDING_DIMENSIONS }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648 - 0.5;
  });
}
const queryVector = vector(424242);
const embedder: Embedder = { model: 'bench', embed: async (texts) => texts.map(() => queryVector) };

interface Row {
  store: string;
  facts: string;
  what: string;
  samples: number[];
}

const randomUser = () => `user-${Math.floor(Math.random() * USERS)}`;

async function measureRecall(store: MemoryStore, label: string, facts: string): Promise<Row[]> {
  const semantic = createRecall({ store, embedder, logger: silentLogger });
  const recency = createRecall({ store, embedder: null, logger: silentLogger });
  return [
    { store: label, facts, what: 'recall, semantic (cosine top-8)', samples: await timeRuns(RUNS, () => semantic(randomUser(), 'recommend lunch', signal)) },
    { store: label, facts, what: 'recall, recency (newest 8)', samples: await timeRuns(RUNS, () => recency(randomUser(), 'recommend lunch', signal)) },
  ];
}

/**
 * Multi-row inserts generated inside the database: 256 random base vectors, assigned round-robin.
 * Users get facts in turn, with distinct creation times, as a long-running service would hold them.
 */
async function load(sql: ReturnType<typeof createDatabase>['sql'], from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += 10_000) {
    const end = Math.min(to, start + 10_000);
    await sql.unsafe(`insert into memory_facts (user_id, kind, text, normalized, embedding, created_at, updated_at)
      select 'user-' || (g % ${USERS}), case when g % 5 = 0 then 'remembered' else 'learned' end,
             'Fact number ' || g, 'fact number ' || g, bench_base.v,
             now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval
      from generate_series(${start}, ${end - 1}) g join bench_base on bench_base.b = g % 256`);
  }
}

async function postgresRows(): Promise<{ rows: Row[]; plan: string }> {
  const pg = await startPgliteServer();
  const database = createDatabase(pg.url, { max: 1 });
  try {
    await runMigrations(database);
    // No vector index (migration 0003): per-user recall is the user btree and an exact sort; the plan in
    // use is printed below the table.
    await database.sql.unsafe(`create table bench_base as select b, (select array_agg(random()::real - 0.5)
      from generate_series(1, ${EMBEDDING_DIMENSIONS}) where b >= 0)::vector as v from generate_series(0, 255) b`);
    const store = createPostgresStore({ database, embeddingModel: 'text-embedding-3-small' });
    await store.init();
    const rows: Row[] = [];
    await load(database.sql, 0, 1_000);
    rows.push(...(await measureRecall(store, 'postgres (PGlite)', '1k')));
    await load(database.sql, 1_000, 100_000);
    await database.sql`analyze memory_facts`;
    rows.push(...(await measureRecall(store, 'postgres (PGlite)', '100k')));
    const explain = await database.sql.unsafe(
      `explain select id from memory_facts where user_id = 'user-7' and embedding is not null
       order by embedding <=> '[${queryVector.join(',')}]' limit 8`,
    );
    const plan = explain
      .map((r) => String(Object.values(r)[0]))
      .filter((l) => /Scan|Sort|Limit/.test(l) && !/Sort Key/.test(l))
      .map((l) => l.trim().replace(/^->\s*/, '').replace(/\s+\(cost=.*$/, ''))
      .join(' → ');
    return { rows, plan };
  } finally {
    await database.close();
    await pg.stop();
  }
}

async function inMemoryRows(): Promise<Row[]> {
  const store = createInMemoryStore({ embeddingModel: 'bench' });
  await store.init();
  for (let i = 0; i < 100_000; i++) {
    await store.add({ userId: `user-${i % USERS}`, kind: 'learned', text: `Fact number ${i}`, embedding: vector(i % 256) });
  }
  const gateway: ModelGateway = {
    streamPass: () => (async function* () {})(),
    complete: async () => ({ text: '{"facts": []}', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, estimated: true } }),
  };
  const rows: Row[] = [];
  for (const [label, emb] of [['semantic', embedder], ['recency', null]] as const) {
    const memory = createTurnMemory({
      store,
      embedder: emb,
      gateway,
      background: createBackgroundTasks(silentLogger),
      logger: silentLogger,
      extractionModel: 'bench',
      leaks: baseLeakPolicy,
    });
    // What a signed-in turn asks of memory before the model: plan, recall when planned, bind the tools.
    const turn = async () => {
      const user = memory.forUser(randomUser());
      const plan = user.plan('Can you recommend a vegetarian lunch place for me?', []);
      if (plan.recall) await user.recall('Can you recommend a vegetarian lunch place for me?', signal);
      if (plan.tools) user.tools();
      user.plan('When does Entropy close?', []);
    };
    rows.push({ store: 'in-memory', facts: '100k', what: `per-turn memory work (${label} recall)`, samples: await timeRuns(RUNS * 3, turn) });
  }
  return rows;
}

async function main(): Promise<void> {
  const { rows: pgRows, plan } = await postgresRows();
  const rows = [...pgRows, ...(await inMemoryRows())];
  const lines = [
    '## Memory recall',
    '',
    `Method: ${RUNS} recalls per row (after warm-up) for random users among ${USERS.toLocaleString('en-US')}; ` +
      'facts spread evenly (1k: 1 per user, 100k: 100 per user); query embedding precomputed. Postgres is ' +
      'PGlite with pgvector 1536-d vectors served over the wire protocol on loopback; no vector index ' +
      '(exact per-user scan, see the plan line). In-memory: plan + recall + binding tools for one turn.',
    '',
    '| store | facts | operation | median | p95 |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.store} | ${r.facts} | ${r.what} | ${ms(quantile(r.samples, 0.5))} | ${ms(quantile(r.samples, 0.95))} |`),
    '',
    `Plan of the semantic query at 100k: ${plan}.`,
    '',
    'A user with at most 8 facts (the 1k rows: 1 per user) gets all of them without an embedding or a vector search ' +
      '(src/memory/relevant-facts.ts), so the 1k "semantic" row is a listing.',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

await main();
