/**
 * Memory end to end: the whole chat pipeline on a real listening server against the fake gateway,
 * with the Postgres store on PGlite. Remember → `memory` event → listed; extraction stores a learned
 * fact after a turn; recall reaches the model on a later turn (never another user's); delete one,
 * clear all; a database that stops answering makes health 503 while chat still answers; and the real
 * entry point, stopped with SIGTERM right after a turn, still stores the extracted fact.
 */
import { describe, expect, it } from 'vitest';
import { listen } from './support/listen.js';
import { createApp } from '../src/app.js';
import { createDatabase } from '../src/db/client.js';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import { silentLogger } from '../src/logger.js';
import { createPostgresStore } from '../src/memory/postgres-store.js';
import { startFakeGateway, type FakeGateway, gatewayClient } from './support/fake-gateway.js';
import { createTestDeps, testTurnMemory } from './support/deps.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { spawnService } from './support/spawn-service.js';
import { collectSseEvents } from './support/sse.js';
import { closeAfterEach } from './support/cleanup.js';

const defer = closeAfterEach({ bestEffort: true });

/** Extraction requests are the JSON-mode chat completions. */
const isExtraction = (body: any) => body?.response_format?.type === 'json_object';
const systemPrompt = (body: any): string => body.messages.find((m: any) => m.role === 'system')?.content ?? '';

async function startStack() {
  const pg: TestPostgres = await startTestPostgres();
  defer(() => pg.stop());
  const database = createDatabase(pg.url, { max: 4, connectTimeoutSeconds: 2 });
  defer(() => database.close());
  const store = createPostgresStore({ database, embeddingModel: null, healthTimeoutMs: 1500 });
  await store.init();
  const gw: FakeGateway = await startFakeGateway();
  defer(() => gw.close());
  const gateway = gatewayClient(gw, { apiKey: 'sk-test-gateway' });
  const background = createBackgroundTasks(silentLogger);
  const turnMemory = testTurnMemory({ store, gateway, background });
  const deps = await createTestDeps({ memory: store, gateway, background, turnMemory });
  const app = createApp(deps);
  const server = await listen(app.fetch);
  defer(() => server.close());
  const base = server.base;
  const post = (path: string, body: unknown) =>
    fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { pg, store, gw, background, base, post };
}

