/**
 * The refund window (admission/refund-window.ts, BUDGET_REFUND_WINDOW_MS): what finished turns give back
 * within it is written in one transaction (`BudgetStore.chargeAll`), on both stores (SQLite on a file,
 * Postgres: PGlite, or the real server with TEST_DATABASE_URL), through `createAdmission` as the service
 * builds it; a reservation for a bucket with a refund waiting writes it first; close writes the rest; a
 * failed write is retried once and then left, logged.
 */
import { describe, expect, it } from 'vitest';
import { noModeration } from '../src/admission/admission.js';
import type { BudgetCharge, BudgetStore } from '../src/admission/budget-store.js';
import { createAdmission } from '../src/admission/create-admission.js';
import { RefundWindow } from '../src/admission/refund-window.js';
import { PROMPT_SIZE_FLOOR_TOKENS, requestTokens, toolPassHold } from '../src/admission/turn-reservation.js';
import { createLogger, silentLogger } from '../src/logger.js';
import type { TurnRequest } from '../src/request/chat-request.js';
import type { Usage } from '../src/model/usage.js';
import { freshStores, postgresBackend, rejection, sqliteBackend } from './support/budget-backends.js';
import { testConfig } from './support/deps.js';

const DAY = '2026-11-21';
const now = () => new Date(`${DAY}T12:00:00Z`);
const request = (userId: string): TurnRequest => ({ query: 'hi', userId, history: [], model: 'm', disabledGroups: [] });
const usage = (totalTokens: number): Usage => ({ promptTokens: 0, completionTokens: totalTokens, totalTokens, estimated: false });
const MAX_OUT = 10;
const FIRST_SPLIT = toolPassHold(requestTokens(request('x')) + PROMPT_SIZE_FLOOR_TOKENS, MAX_OUT);
/** What a turn holds when admitted. */
const FIRST = FIRST_SPLIT.input + FIRST_SPLIT.output;
const LIMIT = 3 * FIRST;
const config = testConfig({ DAILY_TOKEN_LIMIT: String(LIMIT), MAX_OUTPUT_TOKENS: String(MAX_OUT) });
const signal = new AbortController().signal;

/** `store` with its `chargeAll` calls recorded, and failing while `failures` is above 0. */
function recorded(store: BudgetStore) {
  const batches: BudgetCharge[][] = [];
  const wrapped = {
    failures: 0,
    batches,
    store: {
      ...store,
      chargeAll: async (charges: readonly BudgetCharge[]) => {
        batches.push(charges.map((c) => ({ ...c })));
        if (wrapped.failures > 0) {
          wrapped.failures--;
          throw new Error('connection reset');
        }
        return store.chargeAll(charges);
      },
    } satisfies BudgetStore,
  };
  return wrapped;
}

