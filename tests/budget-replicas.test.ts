/**
 * The budget store chosen by configuration, and the shared budget of several replicas: with
 * TOKEN_BUDGET_STORE=postgres two service instances (each its own pool, both migrating at start) see
 * one budget per user; the default SQLite store creates its file where TOKEN_USAGE_DB points.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noModeration } from '../src/admission/admission.js';
import { createBudgetStoreFromConfig } from '../src/admission/budget-store-from-config.js';
import { createAdmission } from '../src/admission/create-admission.js';
import { AppError } from '../src/http/errors.js';
import { silentLogger } from '../src/logger.js';
import type { TurnRequest } from '../src/request/chat-request.js';
import { callOf, heldCall } from './support/budget-backends.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { testConfig } from './support/deps.js';

const request: TurnRequest = { query: 'hi', userId: 'shared-user', history: [], model: 'm', disabledGroups: [] };
const signal = new AbortController().signal;
const now = () => new Date('2026-11-21T09:30:00Z');

describe('budget store from configuration', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startTestPostgres();
  });
  afterAll(() => pg.stop());

  it('shares one budget between two replicas on Postgres, migrating an empty database at start', async () => {
    const config = testConfig({ TOKEN_BUDGET_STORE: 'postgres', DATABASE_URL: pg.url, DAILY_TOKEN_LIMIT: '20000', MAX_OUTPUT_TOKENS: '10' });
    // Two replicas starting together: both run the (locked, idempotent) migrations.
    const [a, b] = await Promise.all([createBudgetStoreFromConfig(config), createBudgetStoreFromConfig(config)]);
    try {
      const replicaA = createAdmission({ budget: a, moderation: noModeration, config, logger: silentLogger, now });
      const replicaB = createAdmission({ budget: b, moderation: noModeration, config, logger: silentLogger, now });
      await (await replicaA.admit(request, signal)).budget.release();
      const [callA, callB] = (await Promise.all([replicaA.reserveCall(callOf('shared-user', 12_000)), replicaB.reserveCall(callOf('shared-user', 8_000))])).map(heldCall);
      await Promise.all([
        callA!.settle({ promptTokens: 10_000, completionTokens: 2_000, totalTokens: 12_000, estimated: false }),
        callB!.settle({ promptTokens: 6_000, completionTokens: 2_000, totalTokens: 8_000, estimated: false }),
      ]);
      expect(await b.used('shared-user', '2026-11-21')).toBe(20_000);
      for (const replica of [replicaA, replicaB]) {
        const err = await replica.admit(request, signal).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).status).toBe(429);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('opens the SQLite file at TOKEN_USAGE_DB by default, creating its directory, and keeps totals across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'budget-config-'));
    try {
      const path = join(dir, 'nested', 'usage.sqlite');
      const config = testConfig({ TOKEN_USAGE_DB: path });
      expect(config.budget.store).toBe('sqlite');
      const first = await createBudgetStoreFromConfig(config);
      await first.charge('u', '2026-11-21', 42);
      await first.close();
      expect(existsSync(path)).toBe(true);
      const second = await createBudgetStoreFromConfig(config);
      expect(await second.used('u', '2026-11-21')).toBe(42);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
