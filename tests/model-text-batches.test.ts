/**
 * Answer text in batches (model/text-batches.ts, issue 46), through the openai-package gateway and the
 * fake gateway over real HTTP: text close together goes as one piece, the first piece and a slow model's
 * pieces go at once, a steady model's chunks carry the batches (no wake-up of a timer of their own),
 * held text goes within two windows even while the model is silent, the text is the same, and a reader
 * that stops mid-pass ends the upstream request.
 */
import { describe, expect, it } from 'vitest';
import type { PassEvent } from '../src/model/gateway.js';
import { MAX_HELD_CHARS, textBatches } from '../src/model/text-batches.js';
import { useFakeGateway } from './support/cleanup.js';
import { gatewayClient } from './support/fake-gateway.js';

const gw = useFakeGateway('each');
const user = [{ role: 'user' as const, content: 'hello' }];
const words = (n: number) => Array.from({ length: n }, (_, i) => ` w${i}`);

/** The text events of a pass, each with the time it reached the reader. */
async function texts(windowMs: number, signal = new AbortController().signal) {
  const start = performance.now();
  const out: { text: string; at: number }[] = [];
  const events: PassEvent[] = [];
  for await (const e of gatewayClient(gw, { textBatchMs: windowMs }).streamPass({ model: 'v/m', messages: user, signal })) {
    events.push(e);
    if (e.type === 'text') out.push({ text: e.text, at: performance.now() - start });
  }
  return { out, events };
}

describe('answer text in batches', () => {
  it('sends chunks that come close together as fewer pieces with the same text, the first chunk alone', async () => {
    gw.enqueue({ text: words(40), chunkDelayMs: 5 });
    const { out, events } = await texts(60);
    expect(out.map((p) => p.text).join('')).toBe(words(40).join(''));
    expect(out[0]!.text).toBe(' w0');
    // 40 chunks over about 200 ms in windows of 60 ms: a handful of pieces, not one per chunk.
    expect(out.length).toBeGreaterThan(1);
    expect(out.length).toBeLessThanOrEqual(10);
    // The text comes before the pass's usage and finish.
    expect(events.slice(-2).map((e) => e.type)).toEqual(['usage', 'finish']);
  });

  it('sends every chunk as it came with a window of 0', async () => {
    gw.enqueue({ text: words(12), chunkDelayMs: 2 });
    const { out } = await texts(0);
    expect(out.map((p) => p.text)).toEqual(words(12));
  });

  it("sends a slow model's chunks one by one: none waits for a window that has already passed", async () => {
    gw.enqueue({ text: words(4), chunkDelayMs: 150 });
    const { out } = await texts(30);
    expect(out.map((p) => p.text)).toEqual(words(4));
  });

  it("lets a steady model's chunks carry the batches: the window's timer is only a backstop for a stall", async () => {
    // A clock and timers of the test's own: a chunk every 30 ms, a window of 100 ms; the timers never
    // fire, they are only checked for being due before the chunk that came next.
    let clock = 0;
    const armed = new Set<{ due: number }>();
    const dueBeforeAChunk: number[] = [];
    async function* chunks() {
      for (let i = 0; i < 20; i++) {
        clock += 30;
        for (const timer of armed) if (timer.due < clock) dueBeforeAChunk.push(timer.due);
        yield { text: ` w${i}` };
      }
    }
    const batches = textBatches<{ text: string }>(chunks(), {
      windowMs: 100,
      now: () => clock,
      setTimer: (_fn, ms) => {
        const timer = { due: clock + ms };
        armed.add(timer);
        return timer;
      },
      clearTimer: (timer) => armed.delete(timer as { due: number }),
    });
    const pieces: { text: string; at: number }[] = [];
    for (let step = await batches.next(); !step.done; step = await batches.next()) {
      if (typeof step.value === 'string') pieces.push({ text: step.value, at: clock });
      else batches.hold(step.value.text);
    }
    expect(pieces.map((p) => p.text).join('')).toBe(words(20).join(''));
    expect(pieces[0]).toEqual({ text: ' w0', at: 30 });
    // Each later piece goes with the first chunk at or past its window: 120 ms apart, four chunks each.
    expect(pieces.slice(1, -1).map((p) => p.text)).toEqual([' w1 w2 w3 w4', ' w5 w6 w7 w8', ' w9 w10 w11 w12', ' w13 w14 w15 w16']);
    expect(pieces.slice(1, -1).map((p) => p.at)).toEqual([150, 270, 390, 510]);
    // No timer was due before the chunk that then carried the batch: a steady stream wakes nothing else.
    expect(dueBeforeAChunk).toEqual([]);
  });

  it('sends held text within two windows, while the model is still silent', async () => {
    // Three chunks at once, then the stream stalls until the client goes away.
    gw.enqueue({ text: ['First', ' second', ' third'], hang: true });
    const controller = new AbortController();
    const seen: { text: string; at: number }[] = [];
    const start = performance.now();
    const reading = (async () => {
      try {
        for await (const e of gatewayClient(gw, { textBatchMs: 50 }).streamPass({ model: 'v/m', messages: user, signal: controller.signal })) {
          if (e.type === 'text') seen.push({ text: e.text, at: performance.now() - start });
          if (seen.length === 2) controller.abort();
        }
      } catch {
        // The caller's abort ends the pass with its reason.
      }
    })();
    await reading;
    expect(seen.map((p) => p.text)).toEqual(['First', ' second third']);
    // The held pieces went at the backstop (two windows, 100 ms), not at the stall's end (the client's abort, after them).
    expect(seen[1]!.at - seen[0]!.at).toBeLessThan(500);
    await gw.waitForAbort();
  });

  it('passes held text on once it reaches its size bound, however long the window: an endless answer is not held whole', async () => {
    const pieces = Array.from({ length: 200 }, (_, i) => `${String(i % 10).repeat(499)} `);
    gw.enqueue({ text: pieces });
    const { out } = await texts(60_000);
    expect(out.map((p) => p.text).join('')).toBe(pieces.join(''));
    expect(out.length).toBeGreaterThan(30);
    for (const p of out) expect(p.text.length).toBeLessThan(MAX_HELD_CHARS + 500);
  });

  it('ends the upstream request when the reader stops mid-pass', async () => {
    gw.enqueue({ text: ['One', ' two', ' three'], hang: true });
    const stream = gatewayClient(gw, { textBatchMs: 50 }).streamPass({ model: 'v/m', messages: user, signal: new AbortController().signal });
    for await (const e of stream) if (e.type === 'text') break;
    await gw.waitForAbort();
    expect(gw.abortedStreams).toBe(1);
  });
});
