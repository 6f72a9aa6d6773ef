/**
 * The memory routes through app.request(): page shape and filters, validation (400 envelopes), delete
 * one (404 when absent or of another kind), clear all, isolation between users, auth, and a store that
 * cannot be queried (503 envelope on the routes, 503 `degraded` on health).
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import type { MemoryStore } from '../src/memory/store.js';
import { createTestDeps, testConfig } from './support/deps.js';

const SECRET = 'route-test-secret-0123456789abcdef';
const auth = { Authorization: `Bearer ${SECRET}` };

async function appWith(memory?: MemoryStore) {
  let t = Date.parse('2026-11-21T15:00:00.000Z');
  const store = memory ?? createInMemoryStore({ embeddingModel: null, now: () => new Date((t += 1000)) });
  const deps = await createTestDeps({ config: testConfig({ AGENT_SHARED_SECRET: SECRET }), memory: store });
  return { app: createApp(deps), store };
}

const get = (app: Awaited<ReturnType<typeof appWith>>['app'], path: string) => app.request(path, { headers: auth });
const del = (app: Awaited<ReturnType<typeof appWith>>['app'], path: string) =>
  app.request(path, { method: 'DELETE', headers: auth });

describe('GET /memory/{user_id} with characters no fact can hold', () => {
  it('answers a NUL or other control character in q with a 400 envelope, never a store error', async () => {
    const { app } = await appWith();
    for (const q of ['a\u0000b', '\u0000', 'x\u001b[31m']) {
      const res = await get(app, `/memory/abc123?q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'invalid request', detail: 'q: q must not contain control characters' });
    }
  });
});

describe('GET /memory/{user_id}', () => {
  it('answers the memory page, newest first, with filters and paging', async () => {
    const { app, store } = await appWith();
    const veg = await store.add({ userId: 'abc123', kind: 'remembered', text: 'Is vegetarian' });
    await store.add({ userId: 'abc123', kind: 'learned', text: 'Studies chemistry' });
    await store.add({ userId: 'abc123', kind: 'learned', text: 'Lives in Donner' });
    await store.add({ userId: 'other', kind: 'learned', text: 'Lives in Mudge' });

    const res = await get(app, '/memory/abc123');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = await res.json();
    expect(body).toEqual({
      items: [
        { id: expect.any(String), type: 'learned', text: 'Lives in Donner', created_at: '2026-11-21T15:00:03.000Z', updated_at: '2026-11-21T15:00:03.000Z' },
        { id: expect.any(String), type: 'learned', text: 'Studies chemistry', created_at: '2026-11-21T15:00:02.000Z', updated_at: '2026-11-21T15:00:02.000Z' },
        { id: veg.fact.id, type: 'remembered', text: 'Is vegetarian', created_at: '2026-11-21T15:00:01.000Z', updated_at: '2026-11-21T15:00:01.000Z' },
      ],
      total: 3,
      limit: 200,
      offset: 0,
    });

    expect(await (await get(app, '/memory/abc123?kind=remembered')).json()).toMatchObject({ total: 1, items: [{ text: 'Is vegetarian' }] });
    expect(await (await get(app, '/memory/abc123?q=LIVES')).json()).toMatchObject({ total: 1, items: [{ text: 'Lives in Donner' }] });
    expect(await (await get(app, '/memory/abc123?limit=1&offset=1')).json()).toMatchObject({
      total: 3,
      limit: 1,
      offset: 1,
      items: [{ text: 'Studies chemistry' }],
    });
    expect(await (await get(app, '/memory/nobody')).json()).toEqual({ items: [], total: 0, limit: 200, offset: 0 });
  });

  it.each([
    ['/memory/bad%20id', 'user_id'],
    [`/memory/${'a'.repeat(129)}`, 'user_id'],
    ['/memory/abc?limit=0', 'limit'],
    ['/memory/abc?limit=201', 'limit'],
    ['/memory/abc?limit=ten', 'limit'],
    ['/memory/abc?offset=-1', 'offset'],
    ['/memory/abc?kind=secret', 'kind'],
    [`/memory/abc?q=${'x'.repeat(201)}`, 'q'],
  ])('%s → 400 envelope naming %s', async (path, field) => {
    const { app } = await appWith();
    const res = await get(app, path);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['detail', 'error']);
    expect(body.detail).toContain(field);
  });

  it('needs the bearer token', async () => {
    const { app } = await appWith();
    const res = await app.request('/memory/abc123');
    expect(res.status).toBe(401);
    expect(Object.keys(await res.json()).sort()).toEqual(['detail', 'error']);
  });
});

describe('GET /memory/{user_id}/items/{kind}/{item_id}/history', () => {
  it("lists a fact's changes oldest first; 404 envelope when absent, of another kind or another user; bearer needed", async () => {
    const { app, store } = await appWith();
    const { fact } = await store.add({ userId: 'abc123', kind: 'learned', text: 'Lives in Mudge House' });
    await store.update('abc123', fact.id, { text: 'Lives in Donner House', source: 'extraction' });
    const res = await get(app, `/memory/abc123/items/learned/${fact.id}/history`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      id: fact.id,
      type: 'learned',
      history: [
        { at: '2026-11-21T15:00:01.000Z', change: 'created', source: 'extraction', text: 'Lives in Mudge House' },
        { at: '2026-11-21T15:00:02.000Z', change: 'updated', source: 'extraction', text: 'Lives in Donner House' },
      ],
    });
    const page = await (await get(app, '/memory/abc123')).json();
    expect(page.items[0]).toMatchObject({ created_at: '2026-11-21T15:00:01.000Z', updated_at: '2026-11-21T15:00:02.000Z' });

    for (const path of [
      `/memory/abc123/items/remembered/${fact.id}/history`,
      `/memory/someone-else/items/learned/${fact.id}/history`,
      '/memory/abc123/items/learned/not-a-uuid/history',
    ]) {
      const missing = await get(app, path);
      expect(missing.status).toBe(404);
      expect(Object.keys(await missing.json()).sort()).toEqual(['detail', 'error']);
    }
    expect((await get(app, `/memory/abc123/items/other/${fact.id}/history`)).status).toBe(400);
    expect((await get(app, `/memory/b%2Fad/items/learned/${fact.id}/history`)).status).toBe(400);
    expect((await app.request(`/memory/abc123/items/learned/${fact.id}/history`)).status).toBe(401);

    // Deleting the fact deletes its history: the route then answers 404.
    expect((await del(app, `/memory/abc123/items/learned/${fact.id}`)).status).toBe(200);
    expect((await get(app, `/memory/abc123/items/learned/${fact.id}/history`)).status).toBe(404);
  });

  it('redacts a secret stored in a history entry before it leaves', async () => {
    const { app, store } = await appWith();
    const { fact } = await store.add({ userId: 'abc123', kind: 'learned', text: `Uses the token ${SECRET}` });
    const text = await (await get(app, `/memory/abc123/items/learned/${fact.id}/history`)).text();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.slice(0, 16));
  });
});

describe('DELETE /memory/{user_id}/items/{kind}/{item_id} and DELETE /memory/{user_id}', () => {
  it('deletes one item of the right kind and user; 404 when absent, of another kind or another user', async () => {
    const { app, store } = await appWith();
    const { fact } = await store.add({ userId: 'abc123', kind: 'learned', text: 'Studies chemistry' });

    expect((await del(app, `/memory/abc123/items/remembered/${fact.id}`)).status).toBe(404);
    expect((await del(app, `/memory/someone-else/items/learned/${fact.id}`)).status).toBe(404);
    expect((await del(app, '/memory/abc123/items/learned/not-a-uuid')).status).toBe(404);
    expect((await del(app, `/memory/abc123/items/other/${fact.id}`)).status).toBe(400);

    const res = await del(app, `/memory/abc123/items/learned/${fact.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'deleted', id: fact.id, type: 'learned' });
    const again = await del(app, `/memory/abc123/items/learned/${fact.id}`);
    expect(again.status).toBe(404);
    expect(Object.keys(await again.json()).sort()).toEqual(['detail', 'error']);
  });

  it('clears one user and reports the count, leaving other users alone', async () => {
    const { app, store } = await appWith();
    await store.add({ userId: 'abc123', kind: 'learned', text: 'a' });
    await store.add({ userId: 'abc123', kind: 'remembered', text: 'b' });
    await store.add({ userId: 'keep', kind: 'remembered', text: 'c' });
    const res = await del(app, '/memory/abc123');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'cleared', removed: 2 });
    expect(await (await del(app, '/memory/abc123')).json()).toEqual({ status: 'cleared', removed: 0 });
    expect(await store.count('keep')).toBe(1);
    expect((await del(app, '/memory/b%2Fad')).status).toBe(400);
  });
});

describe('a store that cannot be queried', () => {
  it('answers 503 envelopes on the routes and 503 degraded on health, without leaking the cause', async () => {
    const store = createInMemoryStore({ embeddingModel: null });
    const failing = {
      ...store,
      list: async () => {
        throw new Error('connect ECONNREFUSED 10.1.2.3:5432 password=hunter2');
      },
      health: async () => ({ ...(await store.health()), ready: false }),
    } satisfies MemoryStore;
    const { app } = await appWith(failing);
    const res = await get(app, '/memory/abc123');
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(Object.keys(JSON.parse(text)).sort()).toEqual(['detail', 'error']);
    expect(text).not.toMatch(/ECONNREFUSED|hunter2|10\.1\.2\.3/);

    const health = await app.request('/api/health');
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'degraded', memory: { backend: 'in-memory', ready: false } });
  });
});
