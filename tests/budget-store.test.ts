/**
 * One test suite for both token budget stores: SQLite (a temporary file) and Postgres (PGlite over the
 * wire protocol, migrated with the committed migrations). Store semantics first, then the admission
 * rules on top of each store: the limit, 429 with Retry-After, a UTC midnight crossed with an injected
 * clock, 503 when the store fails, and concurrent turns of one user at the edge of the budget.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { noModeration } from '../src/admission/admission.js';
import { createAdmission } from '../src/admission/create-admission.js';
import type { TokenBudgetStore } from '../src/admission/token-budget.js';
import { AppError } from '../src/http/errors.js';
import { silentLogger } from '../src/logger.js';
import type { TurnRequest } from '../src/request/chat-request.js';
import type { Usage } from '../src/model/usage.js';
import { observeBudgetStore, postgresBackend, sqliteBackend } from './support/budget-backends.js';
import { testConfig } from './support/deps.js';

const LIMIT = 1_000;
const config = testConfig({ DAILY_TOKEN_LIMIT: String(LIMIT) });
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

  it('refuses with 429 once the day is spent, Retry-After to 00:00 UTC, and admits again after midnight', async () => {
    let clock = new Date('2026-11-21T18:00:00.000Z');
    const admission = createAdmission({ budget: store, moderation: noModeration, config, logger: silentLogger, now: () => clock });
    const alice = request('alice');
    await admission.admit(alice, signal);
    await admission.charge(alice, usage(LIMIT - 1));
    // Below the limit by one token: still admitted (admit while used < limit) ...
    expect((await admission.admit(alice, signal)).refusal).toBeNull();
    await admission.charge(alice, usage(40));
    // ... and the admitted turn's own pass overshoots; the next one is refused.
    const err = await rejection(admission.admit(alice, signal));
    expect(err.status).toBe(429);
    expect(err.headers['Retry-After']).toBe(String(6 * 3600));
    expect(err.toEnvelope()).toEqual({ error: 'daily token budget exhausted', detail: expect.stringContaining('00:00 UTC') });
    // Other buckets are untouched, anonymous turns included.
    expect((await admission.admit(request('bob'), signal)).refusal).toBeNull();
    expect((await admission.admit(request(null), signal)).refusal).toBeNull();

    clock = new Date('2026-11-21T23:59:59.250Z');
    expect((await rejection(admission.admit(alice, signal))).headers['Retry-After']).toBe('1');
    clock = new Date('2026-11-22T00:00:00.000Z');
    expect((await admission.admit(alice, signal)).refusal).toBeNull();
    // The new day's charges start from zero; yesterday's total is kept, older days pruned.
    await admission.charge(alice, usage(5));
    expect(await store.used('alice', '2026-11-22')).toBe(5);
    expect(await store.used('alice', '2026-11-21')).toBe(LIMIT + 39);
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

  it('50 concurrent turns of one user at the edge: every reported token charged, no turn admitted on a spent total', async () => {
    const now = () => new Date('2026-11-21T12:00:00Z');
    const day = '2026-11-21';
    await store.charge('edge', day, LIMIT - 100);
    // Observe the real store: what each admission read, and when charges completed.
    const { store: observed, log } = observeBudgetStore(store);
    const admission = createAdmission({ budget: observed, moderation: noModeration, config, logger: silentLogger, now });
    const reported = Array.from({ length: 50 }, (_, i) => 10 + (i % 7) * 5);
    const outcomes = await Promise.all(
      reported.map(async (tokens, i) => {
        const req = request('edge');
        // Stagger the starts so admissions interleave with other turns' charges.
        for (let k = 0; k < i; k++) await Promise.resolve();
        try {
          await admission.admit(req, signal);
        } catch (err) {
          return { admitted: false, status: (err as AppError).status, tokens: 0 };
        }
        // A turn makes two passes; both are charged.
        await admission.charge(req, usage(tokens - 3));
        await admission.charge(req, usage(3));
        return { admitted: true, status: 200, tokens };
      }),
    );
    const admitted = outcomes.filter((o) => o.admitted);
    expect(admitted.length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => !o.admitted).every((o) => o.status === 429)).toBe(true);
    // Never less than what the gateway reported (exactly that, in fact).
    const charged = admitted.reduce((a, o) => a + o.tokens, 0);
    expect(await store.used('edge', day)).toBe(LIMIT - 100 + charged);
    // Each admission read a total no older than every charge completed before it began, and was
    // admitted exactly when that total was below the limit.
    const reads = log.filter((e) => e.op === 'read');
    expect(reads).toHaveLength(50);
    for (const read of reads) {
      const before = log.filter((e) => e.op === 'charged' && e.seq < read.seq).map((e) => e.total);
      expect(read.total).toBeGreaterThanOrEqual(Math.max(LIMIT - 100, ...before));
    }
    expect(reads.filter((r) => r.total < LIMIT)).toHaveLength(admitted.length);
    // Once the stored total passed the limit, the next turn is refused.
    expect((await rejection(admission.admit(request('edge'), signal))).status).toBe(429);
  });
});
