/**
 * Issue 37, items 1 and 2: the paths real clients took that ended badly, driven as they are driven (the
 * official `openai` package with its default retries, the front end's full history on every turn).
 *
 * - A chat with a 300 KB attachment that is no image goes on: the turn that carries it is a clear 400
 *   that names it and calls no model (a real photo is read: tests/attachments-photos.test.ts); every later turn of the same chat (its history still carrying the attachment) is
 *   answered, and the model sees a short note instead of the blob. Before: 413 for ever.
 * - A long `/v1` chat (over 200 messages) is answered; before: 400 for ever.
 * - A spent budget's 429 returns at once from the official client with default retries (it used to sleep
 *   the whole Retry-After: hours); a full in-flight cap's 429 is retried after its short Retry-After.
 * - A client configured without `/v1` reaches the same routes at the root.
 * - A `/v1` stream the service ends after it started (the turn's deadline) leaves the client no
 *   misleading half-answer: no empty-answer apology before the error, and streamed text ends with a note
 *   that it was interrupted (the front end keeps what it streamed).
 * - In the compiled service with the image's heap flags, 10 concurrent chats of ~3.5 MB each: at most
 *   MAX_LARGE_BODY_BYTES of them (four) are taken in at once (the rest 503 + Retry-After), every admitted one is answered,
 *   and the process's peak RSS stays inside the container's 256 MB limit.
 */
import { spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noModeration } from '../src/admission/admission.js';
import { createAdmission } from '../src/admission/create-admission.js';
import { createSqliteBudgetStore } from '../src/admission/sqlite-budget-store.js';
import type { BudgetStore } from '../src/admission/budget-store.js';
import { utcDay } from '../src/admission/budget-store.js';
import { createApp } from '../src/app.js';
import { MAX_LARGE_BODY_BYTES } from '../src/http/body-limit.js';
import { silentLogger } from '../src/logger.js';
import { procStatusKb } from '../bench/support/proc.js';
import { createTestDeps, testConfig } from './support/deps.js';
import { startFakeGateway, type FakeGateway, gatewayClient } from './support/fake-gateway.js';
import { imageNodeOptions } from './support/image-flags.js';
import { listen, type Listening } from './support/listen.js';
import { startAdmissionApp } from './support/admission-harness.js';
import { startTestMcpServer, type TestMcpServer } from './support/test-mcp-server.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import { REPO_ROOT, spawnService } from './support/spawn-service.js';

const SECRET = 'client-dead-ends-secret-0123456789';
const LIMIT = 1_000_000;
/** About 300 KB of image, as the front end puts an attached picture into the message. */
const IMAGE = `data:image/png;base64,${Buffer.from(Array.from({ length: 225_000 }, (_, i) => (i * 7919) % 251)).toString('base64')}`;

let gw: FakeGateway;
let server: Listening;
let budget: BudgetStore;
let client: OpenAI;
/** A campus tool that answers after the turn's deadline. */
let slowTools: TestMcpServer;

beforeAll(async () => {
  slowTools = await startTestMcpServer({
    tools: [{ name: 'maps_search_buildings', run: async () => new Promise((r) => setTimeout(() => r('GHC'), 3_000)) }],
  });
  gw = await startFakeGateway();
  gw.handler = () => ({ text: 'Gates is on the main campus.' });
  const config = testConfig({ AGENT_SHARED_SECRET: SECRET, DAILY_TOKEN_LIMIT: String(LIMIT), MAX_TURNS_IN_FLIGHT: '1' });
  const gateway = gatewayClient(gw, { apiKey: 'sk-chat-key' });
  budget = createSqliteBudgetStore({ path: ':memory:' });
  const admission = createAdmission({ budget, moderation: noModeration, config, logger: silentLogger, now: () => new Date() });
  server = await listen(createApp(await createTestDeps({ config, gateway, admission })).fetch);
  // Default options: the official client's own retries, as the front end's users have them.
  client = new OpenAI({ baseURL: `${server.base}/v1`, apiKey: SECRET });
});

afterAll(async () => {
  await slowTools?.close();
  await server?.close();
  await gw?.close();
  await budget?.close();
});

const modelSaw = () => JSON.stringify(gw.chatRequests().at(-1)?.messages ?? []);

