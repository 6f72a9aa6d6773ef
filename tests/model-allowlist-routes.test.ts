/**
 * Issue 47: the model allowlist on every route that can name a model, over a real listening server and
 * the fake gateway. A fuzzed set of model ids (case, whitespace, look-alike letters, invisible
 * characters, suffixes, path tricks) gets a 400 that names the allowed models on both chat routes and
 * `/v1` (OpenAI's error shape there), and makes no gateway call at all; the title route, which sends
 * the service's own title model whatever the body says, never sends one either. An allowed id reaches
 * the gateway as it was named, and `GET /v1/models` lists exactly the allowed models.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createTestDeps, testConfig } from './support/deps.js';
import { startFakeGateway, type FakeGateway, gatewayClient } from './support/fake-gateway.js';
import { listen, type Listening } from './support/listen.js';

const SECRET = 'allowlist-test-secret-0123456789abcdef';
const DEFAULT = 'openai/gpt-4o-mini';
const OTHER = 'anthropic/claude-3.5-haiku';
const TITLE_MODEL = 'test/title-model';

/** Ids a client might send that are not on the list: each must be refused, never mapped to an allowed one. */
const FUZZED = [
  'OpenAI/gpt-4o-mini',
  'openai/GPT-4o-mini',
  'openai/gpt-4o-mini:free',
  'openai/gpt-4o-mini-2024-07-18',
  'openai/gpt-4o-mini/',
  'openai/gpt-4o',
  'openai/gpt-4о-mini', // Cyrillic o
  'openаi/gpt-4o-mini', // Cyrillic a
  'openai/gpt-4o-mini\u200b', // zero-width space
  'openai/gpt\u00ad-4o-mini', // soft hyphen
  'ｏｐｅｎａｉ/gpt-4o-mini', // fullwidth
  'openai/../anthropic/claude-3.5-haiku',
  'openai/gpt-4o-mini/../../anthropic/claude-3-opus',
  'openai%2Fgpt-4o-mini',
  'anthropic/claude-3.5-haiku?x=1',
  'anthropic/claude-3-opus',
  'openai/gpt-4o-mini\ttab',
  'openai/ gpt-4o-mini',
  ' ',
];

let gw: FakeGateway;
let server: Listening;
let client: OpenAI;
const auth = { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' };

beforeAll(async () => {
  gw = await startFakeGateway();
  gw.handler = (body) => (body.model === TITLE_MODEL ? { text: 'Campus Dining Hours' } : { text: 'Hello from the campus.' });
  const config = testConfig({ AGENT_SHARED_SECRET: SECRET, ALLOWED_MODELS: `${DEFAULT}, ${OTHER}`, TITLE_MODEL, MAX_TURNS_IN_FLIGHT: '50' });
  const deps = await createTestDeps({ config, gateway: gatewayClient(gw, { apiKey: 'sk-chat-key' }) });
  server = await listen(createApp(deps).fetch);
  client = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: SECRET, maxRetries: 0 });
});

afterAll(async () => {
  await server?.close();
  await gw?.close();
});

const post = (path: string, body: unknown) => fetch(`${server.base}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });

describe('the model allowlist', () => {
  it('refuses every fuzzed id on both chat routes and /v1 with a 400 naming the allowed models, and calls no model', async () => {
    const before = gw.chatRequests().length;
    for (const model of FUZZED) {
      for (const path of ['/agent/respond', '/agent/respond/stream']) {
        const res = await post(path, { query: 'Where is Hunt Library?', user_id: 'fuzz-user', model });
        expect(res.status, `${path} ${JSON.stringify(model)}`).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const envelope = (await res.json()) as { error: string; detail: string };
        expect(Object.keys(envelope).sort()).toEqual(['detail', 'error']);
        // A malformed id fails the field's own rule; a well-formed one not on the list names the list.
        if (/^[^\s/]+\/\S+$/.test(model.trim())) {
          expect(envelope).toEqual({ error: 'model not allowed', detail: `this model is not offered here; allowed models: ${DEFAULT}, ${OTHER}` });
        } else expect(envelope.error).toBe('invalid request');
      }
      const err = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Where is Hunt Library?' }] }).catch((e: unknown) => e);
      expect(err, JSON.stringify(model)).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'invalid_request_error', message: expect.any(String) });
      const streamed = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(streamed, JSON.stringify(model)).toBeInstanceOf(OpenAI.BadRequestError);
    }
    expect(gw.chatRequests().length).toBe(before);
  });

  it('sends the title model and nothing else from the title route, whatever model the body names', async () => {
    const before = gw.chatRequests().length;
    for (const model of [...FUZZED, OTHER, 'anthropic/claude-3-opus']) {
      const res = await post('/agent/title', { query: 'What time does the dining hall close?', model });
      expect(res.status).toBe(200);
    }
    const sent = gw.chatRequests().slice(before).map((b) => b.model);
    expect(sent.length).toBe(FUZZED.length + 2);
    expect(new Set(sent)).toEqual(new Set([TITLE_MODEL]));
  });

  it('passes an allowed id, trimmed, to the gateway exactly as named; no model named uses the default', async () => {
    const before = gw.chatRequests().length;
    for (const model of [OTHER, `  ${OTHER}  `, DEFAULT]) {
      const res = await post('/agent/respond', { query: 'hi there', user_id: 'allowed-user', model });
      expect(res.status).toBe(200);
    }
    expect((await post('/agent/respond', { query: 'hi there', user_id: 'allowed-user' })).status).toBe(200);
    const completion = await client.chat.completions.create({ model: OTHER, messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.model).toBe(OTHER);
    const agentModel = await client.chat.completions.create({ model: 'campus-agent', messages: [{ role: 'user', content: 'hi' }] });
    expect(agentModel.choices[0]!.message.content).toContain('Hello from the campus.');
    const sent = gw.chatRequests().slice(before).map((b) => b.model);
    expect(sent).toEqual([OTHER, OTHER, DEFAULT, DEFAULT, OTHER, DEFAULT]);
  });

  it('lists exactly the allowed models on GET /v1/models, campus-agent first', async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['campus-agent', DEFAULT, OTHER]);
    const res = await fetch(`${server.base}/v1/models`, { headers: auth });
    const body = (await res.json()) as { data: { id: string; owned_by: string }[] };
    expect(body.data.map((m) => m.owned_by)).toEqual(['campus-assistant', 'openai', 'anthropic']);
  });
});
