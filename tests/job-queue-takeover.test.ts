/**
 * Background work on the Postgres job queue (the `jobs` table) survives a killed replica, and takes effect once.
 *
 * 1. Two service processes on one Postgres (PGlite over the wire protocol): the first answers a turn,
 *    takes its extraction job and is killed with SIGKILL while the extraction's model call is in
 *    flight; the second takes the job over after its expiry (JOB_EXPIRE_SECONDS=3 here) and stores the
 *    fact, exactly once. Five times in a row; the survivor of one round is the victim of the next.
 * 2. Two replicas racing for the same job (the job queued twice under one key, both workers polling):
 *    one model call, one fact.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { createPostgresJobQueue } from '../src/db/postgres-job-queue.js';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import { runMigrations } from '../src/db/migrate.js';
import { silentLogger } from '../src/logger.js';
import { createPostgresStore } from '../src/memory/postgres-store.js';
import { testTurnMemory } from './support/deps.js';
import { startFakeGateway, type FakeGateway, gatewayClient } from './support/fake-gateway.js';
import { until } from './support/until.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { spawnService, type ServiceProcess } from './support/spawn-service.js';
import { closeAfterAll } from './support/cleanup.js';

const isExtraction = (body: any) => body?.response_format?.type === 'json_object';

let pg: TestPostgres;
let database: Database;
// What a test opened (the file's database and the services and fakes of each test) closes after the file.
const defer = closeAfterAll({ bestEffort: true });

beforeAll(async () => {
  pg = await startTestPostgres();
  defer(() => pg.stop());
  database = createDatabase(pg.url, { max: 2 });
  defer(() => database.close());
  await runMigrations(database);
}, 60_000);


const factsOf = async (userId: string) =>
  database.sql<{ text: string }[]>`select text from memory_facts where user_id = ${userId}`;

describe('a replica killed mid-extraction', () => {
  let gw: FakeGateway;
  /** The next extraction call hangs (the victim's); the one after answers (the survivor's). */
  let hangNext = false;
  let extractionCalls = 0;

  beforeAll(async () => {
    gw = await startFakeGateway();
    defer(() => gw.close());
    gw.handler = (body: any) => {
      if (!isExtraction(body)) return { text: 'Noted, good luck this term!' };
      extractionCalls++;
      const said = String(body.messages.at(-1).content).match(/I study (\w+)/)?.[1] ?? 'nothing';
      if (hangNext) {
        hangNext = false;
        return { text: '{"operations": []}', delayMs: 120_000 };
      }
      return { text: JSON.stringify({ operations: [{ op: 'add', text: `Studies ${said}` }] }) };
    };
  });

  const env = () => ({
    AGENT_ENV: 'test',
    DATABASE_URL: pg.url,
    LLM_GATEWAY_API_KEY: 'sk-queue-test',
    LLM_GATEWAY_BASE_URL: gw.baseUrl,
    JOB_EXPIRE_SECONDS: '3',
  });

  it('is taken over by the other replica, which stores the fact exactly once (5 rounds)', async () => {
    const subjects = ['chemistry', 'physics', 'history', 'music', 'design'];
    let victim: ServiceProcess = await spawnService({ entry: 'source', env: env() });
    defer(() => victim.stop('SIGKILL'));
    for (const [round, subject] of subjects.entries()) {
      const user = `queue-round-${round}`;
      hangNext = true;
      const callsBefore = extractionCalls;
      const res = await fetch(`${victim.url}/agent/respond`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `Hi! I study ${subject} here.`, user_id: user }),
      });
      expect(res.status).toBe(200);
      await res.json();
      // The victim (the only replica) took the job: its extraction call is in flight, and hangs.
      await until('the victim’s extraction call', () => extractionCalls === callsBefore + 1);
      const survivor = await spawnService({ entry: 'source', env: env() });
      defer(() => survivor.stop('SIGKILL'));
      const killed = await victim.stop('SIGKILL');
      const killedAt = Date.now();
      expect(killed.signal).toBe('SIGKILL');
      const facts = await until(`the fact of round ${round}`, async () => {
        const rows = await factsOf(user);
        return rows.length > 0 ? rows : undefined;
      });
      // Within expiry (3 s) + polling (2 s) + one wait behind the dead claim (2 s), with slack.
      expect(Date.now() - killedAt).toBeLessThan(15_000);
      expect(facts.map((f) => f.text)).toEqual([`Studies ${subject}`]);
      expect(extractionCalls).toBe(callsBefore + 2);
      victim = survivor;
    }
    // Still once, after the queue has had time to hand anything out again.
    await new Promise((r) => setTimeout(r, 4_000));
    for (const [round, subject] of subjects.entries()) expect((await factsOf(`queue-round-${round}`)).map((f) => f.text)).toEqual([`Studies ${subject}`]);
    // Health reports the queue, all replicas' jobs together: empty after the rounds; then a job waiting
    // (queued by another client, due in an hour) is counted, and health stays 200.
    const health = await (await fetch(`${victim.url}/api/health`)).json();
    expect(health.queue).toEqual({ backend: 'postgres', depth: 0, oldest_seconds: 0 });
    await database.sql`insert into jobs (kind, key, payload, run_after) values ('memory-extraction', 'later', '{}', now() + interval '1 hour')`;
    const busy = await fetch(`${victim.url}/api/health`);
    expect(busy.status).toBe(200);
    expect((await busy.json()).queue).toMatchObject({ backend: 'postgres', depth: 1 });
    await database.sql`delete from jobs where key = 'later'`;
    expect((await victim.stop('SIGTERM')).code).toBe(0);
  }, 240_000);
});

describe('two replicas racing for the same job', () => {
  it('stores the fact once, from one model call', async () => {
    const gw = await startFakeGateway();
    defer(() => gw.close());
    let calls = 0;
    gw.handler = (body: any) => {
      if (!isExtraction(body)) return { text: 'ok' };
      calls++;
      return { text: JSON.stringify({ operations: [{ op: 'add', text: 'Lives in Donner House' }] }), delayMs: 300 };
    };
    const gateway = gatewayClient(gw, { apiKey: 'sk-race' });
    const replicas = [];
    for (let i = 0; i < 2; i++) {
      const db = createDatabase(pg.url, { max: 2 });
      defer(() => db.close());
      const jobs = createPostgresJobQueue({ database: db, logger: silentLogger, background: createBackgroundTasks(silentLogger), expireSeconds: 30, pollingSeconds: 0.5 });
      testTurnMemory({ store: createPostgresStore({ database: db, embeddingModel: null }), gateway, jobs });
      await jobs.start();
      defer(() => jobs.stop(1_000));
      replicas.push(jobs);
    }
    // The same job twice (a retried enqueue), both replicas polling: each may fetch one.
    const payload = { userId: 'racer', query: 'I live in Donner House', history: [], answer: 'Nice!' };
    replicas[0]!.enqueue('memory-extraction', payload, { key: 'memory-extraction:race-1' });
    replicas[1]!.enqueue('memory-extraction', payload, { key: 'memory-extraction:race-1' });
    const facts = await until('the fact', async () => {
      const rows = await factsOf('racer');
      return rows.length > 0 ? rows : undefined;
    });
    await until('both jobs finished', async () => {
      const [row] = await database.sql<{ n: number }[]>`select count(*)::int as n from jobs where kind = 'memory-extraction' and key = 'memory-extraction:race-1'`;
      return row?.n === 0;
    });
    expect(facts.map((f) => f.text)).toEqual(['Lives in Donner House']);
    expect((await factsOf('racer')).length).toBe(1);
    expect(calls).toBe(1);
  }, 60_000);
});
