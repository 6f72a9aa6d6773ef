/**
 * Issue 47's target for the service-wide cap, end to end: two replicas (each its own app, listening
 * server, admission and Postgres pool, both migrating at start) share one spend on Postgres (the real
 * server in CI through TEST_DATABASE_URL, PGlite otherwise). 200 concurrent turns against a cap they
 * would overrun tenfold: every turn is answered 200 or the 503 "assistant paused" envelope, what was
 * spent equals the gateway's reported costs of the answered turns, and it never passes the cap. Then
 * turns one at a time, alternating replicas, until one is refused: the service stops within one
 * turn's worst-case cost of the cap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_BUCKET, utcDay, type BudgetStore } from '../src/admission/budget-store.js';
import { PROMPT_SIZE_FLOOR_TOKENS, requestTokens, toolPassHold } from '../src/admission/turn-reservation.js';
import { ModelPrices, toNanoUsd } from '../src/model/model-prices.js';
import { testConfig } from './support/deps.js';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import type { Listening } from './support/listen.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { startSpendReplicas, type SpendReplicas } from './support/spend-replicas.js';

const TURNS = 200;
/** What the gateway reports each answer cost (OpenRouter's `usage.cost`), in US dollars. */
const COST_USD = 0.0005;
/** Ten times less than 200 answered turns would cost. */
const CAP_USD = (TURNS * COST_USD) / 10;

let pg: TestPostgres;
let gw: FakeGateway;
const stores: BudgetStore[] = [];
const servers: Listening[] = [];
let replicas: SpendReplicas | undefined;

beforeAll(async () => {
  pg = await startTestPostgres();
  gw = await startFakeGateway({ handler: () => ({ text: 'Hello from the campus.', usage: { prompt_tokens: 900, completion_tokens: 20, cost: COST_USD }, delayMs: 20 }) });
  const config = testConfig({
    TOKEN_BUDGET_STORE: 'postgres',
    DATABASE_URL: pg.url,
    SERVICE_DAILY_SPEND_LIMIT_USD: String(CAP_USD),
    MAX_OUTPUT_TOKENS: '400',
    MAX_ANONYMOUS_TURNS_IN_FLIGHT: String(TURNS),
  });
  replicas = await startSpendReplicas(config, gw);
  stores.push(...replicas.stores);
  servers.push(...replicas.servers);
}, 60_000);

afterAll(async () => {
  await replicas?.close();
  await gw?.close();
  await pg?.stop();
});

const turn = async (replica: number, i: number) => {
  const res = await replicas!.respond(replica, `student-${i}`);
  const body = (await res.json()) as { error?: string };
  return { status: res.status, error: body.error ?? null, retryAfter: res.headers.get('retry-after') };
};

describe('the service-wide spending cap on two replicas', () => {
  it('holds under 200 concurrent turns it would overrun tenfold, and stops within one worst case of the cap', async () => {
    const day = utcDay(new Date());
    const outcomes = await Promise.all(Array.from({ length: TURNS }, (_, i) => turn(i % 2, i)));
    for (const o of outcomes) {
      if (o.status === 503) {
        expect(o.error).toBe('assistant paused');
        expect(Number(o.retryAfter)).toBeGreaterThan(0);
      } else expect(o.status).toBe(200);
    }
    const answered = outcomes.filter((o) => o.status === 200).length;
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(TURNS);
    const cap = toNanoUsd(CAP_USD);
    const costOne = toNanoUsd(COST_USD);
    let spent = await stores[0]!.spent(SERVICE_BUCKET, day);
    expect(spent).toBe(answered * costOne);
    expect(spent).toBeLessThanOrEqual(cap);

    // One at a time now: nothing is held by another turn, so each is admitted while its worst case fits.
    const prices = new ModelPrices(testConfig().gateway.prices);
    const worstCase = prices.worstCase('openai/gpt-4o-mini', toolPassHold(requestTokens({ query: 'hi', history: [] }) + PROMPT_SIZE_FLOOR_TOKENS, 400));
    let more = 0;
    for (let i = 0; i < 100; i++) {
      const o = await turn(i % 2, TURNS + i);
      if (o.status === 503) break;
      expect(o.status).toBe(200);
      more++;
    }
    spent = await stores[1]!.spent(SERVICE_BUCKET, day);
    expect(spent).toBe((answered + more) * costOne);
    expect(spent).toBeLessThanOrEqual(cap);
    // The gateway's reported cost runs above MODEL_PRICES here (issue 61): turns hold their worst case at
    // the observed ratio, so the service stops within one such worst case of the cap.
    const ratio = (await stores[0]!.priceRatios(day)).get('openai/gpt-4o-mini') ?? 1;
    expect(cap - spent).toBeLessThan(worstCase * ratio);
    // Every answered turn made one gateway call; the refused ones made none.
    expect(gw.chatRequests()).toHaveLength(answered + more);
  }, 120_000);
});
