/**
 * Issue 47: budgets in money beside the token budget, on both stores (SQLite on a file, Postgres on the
 * real server when TEST_DATABASE_URL is set, PGlite otherwise). A per-user daily spend is reserved at
 * the worst case (tokens at the model's price) and settled to the real cost, the gateway's reported
 * figure first, and a spent one is the same 429 as a spent token budget; the service-wide cap covers
 * turns, titles and extraction together, and a spent one is 503 "assistant paused" with Retry-After
 * until the reset, a refused call (`service`), never past the cap under concurrency. Titles then answer
 * null; an extraction the cap refuses waits for the reset instead of failing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { noModeration } from '../src/admission/admission.js';
import { createAdmission } from '../src/admission/create-admission.js';
import { SERVICE_BUCKET, type BudgetStore } from '../src/admission/budget-store.js';
import { PROMPT_SIZE_FLOOR_TOKENS, requestTokens, toolPassHold } from '../src/admission/turn-reservation.js';
import { createApp } from '../src/app.js';
import { AppError } from '../src/http/errors.js';
import type { JobHandler, JobQueue } from '../src/lifecycle/job-queue.js';
import { silentLogger } from '../src/logger.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import { CallNotAdmittedError, type ReserveCall } from '../src/model/metered-call.js';
import { ModelPrices, toNanoUsd } from '../src/model/model-prices.js';
import type { Usage } from '../src/model/usage.js';
import type { TurnRequest } from '../src/request/chat-request.js';
import { callOf, heldCall, postgresBackend, rejection, sqliteBackend } from './support/budget-backends.js';
import { createTestDeps, testConfig, testTurnMemory } from './support/deps.js';
import { startFakeGateway, gatewayClient } from './support/fake-gateway.js';

const MODEL = 'openai/gpt-4o-mini';
const DAY = '2026-11-21';
const now = () => new Date('2026-11-21T18:00:00Z');
const signal = new AbortController().signal;
const MAX_OUT = 400;
const request = (userId: string | null): TurnRequest => ({ query: 'hi', userId, history: [], model: MODEL, disabledGroups: [] });
const prices = new ModelPrices(testConfig().gateway.prices);
/** What admitting "hi" holds in money before any prompt was seen. */
const FIRST_NANO = prices.worstCase(MODEL, toolPassHold(requestTokens(request(null)) + PROMPT_SIZE_FLOOR_TOKENS, MAX_OUT));
const costly = (usd: number): Usage => ({ promptTokens: 1000, completionTokens: 100, totalTokens: 1100, estimated: false, cost: usd });