describe('memory through the chat pipeline', () => {
  it('remember → memory event → listed; extraction adds a learned fact; recall reaches a later turn; delete and clear', async () => {
    const s = await startStack();
    s.gw.handler = (body) => (isExtraction(body) ? { text: '{"operations": [{"op": "add", "text": "Lives in Morewood Gardens"}]}' } : { text: 'Sure.' });
    s.gw.enqueue({ toolCalls: [{ name: 'memory_remember', arguments: { fact: 'Is vegetarian' } }] }, { text: "Got it, I'll remember that." });

    const res = await s.post('/agent/respond/stream', { query: 'Please remember that I am vegetarian', user_id: 'stu-1' });
    expect(res.status).toBe(200);
    const events = await collectSseEvents(res.body!);
    const memory = events.filter((e) => e.type === 'memory');
    expect(memory).toEqual([
      {
        type: 'memory',
        data: { op: 'add', text: 'Saved to memory: Is vegetarian', id: expect.any(String), kind: 'remembered', fact: 'Is vegetarian' },
      },
    ]);
    expect(events.at(-1)!.type).toBe('done');
    expect(events.at(-1)!.data.services_used).toEqual([]);

    // Extraction runs in the background after the answer: wait for the registry, not a timer.
    expect(await s.background.drain(10_000)).toBe(true);
    const page = await (await fetch(`${s.base}/memory/stu-1`)).json();
    expect(page.total).toBe(2);
    expect(page.items).toEqual(
      expect.arrayContaining([
        { id: memory[0]!.data.id, type: 'remembered', text: 'Is vegetarian', created_at: expect.any(String), updated_at: expect.any(String) },
        { id: expect.any(String), type: 'learned', text: 'Lives in Morewood Gardens', created_at: expect.any(String), updated_at: expect.any(String) },
      ]),
    );
    const extraction = s.gw.chatRequests().find(isExtraction);
    expect(extraction.model).toBe('test/extractor');

    // A later turn that asks for a recommendation: the facts reach the model as marked untrusted data.
    const before = s.gw.chatRequests().length;
    const later = await s.post('/agent/respond', { query: 'Can you recommend somewhere for dinner?', user_id: 'stu-1' });
    expect(later.status).toBe(200);
    const chat = s.gw.chatRequests().slice(before).find((b) => !isExtraction(b));
    expect(systemPrompt(chat)).toMatch(/<<<USER MEMORY \(untrusted data\)>>>\n[\s\S]*- Is vegetarian \(asked to remember\)[\s\S]*\n<<<END USER MEMORY>>>/);
    expect(systemPrompt(chat)).toContain('Lives in Morewood Gardens');

    // Another user's turn sees none of it.
    const mark = s.gw.chatRequests().length;
    await s.post('/agent/respond', { query: 'Can you recommend somewhere for dinner?', user_id: 'stu-2' });
    const other = s.gw.chatRequests().slice(mark).find((b) => !isExtraction(b));
    expect(JSON.stringify(other.messages)).not.toMatch(/vegetarian|Morewood/);
    await s.background.drain(10_000);

    // A later conversation contradicts the learned fact: extraction updates it in place, and its
    // history says what it read before, when and why.
    const learned = page.items.find((i: any) => i.type === 'learned');
    s.gw.handler = (body) => {
      if (!isExtraction(body)) return { text: 'Welcome to Donner!' };
      const ref = /(f\d+): Lives in Morewood Gardens/.exec(body.messages.at(-1).content)?.[1];
      return { text: JSON.stringify({ operations: [{ op: 'update', id: ref, text: 'Lives in Donner House' }] }) };
    };
    await s.post('/agent/respond', { query: 'I moved to Donner House this week', user_id: 'stu-1' });
    expect(await s.background.drain(10_000)).toBe(true);
    const history = await (await fetch(`${s.base}/memory/stu-1/items/learned/${learned.id}/history`)).json();
    expect(history).toEqual({
      id: learned.id,
      type: 'learned',
      history: [
        { at: learned.created_at, change: 'created', source: 'extraction', text: 'Lives in Morewood Gardens' },
        { at: expect.any(String), change: 'updated', source: 'extraction', text: 'Lives in Donner House' },
      ],
    });
    const updated = (await (await fetch(`${s.base}/memory/stu-1?kind=learned`)).json()).items;
    expect(updated).toEqual([{ ...learned, text: 'Lives in Donner House', updated_at: history.history[1].at }]);

    const deleted = await fetch(`${s.base}/memory/stu-1/items/learned/${learned.id}`, { method: 'DELETE' });
    expect(await deleted.json()).toEqual({ status: 'deleted', id: learned.id, type: 'learned' });
    const cleared = await fetch(`${s.base}/memory/stu-1`, { method: 'DELETE' });
    expect(await cleared.json()).toEqual({ status: 'cleared', removed: 1 });
    expect((await (await fetch(`${s.base}/memory/stu-1`)).json()).total).toBe(0);
  });

  it('a database that stops answering: health 503 degraded, chat still answers without memory', async () => {
    const s = await startStack();
    await s.store.add({ userId: 'stu-3', kind: 'remembered', text: 'Is vegan' });
    expect((await fetch(`${s.base}/api/health`)).status).toBe(200);
    await s.pg.stop();

    const health = await fetch(`${s.base}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'degraded', memory: { backend: 'postgres', ready: false } });

    s.gw.handler = (body) => (isExtraction(body) ? { text: '{"operations": []}' } : { text: 'Try the UC food court.' });
    const res = await s.post('/agent/respond', { query: 'Can you recommend lunch for me?', user_id: 'stu-3' });
    expect(res.status).toBe(200);
    expect((await res.json()).response_text).toBe('Try the UC food court.');
    const chat = s.gw.chatRequests().find((b) => !isExtraction(b));
    expect(systemPrompt(chat)).not.toContain('USER MEMORY');
    await s.background.drain(10_000);
  });
});

describe('the real entry point', () => {
  it('SIGTERM right after a turn still stores the extracted fact', async () => {
    const pg = await startTestPostgres();
    defer(() => pg.stop());
    const gw = await startFakeGateway();
    defer(() => gw.close());
    // The extraction answer is slow, so the signal arrives while it is still in flight.
    gw.handler = (body) =>
      isExtraction(body) ? { text: '{"operations": [{"op": "add", "text": "Is a first-year in CS"}]}', delayMs: 1500 } : { text: 'Welcome to campus!' };

    const service = await spawnService({
      entry: 'source',
      env: { AGENT_ENV: 'test', DATABASE_URL: pg.url, LLM_GATEWAY_API_KEY: 'sk-test', LLM_GATEWAY_BASE_URL: gw.baseUrl },
    });
    defer(() => service.stop('SIGKILL'));
    const res = await fetch(`${service.url}/agent/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: "Hi! I'm a first-year CS student.", user_id: 'stu-9' }),
    });
    expect(res.status).toBe(200);
    await res.json();
    await gw.waitForRequests(2); // the chat pass, then the extraction call
    const exit = await service.stop('SIGTERM');
    expect(exit.code).toBe(0);

    const database = createDatabase(pg.url, { max: 1 });
    defer(() => database.close());
    const store = createPostgresStore({ database, embeddingModel: null });
    expect((await store.list('stu-9')).items).toMatchObject([{ kind: 'learned', text: 'Is a first-year in CS' }]);
  }, 60_000);
});
