/**
 * Answer text in batches (model/text-batches.ts, issue 46), through the openai-package gateway and the
 * fake gateway over real HTTP: text close together goes as one piece, the first piece and a slow model's
 * pieces go at once, held text goes when its window ends even while the model is silent, the text is
 * the same, and a reader that stops mid-pass ends the upstream request.
 */
import { describe, expect, it } from 'vitest';
import type { PassEvent } from '../src/model/gateway.js';
import { MAX_HELD_CHARS } from '../src/model/text-batches.js';
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

  it('sends held text when its window ends, while the model is still silent', async () => {
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
    // The held pieces went at the window's end, not at the stall's end (the client's abort, after them).
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
