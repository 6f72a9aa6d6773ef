/**
 * SSE framing at the edge: one frame per event with one-line JSON data, keep-alive comments after
 * silence (timer injected: no 15 s waits), and cancellation reaching the turn. The raw bytes are
 * checked here on purpose (this is the wire format); what a client makes of them is read back with the
 * one client-side reader.
 */
import { describe, expect, it } from 'vitest';
import { encodeSseEvent, KEEP_ALIVE_FRAME, sseResponse } from '../src/sse/sse-response.js';
import type { ClientEvent } from '../src/pipeline/types.js';
import { NO_MAP } from '../src/pipeline/types.js';
import { collectSseEvents } from './support/sse.js';

/** A manual timer: tests fire it when they want "15 s of silence" to have passed. */
function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  return {
    setTimeout: (fn: () => void, ms: number) => {
      pending.set(next, { fn, ms });
      return next++;
    },
    clearTimeout: (h: unknown) => void pending.delete(h as number),
    fire() {
      const entries = [...pending.entries()];
      pending.clear();
      for (const [, t] of entries) t.fn();
    },
    get armed() {
      return [...pending.values()].map((t) => t.ms);
    },
  };
}

/** An event source the test feeds by hand. */
function channel() {
  const queue: ClientEvent[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  let returned = false;
  const gen = (async function* () {
    try {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (ended) return;
        await new Promise<void>((r) => (wake = r));
      }
    } finally {
      returned = true;
    }
  })();
  return {
    gen,
    push(e: ClientEvent) {
      queue.push(e);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    get returned() {
      return returned;
    },
  };
}

describe('encodeSseEvent', () => {
  it('frames each event type with its contract payload on one data line', () => {
    expect(encodeSseEvent({ type: 'delta', text: 'a\nb "c"' })).toBe('event: delta\ndata: {"text":"a\\nb \\"c\\""}\n\n');
    expect(encodeSseEvent({ type: 'status', text: 'Writing answer...' })).toBe('event: status\ndata: {"text":"Writing answer..."}\n\n');
    expect(encodeSseEvent({ type: 'map', map: NO_MAP })).toBe(`event: map\ndata: ${JSON.stringify(NO_MAP)}\n\n`);
    expect(encodeSseEvent({ type: 'memory', data: { op: 'remove', text: 'Forgot: x' } })).toBe('event: memory\ndata: {"op":"remove","text":"Forgot: x"}\n\n');
    expect(encodeSseEvent({ type: 'error', envelope: { error: 'e', detail: 'd' }, status: 503 })).toBe('event: error\ndata: {"error":"e","detail":"d"}\n\n');
  });
});

describe('sseResponse', () => {
  it('reads back, with the client reader, as the contract payloads in order, keep-alives skipped', async () => {
    const timers = manualTimers();
    const ch = channel();
    const res = sseResponse(ch.gen, { keepAliveMs: 15_000, ...timers });
    const events = collectSseEvents(res.body!);
    const response = {
      thought: { reasoning: 'r', confidence: 0.6 },
      action: 'respond' as const,
      tool_calls: [],
      services_used: [],
      response_text: 'a\nb',
      cmu_maps: NO_MAP,
      metadata: {},
    };
    ch.push({ type: 'status', text: 'Checking campus tools...' });
    timers.fire();
    ch.push({ type: 'delta', text: 'a\nb' });
    ch.push({ type: 'memory', data: { op: 'add', text: 'Saved to memory: Is vegetarian', id: 'f-1', kind: 'remembered', fact: 'Is vegetarian' } });
    ch.push({ type: 'map', map: NO_MAP });
    ch.push({ type: 'done', response });
    ch.end();
    expect(await events).toEqual([
      { type: 'status', data: { text: 'Checking campus tools...' } },
      { type: 'delta', data: { text: 'a\nb' } },
      { type: 'memory', data: { op: 'add', text: 'Saved to memory: Is vegetarian', id: 'f-1', kind: 'remembered', fact: 'Is vegetarian' } },
      { type: 'map', data: NO_MAP },
      { type: 'done', data: response },
    ]);
  });

  it('sends a keep-alive comment after silence and re-arms after every frame', async () => {
    const timers = manualTimers();
    const ch = channel();
    const res = sseResponse(ch.gen, { keepAliveMs: 15_000, ...timers });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const read = async () => decoder.decode((await reader.read()).value);
    expect(timers.armed).toEqual([15_000]);
    timers.fire();
    expect(await read()).toBe(KEEP_ALIVE_FRAME);
    ch.push({ type: 'delta', text: 'hi' });
    expect(await read()).toBe('event: delta\ndata: {"text":"hi"}\n\n');
    expect(timers.armed).toEqual([15_000]);
    ch.end();
    expect((await reader.read()).done).toBe(true);
    expect(timers.armed).toEqual([]);
  });

  it('calls onCancel and ends the generator when the client goes away', async () => {
    const timers = manualTimers();
    const ch = channel();
    let cancelled = 0;
    const res = sseResponse(ch.gen, {
      ...timers,
      onCancel: () => {
        cancelled++;
        ch.end(); // the route aborts the turn, which lets the pending next() settle
      },
    });
    const reader = res.body!.getReader();
    ch.push({ type: 'status', text: 'Checking campus tools...' });
    await reader.read();
    await reader.cancel();
    expect(cancelled).toBe(1);
    await expect.poll(() => ch.returned).toBe(true);
    expect(timers.armed).toEqual([]);
  });

  it('sets the contract headers', () => {
    const res = sseResponse(channel().gen);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('connection')).toBe('keep-alive');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    void res.body?.cancel();
  });
});
