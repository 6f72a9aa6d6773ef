/**
 * A burst at a campus peak, on the stack production runs: two service processes sharing one real
 * PostgreSQL with pgvector (memory, budget and job queue all in it), and an extraction model that takes a
 * second a call. 120 signed-in turns, each stating a fact, arrive at once, half at each replica: every turn
 * is answered, every fact is stored exactly once, and the last within 30 s of the last answer.
 *
 * Before the queue ran several jobs per replica (JOB_CONCURRENCY) and fetched again right after a job,
 * each replica ran about one job per 2 s polling interval: 90 s after such a burst only 90 of 120 facts
 * were stored. Needs a real server (TEST_DATABASE_URL): PGlite runs one statement at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { realPostgresSkipReason, startTestPostgres, type TestPostgres } from './support/postgres.js';
import { spawnService, type ServiceProcess } from './support/spawn-service.js';
import { until } from './support/until.js';

const skip = realPostgresSkipReason();
if (skip) console.log(`replicas-burst: skipped, ${skip}`);

const TURNS = 120;
const isExtraction = (body: any) => body?.response_format?.type === 'json_object';

describe.skipIf(skip !== null)('two replicas on a real Postgres, a burst of 120 signed-in turns', () => {
  let pg: TestPostgres;
  let database: Database;
  let gw: FakeGateway;
  const replicas: ServiceProcess[] = [];
  let extractionCalls = 0;

  beforeAll(async () => {
    pg = await startTestPostgres();
    database = createDatabase(pg.url, { max: 2 });
    gw = await startFakeGateway();
    gw.handler = (body: any) => {
      if (!isExtraction(body)) return { text: 'Good to know, thanks!' };
      extractionCalls++;
      // The turn's own words reach extraction as the last message; the fact names the student's hall.
      const hall = String(body.messages.at(-1).content).match(/I live in (Hall \d+)/)?.[1];
      const operations = hall ? [{ op: 'add', text: `Lives in ${hall}` }] : [];
      return { text: JSON.stringify({ operations }), delayMs: 1_000 };
    };
    const env = {
      AGENT_ENV: 'test',
      DATABASE_URL: pg.url,
      TOKEN_BUDGET_STORE: 'postgres',
      LLM_GATEWAY_API_KEY: 'sk-burst-test',
      LLM_GATEWAY_BASE_URL: gw.baseUrl,
      MCP_SERVER_URL: undefined,
      // 120 turns from 120 users at once is the load being tested, not an overload.
      OVERLOAD_MAX_LOOP_DELAY_MS: '0',
    };
    // One after the other: the first start migrates, the second finds it done (both take the lock).
    for (let i = 0; i < 2; i++) replicas.push(await spawnService({ entry: 'source', env }));
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) await r.stop('SIGTERM').catch(() => r.stop('SIGKILL'));
    await gw?.close();
    await database?.close();
    await pg?.stop();
  });

  it('answers every turn and stores every fact exactly once, the last within 30 s', async () => {
    const turns = Array.from({ length: TURNS }, async (_, i) => {
      const replica = replicas[i % 2]!;
      const res = await fetch(`${replica.url}/agent/respond`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `Hi! I live in Hall ${i} this year.`, user_id: `burst-${i}` }),
      });
      const body = await res.json();
      return { status: res.status, text: body.response_text as string };
    });
    const answers = await Promise.all(turns);
    const lastAnswerAt = Date.now();
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(new Set(answers.map((a) => a.text))).toEqual(new Set(['Good to know, thanks!']));

    const stored = await until(
      'all 120 facts stored',
      async () => {
        const [row] = await database.sql<{ n: number }[]>`select count(*)::int as n from memory_facts where user_id like 'burst-%'`;
        return row!.n >= TURNS ? row!.n : undefined;
      },
      60_000,
    );
    const lag = Date.now() - lastAnswerAt;
    expect(stored).toBe(TURNS);
    expect(lag).toBeLessThan(30_000);

    // Exactly once: each student has the one fact they stated, and no job ran twice.
    const rows = await database.sql<{ user_id: string; text: string }[]>`
      select user_id, text from memory_facts where user_id like 'burst-%' order by user_id`;
    const byUser = new Map<string, string[]>();
    for (const r of rows) byUser.set(r.user_id, [...(byUser.get(r.user_id) ?? []), r.text]);
    for (let i = 0; i < TURNS; i++) expect(byUser.get(`burst-${i}`)).toEqual([`Lives in Hall ${i}`]);
    expect(extractionCalls).toBe(TURNS);

    // The queue is empty, seen from either replica.
    const health = await (await fetch(`${replicas[0]!.url}/api/health`)).json();
    expect(health.queue).toMatchObject({ backend: 'postgres', depth: 0 });
  }, 180_000);
});
