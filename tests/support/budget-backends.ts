/**
 * The two budget stores as test backends, so one suite runs on both: SQLite on a fresh file in a
 * temporary directory, Postgres on PGlite over the wire protocol with the committed migrations. Not a
 * test file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { AppError } from '../../src/http/errors.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresBudgetStore } from '../../src/admission/postgres-budget-store.js';
import { createSqliteBudgetStore } from '../../src/admission/sqlite-budget-store.js';
import type { BudgetStore } from '../../src/admission/budget-store.js';
import type { CallRefusal, CallReservation, CallToReserve } from '../../src/model/metered-call.js';
import { createDatabase, type Database } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { startTestPostgres, type TestPostgres } from './postgres.js';

export interface Backend {
  name: string;
  setup(): Promise<void>;
  /** A fresh store over an empty table. */
  open(): Promise<BudgetStore>;
  /** A second handle on the store `open` last made (another process or replica on the same data). */
  another(): Promise<BudgetStore>;
  teardown(): Promise<void>;
}

export function sqliteBackend(): Backend {
  let dir = '';
  let n = 0;
  return {
    name: 'sqlite',
    async setup() {
      dir = mkdtempSync(join(tmpdir(), 'budget-store-'));
    },
    async open() {
      return createSqliteBudgetStore({ path: join(dir, `usage-${++n}.sqlite`) });
    },
    async another() {
      return createSqliteBudgetStore({ path: join(dir, `usage-${n}.sqlite`) });
    },
    async teardown() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postgresBackend(): Backend {
  let pg: TestPostgres;
  let database: Database;
  return {
    name: 'postgres',
    async setup() {
      pg = await startTestPostgres();
      database = createDatabase(pg.url, { max: 4 });
      await runMigrations(database);
    },
    async open() {
      await database.sql`delete from token_usage`;
      // Each store gets its own pool so closing it (the failure test) leaves the others working.
      return createPostgresBudgetStore({ database: createDatabase(pg.url, { max: 4 }), ownsDatabase: true });
    },
    async another() {
      return createPostgresBudgetStore({ database: createDatabase(pg.url, { max: 4 }), ownsDatabase: true });
    },
    async teardown() {
      await database.close();
      await pg.stop();
    },
  };
}

/**
 * Sets up `backend` for the enclosing describe block: each test gets a fresh store (`use` is given it),
 * closed after the test.
 */
export function freshStores(backend: Backend, use: (store: BudgetStore) => void): void {
  beforeAll(() => backend.setup());
  afterAll(() => backend.teardown());
  beforeEach(async () => {
    const store = await backend.open();
    use(store);
    return () => store.close();
  });
}

/** A title-sized call of `tokens` input for `userId`, on a model named `m` (priced at the table's highest). */
export function callOf(userId: string | null, tokens: number, model = 'm'): CallToReserve {
  return { userId, model, purpose: 'title', tokens: { input: tokens, output: 0 } };
}

/** The reservation of a call the budget covered (fails the test when it refused). */
export function heldCall(r: CallReservation | CallRefusal): CallReservation {
  if (r.refused !== null) throw new Error(`expected the call to be held, it was refused (${r.refused})`);
  return r;
}

/** The AppError a promise rejects with (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}
