/**
 * `POST /agent/respond/stream` on a real listening server: SSE headers and frames, deltas that add up to
 * `done.response_text`, status events around tools, the `error` event, and a client that disconnects
 * mid-stream aborting the upstream model request (and still being charged).
 */
import { describe, expect, it } from 'vitest';
import { listen } from './support/listen.js';
import type { AppDeps } from '../src/deps.js';
import { TooManyRequestsError } from '../src/http/errors.js';
import { readSseEvents } from '../src/sandbox/chat/sse-reader.js';
import { testConfig } from './support/deps.js';
import { refusingAdmission } from './support/admission-fakes.js';
import { sseEventsOf } from './support/sse.js';
import { startTurnHarness } from './support/turn-harness.js';
import { closeAfterEach } from './support/cleanup.js';

const defer = closeAfterEach();

/** Raw wire shape of a stream without comments: every frame is one `event:` line, one `data:` line and its `id:` (CONTRACT.md "Stream"). */
const FRAMED = /^(event: [a-z]+\ndata: [^\n]+\nid: [A-Za-z0-9_-]{62}:\d+\n\n)+$/;

/** The turn harness served on a real listening server (disconnects need real sockets). */
async function start(deps: Partial<AppDeps> = {}) {
  const h = await startTurnHarness({ tools: [{ name: 'eats_get_locations_open_now', run: async () => '### 🟢 Schatz Dining Room' }], deps });
  const server = await listen(h.app.fetch);
  defer(() => h.close(), () => server.close());
  const url = `${server.base}/agent/respond/stream`;
  const post = (body: unknown, signal?: AbortSignal) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...(signal && { signal }) });
  return { ...h, post };
}

