/**
 * Issue 49: the OpenAPI document is true.
 *
 * - The committed `openapi.json` is what the code generates (`npm run openapi`).
 * - It validates against the OpenAPI 3.1 schema (@hyperjump/json-schema, a real OpenAPI 3.1 validator).
 * - The app mounts exactly the operations the document lists (the docs themselves and the playground
 *   apart), so a route added without a description, or a description left behind, fails here.
 * - Every route is driven over real HTTP, success and each error status it documents, and every
 *   response (each SSE frame of the streams) is validated against the document; at the end every
 *   (path, method, status) of the document was seen, and an unexpected failure matched `default`.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createNodeHttpServer } from '../src/node-http-server.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BASIC } from '@hyperjump/json-schema/experimental';
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noModeration, type Admission } from '../src/admission/admission.js';
import { createAdmission } from '../src/admission/create-admission.js';
import { createSqliteBudgetStore } from '../src/admission/sqlite-budget-store.js';
import { utcDay, type BudgetStore } from '../src/admission/budget-store.js';
import { createApp } from '../src/app.js';
import { MAX_BODY_BYTES, MAX_CHAT_BODY_BYTES } from '../src/http/body-limit.js';
import { OverloadedError } from '../src/lifecycle/overload.js';
import { MAX_READERS_PER_USER } from '../src/routes/runs.js';
import { silentLogger } from '../src/logger.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import type { MemoryStore } from '../src/memory/store.js';
import { NOT_THE_API } from '../src/routes/api-docs.js';
import { renderApiDocument } from '../src/server/api-document-file.js';
import { createTestDeps, testConfig, testTurnMemory } from './support/deps.js';
import { gatewayClient, startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { listen, type Listening } from './support/listen.js';
import { REPO_ROOT } from './support/spawn-service.js';
import { sseEventsOf } from './support/sse.js';
import { pointer, validateAt } from './support/openapi.js';

const FILE = join(REPO_ROOT, 'openapi.json');

/** Sends `request` as raw bytes and reads the whole answer (the server closes after a parser refusal). */
function rawRequest(port: number, request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.slice(9, 12)), body: text.slice(split + 4) });
    });
  });
}
const DOC_URI = pathToFileURL(FILE).href;
const doc = JSON.parse(readFileSync(FILE, 'utf8')) as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };
const SECRET = 'openapi-document-test-secret-0123456789';
const LIMIT = 1_000_000;

describe('the committed document', () => {
  it('is what the code generates', async () => {
    expect(readFileSync(FILE, 'utf8'), 'run `npm run openapi` and commit openapi.json').toBe(await renderApiDocument());
  });

  it('validates against the OpenAPI 3.1 schema', async () => {
    const output = await validate('https://spec.openapis.org/oas/3.1/schema-base', doc as never, BASIC);
    expect(output.valid, JSON.stringify(output).slice(0, 1500)).toBe(true);
  });

  it('lists exactly the operations the app serves', async () => {
    const app = createApp(await createTestDeps({ config: testConfig() }));
    const served = new Set(
      app.routes
        .filter((r) => r.method !== 'ALL' && !(NOT_THE_API as readonly string[]).includes(r.path))
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
    expect([...served].sort()).toEqual([...documented].sort());
    // Health, the two chat routes, the three run routes, the title, four memory operations, the OpenAI
    // pair under /v1 and at the root, and the document, its page and the page's files.
    expect(documented.size).toBe(18);
  });
});

/** A memory store that fails every query while `down` is set (health then reports it not ready). */
function breakableStore(inner: MemoryStore) {
  const state = { down: false };
  const fail = () => Promise.reject(new Error('connection refused'));
  const store: MemoryStore = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      if (key === 'health') return async () => ({ ...(await target.health()), ready: !state.down });
      if (['list', 'history', 'remove', 'clear'].includes(String(key))) return (...args: unknown[]) => (state.down ? fail() : value.apply(target, args));
      return value.bind(target);
    },
  });
  return { store, state };
}

