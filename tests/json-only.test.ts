/**
 * Issue 63, item 5: only JSON where JSON is meant. Every JSON route refuses a body sent as anything but
 * JSON (a form, text/plain, XML, or no content type: what a page on another site can post without a
 * CORS preflight) with 415 before it is read: the envelope, OpenAI's error shape on `/v1`; nothing runs,
 * no model is called, no fact is saved. With auth off (the zero-config development mode), too.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import { closeAfterEach } from './support/cleanup.js';
import { createTestDeps, testConfig, testTurnMemory } from './support/deps.js';
import { gatewayClient, startFakeGateway } from './support/fake-gateway.js';
import { listen } from './support/listen.js';

const defer = closeAfterEach();

const ROUTES: Array<{ path: string; body: unknown; openai?: boolean }> = [
  { path: '/agent/respond', body: { query: 'remember that I live in Donner', user_id: 'ann' } },
  { path: '/agent/respond/stream', body: { query: 'remember that I live in Donner', user_id: 'ann' } },
  { path: '/agent/title', body: { query: 'where is gates' } },
  { path: '/v1/chat/completions', body: { model: 'campus-agent', messages: [{ role: 'user', content: 'hi' }] }, openai: true },
];

/** Content types a cross-site form or fetch sends without a preflight, and one that is simply not JSON. */
const NOT_JSON: Array<string | null> = ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', null];

async function service() {
  const gw = await startFakeGateway();
  defer(() => gw.close());
  const store = createInMemoryStore({ embeddingModel: null });
  const gateway = gatewayClient(gw);
  const deps = await createTestDeps({ config: testConfig(), gateway, memory: store, turnMemory: testTurnMemory({ store, gateway }) });
  return { app: createApp(deps), gw, store };
}

describe('JSON routes take only JSON', () => {
  for (const route of ROUTES) {
    it(`${route.path} refuses a body that is not JSON with 415, before anything runs`, async () => {
      const { app, gw, store } = await service();
      for (const type of NOT_JSON) {
        const headers: Record<string, string> = type === null ? {} : { 'content-type': type };
        // A Blob with no type sends no Content-Type header at all.
        const body = type === null ? new Blob([JSON.stringify(route.body)]) : JSON.stringify(route.body);
        const res = await app.request(route.path, { method: 'POST', headers, body });
        expect(res.status, `${route.path} ${type}`).toBe(415);
        const error = await res.json();
        if (route.openai) expect(error).toMatchObject({ error: { type: 'invalid_request_error', code: 'unsupported_media_type' } });
        else expect(error).toEqual({ error: 'unsupported media type', detail: expect.stringMatching(/^send the body as JSON \(Content-Type: application\/json\)/) });
      }
      expect(gw.chatRequests()).toHaveLength(0);
      expect((await store.list('ann')).total).toBe(0);
    });
  }

  it('over real HTTP: a bare DELETE passes (no body, whatever the adapter gives it), a text/plain POST does not', async () => {
    const { app } = await service();
    const server = await listen(app.fetch);
    defer(() => server.close());
    const cleared = await fetch(`${server.base}/memory/ann`, { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    expect(await cleared.json()).toMatchObject({ status: 'cleared' });
    const plain = await fetch(`${server.base}/agent/respond`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ query: 'hi' }) });
    expect(plain.status).toBe(415);
    // A chunked body (no Content-Length) is a body too.
    const chunked = await fetch(`${server.base}/agent/respond`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: new Blob([JSON.stringify({ query: 'hi' })]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(415);
  });

  it('takes JSON with a charset or a +json type', async () => {
    const { app } = await service();
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/vnd.campus+json']) {
      const res = await app.request('/agent/respond', { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify({ query: 'hello there' }) });
      expect(res.status, type).toBe(200);
    }
  });
});
