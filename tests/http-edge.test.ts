/**
 * The HTTP edge through the app's public surface: envelope on every error status, auth, CORS and the
 * body limit. A probe route under /agent (behind the same middleware as the chat routes) records
 * whether a handler ran.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from './support/listen.js';
import { createApp } from '../src/app.js';
import { AppError, TooManyRequestsError, ServiceUnavailableError } from '../src/http/errors.js';
import { createRouteGuard } from '../src/http/guard.js';
import { MAX_CHAT_BODY_BYTES } from '../src/http/body-limit.js';
import { createLogger } from '../src/logger.js';
import { createTestDeps, testConfig } from './support/deps.js';

const SECRET = 'test-shared-secret-0123456789abcdef';

async function probeApp(env: Record<string, string> = {}, lines: string[] = []) {
  const config = testConfig({ AGENT_SHARED_SECRET: SECRET, ALLOWED_ORIGINS: 'https://chat.example.edu', ...env });
  const deps = await createTestDeps({ config, logger: createLogger({ sink: (l) => lines.push(l) }) });
  const app = createApp(deps);
  const calls: string[] = [];
  // Probe routes behind the same guard as the real protected routes.
  const guard = createRouteGuard(config.sharedSecret);
  app.post('/agent/probe', guard, async (c) => {
    calls.push(await c.req.text());
    return c.json({ ok: true });
  });
  app.get('/agent/fail/:kind', guard, (c) => {
    const kind = c.req.param('kind');
    if (kind === '429') throw new TooManyRequestsError('budget spent', 3600);
    if (kind === '503') throw new ServiceUnavailableError('budget store unavailable');
    if (kind === '400') throw new AppError(400, 'bad request', 'bad parameter');
    throw new Error('boom at postgres://admin:hunter2@10.0.0.5/db');
  });
  return { app, calls, lines };
}

const auth = { Authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' };

async function expectEnvelope(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['detail', 'error']);
  expect(typeof body.error).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body as { error: string; detail: string };
}

describe('error envelope', () => {
  it('answers every error status with the envelope', async () => {
    const { app } = await probeApp();
    await expectEnvelope(await app.request('/agent/probe', { method: 'POST' }), 401);
    await expectEnvelope(await app.request('/no/such/path', { headers: auth }), 404);
    const wrongMethod = await app.request('/agent/probe', { method: 'GET', headers: auth });
    await expectEnvelope(wrongMethod, 405);
    expect(wrongMethod.headers.get('allow')).toContain('POST');
    await expectEnvelope(await app.request('/agent/fail/400', { headers: auth }), 400);
    const limited = await app.request('/agent/fail/429', { headers: auth });
    await expectEnvelope(limited, 429);
    expect(limited.headers.get('retry-after')).toBe('3600');
    await expectEnvelope(await app.request('/agent/fail/503', { headers: auth }), 503);
    const big = await app.request('/agent/probe', { method: 'POST', headers: auth, body: 'x'.repeat(300 * 1024) });
    await expectEnvelope(big, 413);
  });

  it('turns an unknown error into a generic 500 and keeps the cause in the log only', async () => {
    const lines: string[] = [];
    const { app } = await probeApp({}, lines);
    const res = await app.request('/agent/fail/crash', { headers: auth });
    const body = await expectEnvelope(res, 500);
    expect(JSON.stringify(body)).not.toMatch(/boom|postgres|hunter2|at /);
    expect(lines.some((l) => l.includes('boom'))).toBe(true);
  });
});

describe('bearer auth', () => {
  it('refuses a missing or wrong token and accepts the right one', async () => {
    const { app, calls } = await probeApp();
    expect((await app.request('/agent/probe', { method: 'POST', body: 'a' })).status).toBe(401);
    const wrong = await app.request('/agent/probe', { method: 'POST', body: 'a', headers: { 'content-type': 'application/json', Authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    const prefix = await app.request('/agent/probe', {
      method: 'POST',
      body: 'a',
      headers: { 'content-type': 'application/json', Authorization: `Bearer ${SECRET.slice(0, -1)}` },
    });
    expect(prefix.status).toBe(401);
    // The compare runs over the sent token's length: the secret repeated, extended or with one character
    // changed is still wrong.
    for (const token of [SECRET + SECRET, `${SECRET}x`, `${SECRET.slice(0, -1)}${SECRET.endsWith('a') ? 'b' : 'a'}`, SECRET.toUpperCase()]) {
      const res = await app.request('/agent/probe', { method: 'POST', body: 'a', headers: { 'content-type': 'application/json', Authorization: `Bearer ${token}` } });
      expect(res.status, token).toBe(401);
    }
    expect(calls).toEqual([]);
    const ok = await app.request('/agent/probe', { method: 'POST', body: 'a', headers: auth });
    expect(ok.status).toBe(200);
    expect(calls).toEqual(['a']);
  });

  it('answers 404 for a path no route answers and 405 for a wrong method, token or not; 401 for a real route without one', async () => {
    const { app } = await probeApp();
    for (const path of ['/agent/nope', '/memory/u1/unknown/extra/parts', '/agent']) {
      await expectEnvelope(await app.request(path, { method: 'POST' }), 404);
      await expectEnvelope(await app.request(path, { method: 'POST', headers: auth }), 404);
    }
    // A wrong method names only what CONTRACT.md already publishes: 405 either way (the guard sits on routes).
    for (const headers of [{}, auth]) {
      await expectEnvelope(await app.request('/agent/respond', { method: 'GET', headers }), 405);
      await expectEnvelope(await app.request('/memory/u1', { method: 'POST', headers }), 405);
    }
    await expectEnvelope(await app.request('/agent/respond', { method: 'POST' }), 401);
    await expectEnvelope(await app.request('/agent/title', { method: 'POST' }), 401);
    await expectEnvelope(await app.request('/memory/u1', { method: 'GET' }), 401);
    await expectEnvelope(await app.request('/memory/u1', { method: 'DELETE' }), 401);
    await expectEnvelope(await app.request('/memory/u1/items/learned/abc', { method: 'DELETE' }), 401);
  });

  it('answers a malformed Authorization header or a token with odd characters 401, not 400', async () => {
    const { app, calls } = await probeApp();
    for (const value of ['Bearer', 'Bearer ', 'Basic abc', `Bearer ${SECRET} extra`, 'Bearer a!b', `bearer  ${SECRET}x`]) {
      const res = await app.request('/agent/probe', { method: 'POST', body: 'a', headers: { 'content-type': 'application/json', Authorization: value } });
      const body = await expectEnvelope(res, 401);
      expect(body.error).toBe('unauthorized');
    }
    expect(calls).toEqual([]);
    // The scheme is case-insensitive.
    expect((await app.request('/agent/probe', { method: 'POST', body: 'a', headers: { 'content-type': 'application/json', Authorization: `bearer ${SECRET}` } })).status).toBe(200);
  });

  it('checks the token before the body size, and the body size before validation', async () => {
    const { app } = await probeApp();
    const big = 'x'.repeat(MAX_CHAT_BODY_BYTES + 1024);
    await expectEnvelope(await app.request('/agent/respond', { method: 'POST', body: big }), 401);
    await expectEnvelope(await app.request('/agent/respond', { method: 'POST', body: big, headers: auth }), 413);
    await expectEnvelope(await app.request('/agent/respond', { method: 'POST', body: '{"query":', headers: auth }), 400);
  });

  it('leaves health open', async () => {
    const { app } = await probeApp();
    const res = await app.request('/api/health');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; memory: Record<string, unknown> };
    expect(body.status).toBe('ok');
    expect(body.memory).toEqual({
      backend: 'in-memory',
      initialized: true,
      semantic_search: false,
      embedding_model: null,
      ready: true,
    });
  });

  it('is off when no secret is configured', async () => {
    const deps = await createTestDeps({ config: testConfig() });
    const app = createApp(deps);
    app.post('/agent/probe', (c) => c.json({ ok: true }));
    expect((await app.request('/agent/probe', { method: 'POST' })).status).toBe(200);
  });
});

describe('CORS', () => {
  it('allows exactly the configured origins', async () => {
    const { app } = await probeApp();
    const preflight = await app.request('/agent/probe', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://chat.example.edu',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://chat.example.edu');
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    expect(allowed).toContain('authorization');
    expect(allowed).toContain('content-type');

    for (const origin of ['https://evil.example.com', 'https://chat.example.edu.evil.com', 'http://chat.example.edu']) {
      const res = await app.request('/api/health', { headers: { Origin: origin } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    const simple = await app.request('/api/health', { headers: { Origin: 'https://chat.example.edu' } });
    expect(simple.headers.get('access-control-allow-origin')).toBe('https://chat.example.edu');
    // A front end on its own origin reads a stream's run id, and resumes with Last-Event-ID (issue 62).
    expect((simple.headers.get('access-control-expose-headers') ?? '').toLowerCase()).toContain('x-run-id');
    const resume = await app.request('/agent/runs/x/stream', {
      method: 'OPTIONS',
      headers: { Origin: 'https://chat.example.edu', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization, last-event-id, x-user-id' },
    });
    expect((resume.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toContain('last-event-id');
  });
});

describe('body limit on a real listening server', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(() => close?.());

  async function listenProbe() {
    const probe = await probeApp();
    const server = await listen(probe.app.fetch);
    close = server.close;
    return { ...probe, port: server.port };
  }

  function post(port: number, body: Buffer, chunked: boolean): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...auth };
      if (!chunked) headers['Content-Length'] = body.length;
      const req = httpRequest({ host: '127.0.0.1', port, path: '/agent/probe', method: 'POST', headers }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }));
      });
      // The server may answer 413 and close before the whole body is written.
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
      if (chunked) {
        for (let i = 0; i < body.length; i += 16 * 1024) req.write(body.subarray(i, i + 16 * 1024));
        req.end();
      } else {
        req.end(body);
      }
    });
  }

  it('refuses a 300 KiB body with and without Content-Length before the handler runs', async () => {
    const { port, calls } = await listenProbe();
    const big = Buffer.alloc(300 * 1024, 'a');
    for (const chunked of [false, true]) {
      const res = await post(port, big, chunked);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toMatchObject({ error: 'payload too large' });
    }
    expect(calls).toEqual([]);
    const small = await post(port, Buffer.alloc(200 * 1024, 'b'), true);
    expect(small.status).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(200 * 1024);
  });
});

describe('access log', () => {
  it('records method, path, status, duration and request id, never the secret or the body', async () => {
    const lines: string[] = [];
    const { app } = await probeApp({}, lines);
    const userText = 'my dorm is Morewood and my student id is 12345';
    await app.request('/agent/probe', { method: 'POST', headers: auth, body: JSON.stringify({ query: userText }) });
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = entries.find((e) => e.msg === 'request');
    expect(access).toMatchObject({ method: 'POST', path: '/agent/probe', status: 200 });
    expect(typeof access?.duration_ms).toBe('number');
    expect(typeof access?.request_id).toBe('string');
    const all = lines.join('\n');
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain('Morewood');
  });
});
