/**
 * Builds the budget store the configuration asks for: SQLite at TOKEN_USAGE_DB (default), or
 * Postgres at DATABASE_URL with TOKEN_BUDGET_STORE=postgres so several replicas share one budget.
 * Called once by server.ts; the caller closes the store at shutdown.
 */
import type { Config } from '../config.js';
import { createDatabase, type Database } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { createPostgresBudgetStore } from './postgres-budget-store.js';
import type { BudgetStore } from './budget-store.js';

export interface BudgetStoreDeps {
  /** An open handle to reuse (the memory store's); without one the store opens and owns its own. */
  database?: Database;
}

/** Opens the configured store; for Postgres, applies the committed migrations first (idempotent, locked). */
export async function createBudgetStoreFromConfig(
  config: Pick<Config, 'budget' | 'databaseUrl'>,
  deps: BudgetStoreDeps = {},
): Promise<BudgetStore> {
  if (config.budget.store === 'sqlite') {
    // Loaded only when chosen: the native module is not in a Postgres-budget process (issue 26, the idle footprint).
    const { createSqliteBudgetStore } = await import('./sqlite-budget-store.js');
    return createSqliteBudgetStore({ path: config.budget.sqlitePath });
  }
  if (deps.database) {
    await runMigrations(deps.database);
    return createPostgresBudgetStore({ database: deps.database });
  }
  // parseConfig refuses TOKEN_BUDGET_STORE=postgres without DATABASE_URL; this guards direct callers.
  if (!config.databaseUrl) throw new Error('TOKEN_BUDGET_STORE=postgres requires DATABASE_URL');
  // A small pool: two short statements per model pass.
  const database = createDatabase(config.databaseUrl, { max: 4 });
  try {
    await runMigrations(database);
  } catch (err) {
    await database.close();
    throw err;
  }
  return createPostgresBudgetStore({ database, ownsDatabase: true });
}
