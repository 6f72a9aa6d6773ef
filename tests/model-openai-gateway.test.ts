/**
 * The openai-package gateway against the fake gateway over real HTTP: chunk assembly, usage, the single
 * retry, the deadline, and the caller's abort reaching the upstream request.
 */
import { describe, expect, it } from 'vitest';
import type { PassEvent } from '../src/model/gateway.js';
import { ModelTimeoutError, ModelUnavailableError } from '../src/model/gateway-errors.js';
import type { OpenAIGatewayOptions } from '../src/model/openai-gateway.js';
import { useFakeGateway } from './support/cleanup.js';
import { gatewayClient } from './support/fake-gateway.js';

const gw = useFakeGateway('each');

const gateway = (o: Partial<OpenAIGatewayOptions> = {}) =>
  gatewayClient(gw, { apiKey: 'sk-test-key', ...o });

async function collect(events: AsyncIterable<PassEvent>): Promise<PassEvent[]> {
  const out: PassEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const user = [{ role: 'user' as const, content: 'hello' }];

describe('openai gateway: streamed pass', () => {
  it('streams text, reports the gateway usage once and asks for usage in the request', async () => {
    gw.enqueue({ text: ['Hi ', 'there'], usage: { prompt_tokens: 5, completion_tokens: 2 } });
    const events = await collect(gateway().streamPass({ model: 'v/m', messages: user, signal: new AbortController().signal }));
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join('')).toBe('Hi there');
    expect(events.filter((e) => e.type === 'usage')).toEqual([
      { type: 'usage', usage: { promptTokens: 5, completionTokens: 2, totalTokens: 7, estimated: false } },
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop', model: 'v/m' });
    const body = gw.chatRequests()[0];
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.tools).toBeUndefined();
  });

  it('assembles interleaved tool calls whose arguments arrive split across chunks', async () => {
    gw.enqueue({
      toolCalls: [
        { name: 'eats_search_dining_locations', arguments: { name_query: 'La Prima Espresso' } },
        { name: 'maps_search_buildings', arguments: { query: 'Wean Hall' } },
      ],
    });
    const tools = [{ name: 'eats_search_dining_locations', description: 'd', parameters: { type: 'object' as const, properties: {} } }];
    const events = await collect(gateway().streamPass({ model: 'v/m', messages: user, tools, signal: new AbortController().signal }));
    const calls = events.find((e) => e.type === 'tool_calls');
    expect(calls).toMatchObject({
      calls: [
        { name: 'eats_search_dining_locations', arguments: JSON.stringify({ name_query: 'La Prima Espresso' }) },
        { name: 'maps_search_buildings', arguments: JSON.stringify({ query: 'Wean Hall' }) },
      ],
    });
    expect(gw.chatRequests()[0].tools[0].function.name).toBe('eats_search_dining_locations');
  });

  it('estimates usage when the gateway reports none', async () => {
    gw.enqueue({ text: 'x'.repeat(40), usage: null });
    const events = await collect(gateway().streamPass({ model: 'v/m', messages: user, signal: new AbortController().signal }));
    const usage = events.find((e) => e.type === 'usage');
    expect(usage).toMatchObject({ usage: { completionTokens: 10, estimated: true } });
  });

  it('retries a 429 once, then answers', async () => {
    gw.enqueue({ status: 429, headers: { 'retry-after': '0' } }, { text: 'after retry' });
    const events = await collect(gateway().streamPass({ model: 'v/m', messages: user, signal: new AbortController().signal }));
    expect(events.find((e) => e.type === 'text')).toEqual({ type: 'text', text: 'after retry' });
    expect(gw.chatRequests()).toHaveLength(2);
  });

  it('gives up after one retry of a 5xx with a generic error', async () => {
    gw.enqueue({ status: 500, errorMessage: 'internal upstream host db-7.internal' }, { status: 502 });
    const err = await collect(gateway().streamPass({ model: 'v/m', messages: user, signal: new AbortController().signal })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect(JSON.stringify((err as ModelUnavailableError).toEnvelope())).not.toContain('db-7');
    expect(gw.chatRequests()).toHaveLength(2);
  });

  it('does not retry a 400', async () => {
    gw.enqueue({ status: 400 }, { text: 'never' });
    await expect(collect(gateway().streamPass({ model: 'v/m', messages: user, signal: new AbortController().signal }))).rejects.toBeInstanceOf(
      ModelUnavailableError,
    );
    expect(gw.chatRequests()).toHaveLength(1);
  });

  it('ends a stalled call at its deadline, reporting estimated usage', async () => {
    gw.enqueue({ text: ['partial'], hang: true });
    const seen: PassEvent[] = [];
    const run = async () => {
      for await (const e of gateway({ callTimeoutMs: 100 }).streamPass({ model: 'v/m', messages: user, signal: new AbortController().signal }))
        seen.push(e);
    };
    await expect(run()).rejects.toBeInstanceOf(ModelTimeoutError);
    expect(seen.map((e) => e.type)).toEqual(['text', 'usage']);
    await gw.waitForAbort();
  });

  it('completes a slow stream within the deadline and ends one that outlasts it', async () => {
    gw.enqueue({ text: ['a', 'b', 'c', 'd'], chunkDelayMs: 20 }, { text: Array.from({ length: 40 }, () => 'x'), chunkDelayMs: 25 });
    const ok = await collect(gateway({ callTimeoutMs: 2_000 }).streamPass({ model: 'v/m', messages: user, signal: new AbortController().signal }));
    expect(ok.filter((e) => e.type === 'text')).toHaveLength(4);
    await expect(
      collect(gateway({ callTimeoutMs: 200 }).streamPass({ model: 'v/m', messages: user, signal: new AbortController().signal })),
    ).rejects.toBeInstanceOf(ModelTimeoutError);
  });

  it('aborts the upstream request when the caller aborts', async () => {
    gw.enqueue({ text: ['first'], hang: true });
    const controller = new AbortController();
    const clientLeft = new Error('the client went away');
    const seen: PassEvent[] = [];
    const run = async () => {
      for await (const e of gateway().streamPass({ model: 'v/m', messages: user, signal: controller.signal })) {
        seen.push(e);
        if (e.type === 'text') controller.abort(clientLeft);
      }
    };
    // The caller's own abort comes back unchanged (not mapped to a gateway error the client would see).
    await expect(run()).rejects.toBe(clientLeft);
    await gw.waitForAbort();
    expect(seen.filter((e) => e.type === 'usage')).toHaveLength(1);
  });

  it('sends requests through the injected fetch', async () => {
    const urls: string[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      urls.push(String(input instanceof Request ? input.url : input));
      return globalThis.fetch(input, init);
    };
    await collect(gateway({ fetch }).streamPass({ model: 'v/m', messages: user, signal: new AbortController().signal }));
    expect(urls).toEqual([`${gw.baseUrl}/chat/completions`]);
  });
});

describe('openai gateway: complete', () => {
  it('returns text and usage, retrying one 503', async () => {
    gw.enqueue({ status: 503 }, { text: 'Dining near Wean', usage: { prompt_tokens: 3, completion_tokens: 4 } });
    const res = await gateway().complete({ model: 'v/m', messages: user, json: true });
    expect(res).toEqual({ text: 'Dining near Wean', usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7, estimated: false }, model: 'v/m' });
    expect(gw.chatRequests()[1].response_format).toEqual({ type: 'json_object' });
    expect(gw.chatRequests()[1].stream).toBeUndefined();
  });
});