describe('a chat with a big attachment goes on', () => {
  it('/v1: the attachment turn is a 400 naming it; the next turns of the same chat are answered with a note in its place', async () => {
    const calls = gw.chatRequests().length;
    const chat: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: `What building is this? ${IMAGE}` }];
    const refused = await client.chat.completions.create({ model: 'campus-agent', messages: chat }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    // Its bytes are no image (judged by its bytes, not its declared type): refused, naming it.
    expect((refused as InstanceType<typeof OpenAI.APIError>).message).toMatch(/the attachment "image 1" is not a photo or screenshot the assistant can read/);
    expect(gw.chatRequests().length).toBe(calls);
    // The front end keeps the message in the chat and sends it again with every later turn.
    for (const question of ['Where is Gates?', 'And is it open on Sunday?']) {
      chat.push({ role: 'user', content: question });
      const answer = await client.chat.completions.create({ model: 'campus-agent', messages: chat });
      expect(answer.choices[0]!.message.content).toBe('Gates is on the main campus.');
      chat.push({ role: 'assistant', content: answer.choices[0]!.message.content! });
      expect(modelSaw()).toContain('[attachment left out: image/png, 220 KB]');
      expect(modelSaw()).not.toContain(IMAGE.slice(22, 200));
    }
  });

  it('agent routes: history carrying three attachments (2.7 MB of body) is answered; the current message with one is a 400', async () => {
    const history = [0, 1, 2].map((i) => ({ role: 'user', content: `photo ${i}: data:image/jpeg;base64,${IMAGE.slice(22)}${'A'.repeat(600_000)}` }));
    const headers = { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' };
    const ok = await fetch(`${server.base}/agent/respond`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: 'Where is Gates?', message_history: history }),
    });
    expect(ok.status).toBe(200);
    expect((await ok.json()).response_text).toBe('Gates is on the main campus.');
    expect(modelSaw().match(/\[attachment left out: image\/jpeg, \d+ KB\]/g)).toHaveLength(3);
    const bad = await fetch(`${server.base}/agent/respond/stream`, { method: 'POST', headers, body: JSON.stringify({ query: `this one? ${IMAGE}` }) });
    expect(bad.status).toBe(400);
    expect((await bad.json()).detail).toMatch(/the attachment "image 1" is not a photo or screenshot the assistant can read/);
  });

  it('/v1: a chat of 250 messages is answered from its newest turns', async () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = Array.from({ length: 250 }, (_, i) =>
      i % 2 === 0 ? { role: 'user', content: `question ${i}` } : { role: 'assistant', content: `answer ${i}` },
    );
    messages.push({ role: 'user', content: 'Where is Gates?' });
    const answer = await client.chat.completions.create({ model: 'campus-agent', messages });
    expect(answer.choices[0]!.message.content).toBe('Gates is on the main campus.');
    expect(modelSaw()).toContain('answer 249');
    expect(modelSaw()).not.toContain('question 0"');
  });
});

describe('the official client and the 429s', () => {
  it('a spent budget returns at once with default retries: X-Should-Retry false, no model call', async () => {
    await budget.charge('spent-student', utcDay(new Date()), LIMIT);
    const calls = gw.chatRequests().length;
    const started = Date.now();
    const err = await client.chat.completions
      .create({ model: 'campus-agent', messages: [{ role: 'user', content: 'hi' }], user: 'spent-student' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const apiError = err as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.headers?.get('x-should-retry')).toBe('false');
    expect(Number(apiError.headers?.get('retry-after'))).toBeGreaterThan(60);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(gw.chatRequests().length).toBe(calls);
  });

  it('a full in-flight cap is retried by the client after its short Retry-After, and then answered', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    gw.handler = async () => {
      await held;
      return { text: 'Gates is on the main campus.' };
    };
    try {
      const first = client.chat.completions.create({ model: 'campus-agent', messages: [{ role: 'user', content: 'one' }], user: 'busy-student' });
      await gw.waitForRequests(gw.requests.length + 1);
      setTimeout(release, 500);
      const started = Date.now();
      const second = await client.chat.completions.create({ model: 'campus-agent', messages: [{ role: 'user', content: 'two' }], user: 'busy-student' });
      expect(second.choices[0]!.message.content).toBe('Gates is on the main campus.');
      // Refused once (429, Retry-After: 2), retried by the client after the wait.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      await first;
    } finally {
      release();
      gw.handler = () => ({ text: 'Gates is on the main campus.' });
    }
  });
});