describe.each([sqliteBackend(), postgresBackend()])('money budgets: $name', (backend) => {
  let store: BudgetStore;
  beforeAll(() => backend.setup());
  afterAll(() => backend.teardown());
  beforeEach(async () => {
    store = await backend.open();
    // The model's price was checked (price-ratios.ts): these are about caps, not the first turn's check.
    await store.raisePriceRatio(MODEL, DAY, 1);
    return () => store.close();
  });
  const admissionWith = (env: Record<string, string>, budget: BudgetStore = store) =>
    createAdmission({ budget, moderation: noModeration, config: testConfig({ MAX_OUTPUT_TOKENS: String(MAX_OUT), ...env }), logger: silentLogger, now });

  it("holds a turn's worst case in money, settles the gateway's reported cost, gives the rest back", async () => {
    const admission = admissionWith({ DAILY_SPEND_LIMIT_USD: '1' });
    const turn = await admission.admit(request('ann'), signal);
    expect(await store.spent('ann', DAY)).toBe(FIRST_NANO);
    await turn.budget.charge(costly(0.000123));
    await turn.budget.release();
    expect(await store.spent('ann', DAY)).toBe(123_000);
    // Without a reported cost: the usage at the model's price, cached input at its own price.
    const call = heldCall(await admission.reserveCall(callOf('ann', 500, MODEL)));
    await call.settle({ promptTokens: 400, completionTokens: 50, totalTokens: 450, estimated: false, cachedPromptTokens: 100 });
    expect(await store.spent('ann', DAY)).toBe(123_000 + 300 * 150 + 100 * 75 + 50 * 600);
  });

  it("a turn that checks a model's price and makes no model call gives the check back; the model's next turn checks it", async () => {
    const model = 'unchecked/model';
    const flagged = { check: async () => ({ flagged: true as const, category: 'harassment', selfHarm: false }) };
    const admission = createAdmission({ budget: store, moderation: flagged, config: testConfig({ MAX_OUTPUT_TOKENS: String(MAX_OUT), DAILY_SPEND_LIMIT_USD: '1' }), logger: silentLogger, now });
    const turn = await admission.admit({ ...request('di'), model }, signal);
    expect(await turn.refusal).not.toBeNull();
    // Given back, not left to its lease: the check is free to claim at once.
    await vi.waitFor(async () => expect(await store.claimPriceCheck(model, DAY, 60_000)).toBe(true));
    await store.releasePriceCheck(model, DAY);
    // A turn whose call settles records the price (no reported cost: as configured), so nobody waits again.
    const next = await admission.admit({ ...request('di'), model }, signal);
    await next.budget.charge({ promptTokens: 10, completionTokens: 1, totalTokens: 11, estimated: false });
    await next.budget.release();
    await vi.waitFor(async () => expect((await store.priceRatios(DAY)).get(model)).toBe(1));
  });

  it('refuses a turn whose worst case passes the per-user spend limit with the 429 of a spent budget, per user', async () => {
    const limitUsd = (2.5 * FIRST_NANO) / 1e9;
    const admission = admissionWith({ DAILY_SPEND_LIMIT_USD: String(limitUsd) });
    const first = await admission.admit(request('bo'), signal);
    const second = await admission.admit(request('bo'), signal);
    const err = await rejection(admission.admit(request('bo'), signal));
    expect(err.status).toBe(429);
    expect(err.headers).toMatchObject({ 'X-Should-Retry': 'false', 'Retry-After': String(6 * 3600) });
    expect(err.toEnvelope()).toEqual({ error: 'daily token budget exhausted', detail: `the daily spending limit of $${limitUsd} is reached; it resets at 00:00 UTC` });
    // The token budget is far from spent: money alone refused it. Another user is unaffected.
    expect(await store.used('bo', DAY)).toBeLessThan(testConfig().budget.dailyTokenLimit / 10);
    await (await admission.admit(request('cy'), signal)).budget.release();
    // Settled below the worst case, the money comes back and a third turn fits.
    await first.budget.charge(costly(0.0001));
    await first.budget.release();
    await (await admission.admit(request('bo'), signal)).budget.release();
    await second.budget.release();
    expect(await store.spent('bo', DAY)).toBe(100_000);
  });

  it('pauses the whole service with 503 and Retry-After once the service cap is reached; calls are refused as `service`', async () => {
    const capUsd = (3.5 * FIRST_NANO) / 1e9;
    const admission = admissionWith({ SERVICE_DAILY_SPEND_LIMIT_USD: String(capUsd) });
    const turns = [await admission.admit(request('u1'), signal), await admission.admit(request('u2'), signal), await admission.admit(request(null), signal)];
    expect(await store.spent(SERVICE_BUCKET, DAY)).toBe(3 * FIRST_NANO);
    const err = await rejection(admission.admit(request('u4'), signal));
    expect(err.status).toBe(503);
    expect(err.headers).toMatchObject({ 'Retry-After': String(6 * 3600), 'X-Should-Retry': 'false' });
    expect(err.toEnvelope().error).toBe('assistant paused');
    expect(err.toEnvelope().detail).toMatch(/paused until 00:00 UTC/);
    const refused = await admission.reserveCall(callOf('u4', 2 * FIRST_NANO / 150, MODEL));
    expect(refused).toEqual({ refused: 'service', resumesAt: new Date('2026-11-22T00:00:00Z') });
    // Settled, the service row holds what was really spent, and the next turn fits again.
    for (const t of turns) {
      await t.budget.charge(costly(0.0002));
      await t.budget.release();
    }
    expect(await store.spent(SERVICE_BUCKET, DAY)).toBe(3 * 200_000);
    expect(await store.spent('u1', DAY)).toBe(200_000);
    expect(await store.spent('anonymous', DAY)).toBe(200_000);
    await (await admission.admit(request('u4'), signal)).budget.release();
  });

  it('never passes the service cap under 100 concurrent turns from two admissions, each settling its real cost', async () => {
    const second = await backend.another();
    try {
      const capUsd = (10.5 * FIRST_NANO) / 1e9;
      const replicas = [admissionWith({ SERVICE_DAILY_SPEND_LIMIT_USD: String(capUsd) }), admissionWith({ SERVICE_DAILY_SPEND_LIMIT_USD: String(capUsd) }, second)];
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          for (let k = 0; k < i % 7; k++) await Promise.resolve();
          const turn = await replicas[i % 2]!.admit(request(`user-${i}`), signal).catch((e: unknown) => e as AppError);
          if (turn instanceof AppError) return turn.status;
          await turn.budget.charge(costly((FIRST_NANO * 0.9) / 1e9));
          await turn.budget.release();
          return 200;
        }),
      );
      const admitted = outcomes.filter((s) => s === 200).length;
      expect(outcomes.every((s) => s === 200 || s === 503)).toBe(true);
      expect(admitted).toBeGreaterThanOrEqual(1);
      expect(admitted).toBeLessThanOrEqual(11);
      const spent = await store.spent(SERVICE_BUCKET, DAY);
      expect(spent).toBe(admitted * toNanoUsd((FIRST_NANO * 0.9) / 1e9));
      expect(spent).toBeLessThanOrEqual(toNanoUsd(capUsd));
    } finally {
      await second.close();
    }
  });
});

