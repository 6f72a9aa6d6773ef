/**
 * `POST /agent/title`: a cleaned 2-5 word title from TITLE_MODEL via the fake gateway; null when the
 * model fails or no gateway is configured; "New chat" for a flagged first message, without a model call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { AppDeps } from '../src/deps.js';
import { cleanTitle } from '../src/model/title.js';
import { startFakeGateway, type FakeGateway, gatewayClient } from './support/fake-gateway.js';
import { createTestDeps, testConfig } from './support/deps.js';

let gw: FakeGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

async function post(deps: Partial<AppDeps>, body: unknown) {
  const app = createApp(await createTestDeps(deps));
  return app.request('/agent/title', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function withGateway() {
  const fake = await startFakeGateway();
  gw = fake;
  return {
    fake,
    deps: {
      config: testConfig({ LLM_GATEWAY_API_KEY: 'sk-title-key', TITLE_MODEL: 'vendor/title-model' }),
      gateway: gatewayClient(fake, { apiKey: 'sk-title-key' }),
    },
  };
}

describe('POST /agent/title', () => {
  it('returns the model title, cleaned, from TITLE_MODEL', async () => {
    const { fake, deps } = await withGateway();
    fake.enqueue({ text: '"Dining Near Gates Hall."' });
    const res = await post(deps, { query: 'Where can I eat near Gates?' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ title: 'Dining Near Gates Hall' });
    const sent = fake.chatRequests()[0];
    expect(sent.model).toBe('vendor/title-model');
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'Where can I eat near Gates?' });
  });

  it('returns null when the model fails', async () => {
    const { fake, deps } = await withGateway();
    fake.enqueue({ status: 500 }, { status: 500 });
    expect(await (await post(deps, { query: 'hello' })).json()).toEqual({ title: null });
  });

  it('returns null rather than a one-word title (the contract promises 2-5 words)', async () => {
    const { fake, deps } = await withGateway();
    fake.enqueue({ text: 'Dining.' });
    const res = await post(deps, { query: 'Where can I eat?' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ title: null });
  });

  it('returns null without a gateway', async () => {
    expect(await (await post({ gateway: null }, { query: 'hello' })).json()).toEqual({ title: null });
  });

  it('titles a flagged message "New chat" without calling the model', async () => {
    const { fake, deps } = await withGateway();
    const res = await post({ ...deps, moderation: { check: async () => ({ flagged: true, category: 'violence', selfHarm: false }) } }, { query: 'x' });
    expect(await res.json()).toEqual({ title: 'New chat' });
    expect(fake.requests).toHaveLength(0);
  });

  it('rejects a missing or empty query with a 400 envelope', async () => {
    for (const body of [{}, { query: '  ' }]) {
      const res = await post({}, body);
      expect(res.status).toBe(400);
      expect(Object.keys(await res.json()).sort()).toEqual(['detail', 'error']);
    }
  });
});

describe('cleanTitle', () => {
  it.each([
    ['Title: Course Prerequisites!', 'Course Prerequisites'],
    ['**Comida cerca de Gates**', 'Comida cerca de Gates'],
    ['«Horaires de la bibliothèque»', 'Horaires de la bibliothèque'],
    ['one two three four five six seven', 'one two three four five'],
    ['Supercalifragilisticexpialidocious Extraordinarily Long Words', null],
    ['Dining', null],
    ['图书馆开放时间', '图书馆开放时间'],
    ['   ', null],
  ])('%j → %j', (raw, expected) => {
    const out = cleanTitle(raw);
    expect(out).toBe(expected);
    if (out) expect(out.length).toBeLessThanOrEqual(48);
  });
});
