/**
 * SSE at the edge (src/sse/sse-stream.ts), on a real listening server: one frame per event with one-line
 * JSON data and the contract headers, a keep-alive comment after silence, a client that goes away
 * aborting the source, a slow reader pacing the source (backpressure), and a failing source ending with
 * the generic `error` envelope. The frame text is the text Hono's own `streamSSE` writes for the same
 * event, compared on the wire. Raw bytes are checked on purpose (this is the wire
 * format); payloads are read back with the one client-side reader.
 */
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { INTERNAL_ERROR } from '../src/http/errors.js';
import { KEEP_ALIVE_COMMENT, sseFrameText, sseStream, type SseEvent } from '../src/sse/sse-stream.js';
import { listen, type Listening } from './support/listen.js';
import { collectSseEvents } from './support/sse.js';

const servers: Listening[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

interface Probe {
  aborted: number;
  errors: unknown[];
  pulled: number;
  finished: boolean;
}

/** Serves `source` (a fresh generator per request) as SSE and records what the edge did to it. */
async function serveEvents(source: (probe: Probe) => AsyncGenerator<SseEvent>, keepAliveMs = 15_000, now: () => number = Date.now) {
  const probe: Probe = { aborted: 0, errors: [], pulled: 0, finished: false };
  const app = new Hono().get('/events', (c) =>
    sseStream(c, source(probe), { keepAliveMs, now, onAbort: () => void probe.aborted++, onError: (err) => void probe.errors.push(err) }),
  );
  const server = await listen(app.fetch);
  servers.push(server);
  return { url: `${server.base}/events`, port: server.port, probe };
}

describe('sseStream', () => {
  it('frames each event on one data line with the contract headers, in order', async () => {
    const payloads = [
      { event: 'status', data: { text: 'Checking campus tools...' } },
      { event: 'delta', data: { text: 'a\nb "c"' } },
      { event: 'done', data: { response_text: 'a\nb' } },
    ];
    const events: SseEvent[] = payloads.map((e) => ({ event: e.event, data: JSON.stringify(e.data) }));
    const { url } = await serveEvents(async function* () {
      yield* events;
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('connection')).toBe('keep-alive');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const raw = await res.text();
    expect(raw).toBe(
      'event: status\ndata: {"text":"Checking campus tools..."}\n\n' +
        'event: delta\ndata: {"text":"a\\nb \\"c\\""}\n\n' +
        'event: done\ndata: {"response_text":"a\\nb"}\n\n',
    );
    expect(await collectSseEvents(new Response(raw).body!)).toEqual(payloads.map((e) => ({ type: e.event, data: e.data })));
  });

  it("writes each frame as Hono's streamSSE writes it, and refuses a line break in a name or id", async () => {
    const frames: SseEvent[] = [
      { event: 'delta', data: '{"text":"a"}', id: 'run_1:3' },
      { data: '{"choices":[]}' },
      { event: 'done', data: 'one\r\ntwo\rthree\nfour', id: '' },
      { event: '', data: '' },
    ];
    const app = new Hono().get('/hono', (c) =>
      streamSSE(c, async (sse) => {
        for (const f of frames) await sse.writeSSE(f);
      }),
    );
    const server = await listen(app.fetch);
    servers.push(server);
    const expected = await (await fetch(`${server.base}/hono`)).text();
    const { url } = await serveEvents(async function* () {
      yield* frames;
    });
    expect(await (await fetch(url)).text()).toBe(expected);
    expect(frames.map(sseFrameText).join('')).toBe(expected);
    expect(() => sseFrameText({ event: 'a\nb', data: '{}' })).toThrow();
    expect(() => sseFrameText({ data: '{}', id: 'x\ry' })).toThrow();
  });

  it('sends a keep-alive comment after silence, then the next event', async () => {
    let release!: () => void;
    const { url } = await serveEvents(async function* () {
      await new Promise<void>((r) => (release = r));
      yield { event: 'delta', data: JSON.stringify({ text: 'hi' }) };
    }, 40);
    const res = await fetch(url);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe(KEEP_ALIVE_COMMENT);
    release();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += decoder.decode(r.value);
    expect(rest.replaceAll(KEEP_ALIVE_COMMENT, '')).toBe('event: delta\ndata: {"text":"hi"}\n\n');
  });

  it('aborts the source when the client goes away', async () => {
    const { url, probe } = await serveEvents(async function* (p) {
      try {
        for (;;) {
          p.pulled++;
          yield { event: 'delta', data: JSON.stringify({ text: 'x' }) };
          await new Promise((r) => setTimeout(r, 5));
        }
      } finally {
        p.finished = true;
      }
    });
    const controller = new AbortController();
    const res = await fetch(url, { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await expect.poll(() => probe.aborted).toBe(1);
    await expect.poll(() => probe.finished).toBe(true);
  });

  it('stops its keep-alive timer when the client goes away, even while the source has not ended', async () => {
    // A source stuck past the disconnect (a turn waiting on a model or a database): its stream is over.
    let release!: () => void;
    const stuck = new Promise<void>((r) => (release = r));
    let clockReads = 0;
    const { url, probe } = await serveEvents(
      async function* () {
        yield { event: 'delta', data: JSON.stringify({ text: 'x' }) };
        await stuck;
      },
      20,
      () => (clockReads++, Date.now()),
    );
    const controller = new AbortController();
    const res = await fetch(url, { signal: controller.signal });
    await res.body!.getReader().read();
    controller.abort();
    await expect.poll(() => probe.aborted).toBe(1);
    const before = clockReads;
    await new Promise((r) => setTimeout(r, 300));
    // Each timer firing reads the clock: a timer re-armed every millisecond read it hundreds of times.
    expect(clockReads - before).toBeLessThan(5);
    release();
  });

  it('pulls the next event only when the reader keeps up: a stalled reader holds the source', async () => {
    const big = 'x'.repeat(256 * 1024);
    const { port, probe } = await serveEvents(async function* (p) {
      try {
        for (;;) {
          p.pulled++;
          yield { event: 'delta', data: JSON.stringify({ text: big }) };
        }
      } finally {
        p.finished = true;
      }
    });
    // A raw client that sends the request and never reads: the socket buffers fill, writes wait.
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await expect.poll(() => probe.pulled).toBeGreaterThan(2);
    const settle = async () => {
      let last = -1;
      while (probe.pulled !== last) {
        last = probe.pulled;
        await new Promise((r) => setTimeout(r, 100));
      }
      return last;
    };
    const held = await settle();
    // Unbounded buffering would have pulled thousands of 256 KiB events by now (gigabytes).
    expect(held).toBeLessThan(64);
    socket.destroy();
    await expect.poll(() => probe.finished).toBe(true);
    expect(probe.aborted).toBe(1);
  });

  it('ends a failing source with the generic error envelope, never its message', async () => {
    const { url, probe } = await serveEvents(async function* () {
      yield { event: 'delta', data: JSON.stringify({ text: 'partial' }) };
      throw new Error('boom at postgres://admin:hunter2@10.0.0.5/db');
    });
    const raw = await (await fetch(url)).text();
    expect(raw).not.toMatch(/boom|hunter2|postgres/);
    expect(await collectSseEvents(new Response(raw).body!)).toEqual([
      { type: 'delta', data: { text: 'partial' } },
      { type: 'error', data: INTERNAL_ERROR },
    ]);
    expect(probe.errors).toHaveLength(1);
  });

  it("ends the stream and keeps serving when the caller's onError itself throws", async () => {
    const app = new Hono().get('/events', (c) =>
      sseStream(
        c,
        (async function* () {
          yield { event: 'delta', data: '{"text":"partial"}' };
          throw new Error('source failed');
        })(),
        {
          keepAliveMs: 15_000,
          onAbort: () => undefined,
          onError: () => {
            throw new Error('the logger failed');
          },
        },
      ),
    );
    const server = await listen(app.fetch);
    servers.push(server);
    expect(await (await fetch(`${server.base}/events`)).text()).toBe('event: delta\ndata: {"text":"partial"}\n\n');
    expect((await fetch(`${server.base}/events`)).status).toBe(200);
  });
});
