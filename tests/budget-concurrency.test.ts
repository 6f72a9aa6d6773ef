/**
 * The budget through the real app and the fake gateway (real HTTP, streamed chunks with usage), on
 * both stores: 50 concurrent two-pass turns of a user near the limit charge at most the limit plus one
 * pass and leave nothing reserved; a user at 999 of 1,000 gets none of 50 admitted; every pass of a
 * tool-using turn is charged; a client that disconnects mid-stream is still charged for the streamed
 * pass; title calls are charged to the user.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSseEvents } from '../src/sse/sse-reader.js';
import { silentLogger } from '../src/logger.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import { startAdmissionApp, type AdmissionApp } from './support/admission-harness.js';
import { postgresBackend, sqliteBackend } from './support/budget-backends.js';
import { startTestMcpServer } from './support/test-mcp-server.js';

const NOON = new Date('2026-11-21T12:00:00.000Z');
const DAY = '2026-11-21';
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function start(options: Parameters<typeof startAdmissionApp>[0] = {}): Promise<AdmissionApp> {
  const h = await startAdmissionApp({ now: () => NOON, ...options });
  closers.push(() => h.close());
  return h;
}

describe.each([sqliteBackend(), postgresBackend()])('budget at the edge through the app: $name', (backend) => {
  beforeAll(() => backend.setup());
  afterAll(() => backend.teardown());

  it('50 concurrent two-pass turns of a user near the limit: total charged ≤ limit + one pass, nothing left reserved', async () => {
    const LIMIT = 20_000;
    const START = LIMIT - 10_000;
    const budget = await backend.open();
    const mcp = await startTestMcpServer({ tools: [{ name: 'eats_get_locations_open_now', run: async () => '### Schatz Dining Room' }] });
    const campusTools = createMcpCampusTools({ url: mcp.url, logger: silentLogger, callTimeoutMs: 2_000 });
    closers.push(() => mcp.close(), () => campusTools.close());
    // A small completion allowance, and passes that report more than their estimate: the excess over
    // each reservation is what the bound has to absorb.
    const h = await start({
      budget,
      campusTools,
      env: { DAILY_TOKEN_LIMIT: String(LIMIT), TOKEN_RESERVE_PER_PASS: '50', MAX_TURNS_IN_FLIGHT: '100' },
    });
    await budget.charge('edge-user', DAY, START);
    let reported = 0;
    let largestPass = 0;
    h.gw.handler = (body) => {
      const second = body.messages.some((m: { role: string }) => m.role === 'tool');
      // Reported prompt tokens: 3.2 characters a token, as a real tokenizer gives for JSON-heavy prompts
      // (more than the 4 of the usage estimate, less than the 3 reservations assume).
      const prompt = Math.ceil((JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? '').length) / 3.2);
      const usage = { prompt_tokens: prompt, completion_tokens: 40 };
      reported += prompt + 40;
      largestPass = Math.max(largestPass, prompt + 40);
      return second
        ? { text: ['Schatz is ', 'open.'], usage, chunkDelayMs: 5 }
        : { toolCalls: [{ name: 'eats_get_locations_open_now', arguments: {} }], usage, chunkDelayMs: 5 };
    };
    const base = await h.listen();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const route = i % 2 ? '/agent/respond/stream' : '/agent/respond';
        const res = await fetch(base + route, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `what is open now? ${i}`, user_id: 'edge-user' }),
        });
        const text = await res.text();
        if (res.status !== 200) return res.status;
        // A stream refused mid-turn (its second pass did not fit) ends with the 429 error event.
        return text.includes('event: error') ? 429 : 200;
      }),
    );
    const answered = outcomes.filter((s) => s === 200).length;
    expect(outcomes.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(50);
    const total = await budget.used('edge-user', DAY);
    // Every pass that ran is charged what the gateway reported, and every reservation went back.
    expect(total).toBe(START + reported);
    expect(total).toBeLessThanOrEqual(LIMIT + largestPass);
    // The next turn is refused.
    expect((await h.post('/agent/respond', { query: 'one more', user_id: 'edge-user' })).status).toBe(429);
  });

  it('a user at 999 of 1,000 has none of 50 concurrent turns admitted', async () => {
    const budget = await backend.open();
    const h = await start({ budget, env: { DAILY_TOKEN_LIMIT: '1000', MAX_TURNS_IN_FLIGHT: '100' } });
    await budget.charge('nearly-spent', DAY, 999);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => (await h.post('/agent/respond', { query: `q ${i}`, user_id: 'nearly-spent' })).status),
    );
    expect(statuses.every((s) => s === 429)).toBe(true);
    expect(h.chatCalls()).toBe(0);
    expect(await budget.used('nearly-spent', DAY)).toBe(999);
  });
});

describe('budget through the app', () => {

  it('charges every pass of a turn that calls a tool', async () => {
    const mcp = await startTestMcpServer({ tools: [{ name: 'eats_get_locations_open_now', run: async () => '### 🟢 Schatz Dining Room' }] });
    const campusTools = createMcpCampusTools({ url: mcp.url, logger: silentLogger, callTimeoutMs: 2_000 });
    closers.push(() => mcp.close(), () => campusTools.close());
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

  it('charges an estimate when the gateway reports no usage', async () => {
    const h = await start();
    h.gw.enqueue({ text: 'An answer without a usage chunk.', usage: null });
    const res = await h.post('/agent/respond', { query: 'hello there', user_id: 'no-usage' });
    expect(res.status).toBe(200);
    expect(await h.budget.used('no-usage', DAY)).toBeGreaterThan(0);
    expect(h.charges[0]?.estimated).toBe(true);
  });

  it('still charges the streamed pass when the client disconnects mid-stream', async () => {
    const h = await start();
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
    expect((await res.json()).title).toBeTruthy();
    expect(await h.budget.used('titled-user', DAY)).toBe(54);
    await (await h.post('/agent/title', { query: 'where is gates?' })).json();
    expect(await h.budget.used('anonymous', DAY)).toBe(54);
    expect(h.chatCalls()).toBe(2);
  });
});
