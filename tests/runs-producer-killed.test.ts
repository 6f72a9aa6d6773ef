/**
 * Issue 74 across two replicas on the real Postgres (TEST_DATABASE_URL; CI starts it): the producing
 * replica is the real entry point in a child process, SIGKILLed (so this file is in the full suite).
 *
 * - Killed before it wrote the run's row: a resume elsewhere ends `interrupted` within 5 s, never a 404
 *   or a hang; a phone past what the log holds gets the closing frame.
 * - Killed mid-answer, at two points of what the phone read (its first frame; the answer's first
 *   delta), always more than the log stored: the follower on the other replica and the phone resuming
 *   with its last id on either replica end with `interrupted` at CLOSING_SEQ within 5 s, then 204; the
 *   phone's own EventSource (the `eventsource` package) makes one reconnect and stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventSource } from 'eventsource';
import { CLOSING_SEQ } from '../src/runs/run-log.js';
import { readSseEvents } from '../src/sandbox/chat/sse-reader.js';
import type { SseEvent } from './support/sse.js';
import type { FakeGateway } from './support/fake-gateway.js';
import { realPostgresSkipReason, type TestPostgres } from './support/postgres.js';
import { resumeRun, seqsOf } from './support/run-client.js';
import { RUN_IDS as IDS, startRunReplicas, type RunReplica, type RunReplicas } from './support/run-replicas.js';
import { spawnService } from './support/spawn-service.js';
import { until } from './support/until.js';

const skip = realPostgresSkipReason();

describe.skipIf(skip !== null)(`a producing replica killed, on Postgres${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let set: RunReplicas;
  let pg: TestPostgres;
  let gw: FakeGateway;
  let replicas: RunReplica[];

  beforeAll(async () => {
    set = await startRunReplicas();
    ({ pg, gw, replicas } = set);
  }, 60_000);

  afterAll(() => set?.close());

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

  it.each([
    ['its first frame', (type: string) => type !== ''],
    ["the answer's first delta", (type: string) => type === 'delta'],
  ] as const)('a producing replica killed mid-answer, the phone having read to %s: its follower elsewhere and the phone resuming with its last id end with `interrupted` at a seq no other frame has, within 5 s, then 204', async (_point, readTo) => {
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
      // The phone reads up to its point (the log stores frames lazily: it may hold none of them).
      let phoneLast = '';
      for await (const e of readSseEvents(res.body!)) {
        phoneLast = e.id ?? phoneLast;
        if (readTo(e.type)) break;
      }
      // A reader on the other replica follows the run live: killed once it is following (its response began).
      const live = await fetch(`${replicas[1]!.server.base}/agent/runs/${runId}/stream?user_id=victim`);
      expect(live.status).toBe(200);
      const killedAt = Date.now();
      await producer.stop('SIGKILL');
      const followed = { events: [] as SseEvent[] };
      for await (const e of readSseEvents(live.body!)) followed.events.push(e);
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
