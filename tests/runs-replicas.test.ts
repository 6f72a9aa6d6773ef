/**
 * Issue 62 across replicas on the real Postgres (TEST_DATABASE_URL; CI starts it): two replicas, each
 * its own app, pool and run log over one database, one fake gateway.
 *
 * - Turns streamed from replica 0, cut at random byte offsets (inside frames too, and while the tool
 *   pass runs), resumed on replica 0 or 1: every frame once, in order, deltas equal `done.response_text`.
 * - 100 readers of one run on the other replica at once: each gets the whole run.
 * - Another user on the other replica: 404. A resumed turn is charged as an uninterrupted one.
 * - A run's row is written lazily (with its first write or its replica's next heartbeat): a reader on
 *   the other replica before then gets the whole run (it asks, the producer writes).
 *
 * All in process: the producing replica killed (a child process) is tests/runs-producer-killed.test.ts,
 * in the full suite.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FakeGateway } from './support/fake-gateway.js';
import { realPostgresSkipReason } from './support/postgres.js';
import { completeFrames, resumeRun, seqsOf, streamCutAfter } from './support/run-client.js';
import { RUN_IDS, startRunReplicas, type RunReplica, type RunReplicas } from './support/run-replicas.js';

const skip = realPostgresSkipReason();
const TURNS = Number(process.env.RUN_CUT_TURNS ?? 1_000);
/** Turns cut and resumed at once. */
const AT_ONCE = 8;

const WORDS = ['Schatz ', 'Dining ', 'Room ', 'is ', 'open ', 'until ', 'eight ', 'tonight; ', 'the ', 'salad ', 'bar ', 'closes ', 'earlier.'];

describe.skipIf(skip !== null)(`resumable runs across two replicas on Postgres${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let set: RunReplicas;
  let gw: FakeGateway;
  let replicas: RunReplica[];
  let admission: RunReplicas['admission'];

  beforeAll(async () => {
    set = await startRunReplicas();
    ({ gw, replicas, admission } = set);
  }, 60_000);

  afterAll(() => set?.close());

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
      (await replicas[1]!.database.sql`select 1 from agent_runs where id = ${RUN_IDS.open(runId, owner)!.key}`).length > 0;
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

  it('an idle replica does not beat; its first run after the idle spell is read at once elsewhere, whole (issue 75)', async () => {
    const beats = async () =>
      Number((await replicas[1]!.database.sql<{ beat: string }[]>`select beat from agent_run_replicas where id = ${replicas[0]!.replica}`)[0]!.beat);
    // Idle: no run produced on replica 0 for 8.5 s, so no beat, and its row goes stale (3 s). The beats
    // after its last run's end (the one that reads where the WAL ends, the one that sees it flushed
    // there) come within about two seconds of it.
    await new Promise((r) => setTimeout(r, 3_500));
    const from = await beats();
    await new Promise((r) => setTimeout(r, 5_000));
    expect((await beats()) - from).toBe(0);
    // The moment that matters: the idle replica's row is older than the stale window (3 s).
    await vi.waitFor(
      async () => {
        const [row] = await replicas[1]!.database.sql<{ stale: boolean }[]>`select heartbeat_at < now() - interval '3.2 seconds' as stale from agent_run_replicas where id = ${replicas[0]!.replica}`;
        expect(row!.stale).toBe(true);
      },
      { timeout: 6_000, interval: 50 },
    );
    gw.enqueue({ text: WORDS, chunkDelayMs: 25 });
    const res = await fetch(`${replicas[0]!.server.base}/agent/respond/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Is Schatz open?', user_id: 'after-idle' }),
    });
    const runId = res.headers.get('x-run-id')!;
    const first = res.text();
    // At once, before the producer's next regular beat: never judged orphaned.
    const resumed = await resumeRun(replicas[1]!.server.base, runId, { owner: 'after-idle' });
    expect(resumed.events.at(-1)!.type).toBe('done');
    expect(resumed.raw).toBe(await first);
  }, 60_000);
});
