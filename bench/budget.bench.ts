/**
 * Cost of admission control's budget work per turn: the reservation before the model call (`admit`,
 * one conditional upsert), a charge outside a turn (`charge`, one upsert: titles, extraction) and a
 * whole turn's budget work (admit, two passes settled, the rest given back), for the SQLite store (file in WAL mode)
 * and the Postgres store (PGlite over the wire protocol: a local stand-in, not a networked server).
 * Moderation is off here (it is a provider round trip, measured by the provider, not by us).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noModeration } from '../src/admission/admission.js';
import { createAdmission } from '../src/admission/create-admission.js';
import { createPostgresBudgetStore } from '../src/admission/postgres-budget-store.js';
import { createSqliteBudgetStore } from '../src/admission/sqlite-budget-store.js';
import type { BudgetStore } from '../src/admission/budget-store.js';
import { parseConfig } from '../src/config.js';
import { createDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { silentLogger } from '../src/logger.js';
import type { TurnRequest } from '../src/request/chat-request.js';
import type { Usage } from '../src/model/usage.js';
import { postgresLabel, startTestPostgres } from '../tests/support/postgres.js';
import { ms, quantile, timeRuns } from './support/stats.js';

const RUNS = 2_000;
/** Users the turns are spread over, so reads and upserts hit many rows, as in service. */
const USERS = 500;
const config = parseConfig({ AGENT_ENV: 'test', DAILY_TOKEN_LIMIT: String(Number.MAX_SAFE_INTEGER) });
/** The same, with a per-user and a service-wide spend limit that never bind (issue 47): every call also carries money and the service row. */
const spendConfig = parseConfig({
  AGENT_ENV: 'test',
  DAILY_TOKEN_LIMIT: String(Number.MAX_SAFE_INTEGER),
  DAILY_SPEND_LIMIT_USD: '1000000',
  SERVICE_DAILY_SPEND_LIMIT_USD: '1000000',
});
const usage: Usage = { promptTokens: 900, completionTokens: 150, totalTokens: 1050, estimated: false };
const signal = new AbortController().signal;

function requests(): () => TurnRequest {
  let i = 0;
  return () => ({ query: 'q', userId: `user-${i++ % USERS}`, history: [], model: 'm', disabledGroups: [] });
}

interface Row {
  store: string;
  op: string;
  samples: number[];
}

async function measure(name: string, store: BudgetStore, withSpend = false): Promise<Row[]> {
  const admission = createAdmission({ budget: store, moderation: noModeration, config: withSpend ? spendConfig : config, logger: silentLogger, now: () => new Date() });
  if (withSpend) name += ', spend limits on';
  const next = requests();
  const check = await timeRuns(RUNS, async () => (await admission.admit(next(), signal)).budget.release());
  const charge = await timeRuns(RUNS, async () => {
    const held = await admission.reserveCall({ userId: next().userId, model: 'm', purpose: 'title', tokens: { input: 400, output: 100 } });
    if (held.refused === null) await held.settle(usage);
  });
  // A typical turn: admitted (one reservation), two model passes (tool call, then answer) each
  // reserved before and settled after, then the rest given back.
  const turn = await timeRuns(RUNS, async () => {
    const { budget } = await admission.admit(next(), signal);
    await budget.hold({ input: budget.held, output: 0 });
    await budget.charge(usage);
    await budget.hold({ input: budget.held + 1_000, output: 0 });
    await budget.charge(usage);
    await budget.release();
  });
  return [
    { store: name, op: 'admit (reserve) + release', samples: check },
    { store: name, op: 'reserve + settle (title or extraction)', samples: charge },
    { store: name, op: 'turn (admit, 2 passes reserved and settled, release)', samples: turn },
  ];
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'budget-bench-'));
  const sqlite = createSqliteBudgetStore({ path: join(dir, 'usage.sqlite') });
  try {
    rows.push(...(await measure('SQLite (WAL file)', sqlite)));
    rows.push(...(await measure('SQLite (WAL file)', sqlite, true)));
  } finally {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const pg = await startTestPostgres();
  const database = createDatabase(pg.url, { max: 4 });
  try {
    await runMigrations(database);
    rows.push(...(await measure(`Postgres (${postgresLabel()})`, createPostgresBudgetStore({ database }))));
    rows.push(...(await measure(`Postgres (${postgresLabel()})`, createPostgresBudgetStore({ database }), true)));
  } finally {
    await database.close();
    await pg.stop();
  }

  const out = [
    '## Token budget: reserve, settle and release per turn',
    '',
    `Method: \`createAdmission\` with moderation off, ${RUNS} sequential runs per row after 20 warm-up runs, ` +
      `turns spread over ${USERS} users; wall time per call. Postgres is ${postgresLabel()} on loopback: a networked ` +
      'Postgres adds its round-trip time per statement. "Spend limits on": a per-user and a service-wide daily spend limit ' +
      'that never bind, so every reservation and charge also checks and adds money and the service row (issue 47); the ' +
      'number of statements per operation is the same either way.',
    '',
    '| Store | Operation | Median | p99 |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.store} | ${r.op} | ${ms(quantile(r.samples, 0.5))} | ${ms(quantile(r.samples, 0.99))} |`),
  ];
  process.stdout.write(out.join('\n') + '\n');
}

await main();
