/**
 * One process of the multi-process SQLite budget test (tests/spend-sqlite-processes.test.ts): opens the
 * budget file named on the command line, says `ready`, waits for the go-ahead on stdin (so every
 * process starts together), tries `attempts` reservations of `nano` nano-dollars against a service-wide cap, settling
 * each held one at half its hold, and prints how many were held. Not a test file.
 */
import { createSqliteBudgetStore } from '../../src/admission/sqlite-budget-store.js';

const [path, user, attemptsArg, nanoArg, capArg] = process.argv.slice(2);
const store = createSqliteBudgetStore({ path: path! });
process.stdout.write('ready\n');
await new Promise<void>((go) => process.stdin.once('data', () => go()));
let held = 0;
for (let i = 0; i < Number(attemptsArg); i++) {
  const r = await store.reserve(user!, '2026-11-21', { tokens: 10, nanoUsd: Number(nanoArg) }, { tokens: 1e12, nanoUsd: null, serviceNanoUsd: Number(capArg) });
  if (!r.held) continue;
  held++;
  // What a call gives back after using half its hold: a refund of the other half, user and service rows together.
  await store.charge(user!, '2026-11-21', -5, { nanoUsd: -Number(nanoArg) / 2, service: true });
}
await store.close();
process.stdout.write(`${held}\n`);
