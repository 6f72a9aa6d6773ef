/**
 * Issue 62 on one process, over real sockets: a streamed turn is a run that outlives its connection.
 * Cut at random byte offsets (inside frames too) and resumed with `Last-Event-ID`, the client has every
 * frame once, in order, and its deltas equal `done.response_text`; a run with no reader is aborted after
 * the grace (and charged once), not before; cancel aborts at once; another user, an unknown id and an
 * expired run are the same 404; clearing a user's memory deletes their runs; a resume calls no model
 * and charges nothing.
 */
import { describe, expect, it } from 'vitest';
import { testConfig } from './support/deps.js';
import { listen } from './support/listen.js';
import { startTurnHarness } from './support/turn-harness.js';
import { closeAfterEach } from './support/cleanup.js';
import { completeFrames, resumeRun, seqsOf, streamCutAfter } from './support/run-client.js';
import { until } from './support/until.js';
import { MemoryRunStore } from '../src/runs/memory-run-store.js';
import { Runs } from '../src/runs/runs.js';
import { silentLogger } from '../src/logger.js';
import { EventSource } from 'eventsource';
import type { RunEventLabel, ServiceMetrics } from '../src/telemetry/telemetry.js';
import { noTelemetry } from '../src/telemetry/telemetry.js';

const defer = closeAfterEach();

/** The run log's writes, counted by kind, and the run events telemetry saw. */
class CountingStore extends MemoryRunStore {
  readonly writes = { begin: 0, append: 0, end: 0 };
  override begin(...args: Parameters<MemoryRunStore['begin']>) {
    this.writes.begin++;
    return super.begin(...args);
  }
  override append(...args: Parameters<MemoryRunStore['append']>) {
    this.writes.append++;
    return super.append(...args);
  }
  override end(...args: Parameters<MemoryRunStore['end']>) {
    this.writes.end++;
    return super.end(...args);
  }
}

async function start(env: Record<string, string> = {}) {
  const config = testConfig({ ANSWER_BATCH_MS: '0', ...env });
  const store = new CountingStore(config.runs.retentionSeconds);
  const events: Array<[RunEventLabel, number | undefined]> = [];
  const metrics: ServiceMetrics = { ...noTelemetry.metrics, runEvent: (e, lag) => events.push([e, lag]) };
  const runs = new Runs({ store, graceMs: config.runs.detachedGraceMs, logger: silentLogger, metrics });
  const h = await startTurnHarness({ deps: { config, runs } });
  const server = await listen(h.app.fetch);
  defer(() => h.close(), () => server.close());
  return { ...h, base: server.base, store, events };
}

