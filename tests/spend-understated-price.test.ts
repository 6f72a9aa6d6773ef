/**
 * Issue 61, item 5: a money cap that does not trust the configured price. The gateway reports
 * `usage.cost` three times what MODEL_PRICES implies for the usage it reports; two replicas (each its own
 * app, listening server, admission and pool) share the budget on Postgres (the real server in CI through
 * TEST_DATABASE_URL, PGlite otherwise). Twenty turns at a time, until both replicas refuse: the service
 * and a user each end within one turn's worst case (at the observed price) of their cap, where reserving
 * at the configured price passed the cap by as much as the turns in flight could overspend. The ratio is
 * stored for the other replica, warned once per model, and exported as a gauge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_BUCKET, utcDay, type BudgetStore } from '../src/admission/budget-store.js';
import { PROMPT_SIZE_FLOOR_TOKENS, requestTokens, toolPassHold } from '../src/admission/turn-reservation.js';
import { createLogger } from '../src/logger.js';
import { ModelPrices, toNanoUsd } from '../src/model/model-prices.js';
import { testConfig } from './support/deps.js';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import type { Listening } from './support/listen.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { startSpendReplicas, type SpendReplicas } from './support/spend-replicas.js';

const MODEL = 'openai/gpt-4o-mini';
const MAX_OUT = 400;
/** How far above the configured price the gateway's reported cost runs. */
const UNDERSTATED = 3;
const USAGE = { prompt_tokens: 3_000, completion_tokens: MAX_OUT };
const prices = new ModelPrices(testConfig().gateway.prices);
/** What the gateway reports each answer cost: three times its usage at the configured price. */
const REPORTED_USD = (UNDERSTATED * prices.atPrice(MODEL, { promptTokens: USAGE.prompt_tokens, completionTokens: USAGE.completion_tokens, totalTokens: 3_400, estimated: false })) / 1e9;
/** One turn's worst case as admission first holds it, at the configured price and at the observed one. */
const WORST_AT_PRICE = prices.worstCase(MODEL, toolPassHold(requestTokens({ query: 'hi', history: [] }) + PROMPT_SIZE_FLOOR_TOKENS, MAX_OUT));
const WORST_OBSERVED = WORST_AT_PRICE * UNDERSTATED;
const SERVICE_CAP_USD = (60 * REPORTED_USD);
const USER_CAP_USD = (12 * REPORTED_USD);

let pg: TestPostgres;
let gw: FakeGateway;
const stores: BudgetStore[] = [];
const servers: Listening[] = [];
let replicas: SpendReplicas | undefined;
const lines: Array<Record<string, unknown>> = [];
const gauges: Array<{ model: string; ratio: number }> = [];

beforeAll(async () => {
  pg = await startTestPostgres();
  gw = await startFakeGateway({ handler: () => ({ text: 'Hello from the campus.', usage: { ...USAGE, cost: REPORTED_USD }, delayMs: 30 }) });
  const config = testConfig({
    TOKEN_BUDGET_STORE: 'postgres',
    DATABASE_URL: pg.url,
    SERVICE_DAILY_SPEND_LIMIT_USD: String(SERVICE_CAP_USD),
    DAILY_SPEND_LIMIT_USD: String(USER_CAP_USD),
    MAX_OUTPUT_TOKENS: String(MAX_OUT),
    MAX_ANONYMOUS_TURNS_IN_FLIGHT: '50',
  });
  const logger = createLogger({ level: 'warn', sink: (line) => lines.push(JSON.parse(line)) });
  const metrics = { spend: () => undefined, serviceSpend: () => undefined, priceRatio: (o: { model: string; ratio: number }) => gauges.push(o) };
  replicas = await startSpendReplicas(config, gw, { logger, metrics });
  stores.push(...replicas.stores);
  servers.push(...replicas.servers);
}, 60_000);

afterAll(async () => {
  await replicas?.close();
  await gw?.close();
  await pg?.stop();
});

const turn = async (replica: number, user: string) => {
  const res = await replicas!.respond(replica, user);
  await res.arrayBuffer();
  return res.status;
};

/** `width` turns at a time, alternating replicas, until a whole round is refused; the statuses seen. */
async function untilRefused(width: number, user: (i: number) => string): Promise<number[]> {
  const seen: number[] = [];
  for (let round = 0; round < 40; round++) {
    const statuses = await Promise.all(Array.from({ length: width }, (_, i) => turn(i % 2, user(round * width + i))));
    seen.push(...statuses);
    if (statuses.every((s) => s !== 200)) break;
  }
  return seen;
}

describe('a gateway that reports three times the configured price', () => {
  it('never takes a user more than one turn past their spend limit, on two replicas', async () => {
    const day = utcDay(new Date());
    const statuses = await untilRefused(20, () => 'student-one');
    expect(statuses).toContain(200);
    expect(statuses).toContain(429);
    const spent = await stores[0]!.spent('student-one', day);
    expect(spent).toBeLessThanOrEqual(toNanoUsd(USER_CAP_USD) + WORST_OBSERVED);
  }, 120_000);

  it('never takes the service more than one turn past its cap, on two replicas', async () => {
    const day = utcDay(new Date());
    const statuses = await untilRefused(20, (i) => `student-${i}`);
    expect(statuses).toContain(503);
    const spent = await stores[1]!.spent(SERVICE_BUCKET, day);
    expect(spent).toBeLessThanOrEqual(toNanoUsd(SERVICE_CAP_USD) + WORST_OBSERVED);
  }, 120_000);

  it('stores the observed ratio for every replica, warns once for the model, exports it', async () => {
    const ratios = await stores[1]!.priceRatios(utcDay(new Date()));
    expect(ratios.get(MODEL)).toBeGreaterThanOrEqual(UNDERSTATED * 0.99);
    expect(ratios.get(MODEL)).toBeLessThanOrEqual(UNDERSTATED * 1.02);
    const warnings = lines.filter((l) => String(l.msg).includes('above MODEL_PRICES'));
    // Once per model and day in each replica that saw it itself (a replica that read it from the store is quiet).
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.length).toBeLessThanOrEqual(2);
    expect(warnings[0]).toMatchObject({ model: MODEL, configured_usd_per_mtok: { input: 0.15, output: 0.6 } });
    expect(gauges.some((g) => g.model === MODEL && g.ratio >= UNDERSTATED * 0.99)).toBe(true);
  });
});