describe('every route, driven over HTTP, answers as the document says', () => {
  let gw: FakeGateway;
  let server: Listening;
  let offline: Listening;
  let production: Listening;
  let overloaded: Listening;
  let nodeServer: Server;
  let budget: BudgetStore;
  let memory: ReturnType<typeof breakableStore>;
  const seen = new Set<string>();

  /** Validates `body` against the document's schema of (path, method, status, media type); records it as seen. */
  async function check(path: string, method: string, status: number, media: string, body: unknown): Promise<void> {
    const responses = doc.paths[path]?.[method]?.responses;
    expect(responses, `${method} ${path} is documented`).toBeDefined();
    const key = responses![String(status)] ? String(status) : 'default';
    if (key === 'default') expect(status, `${method} ${path} documents ${status}`).toBe(500);
    expect(responses![key]!.content?.[media], `${method} ${path} ${key} documents ${media}`).toBeDefined();
    const result = await validateAt(pointer('paths', path, method, 'responses', key, 'content', media, 'schema'), body);
    expect(result.valid, `${method} ${path} ${status}: ${JSON.stringify(body).slice(0, 300)} ${result.output}`).toBe(true);
    seen.add(`${method} ${path} ${key}`);
  }

  /** Sends a request to `base` and validates what comes back (JSON, or each SSE frame). */
  async function drive(base: string, docPath: string, method: string, url: string, init: { body?: unknown; raw?: string; token?: string | null; contentType?: string } = {}) {
    const headers: Record<string, string> = { 'content-type': init.contentType ?? 'application/json' };
    if (init.token !== null) headers.authorization = `Bearer ${init.token ?? SECRET}`;
    const res = await fetch(`${base}${url}`, {
      method: method.toUpperCase(),
      headers,
      ...(init.raw !== undefined ? { body: init.raw } : init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const type = res.headers.get('content-type') ?? '';
    const media = type.split(';')[0]!.trim();
    if (['text/html', 'text/css', 'text/javascript'].includes(media)) {
      await check(docPath, method, res.status, media, await res.text());
      return { status: res.status };
    }
    if (type.startsWith('text/event-stream')) {
      const frames = await sseEventsOf(await res.text(), { parse: (d) => (d === '[DONE]' ? d : JSON.parse(d)), ids: true });
      expect(frames.length).toBeGreaterThan(0);
      for (const f of frames) await check(docPath, method, res.status, 'text/event-stream', f.type === 'message' ? { data: f.data } : { id: f.id, event: f.type, data: f.data });
      return { status: res.status, frames };
    }
    expect(type).toMatch(/^application\/json/);
    const body: unknown = await res.json();
    await check(docPath, method, res.status, 'application/json', body);
    return { status: res.status, body };
  }

  beforeAll(async () => {
    gw = await startFakeGateway();
    gw.handler = (body) =>
      body.model === 'test/extractor' ? { text: '{"operations": []}' } : body.messages?.[0]?.content?.includes('title') ? { text: 'Dining Hours Today' } : { text: 'Gates is on the main campus.' };
    const config = testConfig({ AGENT_SHARED_SECRET: SECRET, DAILY_TOKEN_LIMIT: String(LIMIT), MAX_TURNS_IN_FLIGHT: '20' });
    budget = createSqliteBudgetStore({ path: ':memory:' });
    const real = createAdmission({ budget, moderation: noModeration, config, logger: silentLogger, now: () => new Date() });
    // A query of `boom` is an unexpected failure (a TypeError, not an AppError): the `default` response.
    const admission: Admission = { ...real, admit: (request, signal, span) => (request.query === 'boom' ? Promise.reject(new TypeError('boom')) : real.admit(request, signal, span)) };
    memory = breakableStore(createInMemoryStore({ embeddingModel: null }));
    const gateway = gatewayClient(gw, { apiKey: 'sk-chat-key' });
    const deps = await createTestDeps({
      config,
      gateway,
      admission,
      memory: memory.store,
      turnMemory: ({ leaks }) => testTurnMemory({ store: memory.store, gateway, leaks, reserve: admission.reserveCall }),
    });
    server = await listen(createApp(deps).fetch);
    // The same app in the service's own Node server (node-http-server.ts): the parser's refusals are its.
    nodeServer = createNodeHttpServer(createApp(deps).fetch, silentLogger);
    await new Promise<void>((resolve) => nodeServer.listen(0, '127.0.0.1', resolve));
    // The same routes on a saturated process: the run routes' 503.
    const saturated = { admit: () => { throw new OverloadedError('event_loop'); }, close: () => undefined };
    overloaded = await listen(createApp(await createTestDeps({ config, overload: saturated, runs: deps.runs })).fetch);
    // The same routes with no model gateway: the chat routes' 503.
    offline = await listen(createApp(await createTestDeps({ config, gateway: null, memory: memory.store })).fetch);
    await budget.charge('spent-student', utcDay(new Date()), LIMIT);
    // As production serves the docs: the document behind the token, the page off.
    const productionConfig = testConfig({
      AGENT_ENV: 'production',
      AGENT_SHARED_SECRET: SECRET,
      DATABASE_URL: 'postgres://u:p@127.0.0.1:9/none',
      LLM_GATEWAY_API_KEY: 'sk-chat-key',
      MCP_SERVER_URL: 'http://127.0.0.1:9/mcp',
    });
    production = await listen(createApp(await createTestDeps({ config: productionConfig, gateway: null, memory: memory.store })).fetch);
  });

  afterAll(async () => {
    await server?.close();
    await offline?.close();
    await production?.close();
    await overloaded?.close();
    nodeServer?.closeAllConnections();
    await new Promise((r) => nodeServer?.close(r));
    await gw?.close();
    await budget?.close();
  });

  it('the chat routes: JSON and stream, each error status', async () => {
    for (const [path, url] of [
      ['/agent/respond', '/agent/respond'],
      ['/agent/respond/stream', '/agent/respond/stream'],
    ] as const) {
      expect((await drive(server.base, path, 'post', url, { body: { query: 'Where is Gates?', user_id: 'doc-user' } })).status).toBe(200);
      expect((await drive(server.base, path, 'post', url, { body: { query: '' } })).status).toBe(400);
      expect((await drive(server.base, path, 'post', url, { raw: '{"query": ' })).status).toBe(400);
      expect((await drive(server.base, path, 'post', url, { body: { query: 'hi', model: 'no/such-model' }, token: 'wrong' })).status).toBe(401);
      expect((await drive(server.base, path, 'post', url, { body: { query: 'x'.repeat(MAX_CHAT_BODY_BYTES) } })).status).toBe(413);
      expect((await drive(server.base, path, 'post', url, { body: { query: 'hi' }, contentType: 'text/plain' })).status).toBe(415);
      expect((await drive(server.base, path, 'post', url, { body: { query: 'hi', user_id: 'spent-student' } })).status).toBe(429);
      expect((await drive(offline.base, path, 'post', url, { body: { query: 'hi' } })).status).toBe(503);
      expect((await drive(server.base, path, 'post', url, { body: { query: 'boom' } })).status).toBe(500);
    }
    // A stream of a turn that saves a fact carries a `memory` event; one with a map a `map` event.
    gw.enqueue({ toolCalls: [{ name: 'memory_remember', arguments: { fact: 'Is vegetarian' } }] }, { text: 'Saved.' });
    const remembered = await drive(server.base, '/agent/respond/stream', 'post', '/agent/respond/stream', { body: { query: 'Remember that I am vegetarian', user_id: 'doc-user' } });
    expect((remembered.frames ?? []).map((f) => f.type)).toEqual(expect.arrayContaining(['memory', 'done']));
  });

  it('the run routes: state, resume and cancel, each error status', async () => {
    const state = '/agent/runs/{run_id}';
    const resume = `${state}/stream`;
    const cancel = `${state}/cancel`;
    // A run that hangs in the model until it is cancelled.
    gw.enqueue({ text: ['Gates is ', 'on the main campus.'], hang: true });
    const started = await fetch(`${server.base}/agent/respond/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
      body: JSON.stringify({ query: 'Where is Gates?', user_id: 'run-user' }),
    });
    const runId = started.headers.get('x-run-id')!;
    expect(runId).toBeTruthy();
    expect((await drive(server.base, state, 'get', `/agent/runs/${runId}?user_id=run-user`)).status).toBe(200);
    expect((await drive(server.base, state, 'get', `/agent/runs/${runId}?user_id=bad%20user`)).status).toBe(400);
    expect((await drive(server.base, state, 'get', `/agent/runs/${runId}?user_id=run-user`, { token: null })).status).toBe(401);
    expect((await drive(server.base, state, 'get', `/agent/runs/${runId}?user_id=someone-else`)).status).toBe(404);
    expect((await drive(overloaded.base, state, 'get', `/agent/runs/${runId}?user_id=run-user`)).status).toBe(503);
    // A user's resumed streams are capped: the next one is a 429.
    const readers = new AbortController();
    const open = await Promise.all(
      Array.from({ length: MAX_READERS_PER_USER }, () =>
        fetch(`${server.base}/agent/runs/${runId}/stream?user_id=run-user`, { headers: { authorization: `Bearer ${SECRET}` }, signal: readers.signal }),
      ),
    );
    expect(open.every((r) => r.status === 200)).toBe(true);
    expect((await drive(server.base, resume, 'get', `/agent/runs/${runId}/stream?user_id=run-user`)).status).toBe(429);
    readers.abort();
    expect((await drive(server.base, resume, 'get', `/agent/runs/${runId}/stream?user_id=run-user&after=x`)).status).toBe(400);
    expect((await drive(server.base, resume, 'get', `/agent/runs/${runId}/stream?user_id=run-user`, { token: 'wrong' })).status).toBe(401);
    expect((await drive(server.base, resume, 'get', `/agent/runs/${runId}/stream`)).status).toBe(404);
    expect((await drive(overloaded.base, resume, 'get', `/agent/runs/${runId}/stream?user_id=run-user`)).status).toBe(503);
    expect((await drive(server.base, cancel, 'post', `/agent/runs/${runId}/cancel`, { body: { user_id: 'run-user' } })).status).toBe(200);
    expect((await drive(server.base, cancel, 'post', `/agent/runs/${runId}/cancel`, { raw: '{"user_id": ' })).status).toBe(400);
    expect((await drive(server.base, cancel, 'post', `/agent/runs/${runId}/cancel`, { body: {}, token: null })).status).toBe(401);
    expect((await drive(server.base, cancel, 'post', `/agent/runs/${runId}/cancel`, { body: { pad: 'x'.repeat(MAX_BODY_BYTES) } })).status).toBe(413);
    expect((await drive(server.base, cancel, 'post', `/agent/runs/${runId}/cancel`, { body: {}, contentType: 'text/plain' })).status).toBe(415);
    expect((await drive(server.base, cancel, 'post', '/agent/runs/not-a-run/cancel', { body: { user_id: 'run-user' } })).status).toBe(404);
    expect((await drive(overloaded.base, cancel, 'post', `/agent/runs/${runId}/cancel`, { body: { user_id: 'run-user' } })).status).toBe(503);
    // The cancelled run replays to its end: its frames, then the `cancelled` error event.
    const replay = await drive(server.base, resume, 'get', `/agent/runs/${runId}/stream?user_id=run-user`);
    expect(replay.frames?.at(-1)).toMatchObject({ type: 'error', data: { error: 'cancelled' } });
    // Past its last frame: 204, no content, as documented (EventSource stops reconnecting).
    const lastId = replay.frames!.at(-1)!.id!;
    const ended = await fetch(`${server.base}/agent/runs/${runId}/stream?user_id=run-user`, { headers: { authorization: `Bearer ${SECRET}`, 'last-event-id': lastId } });
    expect(ended.status).toBe(204);
    expect(await ended.text()).toBe('');
    expect(doc.paths[resume]!.get!.responses['204']).toBeDefined();
    expect(doc.paths[resume]!.get!.responses['204']!.content).toBeUndefined();
    seen.add(`get ${resume} 204`);
    await started.body?.cancel();
  });

  it('the title route', async () => {
    expect((await drive(server.base, '/agent/title', 'post', '/agent/title', { body: { query: 'What time does the dining hall close? (title)' } })).status).toBe(200);
    expect((await drive(server.base, '/agent/title', 'post', '/agent/title', { body: {} })).status).toBe(400);
    expect((await drive(server.base, '/agent/title', 'post', '/agent/title', { body: { query: 'hi' }, token: null })).status).toBe(401);
    expect((await drive(server.base, '/agent/title', 'post', '/agent/title', { body: { query: 'x'.repeat(MAX_BODY_BYTES) } })).status).toBe(413);
    expect((await drive(server.base, '/agent/title', 'post', '/agent/title', { body: { query: 'hi' }, contentType: 'application/x-www-form-urlencoded' })).status).toBe(415);
  });

  it('the memory routes, a store outage included', async () => {
    const page = '/memory/{user_id}';
    const item = '/memory/{user_id}/items/{kind}/{item_id}';
    const history = `${item}/history`;
    const listed = await drive(server.base, page, 'get', '/memory/doc-user');
    expect(listed.status).toBe(200);
    const fact = (listed.body as { items: { id: string; type: string }[] }).items[0]!;
    expect(fact).toBeDefined();
    expect((await drive(server.base, page, 'get', '/memory/doc-user?limit=abc')).status).toBe(400);
    expect((await drive(server.base, page, 'get', '/memory/doc-user', { token: null })).status).toBe(401);
    expect((await drive(server.base, history, 'get', `/memory/doc-user/items/${fact.type}/${fact.id}/history`)).status).toBe(200);
    expect((await drive(server.base, history, 'get', `/memory/doc-user/items/${fact.type}/no-such-id/history`)).status).toBe(404);
    expect((await drive(server.base, history, 'get', `/memory/doc-user/items/other/${fact.id}/history`)).status).toBe(400);
    expect((await drive(server.base, history, 'get', `/memory/doc-user/items/${fact.type}/${fact.id}/history`, { token: 'wrong' })).status).toBe(401);
    expect((await drive(server.base, item, 'delete', `/memory/doc-user/items/${fact.type}/${fact.id}`)).status).toBe(200);
    expect((await drive(server.base, item, 'delete', `/memory/doc-user/items/${fact.type}/${fact.id}`)).status).toBe(404);
    expect((await drive(server.base, item, 'delete', `/memory/bad%20user/items/${fact.type}/x`)).status).toBe(400);
    expect((await drive(server.base, item, 'delete', `/memory/doc-user/items/${fact.type}/x`, { token: null })).status).toBe(401);
    expect((await drive(server.base, page, 'delete', '/memory/doc-user')).status).toBe(200);
    expect((await drive(server.base, page, 'delete', '/memory/bad%20user')).status).toBe(400);
    expect((await drive(server.base, page, 'delete', '/memory/doc-user', { token: null })).status).toBe(401);
    memory.state.down = true;
    try {
      expect((await drive(server.base, page, 'get', '/memory/doc-user')).status).toBe(503);
      expect((await drive(server.base, history, 'get', '/memory/doc-user/items/learned/x/history')).status).toBe(503);
      expect((await drive(server.base, item, 'delete', '/memory/doc-user/items/learned/x')).status).toBe(503);
      expect((await drive(server.base, page, 'delete', '/memory/doc-user')).status).toBe(503);
      expect((await drive(server.base, '/api/health', 'get', '/api/health', { token: null })).status).toBe(503);
    } finally {
      memory.state.down = false;
    }
    expect((await drive(server.base, '/api/health', 'get', '/api/health', { token: null })).status).toBe(200);
  });

  it('the OpenAI-compatible routes, under /v1 and at the root, JSON and streamed', async () => {
    for (const prefix of ['/v1', '']) {
      const models = `${prefix}/models`;
      const completions = `${prefix}/chat/completions`;
      const ask = (extra: Record<string, unknown> = {}) => ({ model: 'campus-agent', messages: [{ role: 'user', content: 'Where is Gates?' }], ...extra });
      expect((await drive(server.base, models, 'get', models)).status).toBe(200);
      expect((await drive(server.base, models, 'get', models, { token: 'wrong' })).status).toBe(401);
      expect((await drive(server.base, completions, 'post', completions, { body: ask() })).status).toBe(200);
      const streamed = await drive(server.base, completions, 'post', completions, { body: ask({ stream: true, stream_options: { include_usage: true } }) });
      expect(streamed.frames?.at(-1)?.data).toBe('[DONE]');
      expect((await drive(server.base, completions, 'post', completions, { body: ask({ tools: [{ type: 'function' }] }) })).status).toBe(400);
      expect((await drive(server.base, completions, 'post', completions, { body: ask(), token: null })).status).toBe(401);
      expect((await drive(server.base, completions, 'post', completions, { body: ask({ pad: 'x'.repeat(MAX_CHAT_BODY_BYTES) }) })).status).toBe(413);
      expect((await drive(server.base, completions, 'post', completions, { body: ask(), contentType: 'text/plain' })).status).toBe(415);
      expect((await drive(server.base, completions, 'post', completions, { body: ask({ user: 'spent-student' }) })).status).toBe(429);
      expect((await drive(offline.base, completions, 'post', completions, { body: ask() })).status).toBe(503);
      expect((await drive(server.base, completions, 'post', completions, { body: { model: 'campus-agent', messages: [{ role: 'user', content: 'boom' }] } })).status).toBe(500);
    }
  });

  it('the document and its page: open outside production, the document behind the token and the page off in production', async () => {
    const served = await drive(server.base, '/openapi.json', 'get', '/openapi.json', { token: null });
    expect(served.status).toBe(200);
    expect(served.body).toEqual(doc);
    expect((await drive(production.base, '/openapi.json', 'get', '/openapi.json', { token: null })).status).toBe(401);
    expect((await drive(production.base, '/openapi.json', 'get', '/openapi.json')).status).toBe(200);
    const labelled = await rawRequest(Number(new URL(production.base).port), `GET /openapi.json HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${SECRET}\r\nContent-Type: text/plain\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx`);
    expect(labelled.status).toBe(415);
    await check('/openapi.json', 'get', 415, 'application/json', JSON.parse(labelled.body));
    expect((await drive(server.base, '/docs', 'get', '/docs', { token: null })).status).toBe(200);
    expect((await drive(production.base, '/docs', 'get', '/docs', { token: null })).status).toBe(404);
    for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js']) {
      expect((await drive(server.base, '/docs/assets/{file}', 'get', `/docs/assets/${file}`, { token: null })).status).toBe(200);
    }
    expect((await drive(server.base, '/docs/assets/{file}', 'get', '/docs/assets/package.json', { token: null })).status).toBe(404);
    expect((await drive(server.base, '/docs/assets/{file}', 'get', '/docs/assets/..%2Fpackage.json', { token: null })).status).toBe(404);
    expect((await drive(server.base, '/docs/assets/{file}', 'get', `/docs/assets/${'x'.repeat(65)}.js`, { token: null })).status).toBe(400);
  });

  it("every operation: the HTTP parser's 431 (headers over 16 KB) and 400 (a duplicated Content-Length) as documented, OpenAI's shape on /v1", async () => {
    const SAMPLE: Record<string, string> = { user_id: 'doc-user', run_id: '00000000-0000-4000-8000-000000000000', kind: 'learned', item_id: 'x', file: 'swagger-ui.css' };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ path, method })));
    for (const { path, method } of operations) {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE[name]!);
      const port = (nodeServer.address() as AddressInfo).port;
      const big = await fetch(`http://127.0.0.1:${port}${url}`, { method: method.toUpperCase(), headers: { 'x-pad': 'a'.repeat(20_000) } });
      expect(big.status, `${method} ${path}`).toBe(431);
      await check(path, method, 431, 'application/json', await big.json());
      const raw = await rawRequest(port, `${method.toUpperCase()} ${url} HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n`);
      expect(raw.status, `${method} ${path}`).toBe(400);
      await check(path, method, 400, 'application/json', JSON.parse(raw.body));
      if (path.startsWith('/v1') || path === '/models' || path === '/chat/completions') expect(JSON.parse(raw.body).error.type).toBeDefined();
      // A protected operation, whatever its method, refuses a body that is not JSON (415), and one over the limit where a body is read (413).
      // (The document's own route is guarded in production only: its 415 is driven there, with its 401.)
      if (doc.paths[path]![method]!.responses['415'] && path !== '/openapi.json') {
        const auth = `Authorization: Bearer ${SECRET}\r\n`;
        const notJson = await rawRequest(port, `${method.toUpperCase()} ${url} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: text/plain\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx`);
        expect(notJson.status, `${method} ${path}`).toBe(415);
        await check(path, method, 415, 'application/json', JSON.parse(notJson.body));
      }
      if (doc.paths[path]![method]!.responses['413']) {
        const auth = `Authorization: Bearer ${SECRET}\r\n`;
        const over = await rawRequest(port, `${method.toUpperCase()} ${url} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES * 64}\r\nConnection: close\r\n\r\n{}`);
        expect(over.status, `${method} ${path}`).toBe(413);
        await check(path, method, 413, 'application/json', JSON.parse(over.body));
      }
    }
  });

  it('saw every status the document lists, and an unexpected failure as `default`', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) => Object.keys(op.responses).map((status) => `${method} ${path} ${status}`)),
    );
    // An unexpected failure is injected on the turn routes (an admission that throws a TypeError); the
    // other operations' `default` has the same envelope schema and no input that can cause it.
    const injected = /^post \/(agent\/respond|agent\/respond\/stream|v1\/chat\/completions|chat\/completions) default$/;
    const missed = documented.filter((d) => !seen.has(d) && (!d.endsWith(' default') || injected.test(d)));
    expect(missed).toEqual([]);
    expect([...seen].filter((s) => s.endsWith(' default')).length).toBe(4);
  });
});