describe('what students see when the service cap is spent', () => {
  it('titles answer null with no model call', async () => {
    const gw = await startFakeGateway();
    const budget = await sqliteBackendStore();
    try {
      const config = testConfig({ SERVICE_DAILY_SPEND_LIMIT_USD: '0.000001' });
      const admission = createAdmission({ budget: budget.store, moderation: noModeration, config, logger: silentLogger, now: () => new Date() });
      const app = createApp(await createTestDeps({ config, gateway: gatewayClient(gw), admission }));
      const res = await app.request('/agent/title', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'When does Entropy close?' }) });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ title: null });
      const turn = await app.request('/agent/respond', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'hi' }) });
      expect(turn.status).toBe(503);
      expect(turn.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await turn.json()) as { error: string }).error).toBe('assistant paused');
      expect(gw.chatRequests()).toHaveLength(0);
    } finally {
      await budget.close();
      await gw.close();
    }
  });

  it('an extraction the cap refuses is queued again for the reset instead of failing; a spent user budget still fails it', async () => {
    const handlers = new Map<string, JobHandler>();
    const enqueued: { key: string; startAfter?: Date }[] = [];
    const jobs: JobQueue = {
      backend: 'in-process',
      handle: (kind, handler) => void handlers.set(kind, handler),
      enqueue: (_kind, _payload, options) => void enqueued.push({ key: options.key, ...(options.startAfter && { startAfter: options.startAfter }) }),
      start: async () => undefined,
      health: async () => null,
      stop: async () => undefined,
    };
    const resumesAt = new Date('2026-11-22T00:00:00Z');
    let refusal: 'service' | 'budget' = 'service';
    const reserve: ReserveCall = async () => ({ refused: refusal, resumesAt });
    const gw = await startFakeGateway();
    try {
      testTurnMemory({ store: createInMemoryStore({ embeddingModel: null }), gateway: gatewayClient(gw), jobs, reserve });
      const payload = { userId: 'dee', query: 'I live in Mudge House now', history: [], answer: 'Noted!' };
      const job = { key: 'memory-extraction:1', span: (await import('../src/telemetry/telemetry.js')).noSpan, signal };
      await handlers.get('memory-extraction')!(payload, job);
      expect(enqueued).toEqual([{ key: expect.stringMatching(/^memory-extraction:/), startAfter: resumesAt }]);
      refusal = 'budget';
      await expect(handlers.get('memory-extraction')!(payload, job)).rejects.toBeInstanceOf(CallNotAdmittedError);
      expect(enqueued).toHaveLength(1);
      expect(gw.chatRequests()).toHaveLength(0);
    } finally {
      await gw.close();
    }
  });
});

/** A SQLite budget store on a fresh file, for the route-level tests. */
async function sqliteBackendStore() {
  const backend = sqliteBackend();
  await backend.setup();
  const store = await backend.open();
  return {
    store,
    async close() {
      await store.close();
      await backend.teardown();
    },
  };
}