/** A deterministic stream of pseudo-random numbers (a test that fails can be re-run as it was). */
function random(seed: number) {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

const WORDS = ['The ', 'library ', 'opens ', 'bright ', 'and ', 'early, ', 'closes ', 'late; ', 'bring ', 'your ', 'ID ', 'card.'];

describe('resumable runs on one process', () => {
  it('cut anywhere, resumed with Last-Event-ID: every frame once, in order, deltas equal done.response_text', async () => {
    const s = await start();
    const next = random(62);
    let cutMidway = 0;
    for (let i = 0; i < 40; i++) {
      s.gw.enqueue({ text: WORDS, chunkDelayMs: 2 });
      const cut = await streamCutAfter(s.base, { query: 'When does the library open?', user_id: 'walker' }, Math.floor(next() * 900));
      expect(cut.runId).toMatch(/^[A-Za-z0-9_-]{62}$/);
      const had = await completeFrames(cut.raw);
      if (!cut.whole && cut.raw.length > 0) cutMidway++;
      const last = had.at(-1)?.id;
      const rest = await resumeRun(s.base, cut.runId, { owner: 'walker', ...(last && { lastEventId: last }) });
      // A client that already had the `done` frame is told there is nothing more (204: EventSource stops).
      expect(rest.status).toBe(had.at(-1)?.type === 'done' ? 204 : 200);
      const all = [...had, ...rest.events];
      expect(seqsOf(all)).toEqual(all.map((_, k) => k + 1));
      const done = all.at(-1)!;
      expect(done.type).toBe('done');
      expect(all.filter((e) => e.type === 'delta').map((e) => e.data.text).join('')).toBe(done.data.response_text);
      expect(done.data.response_text).toBe(WORDS.join(''));
    }
    // Most cuts fell inside the answer (the rest before its first byte).
    expect(cutMidway).toBeGreaterThan(25);
    // Forty turns, forty model calls: no resume called the model.
    expect(s.gw.chatRequests()).toHaveLength(40);
  });

  it('a finished run replays after `after` and closes; its state carries the response', async () => {
    const s = await start();
    s.gw.enqueue({ text: ['Wean ', 'Hall ', 'is on the main campus.'] });
    const whole = await streamCutAfter(s.base, { query: 'Where is Wean?' }, Infinity);
    expect(whole.whole).toBe(true);
    const frames = await completeFrames(whole.raw);
    const replay = await resumeRun(s.base, whole.runId, { after: 1 });
    expect(replay.events).toEqual(frames.slice(1));
    const state = await (await fetch(`${s.base}/agent/runs/${whole.runId}`)).json();
    expect(state).toEqual({ run_id: whole.runId, status: 'done', last_seq: frames.length, response: frames.at(-1)!.data });
    // At or past its end: 204 (EventSource stops reconnecting), no end frame twice; its state is still there.
    for (const after of [frames.length, frames.length + 5, 2_147_483_647]) {
      expect(await resumeRun(s.base, whole.runId, { after })).toEqual({ status: 204, raw: '', events: [] });
    }
    expect(await resumeRun(s.base, whole.runId, { lastEventId: `${whole.runId}:${frames.length}` })).toMatchObject({ status: 204 });
    expect((await fetch(`${s.base}/agent/runs/${whole.runId}`)).status).toBe(200);
    // Read whole on its own connection, the run cost the log two writes: its start and its end, none per frame.
    expect(s.store.writes).toEqual({ begin: 1, append: 0, end: 1 });
    expect(s.events).toEqual([['resumed', frames.length - 1], ...Array.from({ length: 4 }, () => ['resumed', 0])]);
  });

  it('with no reader, the run goes on for the grace and is aborted then, charged once', async () => {
    const s = await start({ RUN_DETACHED_GRACE_MS: '400' });
    s.gw.enqueue({ text: ['Partial ', 'answer'], hang: true, usage: null });
    const cut = await streamCutAfter(s.base, { query: 'tell me a long story', user_id: 'gone' }, 60);
    const cutAt = Date.now();
    await s.gw.waitForAbort();
    const waited = s.gw.abortTimes[0]! - cutAt;
    expect(waited).toBeGreaterThanOrEqual(350);
    expect(waited).toBeLessThan(2_000);
    await until('the charge', () => s.charges.length === 1);
    const state = await (await fetch(`${s.base}/agent/runs/${cut.runId}?user_id=gone`)).json();
    expect(state).toMatchObject({ status: 'failed', error: { error: 'abandoned' } });
    expect(s.events.map(([e]) => e)).toEqual(['detached', 'abandoned']);
  });

  it('a reader that comes back within the grace holds the run to its end', async () => {
    const s = await start({ RUN_DETACHED_GRACE_MS: '300' });
    s.gw.enqueue({ text: WORDS, chunkDelayMs: 60 });
    const cut = await streamCutAfter(s.base, { query: 'When?', user_id: 'back' }, 40);
    await new Promise((r) => setTimeout(r, 150));
    const rest = await resumeRun(s.base, cut.runId, { owner: 'back' });
    expect(rest.events.at(-1)!.type).toBe('done');
    expect(s.gw.abortTimes).toHaveLength(0);
    expect(s.events.map(([e]) => e)).toEqual(['detached', 'resumed']);
    // Detached, the run wrote its frames through (a reader could have come back on another replica).
    expect(s.store.writes.append).toBeGreaterThan(0);
  });

  it('cancel aborts the model call at once, is idempotent, and the run ends with the cancelled error event', async () => {
    const s = await start();
    s.gw.enqueue({ text: ['Partial'], hang: true });
    const cut = await streamCutAfter(s.base, { query: 'a story', user_id: 'canceller' }, 30);
    const cancel = () =>
      fetch(`${s.base}/agent/runs/${cut.runId}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_id: 'canceller' }) });
    const first = await cancel();
    expect(first.status).toBe(200);
    expect((await first.json()).status).toBe('cancelled');
    await s.gw.waitForAbort();
    await until('the cancelled end', async () => (await (await fetch(`${s.base}/agent/runs/${cut.runId}?user_id=canceller`)).json()).status === 'cancelled');
    expect((await (await cancel()).json()).status).toBe('cancelled');
    const replay = await resumeRun(s.base, cut.runId, { owner: 'canceller' });
    expect(replay.events.at(-1)).toMatchObject({ type: 'error', data: { error: 'cancelled' } });
  });

  it('the `eventsource` package stops at the end: after a finished run (204) and after the closing frame of a cancelled one', async () => {
    const s = await start();
    /** An EventSource on a run's resume route: the frames it dispatched, the requests it made, and when it closed. */
    const follow = (runId: string, owner: string) => {
      const frames: Array<{ type: string; id: string; data: unknown }> = [];
      const requests: Array<string | null> = [];
      const source = new EventSource(`${s.base}/agent/runs/${runId}/stream?user_id=${owner}`, {
        fetch: (input, init) => {
          requests.push(new Headers(init?.headers).get('last-event-id'));
          return fetch(input, init);
        },
      });
      for (const type of ['status', 'delta', 'done', 'error']) {
        source.addEventListener(type, (e) => {
          // A connection's failure is an `error` event without data; the contract's `error` frame has data.
          if ('data' in e && typeof e.data === 'string') frames.push({ type, id: e.lastEventId, data: JSON.parse(e.data) });
        });
      }
      return { source, frames, requests };
    };

    // A finished run: every frame, then the reconnect with the last id is a 204 and the source is closed for good.
    s.gw.enqueue({ text: ['Doherty ', 'Hall ', 'is north of the Cut.'] });
    const done = await streamCutAfter(s.base, { query: 'Where is Doherty?', user_id: 'follower' }, Infinity);
    const whole = await completeFrames(done.raw);
    const finished = follow(done.runId, 'follower');
    await until('the finished run followed to its end', () => finished.source.readyState === EventSource.CLOSED, 15_000);
    expect(finished.frames.map((f) => f.id)).toEqual(whole.map((f) => f.id));
    expect(finished.requests).toEqual([null, whole.at(-1)!.id]);

    // A cancelled run: its `error` frame last, with an id no other frame has; the reconnect with it is a 204.
    s.gw.enqueue({ text: ['Partial'], hang: true });
    const live = await streamCutAfter(s.base, { query: 'a story', user_id: 'follower' }, 30);
    const cancelled = follow(live.runId, 'follower');
    await until('a frame of the live run', () => cancelled.frames.length > 0);
    const cancel = await fetch(`${s.base}/agent/runs/${live.runId}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_id: 'follower' }) });
    expect(cancel.status).toBe(200);
    await until('the cancelled run followed to its end', () => cancelled.source.readyState === EventSource.CLOSED, 15_000);
    const closing = cancelled.frames.at(-1)!;
    expect(closing).toMatchObject({ type: 'error', data: { error: 'cancelled' } });
    expect(closing.id.startsWith(`${live.runId}:`)).toBe(true);
    expect(new Set(cancelled.frames.map((f) => f.id)).size).toBe(cancelled.frames.length);
    expect(cancelled.requests).toEqual([null, closing.id]);
  }, 30_000);

  it('another user, an unknown id and an expired run are the same 404; clearing memory deletes the runs', async () => {
    const s = await start({ RUN_RETENTION_SECONDS: '1' });
    s.gw.enqueue({ text: 'One.' }, { text: 'Two.' });
    const mine = await streamCutAfter(s.base, { query: 'hi', user_id: 'owner-a' }, Infinity);
    const statusOf = async (id: string, owner: string) => (await fetch(`${s.base}/agent/runs/${id}?user_id=${owner}`)).status;
    expect(await statusOf(mine.runId, 'owner-a')).toBe(200);
    const other = await fetch(`${s.base}/agent/runs/${mine.runId}?user_id=owner-b`);
    const unknown = await fetch(`${s.base}/agent/runs/00000000-0000-4000-8000-000000000000?user_id=owner-a`);
    // Well formed, but not issued: one character of the MAC changed; and the same bytes spelled another way.
    const at = mine.runId.length - 3;
    const forged = `${mine.runId.slice(0, at)}${mine.runId[at] === 'A' ? 'B' : 'A'}${mine.runId.slice(at + 1)}`;
    const last = mine.runId.at(-1)!;
    const respelled = `${mine.runId.slice(0, -1)}${String.fromCharCode(last.charCodeAt(0) + 1)}`;
    expect(await statusOf(respelled, 'owner-a')).toBe(404);
    const made = await fetch(`${s.base}/agent/runs/${forged}?user_id=owner-a`);
    expect(other.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(made.status).toBe(404);
    const notFound = await other.json();
    expect(await unknown.json()).toEqual(notFound);
    expect(await made.json()).toEqual(notFound);
    expect((await resumeRun(s.base, mine.runId, { owner: 'owner-b' })).status).toBe(404);
    expect((await resumeRun(s.base, mine.runId, { owner: 'owner-a', lastEventId: 'other-run:1' })).status).toBe(400);
    // Anonymous runs belong to the anonymous bucket: a signed-in user cannot read them.
    const anon = await streamCutAfter(s.base, { query: 'hi' }, Infinity);
    expect(await statusOf(anon.runId, 'owner-a')).toBe(404);
    expect((await fetch(`${s.base}/agent/runs/${anon.runId}`)).status).toBe(200);
    // Clearing the user's memory deletes their runs.
    expect((await fetch(`${s.base}/memory/owner-a`, { method: 'DELETE' })).status).toBe(200);
    expect(await statusOf(mine.runId, 'owner-a')).toBe(404);
    // Expired: a second past its end (RUN_RETENTION_SECONDS=1).
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await fetch(`${s.base}/agent/runs/${anon.runId}`)).status).toBe(404);
  });

  it('a resume charges nothing and calls no model: the budget sees one turn', async () => {
    const s = await start();
    s.gw.enqueue({ text: WORDS, chunkDelayMs: 5 });
    const cut = await streamCutAfter(s.base, { query: 'When?', user_id: 'payer' }, 120);
    await resumeRun(s.base, cut.runId, { owner: 'payer' });
    for (let i = 0; i < 5; i++) await resumeRun(s.base, cut.runId, { owner: 'payer', after: i });
    await until('the charge', () => s.charges.length >= 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.charges).toHaveLength(1);
    expect(s.gw.chatRequests()).toHaveLength(1);
  });

  it('the run log away: the run routes answer 503 with the envelope, and a live run here is still served', async () => {
    const config = testConfig({ ANSWER_BATCH_MS: '0' });
    class DownStore extends MemoryRunStore {
      override read(): never {
        throw new Error('connect ECONNREFUSED 10.0.0.7:5432');
      }
    }
    const runs = new Runs({ store: new DownStore(600), graceMs: 30_000, logger: silentLogger, metrics: noTelemetry.metrics });
    const h = await startTurnHarness({ deps: { config, runs } });
    const server = await listen(h.app.fetch);
    defer(() => h.close(), () => server.close());
    h.gw.enqueue({ text: WORDS, chunkDelayMs: 20 });
    const cut = await streamCutAfter(server.base, { query: 'When?' }, 40);
    const rest = await resumeRun(server.base, cut.runId, {});
    expect(rest.events.at(-1)!.type).toBe('done');
    // Ended, the run is no longer this process's: its state is the log's, which cannot be read.
    await until('the run let go', () => runs.size === 0);
    const res = await fetch(`${server.base}/agent/runs/${cut.runId}`);
    expect(res.status).toBe(503);
    const body = await res.text();
    expect(JSON.parse(body)).toEqual({ error: 'runs unavailable', detail: expect.any(String) });
    expect(body).not.toContain('10.0.0.7');
  });
});
