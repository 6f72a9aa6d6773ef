/**
 * Issue 74, item 3: money caps hold when the gateway charges ten times the configured price, at any
 * concurrency. Two replicas (each its own app, listening server, admission and pool) share the budget
 * on Postgres (the real server in CI through TEST_DATABASE_URL, PGlite otherwise); one fake gateway
 * over HTTP reports `usage.cost` at 10× what MODEL_PRICES implies for the usage it reports.
 *
 * - Sixty turns at once, half on each replica, against a service cap and against one user's cap: the
 *   model's price is checked by one turn before the cap trusts it (price-ratios.ts), so the spend ends
 *   within one turn's worst case at the observed price of the cap. Reserving at the configured price
 *   let every turn the configured price admitted settle at ten times its hold.
 * - A price that rises mid-day: twenty long answers in flight on both replicas when a short one settles
 *   at 10×. Every one is re-reserved at the observed price; those that no longer fit stop now, with the
 *   spend note, charged (at the observed price) for what they used.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SERVICE_BUCKET, utcDay } from '../src/admission/budget-store.js';
import { LIVE_RATIO_REFRESH_MS } from '../src/admission/daily-budget.js';
import { PROMPT_SIZE_FLOOR_TOKENS, requestTokens, toolPassHold } from '../src/admission/turn-reservation.js';
import { SPEND_CUT_NOTE } from '../src/guards/answer-stream.js';
import { silentLogger } from '../src/logger.js';
import { estimateUsage } from '../src/model/estimate-usage.js';
import { ModelPrices, toNanoUsd } from '../src/model/model-prices.js';
import { testConfig } from './support/deps.js';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { startSpendReplicas, type SpendReplicas } from './support/spend-replicas.js';

const MODEL = 'openai/gpt-4o-mini';
const MAX_OUT = 400;
const RATIO = 10;
const USAGE = { prompt_tokens: 3_000, completion_tokens: MAX_OUT };
const prices = new ModelPrices(testConfig().gateway.prices);
const atPrice = (usage: { prompt_tokens: number; completion_tokens: number }) =>
  prices.atPrice(MODEL, { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.prompt_tokens + usage.completion_tokens, estimated: false });
/** What the gateway reports an answer cost, in dollars: ten times its usage at the configured price. */
const REPORTED_USD = (RATIO * atPrice(USAGE)) / 1e9;
/** One turn's worst case as admission holds it before any prompt was seen, at the configured price and at the observed one. */
const WORST_AT_PRICE = prices.worstCase(MODEL, toolPassHold(requestTokens({ query: 'hi', history: [] }) + PROMPT_SIZE_FLOOR_TOKENS, MAX_OUT));
const WORST_OBSERVED = WORST_AT_PRICE * RATIO;

let pg: TestPostgres | undefined;
let gw: FakeGateway | undefined;
let replicas: SpendReplicas | undefined;

afterEach(async () => {
  await replicas?.close();
  await gw?.close();
  await pg?.stop();
  replicas = gw = pg = undefined;
});

async function start(env: Record<string, string>, handler: FakeGateway['handler']): Promise<SpendReplicas> {
  pg = await startTestPostgres();
  gw = await startFakeGateway({ ...(handler && { handler }) });
  const config = testConfig({ TOKEN_BUDGET_STORE: 'postgres', DATABASE_URL: pg.url, MAX_OUTPUT_TOKENS: String(MAX_OUT), MAX_ANONYMOUS_TURNS_IN_FLIGHT: '100', ...env });
  replicas = await startSpendReplicas(config, gw, { logger: silentLogger });
  return replicas;
}

