/**
 * One test suite for both token budget stores: SQLite (a temporary file) and Postgres (PGlite over the
 * wire protocol, migrated with the committed migrations). Store semantics first, then the admission
 * rules on top of each store: reservations against the limit, 429 with Retry-After, settling and giving
 * back, a UTC midnight crossed with an injected clock, 503 when the store fails, and concurrent turns of
 * one user at the edge of the budget.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { noModeration } from '../src/admission/admission.js';
import { createAdmission } from '../src/admission/create-admission.js';
import type { TokenBudgetStore } from '../src/admission/token-budget.js';
import { AppError } from '../src/http/errors.js';
import { silentLogger } from '../src/logger.js';
import type { TurnRequest } from '../src/request/chat-request.js';
import type { Usage } from '../src/model/usage.js';
import { postgresBackend, sqliteBackend } from './support/budget-backends.js';
import { testConfig } from './support/deps.js';

const LIMIT = 1_000;
// A small allowance per pass keeps the arithmetic readable: admitting "hi" reserves 1 + 10 tokens.
const config = testConfig({ DAILY_TOKEN_LIMIT: String(LIMIT), TOKEN_RESERVE_PER_PASS: '10' });
const FIRST = 11;
const usage = (totalTokens: number): Usage => ({ promptTokens: 0, completionTokens: totalTokens, totalTokens, estimated: false });
const request = (userId: string | null): TurnRequest => ({ query: 'hi', userId, history: [], model: 'm', disabledGroups: [] });
const signal = new AbortController().signal;

/** The AppError a promise rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe.each([sqliteBackend(), postgresBackend()])('token budget store: $name', (backend) => {
  let store: TokenBudgetStore;
  beforeAll(() => backend.setup());
  afterAll(() => backend.teardown());
  beforeEach(async () => {
    store = await backend.open();
    return () => store.close();
  });

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

  it('reserves at admission, refuses a turn that does not fit, settles passes, gives the rest back, resets at midnight', async () => {
    let clock = new Date('2026-11-21T18:00:00.000Z');
    const admission = createAdmission({ budget: store, moderation: noModeration, config, logger: silentLogger, now: () => clock });
    const alice = request('alice');
    const first = await admission.admit(alice, signal);
    // The reservation counts at once: a concurrent admission sees it.
    expect(await store.used('alice', '2026-11-21')).toBe(FIRST);
    await first.budget.charge(usage(LIMIT - 20));
    await first.budget.release();
    expect(await store.used('alice', '2026-11-21')).toBe(LIMIT - 20);
    // 20 left: one more turn fits (11 reserved), a third does not (9 left).
    const second = await admission.admit(alice, signal);
    expect(second.refusal).toBeNull();
    const err = await rejection(admission.admit(alice, signal));
    expect(err.status).toBe(429);
    expect(err.headers['Retry-After']).toBe(String(6 * 3600));
    expect(err.toEnvelope()).toEqual({ error: 'daily token budget exhausted', detail: expect.stringContaining('00:00 UTC') });
    // A pass that needs more than what is left is refused before it starts ...
    expect((await rejection(second.budget.reserve(30))).status).toBe(429);
    // ... and a pass that used more than its reservation is charged in full (the one-pass overshoot).
    await second.budget.charge(usage(40));
    await second.budget.release();
    await second.budget.release();
    expect(await store.used('alice', '2026-11-21')).toBe(LIMIT + 20);
    // Other buckets are untouched, anonymous turns included.
    expect((await admission.admit(request('bob'), signal)).refusal).toBeNull();
    expect((await admission.admit(request(null), signal)).refusal).toBeNull();

    clock = new Date('2026-11-21T23:59:59.250Z');
    expect((await rejection(admission.admit(alice, signal))).headers['Retry-After']).toBe('1');
    clock = new Date('2026-11-22T00:00:00.000Z');
    const nextDay = await admission.admit(alice, signal);
    // The new day's charges start from zero: 5 used of the 11 reserved, 6 given back.
    await nextDay.budget.charge(usage(5));
    await nextDay.budget.release();
    expect(await store.used('alice', '2026-11-22')).toBe(5);
    expect(await store.used('alice', '2026-11-21')).toBe(LIMIT + 20);
  });

  it('shares the anonymous bucket between turns without a user id', async () => {
    const admission = createAdmission({ budget: store, moderation: noModeration, config, logger: silentLogger, now: () => new Date('2026-11-21T12:00:00Z') });
    await admission.charge(request(null), usage(LIMIT));
    expect(await store.used('anonymous', '2026-11-21')).toBe(LIMIT);
    expect((await rejection(admission.admit(request(null), signal))).status).toBe(429);
    expect((await admission.admit(request('carol'), signal)).refusal).toBeNull();
  });

  it('refuses the turn with 503 when the store fails, and charge never throws', async () => {
    const admission = createAdmission({ budget: store, moderation: noModeration, config, logger: silentLogger, now: () => new Date() });
    await store.close();
    const err = await rejection(admission.admit(request('dave'), signal));
    expect(err.status).toBe(503);
    expect(err.toEnvelope().error).toBe('token budget unavailable');
    await expect(admission.charge(request('dave'), usage(10))).resolves.toBeUndefined();
  });

  it('retries a failed charge once, so a transient failure does not leave a pass unmetered', async () => {
    let failures = 1;
    const flaky: TokenBudgetStore = {
      ...store,
      charge: (b, d, t) => (failures-- > 0 ? Promise.reject(new Error('connection reset')) : store.charge(b, d, t)),
    };
    const admission = createAdmission({ budget: flaky, moderation: noModeration, config, logger: silentLogger, now: () => new Date('2026-11-21T12:00:00Z') });
    await admission.charge(request('erin'), usage(77));
    expect(await store.used('erin', '2026-11-21')).toBe(77);
  });

  it('50 concurrent two-pass turns of one user at the edge: charged ≤ limit + one pass, every reported token, nothing left reserved', async () => {
    const now = () => new Date('2026-11-21T12:00:00Z');
    const day = '2026-11-21';
    await store.charge('edge', day, LIMIT - 300);
    // Admission reserves 1 + 39 = 40, what the first pass reserves for both passes (as execute does
    // when it offers tools), so an admitted turn can finish.
    const wholeTurn = testConfig({ DAILY_TOKEN_LIMIT: String(LIMIT), TOKEN_RESERVE_PER_PASS: '39' });
    const admission = createAdmission({ budget: store, moderation: noModeration, config: wholeTurn, logger: silentLogger, now });
    const passes = Array.from({ length: 50 }, (_, i) => [12 + (i % 7) * 2, 6 + (i % 3)] as const);
    const outcomes = await Promise.all(
      passes.map(async ([a, b], i) => {
        // Stagger the starts so admissions interleave with other turns' passes.
        for (let k = 0; k < i; k++) await Promise.resolve();
        let turn;
        try {
          turn = await admission.admit(request('edge'), signal);
        } catch (err) {
          return { status: (err as AppError).status, charged: 0 };
        }
        let charged = 0;
        try {
          // Each pass reserves its estimate before it starts (the first for both) and settles what it used.
          for (const [k, used] of [a, b].entries()) {
            await turn.budget.reserve(k === 0 ? 40 : 20);
            await turn.budget.charge(usage(used));
            charged += used;
          }
          return { status: 200, charged };
        } catch (err) {
          return { status: (err as AppError).status, charged };
        } finally {
          await turn.budget.release();
        }
      }),
    );
    const statuses = new Set(outcomes.map((o) => o.status));
    expect([...statuses].every((s) => s === 200 || s === 429)).toBe(true);
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o.status === 429).length).toBeGreaterThan(0);
    const charged = outcomes.reduce((n, o) => n + o.charged, 0);
    const total = await store.used('edge', day);
    expect(total).toBe(LIMIT - 300 + charged);
    expect(total).toBeLessThanOrEqual(LIMIT + 24);
  });
});