describe('a base URL without /v1', () => {
  it('reaches the same routes at the root: models and chat completions, errors in OpenAI shape', async () => {
    const rootClient = new OpenAI({ baseURL: server.base, apiKey: SECRET, maxRetries: 0 });
    const ids = [];
    for await (const model of rootClient.models.list()) ids.push(model.id);
    expect(ids).toEqual(['campus-agent', 'openai/gpt-4o-mini']);
    const answer = await rootClient.chat.completions.create({ model: 'campus-agent', messages: [{ role: 'user', content: 'Where is Gates?' }] });
    expect(answer.choices[0]!.message.content).toBe('Gates is on the main campus.');
    const wrongKey = await new OpenAI({ baseURL: server.base, apiKey: 'nope', maxRetries: 0 }).models.list().catch((e: unknown) => e);
    expect(wrongKey).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe('large bodies in the compiled service', () => {
  beforeAll(() => {
    // `node scripts/build.mjs` compiles src/ only when dist/ is missing or older (as `npm start` does).
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
  }, 120_000);

  it('10 concurrent chats of ~3.5 MB: at most MAX_LARGE_BODY_BYTES of them taken in at once, the rest 503 + Retry-After; peak RSS inside the 256 MB container limit', async () => {
    const slow = await startFakeGateway();
    slow.handler = () => ({ text: 'Gates is on the main campus.', delayMs: 1_500 });
    const service = await spawnService({
      entry: 'dist',
      env: { LLM_GATEWAY_API_KEY: 'sk-test-large-bodies', LLM_GATEWAY_BASE_URL: slow.baseUrl },
      nodeArgs: imageNodeOptions(),
    });
    try {
      const history = Array.from({ length: 12 }, (_, i) => ({ role: 'user', content: `photo ${i}: ${IMAGE}` }));
      const body = JSON.stringify({ query: 'Where is Gates?', message_history: history });
      expect(body.length).toBeGreaterThan(3_000_000);
      const results = await Promise.all(
        Array.from({ length: 10 }, async () => {
          const res = await fetch(`${service.url}/agent/respond`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
        }),
      );
      const answered = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 503);
      expect(answered.length + refused.length).toBe(10);
      expect(answered.length).toBeGreaterThanOrEqual(1);
      expect(answered.length).toBeLessThanOrEqual(10);
      for (const r of answered) expect(r.body.response_text).toBe('Gates is on the main campus.');
      // Refused by the gate (Retry-After: 1) or, past it, by the overload guard (5): always before any work.
      for (const r of refused) expect(['1', '5']).toContain(r.retryAfter);
      // The gate held: never more than MAX_LARGE_BODY_BYTES read at once (each answered turn held its bytes 1.5 s).
      expect(refused.filter((r) => r.retryAfter === '1').length).toBeGreaterThanOrEqual(10 - Math.floor(MAX_LARGE_BODY_BYTES / body.length));
      const peakMb = procStatusKb(service.child.pid!, 'VmHWM') / 1024;
      console.log(`large bodies: ${answered.length} answered, ${refused.length} refused, peak RSS ${peakMb.toFixed(1)} MB`);
      // The container's hard limit (DEPLOY.md §7). Where under it the peak lands is the garbage collector's
      // timing: 180-186 MB with this file alone, 208 MB once in CI with the whole suite in parallel. The
      // 200 MB per-replica target is the peak bench's (BENCHMARKS.md), measured on a quiet machine.
      expect(peakMb).toBeLessThan(256);
    } finally {
      await service.stop();
      await slow.close();
    }
  }, 120_000);
});

describe('a /v1 stream the service ends after it started', () => {
  it('keeps no misleading half-answer: no apology before the error, and streamed text is marked as interrupted', async () => {
    const h = await startAdmissionApp({
      env: { TURN_TIMEOUT_MS: '1500' },
      campusTools: createMcpCampusTools({ url: slowTools.url, logger: silentLogger }),
    });
    try {
      const base = await h.listen();
      const ask = async () => {
        const res = await fetch(`${base}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'campus-agent', stream: true, messages: [{ role: 'user', content: 'where is gates' }] }),
        });
        const frames = (await res.text()).split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]').map((l) => JSON.parse(l.slice(6)));
        const content = frames.map((f) => f.choices?.[0]?.delta?.content ?? '').join('');
        return { content, error: frames.at(-1)?.error };
      };
      // A tool outlives the turn's deadline: nothing was written, so the client keeps nothing.
      h.gw.enqueue({ toolCalls: [{ name: 'maps_search_buildings', arguments: { query: 'Gates' } }] });
      const silent = await ask();
      expect(silent.error).toMatchObject({ code: 'turn_timed_out' });
      expect(silent.content).toBe('');
      // The model stalls mid-answer: what was streamed is kept with a note saying it was cut off.
      h.gw.enqueue({ text: ['Gates is', ' on'], hang: true });
      const cut = await ask();
      expect(cut.error).toMatchObject({ code: 'turn_timed_out' });
      expect(cut.content).toBe('Gates is on\n\n*(This answer was interrupted: the answer took too long to put together; please try again.)*');
    } finally {
      await h.close();
    }
  });
});

describe('chunked bodies (no Content-Length) on the chat routes', () => {
  /** Posts `body` in 16 KiB chunks with Transfer-Encoding: chunked; the status and the body. */
  function postChunked(path: string, body: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const url = new URL(path, server.base);
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      // The server may answer and close before the whole body is written.
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
      const bytes = Buffer.from(body);
      for (let i = 0; i < bytes.length; i += 16 * 1024) req.write(bytes.subarray(i, i + 16 * 1024));
      req.end();
    });
  }

  it('a small one is answered, one with an earlier attachment too, one over 4 MiB is a 413', async () => {
    const small = await postChunked('/agent/respond', JSON.stringify({ query: 'Where is Gates?' }));
    expect(small.status).toBe(200);
    expect(JSON.parse(small.text).response_text).toBe('Gates is on the main campus.');
    const withAttachment = await postChunked('/agent/respond', JSON.stringify({ query: 'Where is Gates?', message_history: [{ role: 'user', content: IMAGE }] }));
    expect(withAttachment.status).toBe(200);
    const huge = await postChunked('/agent/respond', JSON.stringify({ query: 'hi', padding: 'x'.repeat(4 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.text)).toMatchObject({ error: 'payload too large' });
  });
});
