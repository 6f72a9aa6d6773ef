/**
 * One test suite for both budget stores: SQLite (a temporary file) and Postgres (PGlite over the
 * wire protocol, migrated with the committed migrations). Store semantics first, then the admission
 * rules on top of each store: a turn held at admission, 429 with Retry-After, top-ups granted or
 * declined, single calls reserved and settled, giving back, a UTC midnight crossed with an injected clock, 503 when the store fails, and concurrent turns of
 * one user at the edge of the budget.
 */
import { describe, expect, it } from 'vitest';
import { noModeration } from '../src/admission/admission.js';
import { createAdmission } from '../src/admission/create-admission.js';
import type { BudgetStore } from '../src/admission/budget-store.js';
import { PROMPT_SIZE_FLOOR_TOKENS, requestTokens, toolPassHold } from '../src/admission/turn-reservation.js';
import { AppError } from '../src/http/errors.js';
import { silentLogger } from '../src/logger.js';
import type { TurnRequest } from '../src/request/chat-request.js';
import type { Usage } from '../src/model/usage.js';
import { callOf, freshStores, heldCall, postgresBackend, rejection, sqliteBackend } from './support/budget-backends.js';
import { testConfig } from './support/deps.js';

const usage = (totalTokens: number): Usage => ({ promptTokens: 0, completionTokens: totalTokens, totalTokens, estimated: false });
const request = (userId: string | null): TurnRequest => ({ query: 'hi', userId, history: [], model: 'm', disabledGroups: [] });
const MAX_OUT = 10;
// What admitting "hi" holds: a first pass that may call tools and the answer after it (turn-reservation.ts).
const FIRST_SPLIT = toolPassHold(requestTokens(request(null)) + PROMPT_SIZE_FLOOR_TOKENS, MAX_OUT);
const FIRST = FIRST_SPLIT.input + FIRST_SPLIT.output;
/** A pass of `tokens` input and no output, as a hold. */
const pass = (tokens: number) => ({ input: tokens, output: 0 });
const LIMIT = 4 * FIRST;
const config = testConfig({ DAILY_TOKEN_LIMIT: String(LIMIT), MAX_OUTPUT_TOKENS: String(MAX_OUT) });
const signal = new AbortController().signal;


