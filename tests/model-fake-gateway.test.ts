/**
 * The fake gateway speaks what the real `openai` client expects: streamed chunks with split tool-call
 * arguments, the usage chunk, error statuses, embeddings (base64 and float) and moderations.
 */
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';

let gw: FakeGateway;
let client: OpenAI;

beforeEach(async () => {
  gw = await startFakeGateway();
  client = new OpenAI({ baseURL: gw.baseUrl, apiKey: 'test-key', maxRetries: 0 });
});
afterEach(async () => {
  await gw.close();
});

describe('fake gateway', () => {
  it('streams text chunks, tool calls split across chunks and a usage chunk', async () => {
    gw.enqueue({
      text: ['Hel', 'lo'],
      toolCalls: [
        { name: 'eats_search', arguments: { query: 'pizza near Wean' } },
        { name: 'courses_get', arguments: { id: '15-122' } },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 7 },
    });
    const stream = await client.chat.completions.create({
      model: 'vendor/model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const args: string[] = [];
    const names: string[] = [];
    let argChunks = 0;
    let usage: unknown = null;
    let finish: string | null = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      text += choice.delta.content ?? '';
      for (const tc of choice.delta.tool_calls ?? []) {
        if (tc.function?.name) names[tc.index] = tc.function.name;
        if (tc.function?.arguments) {
          argChunks++;
          args[tc.index] = (args[tc.index] ?? '') + tc.function.arguments;
        }
      }
      finish = choice.finish_reason ?? finish;
    }
    expect(text).toBe('Hello');
    expect(names).toEqual(['eats_search', 'courses_get']);
    expect(args.map((a) => JSON.parse(a))).toEqual([{ query: 'pizza near Wean' }, { id: '15-122' }]);
    expect(argChunks).toBeGreaterThan(2);
    expect(finish).toBe('tool_calls');
    expect(usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect(gw.chatRequests()[0].messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(gw.requests[0]?.headers.authorization).toBe('Bearer test-key');
  });

  it('omits the usage chunk when usage is null or not requested', async () => {
    gw.enqueue({ text: 'a', usage: null }, { text: 'b' });
    for (const include of [true, false]) {
      const stream = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
        ...(include && { stream_options: { include_usage: true } }),
      });
      let sawUsage = false;
      for await (const chunk of stream) if (chunk.usage) sawUsage = true;
      expect(sawUsage).toBe(false);
    }
  });

  it('answers scripted error statuses with an OpenAI error body', async () => {
    gw.enqueue({ status: 429 }, { status: 500, errorMessage: 'boom' });
    await expect(client.chat.completions.create({ model: 'm', messages: [] })).rejects.toMatchObject({ status: 429 });
    await expect(client.chat.completions.create({ model: 'm', messages: [] })).rejects.toMatchObject({ status: 500 });
  });

  it('answers non-streamed completions and falls back to the handler', async () => {
    gw.handler = (body, index) => ({ text: `reply ${index} to ${body.messages.length}` });
    const res = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'q' }] });
    expect(res.choices[0]?.message.content).toBe('reply 0 to 1');
    expect(res.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('returns deterministic unit embeddings, scriptable per text, in both encodings', async () => {
    gw.setEmbedding('fixed', [1, 0, 0]);
    const a = await client.embeddings.create({ model: 'e', input: ['same', 'same', 'other'], dimensions: 8 });
    const [x, y, z] = a.data.map((d) => d.embedding);
    expect(x).toHaveLength(8);
    expect(x).toEqual(y);
    expect(x).not.toEqual(z);
    expect(Math.hypot(...(x ?? []))).toBeCloseTo(1, 5);
    const f = await client.embeddings.create({ model: 'e', input: 'fixed', encoding_format: 'float' });
    expect(f.data[0]?.embedding).toEqual([1, 0, 0]);
    const d = await client.embeddings.create({ model: 'e', input: 'anything' });
    expect(d.data[0]?.embedding).toHaveLength(1536);
  });

  it('moderates per text and fails on demand', async () => {
    gw.setModeration('bad', { flagged: true, categories: { violence: true } });
    const res = await client.moderations.create({ model: 'omni-moderation-latest', input: ['fine', 'bad'] });
    expect(res.results.map((r) => r.flagged)).toEqual([false, true]);
    expect(res.results[1]?.categories.violence).toBe(true);
    expect(res.results[1]?.categories['self-harm']).toBe(false);
    gw.moderationFailure = { status: 503 };
    await expect(client.moderations.create({ input: 'x' })).rejects.toMatchObject({ status: 503 });
  });

  it('records a client that goes away in the middle of a hanging stream', async () => {
    gw.enqueue({ text: ['partial'], hang: true });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'm', messages: [], stream: true },
      { signal: controller.signal },
    );
    const seen: string[] = [];
    // The openai stream ends quietly or throws an abort error depending on timing; either is fine.
    await (async () => {
      for await (const chunk of stream) {
        seen.push(chunk.choices[0]?.delta.content ?? '');
        if (seen.join('') === 'partial') controller.abort();
      }
    })().catch(() => undefined);
    expect(seen.join('')).toBe('partial');
    await gw.waitForAbort();
    expect(gw.abortedStreams).toBe(1);
  });
});