describe.each([sqliteBackend(), postgresBackend()])('refund window on $name', (backend) => {
  let store: BudgetStore;
  freshStores(backend, (s) => (store = s));

  it('chargeAll adds every charge, the service row with those that say so', async () => {
    await store.chargeAll([
      { bucket: 'ann', day: DAY, tokens: 500, nanoUsd: 7_000, service: true },
      { bucket: 'bob', day: DAY, tokens: 300, nanoUsd: 0, service: false },
      { bucket: 'ann', day: '2026-11-22', tokens: 20, nanoUsd: 0, service: false },
    ]);
    await store.chargeAll([{ bucket: 'ann', day: DAY, tokens: -200, nanoUsd: -2_000, service: true }]);
    expect(await store.used('ann', DAY)).toBe(300);
    expect(await store.spent('ann', DAY)).toBe(5_000);
    expect(await store.spent('#service', DAY)).toBe(5_000);
    expect(await store.used('bob', DAY)).toBe(300);
    expect(await store.used('ann', '2026-11-22')).toBe(20);
    // No total goes below 0, as with `charge`.
    await store.chargeAll([{ bucket: 'bob', day: DAY, tokens: -1_000, nanoUsd: 0, service: false }]);
    expect(await store.used('bob', DAY)).toBe(0);
    await store.chargeAll([]);
  });

  it('writes the refunds of the turns that end within the window in one write, and holds them until then', async () => {
    const r = recorded(store);
    const admission = createAdmission({ budget: r.store, moderation: noModeration, config, logger: silentLogger, now, refundWindowMs: 200 });
    const turns = await Promise.all(['ann', 'bob', 'cy'].map((user) => admission.admit(request(user), signal)));
    for (const t of turns) await t.budget.charge(usage(40));
    await Promise.all(turns.map((t) => t.budget.release()));
    // Released, not yet written: each day total still counts the turn's hold.
    expect(await store.used('ann', DAY)).toBe(FIRST);
    await new Promise((resolve) => setTimeout(resolve, 400));
    for (const user of ['ann', 'bob', 'cy']) expect(await store.used(user, DAY)).toBe(40);
    expect(r.batches).toHaveLength(1);
    expect(r.batches[0]!.map((c) => c.bucket)).toEqual(['ann', 'bob', 'cy']);
    expect(r.batches[0]!.every((c) => c.tokens === 40 - FIRST)).toBe(true);
    await admission.close();
  });

  it("a reservation refused while refunds wait writes them and asks again: a window never refuses a turn that fits", async () => {
    const r = recorded(store);
    const admission = createAdmission({ budget: r.store, moderation: noModeration, config, logger: silentLogger, now, refundWindowMs: 60_000 });
    // Two turns hold 2 × FIRST of 3 × FIRST; both end having used 10 tokens.
    const [a, b] = await Promise.all([admission.admit(request('dee'), signal), admission.admit(request('dee'), signal)]);
    await a!.budget.charge(usage(10));
    await b!.budget.charge(usage(10));
    // Another student's refund waits beside theirs.
    const other = await admission.admit(request('eve'), signal);
    await other.budget.release();
    await a!.budget.release();
    await b!.budget.release();
    expect(r.batches).toHaveLength(0);
    // Without the refunds two more turns would not fit (20 + 2 × FIRST held); with them both do, at once.
    const [c, d] = await Promise.all([admission.admit(request('dee'), signal), admission.admit(request('dee'), signal)]);
    expect(r.batches).toHaveLength(1);
    expect(await store.used('dee', DAY)).toBe(20 + 2 * FIRST);
    // A third is refused by the limit, as it would be without a window.
    expect((await rejection(admission.admit(request('dee'), signal))).status).toBe(429);
    await c!.budget.release();
    await d!.budget.release();
    // Closing writes what waits, and a refund given after it is written at once.
    await admission.close();
    expect(await store.used('dee', DAY)).toBe(20);
    const late = await admission.admit(request('fay'), signal);
    await late.budget.release();
    expect(await store.used('fay', DAY)).toBe(0);
    expect(await store.used('eve', DAY)).toBe(0);
  });

  it('retries a failed write once, and logs and leaves a write that fails twice, the service going on', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', sink: (line) => lines.push(line) });
    const r = recorded(store);
    const admission = createAdmission({ budget: r.store, moderation: noModeration, config, logger, now, refundWindowMs: 50 });
    r.failures = 1;
    await (await admission.admit(request('gus'), signal)).budget.release();
    await admission.close();
    expect(await store.used('gus', DAY)).toBe(0);
    expect(r.batches).toHaveLength(2);
    r.failures = 2;
    await (await admission.admit(request('hal'), signal)).budget.release();
    expect(await store.used('hal', DAY)).toBe(FIRST);
    const logged = lines.map((l) => JSON.parse(l) as { level: string; msg: string; refunds?: number; tokens?: number });
    expect(logged.filter((l) => l.msg === 'token budget write failed; retrying once')).toHaveLength(2);
    const left = logged.find((l) => l.msg === 'token budget write failed; left as it was');
    expect(left).toMatchObject({ level: 'error', refunds: 1, tokens: FIRST });
    // The next refund is written as usual.
    await (await admission.admit(request('ida'), signal)).budget.release();
    expect(await store.used('ida', DAY)).toBe(0);
  });

  it('two replicas writing their windows at once, given in opposite orders, neither deadlocks nor loses a refund', async () => {
    const other = await backend.another();
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', sink: (line) => lines.push(line) });
    // Large windows, so that the two statements overlap in the database.
    const users = Array.from({ length: 1_500 }, (_, i) => `peer-${String(i).padStart(4, '0')}`);
    await store.chargeAll(users.map((bucket) => ({ bucket, day: DAY, tokens: 1_000, nanoUsd: 0, service: false })));
    const windows = [store, other].map((budget) => new RefundWindow(budget, 60_000, logger));
    try {
      for (let round = 0; round < 3; round++) {
        // One replica's turns end first to last, the other's last to first: the order each window was given.
        for (const u of users) await windows[0]!.give(u, DAY, 30, 0, false);
        for (const u of [...users].reverse()) await windows[1]!.give(u, DAY, 40, 0, false);
        await Promise.all(windows.map((w) => w.flush()));
      }
      expect(lines).toEqual([]);
      for (const u of [users[0]!, users[700]!, users.at(-1)!]) expect(await store.used(u, DAY)).toBe(1_000 - 3 * 70);
    } finally {
      await other.close();
    }
  });
});