describe('POST /agent/respond/stream', () => {
  it('streams deltas that concatenate to done.response_text, with the contract headers', async () => {
    const s = await start();
    s.gw.enqueue({ text: ['The ', 'library ', 'opens at **8 AM**.\nSee you!'] });
    const res = await s.post({ query: 'thanks, and does it open at 8 AM? In one sentence?' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const raw = await res.text();
    expect(raw).toMatch(FRAMED);
    // Every frame's id is `<run_id>:<seq>`, the run the header names, seq counting from 1.
    const runId = res.headers.get('x-run-id')!;
    expect(runId).toMatch(/^[A-Za-z0-9_-]{62}$/);
    const ids = [...raw.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
    expect(ids).toEqual(ids.map((_, i) => `${runId}:${i + 1}`));
    const events = await sseEventsOf(raw);
    const deltas = events.filter((e) => e.type === 'delta').map((e) => e.data.text);
    expect(deltas.length).toBeGreaterThan(1);
    const done = events.at(-1)!;
    expect(done.type).toBe('done');
    expect(deltas.join('')).toBe(done.data.response_text);
    // Two lines are two paragraphs to the renderer: a blank line between them (render-safe.ts).
    expect(done.data.response_text).toBe('The library opens at **8 AM**.\n\nSee you!');
    expect(Object.keys(done.data).sort()).toEqual(['action', 'cmu_maps', 'metadata', 'response_text', 'services_used', 'thought', 'tool_calls']);
  });

  it('shows "Checking" once across tool passes and "Writing" once, when the answer starts', async () => {
    const s = await start();
    s.gw.enqueue(
      { toolCalls: [{ name: 'maps_search_buildings', arguments: { query: 'Wean' } }] },
      { toolCalls: [{ name: 'maps_show_map', arguments: { destination: 'WEH' } }] },
      { text: 'Wean Hall is on the map.' },
    );
    const events = await sseEventsOf(await (await s.post({ query: 'Where is Wean?' })).text());
    const statuses = events.filter((e) => e.type === 'status').map((e) => e.data.text);
    expect(statuses).toEqual(['Checking campus tools...', 'Writing answer...']);
    const order = events.map((e) => e.type);
    expect(order.indexOf('status', order.indexOf('status') + 1)).toBeLessThan(order.indexOf('delta'));
  });

  it('sends status events while tools run and after, and a map before done', async () => {
    const s = await start();
    s.gw.enqueue(
      { toolCalls: [{ name: 'eats_get_locations_open_now', arguments: {} }, { name: 'maps_show_map', arguments: { destination: 'Wean Hall' } }] },
      { text: 'Schatz is open.' },
    );
    const events = await sseEventsOf(await (await s.post({ query: 'What food is open near Wean?' })).text());
    // Consecutive deltas collapse: how verify splits the text is its own business.
    const kinds = events
      .map((e) => (e.type === 'status' ? `status:${e.data.text}` : e.type))
      .filter((k, i, all) => !(k === 'delta' && all[i - 1] === 'delta'));
    expect(kinds).toEqual(['status:Checking campus tools...', 'status:Writing answer...', 'delta', 'map', 'done']);
    const map = events.find((e) => e.type === 'map')!.data;
    const done = events.at(-1)!.data;
    expect(map).toMatchObject({ mode: 'location', target: 'WEH' });
    expect(done.cmu_maps).toEqual(map);
    expect(done.services_used).toEqual(['eats_get_locations_open_now']);
  });

  it('sends keep-alive comments while the model is silent', async () => {
    const s = await start({ config: testConfig({ SSE_KEEPALIVE_MS: '20' }) });
    s.gw.enqueue({ text: 'late answer', delayMs: 300 });
    const raw = await (await s.post({ query: 'thanks' })).text();
    // Comments are invisible to the reader by design: the wire bytes show them.
    const comments = raw.split('\n').filter((line) => line.startsWith(':'));
    expect(comments.length).toBeGreaterThan(0);
    expect(comments.every((c) => c === ': keep-alive')).toBe(true);
    expect(raw).toContain(': keep-alive\n\n');
    expect(raw.indexOf(': keep-alive')).toBeLessThan(raw.indexOf('event: delta'));
    const events = await sseEventsOf(raw);
    expect(events.at(-1)!.data.response_text).toBe('late answer');
  });

  it('ends a failed turn with one error event carrying a generic envelope', async () => {
    const s = await start();
    s.gw.enqueue({ status: 503, errorMessage: 'upstream secret-host.internal' }, { status: 503 });
    const res = await s.post({ query: 'hello there' });
    expect(res.status).toBe(200);
    const raw = await res.text();
    expect(raw).not.toContain('secret-host');
    const events = await sseEventsOf(raw);
    expect(events.at(-1)).toEqual({ type: 'error', data: { error: 'model unavailable', detail: expect.any(String) } });
    expect(events.filter((e) => e.type === 'done')).toHaveLength(0);
  });

  it('answers errors before the stream as plain JSON envelopes', async () => {
    const s = await start({
      admission: refusingAdmission(new TooManyRequestsError('spent', 60)),
    });
    const res = await s.post({ query: 'hi' });
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect((await res.json()).error).toBe('daily token budget exhausted');
    const bad = await s.post({ query: '' });
    expect(bad.status).toBe(400);
  });

  it('with no grace (RUN_DETACHED_GRACE_MS=0), aborts the upstream model request within a second of a client disconnect, and still charges', async () => {
    const s = await start({ config: testConfig({ RUN_DETACHED_GRACE_MS: '0' }) });
    s.gw.enqueue({ text: ['Partial ', 'answer'], hang: true, usage: null });
    const controller = new AbortController();
    const res = await s.post({ query: 'tell me a long story' }, controller.signal);
    // Stopping the reader cancels the body (the socket closes): the disconnect starts at the first delta.
    let disconnectedAt = 0;
    for await (const e of readSseEvents(res.body!)) {
      if (e.type !== 'delta') continue;
      disconnectedAt = Date.now();
      break;
    }
    expect(disconnectedAt).toBeGreaterThan(0);
    controller.abort();
    await s.gw.waitForAbort();
    expect(s.gw.abortTimes[0]! - disconnectedAt).toBeLessThan(1_000);
    await s.chargedOnce;
    expect(s.charges).toHaveLength(1);
    expect(s.charges[0]!.estimated).toBe(true);
    expect(s.charges[0]!.totalTokens).toBeGreaterThan(0);
  });
});