const lastUserText = (body: { messages: Array<{ role: string; content: unknown }> }) =>
  String([...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '');

/** Sixty turns at once, alternating replicas; their statuses. */
async function sixtyAtOnce(r: SpendReplicas, user: (i: number) => string): Promise<number[]> {
  return Promise.all(
    Array.from({ length: 60 }, async (_, i) => {
      const res = await r.respond(i % 2, user(i));
      await res.arrayBuffer();
      return res.status;
    }),
  );
}

describe('a gateway that reports ten times the configured price, sixty turns at once on two replicas', () => {
  const tenTimes = () => ({ text: 'Hello from the campus.', usage: { ...USAGE, cost: REPORTED_USD }, delayMs: 40 });

  it('keeps the service within one turn of its cap', async () => {
    const capUsd = 15 * REPORTED_USD;
    // At the configured price the cap admits this many turns at once, each of which then costs REPORTED_USD.
    expect(Math.floor(toNanoUsd(capUsd) / WORST_AT_PRICE)).toBeGreaterThan(20);
    const r = await start({ SERVICE_DAILY_SPEND_LIMIT_USD: String(capUsd) }, tenTimes);
    const statuses = await sixtyAtOnce(r, (i) => `student-${i}`);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(2);
    expect(statuses).toContain(503);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    const spent = await r.stores[0]!.spent(SERVICE_BUCKET, utcDay(new Date()));
    expect(spent).toBeLessThanOrEqual(toNanoUsd(capUsd) + WORST_OBSERVED);
    // The ratio the check learned is every replica's.
    expect((await r.stores[1]!.priceRatios(utcDay(new Date()))).get(MODEL)).toBeCloseTo(RATIO, 1);
  }, 60_000);

  it("keeps a student within one turn of their own cap", async () => {
    const capUsd = 12 * REPORTED_USD;
    // Sixty turns of one student at once: the per-student limit of turns in flight (3 by default) raised out of the way.
    const r = await start({ DAILY_SPEND_LIMIT_USD: String(capUsd), MAX_TURNS_IN_FLIGHT: '60' }, tenTimes);
    const statuses = await sixtyAtOnce(r, () => 'student-one');
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(2);
    expect(statuses).toContain(429);
    const spent = await r.stores[1]!.spent('student-one', utcDay(new Date()));
    expect(spent).toBeLessThanOrEqual(toNanoUsd(capUsd) + WORST_OBSERVED);
  }, 60_000);
});

describe('a price that rises while turns are in flight', () => {
  it('re-reserves every turn of the model on both replicas; those that no longer fit stop with the spend note, charged at the observed price', async () => {
    const SLOW = 20;
    const CHUNKS = 60;
    const CHUNK_MS = 50;
    // Room for the twenty long turns and the short one at the configured price, and little more.
    const capUsd = (24 * WORST_AT_PRICE) / 1e9;
    let priced = 1;
    const r = await start({ SERVICE_DAILY_SPEND_LIMIT_USD: String(capUsd) }, (body) => {
      const usage = { ...USAGE, cost: (priced * atPrice(USAGE)) / 1e9 };
      if (lastUserText(body) === 'quick question') return { text: 'Short.', usage };
      return { text: Array.from({ length: CHUNKS }, () => 'more words '), usage, chunkDelayMs: CHUNK_MS };
    });
    const day = utcDay(new Date());
    // The price was checked this morning: as configured.
    await r.stores[0]!.raisePriceRatio(MODEL, day, 1);
    const slow = Array.from({ length: SLOW }, async (_, i) => {
      const res = await r.respond(i % 2, `student-${i}`, 'tell me everything');
      return { status: res.status, body: (await res.json()) as { response_text: string }, at: Date.now(), replica: i % 2 };
    });
    await gw!.waitForRequests(SLOW);
    // The gateway's price changes; a short answer settles first and shows it.
    priced = RATIO;
    const quickAt = Date.now();
    const quick = await r.respond(0, 'student-quick', 'quick question');
    expect(quick.status).toBe(200);
    await quick.arrayBuffer();
    const ended = await Promise.all(slow);
    const fullStreamMs = CHUNKS * CHUNK_MS;
    const stopped = ended.filter((e) => e.body.response_text.endsWith(SPEND_CUT_NOTE.trim()));
    // Every long turn was answered (200), and those that no longer fit at ten times the price were stopped, on both replicas,
    // within the cross-replica read of the ratios, long before their answers would have ended.
    expect(ended.every((e) => e.status === 200)).toBe(true);
    expect(stopped.length).toBeGreaterThanOrEqual(SLOW - 2);
    expect(new Set(stopped.map((e) => e.replica))).toEqual(new Set([0, 1]));
    for (const e of stopped) expect(e.at - quickAt).toBeLessThan(fullStreamMs / 2 + LIVE_RATIO_REFRESH_MS);
    // Charged for what they used at the observed price: each at least its prompt, as the service estimates a pass cut
    // short, at ten times the configured price (a tenth of this is what the configured price would have charged).
    const spent = await r.stores[1]!.spent(SERVICE_BUCKET, day);
    const prompts = gw!.chatRequests().filter((b) => lastUserText(b) === 'tell me everything').map((b) => estimateUsage(b.messages, '').promptTokens);
    expect(prompts).toHaveLength(SLOW);
    const floor = stopped.length * RATIO * atPrice({ prompt_tokens: Math.min(...prompts), completion_tokens: 0 });
    expect(spent).toBeGreaterThanOrEqual(floor);
    // Nothing is held once every turn ended: the day's row is what was spent, below what twenty whole answers would cost.
    expect(spent).toBeLessThan(SLOW * RATIO * atPrice(USAGE));
  }, 60_000);
});
