/**
 * The budget through the real app and the fake gateway (real HTTP, streamed chunks with usage, honouring
 * max_tokens), on both stores: 30 concurrent two-pass turns of ~6,000 tokens a pass against a 20,000
 * limit spend at most 21,000 upstream and every admitted turn gets its answer; a user at 999 of 1,000 gets none of 50 admitted; every pass of a
 * tool-using turn is charged; a client that disconnects mid-stream is still charged for the streamed
 * pass; title calls are charged to the user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIMMED_RESULT_MARKER } from '../src/pipeline/stages/execute.js';
import { readSseEvents } from '../src/sandbox/chat/sse-reader.js';
import { silentLogger } from '../src/logger.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import { startAdmissionApp, type AdmissionApp } from './support/admission-harness.js';
import { postgresBackend, sqliteBackend } from './support/budget-backends.js';
import { startTestMcpServer } from './support/test-mcp-server.js';
import { closeAfterEach } from './support/cleanup.js';

const NOON = new Date('2026-11-21T12:00:00.000Z');
const DAY = '2026-11-21';
const defer = closeAfterEach();

async function start(options: Parameters<typeof startAdmissionApp>[0] = {}): Promise<AdmissionApp> {
  const h = await startAdmissionApp({ now: () => NOON, ...options });
  defer(() => h.close());
  return h;
}

describe.each([sqliteBackend(), postgresBackend()])('budget at the edge through the app: $name', (backend) => {
  beforeAll(() => backend.setup());
  afterAll(() => backend.teardown());

  it('30 concurrent two-pass turns at ~6,000 tokens a pass against 20,000: ≤ 21,000 spent upstream, every admitted turn answered', async () => {
    const LIMIT = 20_000;
    const MAX_OUT = 3_500;
    const budget = await backend.open();
    const mcp = await startTestMcpServer({ tools: [{ name: 'eats_get_locations_open_now', run: async () => '### Schatz Dining Room' }] });
    const campusTools = createMcpCampusTools({ url: mcp.url, logger: silentLogger, callTimeoutMs: 2_000 });
    defer(() => mcp.close(), () => campusTools.close());
    const h = await start({
      budget,
      campusTools,
      env: { DAILY_TOKEN_LIMIT: String(LIMIT), MAX_OUTPUT_TOKENS: String(MAX_OUT), MAX_TURNS_IN_FLIGHT: '50' },
    });
    // Every pass spends what the fake gateway reports: its input (4 characters a token, as a real
    // tokenizer gives for prose) and output that always runs to max_tokens, the most a pass can spend
    // (the tool pass's as hidden reasoning, as reasoning models bill it). The fake honours max_tokens:
    // the answer text stops there and so does the reported usage.
    let spent = 0;
    const endless = 'All the dining places on campus, described at length. '.repeat(2_000);
    h.gw.handler = (body) => {
      const second = body.messages.some((m: { role: string }) => m.role === 'tool');
      const prompt = Math.ceil((JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? '').length) / 4);
      const completion = Math.min(body.max_tokens, MAX_OUT);
      spent += prompt + completion;
      const usage = { prompt_tokens: prompt, completion_tokens: completion };
      return second
        ? { text: endless.match(/.{1,400}/g)!, usage }
        : { toolCalls: [{ name: 'eats_get_locations_open_now', arguments: {} }], usage, chunkDelayMs: 5 };
    };
    const base = await h.listen();
    // One turn of another user first: a running service has seen how large its prompt is.
    expect((await h.post('/agent/respond', { query: 'what is open now?', user_id: 'warm-up' })).status).toBe(200);
    spent = 0;
    // About 2,500 tokens of the user's own text per pass (a long message and history), so a pass that
    // writes to the cap costs about 6,000.
    const history = [
      { role: 'user', content: 'I am comparing dining options across campus for a report. '.repeat(60) },
      { role: 'assistant', content: 'Here is what I found about the dining options. '.repeat(60) },
    ];
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const route = i % 2 ? '/agent/respond/stream' : '/agent/respond';
        const res = await fetch(base + route, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `what is open now? ${'Please include every detail you can find. '.repeat(80)} ${i}`, user_id: 'edge-user', message_history: history }),
        });
        const text = await res.text();
        if (res.status !== 200) return { status: res.status, answer: '' };
        if (route === '/agent/respond') return { status: 200, answer: JSON.parse(text).response_text as string, ended: 'done' };
        const done = text.split('\n\n').find((f) => f.startsWith('event: done'));
        return { status: done ? 200 : 500, answer: done ? JSON.parse(done.split('\ndata: ')[1]!).response_text : '' };
      }),
    );
    const admitted = outcomes.filter((o) => o.status === 200);
    expect(outcomes.filter((o) => o.status !== 200 && o.status !== 429)).toEqual([]);
    expect(admitted.length).toBeGreaterThan(0);
    // Every admitted turn was answered: the dining text, cut at the length limit with the note.
    for (const o of admitted) expect(o.answer).toContain('All the dining places on campus');
    expect(spent).toBeGreaterThan(6_000 * admitted.length * 2 * 0.9);
    expect(spent).toBeLessThanOrEqual(21_000);
    const used = await budget.used('edge-user', DAY);
    expect(used).toBe(spent);
    expect(used).toBeLessThanOrEqual(LIMIT);
    // The next turn is refused.
    expect((await h.post('/agent/respond', { query: 'one more', user_id: 'edge-user' })).status).toBe(429);
  });

  it('a user at 999 of 1,000 has none of 50 concurrent turns admitted', async () => {
    const budget = await backend.open();
    // The overload guard's event-loop check is off: 50 requests at once on a busy test machine must meet the budget, not it.
    const h = await start({ budget, env: { DAILY_TOKEN_LIMIT: '1000', MAX_TURNS_IN_FLIGHT: '100', OVERLOAD_MAX_LOOP_DELAY_MS: '0' } });
    await budget.charge('nearly-spent', DAY, 999);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => (await h.post('/agent/respond', { query: `q ${i}`, user_id: 'nearly-spent' })).status),
    );
    expect([...new Set(statuses)]).toEqual([429]);
    expect(h.chatCalls()).toBe(0);
    expect(await budget.used('nearly-spent', DAY)).toBe(999);
  });
});

describe('budget through the app', () => {

  it('charges every pass of a turn that calls a tool', async () => {
    const mcp = await startTestMcpServer({ tools: [{ name: 'eats_get_locations_open_now', run: async () => '### 🟢 Schatz Dining Room' }] });
    const campusTools = createMcpCampusTools({ url: mcp.url, logger: silentLogger, callTimeoutMs: 2_000 });
    defer(() => mcp.close(), () => campusTools.close());
    const h = await start({ campusTools });
    h.gw.enqueue(
      { toolCalls: [{ name: 'eats_get_locations_open_now', arguments: {} }], usage: { prompt_tokens: 300, completion_tokens: 12 } },
      { text: 'Schatz Dining Room is open.', usage: { prompt_tokens: 340, completion_tokens: 9 } },
    );
    const res = await h.post('/agent/respond', { query: 'what food is open now?', user_id: 'tool-user' });
    expect(res.status).toBe(200);
    expect((await res.json()).services_used).toEqual(['eats_get_locations_open_now']);
    expect(await h.budget.used('tool-user', DAY)).toBe(312 + 349);
  });

  it('a turn that cannot top up answers within what it holds: tool results trimmed, max_tokens lowered, never past the limit', async () => {
    const LIMIT = 1_000_000;
    const big = 'Schatz Dining Room serves breakfast, lunch and dinner. '.repeat(200).slice(0, 11_000);
    const mcp = await startTestMcpServer({ tools: [{ name: 'eats_get_locations_open_now', run: async () => big }] });
    const campusTools = createMcpCampusTools({ url: mcp.url, logger: silentLogger, callTimeoutMs: 2_000 });
    defer(() => mcp.close(), () => campusTools.close());
    const h = await start({ campusTools, env: { MAX_OUTPUT_TOKENS: '300', DAILY_TOKEN_LIMIT: String(LIMIT) } });
    let squeeze = false;
    h.gw.handler = async (body) => {
      if (body.messages.some((m: { role: string }) => m.role === 'tool')) return { text: 'Schatz is open.' };
      // While the first pass runs, the rest of the user's day is spent elsewhere: no top-up can succeed.
      if (squeeze) await h.budget.charge('fitted-user', DAY, LIMIT - (await h.budget.used('fitted-user', DAY)));
      return { toolCalls: [{ name: 'eats_get_locations_open_now', arguments: {} }, { name: 'eats_get_locations_open_now', arguments: { again: true } }] };
    };
    // A turn of another user first: a running service has learned how large its prompt is.
    expect((await h.post('/agent/respond', { query: 'what is open now?', user_id: 'warm-up' })).status).toBe(200);
    squeeze = true;
    const before = h.gw.chatRequests().length;
    const res = await h.post('/agent/respond', { query: 'what is open now?', user_id: 'fitted-user' });
    expect(res.status).toBe(200);
    expect((await res.json()).response_text).toBe('Schatz is open.');
    const answerPass = h.gw.chatRequests()[before + 1];
    // The answer pass offered no tools, and its tool results were cut to what the turn still held.
    expect(answerPass.tools).toBeUndefined();
    const results = answerPass.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content);
    expect(results.some((r: string) => r.endsWith(TRIMMED_RESULT_MARKER))).toBe(true);
    expect(answerPass.max_tokens).toBeLessThanOrEqual(300);
    expect(await h.budget.used('fitted-user', DAY)).toBeLessThanOrEqual(LIMIT);
  });

  it('a title the budget cannot cover is no title, and no model call is made', async () => {
    const h = await start({ env: { DAILY_TOKEN_LIMIT: '1000' } });
    await h.budget.charge('titled-out', DAY, 990);
    const res = await h.post('/agent/title', { query: 'when does the dining hall open?', user_id: 'titled-out' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ title: null });
    expect(h.chatCalls()).toBe(0);
    expect(await h.budget.used('titled-out', DAY)).toBe(990);
  });

  it('charges an estimate when the gateway reports no usage', async () => {
    const h = await start();
    h.gw.enqueue({ text: 'An answer without a usage chunk.', usage: null });
    const res = await h.post('/agent/respond', { query: 'hello there', user_id: 'no-usage' });
    expect(res.status).toBe(200);
    expect(await h.budget.used('no-usage', DAY)).toBeGreaterThan(0);
    expect(h.charges[0]?.estimated).toBe(true);
  });

  it('still charges the streamed pass when the client disconnects mid-stream (and no reader comes back)', async () => {
    // No grace: the run ends as its reader goes (RUN_DETACHED_GRACE_MS=0); tests/runs-resume.test.ts has the grace.
    const h = await start({ env: { RUN_DETACHED_GRACE_MS: '0' } });
    h.gw.enqueue({ text: ['A long ', 'answer ', 'that never ends'], hang: true, usage: null });
    const base = await h.listen();
    const controller = new AbortController();
    const res = await fetch(`${base}/agent/respond/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'tell me everything', user_id: 'leaver' }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    let sawDelta = false;
    for await (const e of readSseEvents(res.body!)) {
      if (e.type !== 'delta') continue;
      sawDelta = true;
      break;
    }
    expect(sawDelta).toBe(true);
    controller.abort();
    await h.gw.waitForAbort();
    await h.waitForCharges(1);
    const stored = await h.budget.used('leaver', DAY);
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBe(h.charges[0]!.totalTokens);
  });

  it('charges title calls to the user, or to the anonymous bucket without one', async () => {
    const h = await start();
    h.gw.handler = () => ({ text: 'Dining Hours Question', usage: { prompt_tokens: 50, completion_tokens: 4 } });
    const res = await h.post('/agent/title', { query: 'when does the dining hall open?', user_id: 'titled-user' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ title: 'Dining Hours Question' });
    expect(await h.budget.used('titled-user', DAY)).toBe(54);
    await (await h.post('/agent/title', { query: 'where is gates?' })).json();
    expect(await h.budget.used('anonymous', DAY)).toBe(54);
    expect(h.chatCalls()).toBe(2);
  });
});
