/**
 * Issue 62 across replicas on the real Postgres (TEST_DATABASE_URL; CI starts it): two replicas, each
 * its own app, pool and run log over one database, one fake gateway.
 *
 * - Turns streamed from replica 0, cut at random byte offsets (inside frames too, and while the tool
 *   pass runs), resumed on replica 0 or 1: every frame once, in order, deltas equal `done.response_text`.
 * - 100 readers of one run on the other replica at once: each gets the whole run.
 * - Another user on the other replica: 404. A resumed turn is charged as an uninterrupted one.
 * - A producing replica SIGKILLed mid-answer (the real entry point in a child process): its reader on
 *   the other replica gets the `interrupted` error event within 5 s, and so does a new resume.
 * - A run's row is written lazily (with its first write or its replica's next heartbeat): a reader on
 *   the other replica before then gets the whole run (it asks, the producer writes), and a replica
 *   killed before then leaves a run that is `interrupted` within 5 s, never a 404 or a hang.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventSource } from 'eventsource';
import { createApp } from '../src/app.js';
import { createDatabase, type Database } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { silentLogger } from '../src/logger.js';
import { PostgresRunStore } from '../src/runs/postgres-run-store.js';
import { Runs } from '../src/runs/runs.js';
import { readSseEvents } from '../src/sandbox/chat/sse-reader.js';
import { noTelemetry } from '../src/telemetry/telemetry.js';
import { recordingAdmission } from './support/admission-fakes.js';
import { createTestDeps, testConfig } from './support/deps.js';
import { gatewayClient, startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { listen, type Listening } from './support/listen.js';
import { realPostgresSkipReason, startTestPostgres, type TestPostgres } from './support/postgres.js';
import { completeFrames, resumeRun, seqsOf, streamCutAfter } from './support/run-client.js';
import { until } from './support/until.js';
import { spawnService } from './support/spawn-service.js';
import { openAdmission } from '../src/admission/admission.js';
import { RunIds } from '../src/runs/run-ids.js';
import { CLOSING_SEQ } from '../src/runs/run-log.js';

const skip = realPostgresSkipReason();
const TURNS = Number(process.env.RUN_CUT_TURNS ?? 1_000);
/** Turns cut and resumed at once. */
const AT_ONCE = 8;
/** The run ids' MAC key of these replicas and the spawned one (no AGENT_SHARED_SECRET). */
const IDS = new RunIds(null);
const WORDS = ['Schatz ', 'Dining ', 'Room ', 'is ', 'open ', 'until ', 'eight ', 'tonight; ', 'the ', 'salad ', 'bar ', 'closes ', 'earlier.'];

interface Replica {
  server: Listening;
  database: Database;
  runs: Runs;
}

