/**
 * The budget through the real app and the fake gateway (real HTTP, streamed chunks with usage): 50
 * concurrent turns of one user at the edge of the budget never charge less than the gateway reported
 * and never admit a turn on a spent total; every pass of a tool-using turn is charged; a client that
 * disconnects mid-stream is still charged for the streamed pass; title calls are not charged.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSseEvents } from '../src/sse/sse-reader.js';
import { silentLogger } from '../src/logger.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import { startAdmissionApp, type AdmissionApp } from './support/admission-harness.js';
import { observeBudgetStore, postgresBackend, sqliteBackend } from './support/budget-backends.js';
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

  it('50 concurrent turns of one user: charged what the gateway reported, none admitted on a spent total', async () => {
    const LIMIT = 2_000;
    const inner = await backend.open();
    // Observe the real store: each admission's read, and each stored charge, in one sequence.
    const { store: budget, log } = observeBudgetStore(inner);
    // The per-user cap on turns in flight is lifted: this is about the budget store under concurrency.
    const h = await start({ budget, env: { DAILY_TOKEN_LIMIT: String(LIMIT), MAX_TURNS_IN_FLIGHT: '100' } });
    await inner.charge('edge-user', DAY, LIMIT - 150);
    let reported = 0;
    h.gw.handler = (_body, index) => {
      const usage = { prompt_tokens: 20 + (index % 5), completion_tokens: 7 };
      reported += usage.prompt_tokens + usage.completion_tokens;
      return { text: ['Sure', ', here you go.'], usage };
    };
    const base = await h.listen();
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const route = i % 2 ? '/agent/respond/stream' : '/agent/respond';
        const res = await fetch(base + route, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `question ${i}`, user_id: 'edge-user' }),
        });
        await res.text();
        return res.status;
      }),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    expect(admitted + statuses.filter((s) => s === 429).length).toBe(50);
    expect(admitted).toBeGreaterThan(0);
    // One model pass per admitted turn, each charged exactly what the gateway reported.
    expect(h.chatCalls()).toBe(admitted);
    await h.waitForCharges(admitted);
    expect(h.charges.every((u) => !u.estimated)).toBe(true);
    expect(await inner.used('edge-user', DAY)).toBe(LIMIT - 150 + reported);
    // Every admission read a total at least as new as every charge stored before it began, and was
    // admitted exactly when that total was below the limit.
    const reads = log.filter((e) => e.op === 'read');
    expect(reads).toHaveLength(50);
    for (const read of reads) {
      const before = log.filter((e) => e.op === 'charged' && e.seq < read.seq).map((e) => e.total);
      expect(read.total).toBeGreaterThanOrEqual(Math.max(LIMIT - 150, ...before));
    }
    expect(reads.filter((r) => r.total < LIMIT)).toHaveLength(admitted);
    // The stored total passed the limit: the next turn is refused.
    expect(await inner.used('edge-user', DAY)).toBeGreaterThanOrEqual(LIMIT);
    expect((await h.post('/agent/respond', { query: 'one more', user_id: 'edge-user' })).status).toBe(429);
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

  it('does not charge title calls to the user', async () => {
    const h = await start();
    h.gw.handler = () => ({ text: 'Dining Hours Question', usage: { prompt_tokens: 50, completion_tokens: 4 } });
    const res = await h.post('/agent/title', { query: 'when does the dining hall open?' });
    expect(res.status).toBe(200);
    expect((await res.json()).title).toBeTruthy();
    expect(h.chatCalls()).toBe(1);
    expect(await h.budget.used('anonymous', DAY)).toBe(0);
    expect(h.charges).toHaveLength(0);
  });
});