describe.each([sqliteBackend(), postgresBackend()])('budget store: $name', (backend) => {
  let store: BudgetStore;
  freshStores(backend, (s) => (store = s));

  it('adds charges per bucket and day and starts every bucket at zero', async () => {
    expect(await store.used('u1', '2026-11-21')).toBe(0);
    expect(await store.charge('u1', '2026-11-21', 120)).toBe(120);
    expect(await store.charge('u1', '2026-11-21', 30)).toBe(150);
    await store.charge('u2', '2026-11-21', 7);
    await store.charge('u1', '2026-11-22', 9);
    expect(await store.used('u1', '2026-11-21')).toBe(150);
    expect(await store.used('u2', '2026-11-21')).toBe(7);
    expect(await store.used('u1', '2026-11-22')).toBe(9);
    expect(await store.used('anonymous', '2026-11-21')).toBe(0);
  });

  it('never loses a charge under 50 concurrent upserts', async () => {
    const amounts = Array.from({ length: 50 }, (_, i) => 100 + i * 37);
    const totals = await Promise.all(amounts.map((a) => store.charge('busy', '2026-11-21', a)));
    const sum = amounts.reduce((a, b) => a + b, 0);
    expect(await store.used('busy', '2026-11-21')).toBe(sum);
    // Each upsert saw a distinct running total: the additions were serialised, not overwritten.
    expect(new Set(totals).size).toBe(50);
    expect(Math.max(...totals)).toBe(sum);
  });

  it('prunes the days before a given day and keeps the rest', async () => {
    await store.charge('u1', '2026-11-19', 1);
    await store.charge('u2', '2026-11-19', 1);
    await store.charge('u1', '2026-11-20', 2);
    await store.charge('u1', '2026-11-21', 3);
    expect(await store.pruneBefore('2026-11-20')).toBe(2);
    expect(await store.used('u1', '2026-11-19')).toBe(0);
    expect(await store.used('u1', '2026-11-20')).toBe(2);
    expect(await store.used('u1', '2026-11-21')).toBe(3);
  });

  it('keeps the highest price ratio per model and day, answers for the day and the one before, prunes them with the days', async () => {
    expect(await store.priceRatios('2026-11-21')).toEqual(new Map());
    expect(await store.raisePriceRatio('m', '2026-11-20', 2.4)).toBe(2.4);
    // Concurrent raises keep the highest; a lower one changes nothing.
    const stored = await Promise.all([1.5, 3.1, 2.2].map((r) => store.raisePriceRatio('m', '2026-11-21', r)));
    expect(Math.max(...stored)).toBe(3.1);
    expect(await store.raisePriceRatio('m', '2026-11-21', 1.2)).toBe(3.1);
    await store.raisePriceRatio('other', '2026-11-19', 5);
    expect(await store.priceRatios('2026-11-21')).toEqual(new Map([['m', 3.1]]));
    // Yesterday's ratio carries into a new day.
    expect(await store.priceRatios('2026-11-22')).toEqual(new Map([['m', 3.1]]));
    expect(await store.priceRatios('2026-11-21')).not.toHaveProperty('other');
    expect(await store.pruneBefore('2026-11-21')).toBe(2);
    expect(await store.priceRatios('2026-11-21')).toEqual(new Map([['m', 3.1]]));
  });

  it("lets one caller claim a model's price check until its lease ends, a ratio replaces it, a release gives it back", async () => {
    const claims = await Promise.all([1, 2, 3, 4].map(() => store.claimPriceCheck('checked-model', '2026-11-21', 60_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    // A claim is not a price.
    expect((await store.priceRatios('2026-11-21')).has('checked-model')).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Past its lease another caller may take it over.
    expect(await store.claimPriceCheck('checked-model', '2026-11-21', 0)).toBe(true);
    expect(await store.claimPriceCheck('checked-model', '2026-11-21', 60_000)).toBe(false);
    await store.releasePriceCheck('checked-model', '2026-11-21');
    expect(await store.claimPriceCheck('checked-model', '2026-11-21', 60_000)).toBe(true);
    // The check's ratio replaces the claim; a checked price is never claimed again, nor released.
    expect(await store.raisePriceRatio('checked-model', '2026-11-21', 1)).toBe(1);
    expect((await store.priceRatios('2026-11-21')).get('checked-model')).toBe(1);
    expect(await store.claimPriceCheck('checked-model', '2026-11-21', 0)).toBe(false);
    await store.releasePriceCheck('checked-model', '2026-11-21');
    expect((await store.priceRatios('2026-11-21')).get('checked-model')).toBe(1);
  });

  it('holds a turn at admission, refuses one that does not fit, tops up or declines, settles, gives the rest back, resets at midnight', async () => {
    let clock = new Date('2026-11-21T18:00:00.000Z');
    const admission = createAdmission({ budget: store, moderation: noModeration, config, logger: silentLogger, now: () => clock });
    const alice = request('alice');
    const first = await admission.admit(alice, signal);
    // The hold counts at once: a concurrent admission sees it.
    expect(await store.used('alice', '2026-11-21')).toBe(FIRST);
    expect(first.budget.held).toBe(FIRST);
    // A pass that needs more tops up atomically while the day has room ...
    expect(await first.budget.hold(pass(FIRST + 100))).toBe(true);
    expect(await store.used('alice', '2026-11-21')).toBe(FIRST + 100);
    // ... and holding less than is held changes nothing.
    expect(await first.budget.hold(pass(5))).toBe(true);
    await first.budget.charge(usage(FIRST + 30));
    expect(first.budget.held).toBe(70);
    await first.budget.release();
    expect(await store.used('alice', '2026-11-21')).toBe(FIRST + 30);
    await store.charge('alice', '2026-11-21', LIMIT - 2 * FIRST - 150);
    // FIRST + 120 left: one more turn fits, a third does not.
    const second = await admission.admit(alice, signal);
    expect(await second.refusal).toBeNull();
    const err = await rejection(admission.admit(alice, signal));
    expect(err.status).toBe(429);
    expect(err.headers['Retry-After']).toBe(String(6 * 3600));
    expect(err.toEnvelope()).toEqual({ error: 'daily token budget exhausted', detail: expect.stringContaining('00:00 UTC') });
    // A top-up past the limit is declined (never thrown): the turn finishes within what it holds.
    expect(await second.budget.hold(pass(FIRST + 121))).toBe(false);
    expect(await store.used('alice', '2026-11-21')).toBe(LIMIT - 120);
    expect(await second.budget.hold(pass(FIRST + 120))).toBe(true);
    expect(await store.used('alice', '2026-11-21')).toBe(LIMIT);
    await second.budget.charge(usage(40));
    await second.budget.release();
    await second.budget.release();
    expect(await store.used('alice', '2026-11-21')).toBe(LIMIT - FIRST - 120 + 40);
    // Other buckets are untouched, anonymous turns included.
    expect(await (await admission.admit(request('bob'), signal)).refusal).toBeNull();
    expect(await (await admission.admit(request(null), signal)).refusal).toBeNull();

    await store.charge('alice', '2026-11-21', FIRST + 100);
    clock = new Date('2026-11-21T23:59:59.250Z');
    expect((await rejection(admission.admit(alice, signal))).headers['Retry-After']).toBe('1');
    clock = new Date('2026-11-22T00:00:00.000Z');
    const nextDay = await admission.admit(alice, signal);
    // The new day's charges start from zero: 5 used, the rest given back.
    await nextDay.budget.charge(usage(5));
    await nextDay.budget.release();
    expect(await store.used('alice', '2026-11-22')).toBe(5);
  });

  it('holds for the largest prompt a prepared turn showed (a measured floor before the first), whoever sent it', async () => {
    const admission = createAdmission({ budget: store, moderation: noModeration, config, logger: silentLogger, now: () => new Date('2026-11-21T12:00:00Z') });
    const heldFor = (prompt: number) => {
      const split = toolPassHold(requestTokens(request('frank')) + prompt, MAX_OUT);
      return split.input + split.output;
    };
    const first = await admission.admit(request('frank'), signal);
    expect(first.budget.held).toBe(heldFor(PROMPT_SIZE_FLOOR_TOKENS));
    await first.budget.release();
    admission.notePromptSize(300);
    admission.notePromptSize(120);
    const second = await admission.admit(request('frank'), signal);
    expect(second.budget.held).toBe(heldFor(300));
  });

  it('reserves a single call before it is sent and settles it after; none when the budget cannot cover it', async () => {
    const admission = createAdmission({ budget: store, moderation: noModeration, config, logger: silentLogger, now: () => new Date('2026-11-21T12:00:00Z') });
    const call = heldCall(await admission.reserveCall(callOf('gina', 300)));
    expect(await store.used('gina', '2026-11-21')).toBe(300);
    await call.settle(usage(120));
    expect(await store.used('gina', '2026-11-21')).toBe(120);
    const failed = heldCall(await admission.reserveCall(callOf('gina', 200)));
    await failed.settle(null);
    expect(await store.used('gina', '2026-11-21')).toBe(120);
    expect((await admission.reserveCall(callOf('gina', LIMIT))).refused).toBe('budget');
    expect(await store.used('gina', '2026-11-21')).toBe(120);
    // Anonymous calls share the anonymous bucket.
    await heldCall(await admission.reserveCall(callOf(null, 10))).settle(usage(10));
    expect(await store.used('anonymous', '2026-11-21')).toBe(10);
  });

  it('refuses the turn with 503 when the store fails; a top-up or a call is then declined, never thrown', async () => {
    const admission = createAdmission({ budget: store, moderation: noModeration, config, logger: silentLogger, now: () => new Date() });
    const turn = await admission.admit(request('dave'), signal);
    await store.close();
    const err = await rejection(admission.admit(request('dave'), signal));
    expect(err.status).toBe(503);
    expect(err.toEnvelope().error).toBe('token budget unavailable');
    expect(await turn.budget.hold(pass(FIRST + 1))).toBe(false);
    await expect(turn.budget.release()).resolves.toBeUndefined();
    expect((await admission.reserveCall(callOf('dave', 10))).refused).toBe('unavailable');
  });

  it('retries a failed write once, so a transient failure does not leave a pass unmetered', async () => {
    let failures = 1;
    const flaky: BudgetStore = {
      ...store,
      chargeAll: (charges) => (failures-- > 0 ? Promise.reject(new Error('connection reset')) : store.chargeAll(charges)),
    };
    const admission = createAdmission({ budget: flaky, moderation: noModeration, config, logger: silentLogger, now: () => new Date('2026-11-21T12:00:00Z') });
    const turn = await admission.admit(request('erin'), signal);
    await turn.budget.charge(usage(FIRST + 77));
    await turn.budget.release();
    expect(await store.used('erin', '2026-11-21')).toBe(FIRST + 77);
  });

  it('50 concurrent two-pass turns of one user at the edge: never past the limit, every admitted turn finishes, nothing left held', async () => {
    const now = () => new Date('2026-11-21T12:00:00Z');
    const day = '2026-11-21';
    const admission = createAdmission({ budget: store, moderation: noModeration, config, logger: silentLogger, now });
    const edge = request('edge');
    await store.charge('edge', day, LIMIT - 3 * FIRST);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        // Stagger the starts so admissions interleave with other turns' passes.
        for (let k = 0; k < i; k++) await Promise.resolve();
        let turn;
        try {
          turn = await admission.admit(edge, signal);
        } catch (err) {
          return { status: (err as AppError).status, charged: 0 };
        }
        let charged = 0;
        try {
          // As execute does: the first pass within what admission held, the second pass's top-up
          // declined or not, and each pass charged at most what was held for it.
          const firstPass = Math.floor(FIRST / 3);
          await turn.budget.charge(usage(firstPass));
          charged += firstPass;
          const topped = await turn.budget.hold(pass(turn.budget.held + 7));
          const second = Math.min(turn.budget.held, topped ? FIRST : Math.floor(FIRST / 2));
          await turn.budget.charge(usage(second));
          charged += second;
          return { status: 200, charged };
        } finally {
          await turn.budget.release();
        }
      }),
    );
    expect(outcomes.every((o) => o.status === 200 || o.status === 429)).toBe(true);
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o.status === 429).length).toBeGreaterThan(0);
    const charged = outcomes.reduce((n, o) => n + o.charged, 0);
    const total = await store.used('edge', day);
    expect(total).toBe(LIMIT - 3 * FIRST + charged);
    expect(total).toBeLessThanOrEqual(LIMIT);
  });
});