describe.skipIf(skip !== null)(`resumable runs across two replicas on Postgres${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let pg: TestPostgres;
  let gw: FakeGateway;
  const replicas: Replica[] = [];
  const admission = recordingAdmission(openAdmission);

  beforeAll(async () => {
    pg = await startTestPostgres();
    gw = await startFakeGateway();
    const config = testConfig({ ANSWER_BATCH_MS: '0', MAX_TURNS_IN_FLIGHT: '200', MAX_ANONYMOUS_TURNS_IN_FLIGHT: '200' });
    for (let i = 0; i < 2; i++) {
      const database = createDatabase(pg.url);
      if (i === 0) await runMigrations(database);
      const runs = new Runs({ store: new PostgresRunStore(database, 600), graceMs: 30_000, logger: silentLogger, metrics: noTelemetry.metrics });
      const deps = await createTestDeps({ config, gateway: gatewayClient(gw), admission, runs });
      replicas.push({ server: await listen(createApp(deps).fetch), database, runs });
    }
  }, 60_000);

  afterAll(async () => {
    for (const r of replicas) {
      await r.server.close();
      await r.runs.close(Date.now() + 2_000);
      await r.database.close();
    }
    await gw?.close();
    await pg?.stop();
  });

  it(`${TURNS} turns cut at random points and resumed on either replica: no frame missing or twice`, async () => {
    let seed = 4242;
    const next = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    // Every third turn runs a tool pass first (its question names the tool), so some cuts fall while it runs.
    gw.handler = (body) =>
      String(body.messages.at(-1)?.content).includes('(with a tool)') && body.messages.at(-1)?.role === 'user'
        ? { toolCalls: [{ name: 'maps_search_buildings', arguments: { query: 'Schatz' } }] }
        : { text: WORDS, chunkDelayMs: 1 };
    const one = async (i: number) => {
      const query = i % 3 === 0 ? 'Is Schatz open? (with a tool)' : 'Is Schatz open?';
      const cut = await streamCutAfter(replicas[0]!.server.base, { query, user_id: `walker-${i % 7}` }, Math.floor(next() * 1_200));
      const had = await completeFrames(cut.raw);
      const last = had.at(-1)?.id;
      const rest = await resumeRun(replicas[i % 2]!.server.base, cut.runId, { owner: `walker-${i % 7}`, ...(last && { lastEventId: last }) });
      // A client that already had the `done` frame is told there is nothing more (204: EventSource stops).
      expect(rest.status).toBe(had.at(-1)?.type === 'done' ? 204 : 200);
      const all = [...had, ...rest.events];
      expect(seqsOf(all)).toEqual(all.map((_, k) => k + 1));
      expect(all.at(-1)!.type).toBe('done');
      expect(all.filter((e) => e.type === 'delta').map((e) => e.data.text).join('')).toBe(all.at(-1)!.data.response_text);
    };
    for (let i = 0; i < TURNS; i += AT_ONCE) await Promise.all(Array.from({ length: Math.min(AT_ONCE, TURNS - i) }, (_, k) => one(i + k)));
    gw.handler = null;
  }, 300_000);

  it('100 readers of one run on the other replica each get the whole run; another user gets 404', async () => {
    gw.enqueue({ text: WORDS, chunkDelayMs: 20 });
    const cut = await streamCutAfter(replicas[0]!.server.base, { query: 'Is Schatz open?', user_id: 'crowd' }, 50);
    expect((await resumeRun(replicas[1]!.server.base, cut.runId, { owner: 'someone-else' })).status).toBe(404);
    const readers = await Promise.all(Array.from({ length: 100 }, () => resumeRun(replicas[1]!.server.base, cut.runId, { owner: 'crowd' })));
    const first = readers[0]!.events;
    expect(first.at(-1)!.type).toBe('done');
    expect(seqsOf(first)).toEqual(first.map((_, k) => k + 1));
    for (const r of readers) expect(r.events).toEqual(first);
  }, 60_000);

  it('a resumed turn is charged as an uninterrupted one', async () => {
    const before = admission.charges.length;
    gw.enqueue({ text: WORDS, chunkDelayMs: 2 }, { text: WORDS, chunkDelayMs: 2 });
    const whole = await streamCutAfter(replicas[0]!.server.base, { query: 'Is Schatz open?', user_id: 'payer' }, Infinity);
    const cut = await streamCutAfter(replicas[0]!.server.base, { query: 'Is Schatz open?', user_id: 'payer' }, 200);
    await resumeRun(replicas[1]!.server.base, cut.runId, { owner: 'payer' });
    await resumeRun(replicas[1]!.server.base, cut.runId, { owner: 'payer', after: 2 });
    expect(whole.whole).toBe(true);
    const charged = admission.charges.slice(before);
    expect(charged).toHaveLength(2);
    expect(charged[1]!.totalTokens).toBe(charged[0]!.totalTokens);
  });

  it('a run resumed on the other replica before its row is written: the whole run, once', async () => {
    const hasRow = async (runId: string, owner: string) =>
      (await replicas[1]!.database.sql`select 1 from agent_runs where id = ${IDS.open(runId, owner)!.key}`).length > 0;
    let young = 0;
    for (let attempt = 0; attempt < 5 && young === 0; attempt++) {
      gw.enqueue({ text: WORDS, chunkDelayMs: 25 });
      // The first connection stays open (a phone that went quiet without closing): the producer has a reader.
      const res = await fetch(`${replicas[0]!.server.base}/agent/respond/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Is Schatz open?', user_id: 'early' }),
      });
      const runId = res.headers.get('x-run-id')!;
      const first = res.text();
      if (!(await hasRow(runId, 'early'))) young++;
      const resumed = await resumeRun(replicas[1]!.server.base, runId, { owner: 'early' });
      expect(resumed.events.at(-1)!.type).toBe('done');
      expect(seqsOf(resumed.events)).toEqual(resumed.events.map((_, k) => k + 1));
      expect(resumed.events.filter((e) => e.type === 'delta').map((e) => e.data.text).join('')).toBe(resumed.events.at(-1)!.data.response_text);
      expect(resumed.raw).toBe(await first);
    }
    expect(young).toBeGreaterThan(0);
  }, 60_000);

  it('a producing replica killed before it wrote the run\'s row: a resume elsewhere ends `interrupted` within 5 s', async () => {
    const producer = await spawnService({
      entry: 'source',
      env: { DATABASE_URL: pg.url, LLM_GATEWAY_API_KEY: 'sk-chat-key', LLM_GATEWAY_BASE_URL: gw.baseUrl, ANSWER_BATCH_MS: '0' },
    });
    try {
      let runId = '';
      // Freeze the producer right after the run starts; if its heartbeat wrote the row first, thaw it and try again.
      for (let attempt = 0; attempt < 5 && !runId; attempt++) {
        gw.enqueue({ text: ['The ', 'answer ', 'starts'], hang: true });
        const res = await fetch(`${producer.url}/agent/respond/stream`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'Tell me about Schatz', user_id: 'early-victim' }),
        });
        const id = res.headers.get('x-run-id')!;
        producer.child.kill('SIGSTOP');
        const rows = await replicas[0]!.database.sql`select 1 from agent_runs where id = ${IDS.open(id, 'early-victim')!.key}`;
        if (rows.length === 0) runId = id;
        else producer.child.kill('SIGCONT');
      }
      expect(runId).not.toBe('');
      const stoppedAt = Date.now();
      await producer.stop('SIGKILL');
      const resumed = await resumeRun(replicas[1]!.server.base, runId, { owner: 'early-victim' });
      expect(Date.now() - stoppedAt).toBeLessThan(5_000);
      expect(resumed.status).toBe(200);
      expect(resumed.events).toHaveLength(1);
      expect(resumed.events[0]).toMatchObject({ type: 'error', data: { error: 'interrupted' } });
      // A phone that had read frames the log never stored (`<run>:3` against none) gets the closing frame
      // too, with the id no frame of the run has (issue 74: it used to get an empty 200, again and again).
      const phone = await resumeRun(replicas[0]!.server.base, runId, { owner: 'early-victim', lastEventId: `${runId}:3` });
      expect(phone.status).toBe(200);
      expect(phone.events).toHaveLength(1);
      expect(phone.events[0]).toMatchObject({ id: `${runId}:${CLOSING_SEQ}`, type: 'error', data: { error: 'interrupted' } });
      const state = await (await fetch(`${replicas[0]!.server.base}/agent/runs/${runId}?user_id=early-victim`)).json();
      expect(state).toMatchObject({ run_id: runId, status: 'interrupted', last_seq: 0 });
      // Still another user's: 404.
      expect((await fetch(`${replicas[0]!.server.base}/agent/runs/${runId}?user_id=someone-else`)).status).toBe(404);
    } finally {
      await producer.stop('SIGKILL').catch(() => undefined);
    }
  }, 90_000);

  it('a producing replica killed mid-answer: its follower elsewhere and the phone resuming with its last id end with `interrupted` at a seq no other frame has, within 5 s, then 204', async () => {
    gw.enqueue({ text: ['The ', 'answer ', 'starts'], hang: true });
    const producer = await spawnService({
      entry: 'source',
      env: { DATABASE_URL: pg.url, LLM_GATEWAY_API_KEY: 'sk-chat-key', LLM_GATEWAY_BASE_URL: gw.baseUrl, ANSWER_BATCH_MS: '0' },
    });
    try {
      const res = await fetch(`${producer.url}/agent/respond/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Tell me about Schatz', user_id: 'victim' }),
      });
      const runId = res.headers.get('x-run-id')!;
      // The phone reads up to the answer's first delta (the log stores frames lazily: it may hold none of them).
      let phoneLast = '';
      for await (const e of readSseEvents(res.body!)) {
        phoneLast = e.id ?? phoneLast;
        if (e.type === 'delta') break;
      }
      // A reader on the other replica follows the run live.
      const follower = resumeRun(replicas[1]!.server.base, runId, { owner: 'victim' });
      await new Promise((r) => setTimeout(r, 300));
      const killedAt = Date.now();
      await producer.stop('SIGKILL');
      const followed = await follower;
      expect(Date.now() - killedAt).toBeLessThan(5_000);
      expect(followed.events.at(-1)).toMatchObject({ type: 'error', data: { error: 'interrupted' } });
      const seqs = seqsOf(followed.events);
      expect(seqs.slice(0, -1)).toEqual(seqs.slice(0, -1).map((_, k) => k + 1));
      expect(seqs.at(-1)).toBe(CLOSING_SEQ);
      // The phone resumes on the other replica with its last id, past what the log holds: the closing
      // frame at once, with an id none of its frames has, whichever replica it asks.
      for (const replica of replicas) {
        const resumedAt = Date.now();
        const again = await resumeRun(replica.server.base, runId, { owner: 'victim', lastEventId: phoneLast });
        expect(Date.now() - resumedAt).toBeLessThan(5_000);
        expect(again.status).toBe(200);
        expect(again.events.map((e) => e.type)).toEqual(['error']);
        expect(again.events[0]).toMatchObject({ id: `${runId}:${CLOSING_SEQ}`, data: { error: 'interrupted' } });
        // Having the closing frame, it is told there is nothing more: EventSource stops reconnecting.
        expect((await resumeRun(replica.server.base, runId, { owner: 'victim', lastEventId: again.events[0]!.id! })).status).toBe(204);
      }
      // The phone's own EventSource (the `eventsource` package), reconnecting with its last id on the other
      // replica: the closing frame, one reconnect with its id, a 204, and no request after.
      const sent: Array<string | null> = [];
      const got: string[] = [];
      const source = new EventSource(`${replicas[1]!.server.base}/agent/runs/${runId}/stream?user_id=victim`, {
        fetch: (input, init) => {
          const headers = new Headers(init?.headers);
          // Its first request carries the id it held when the producer died, as its reconnect would.
          if (sent.length === 0) headers.set('last-event-id', phoneLast);
          sent.push(headers.get('last-event-id'));
          return fetch(input, { ...init, headers });
        },
      });
      source.addEventListener('error', (e) => void ('data' in e && typeof e.data === 'string' && got.push((e as unknown as MessageEvent).lastEventId)));
      await until('the phone\'s EventSource closed', () => source.readyState === EventSource.CLOSED, 15_000);
      expect(got).toEqual([`${runId}:${CLOSING_SEQ}`]);
      expect(sent).toEqual([phoneLast, `${runId}:${CLOSING_SEQ}`]);
      const state = await (await fetch(`${replicas[0]!.server.base}/agent/runs/${runId}?user_id=victim`)).json();
      expect(state.status).toBe('interrupted');
      // The phone holds at least what the log stored (ahead of it unless the follower's write-through caught up).
      expect(Number(phoneLast.slice(phoneLast.lastIndexOf(':') + 1))).toBeGreaterThanOrEqual(state.last_seq);
    } finally {
      await producer.stop('SIGKILL').catch(() => undefined);
    }
  }, 90_000);
});
