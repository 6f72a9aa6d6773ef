/**
 * Issue 47: the service-wide cap on the default SQLite store is exact across processes (several
 * service processes on one machine share one budget file). Four processes race reservations against one
 * cap, each settling what it held at half; the IMMEDIATE transaction around the service row and the
 * user's row means no two can both see room that only one has: the service row never passes the cap,
 * it equals the sum of the users' rows, and the number held is exactly what the cap allows.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteBudgetStore } from '../src/admission/sqlite-budget-store.js';
import { SERVICE_BUCKET } from '../src/admission/budget-store.js';
import { REPO_ROOT } from './support/spawn-service.js';

const dir = mkdtempSync(join(tmpdir(), 'spend-processes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts one reserving process; resolves with how many reservations it held. */
function reserver(path: string, user: string, attempts: number, nano: number, cap: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'tests', 'support', 'sqlite-reserver.ts'), path, user, String(attempts), String(nano), String(cap)], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  let ready: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (ready = resolve));
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (out.startsWith('ready\n')) ready();
  });
  const done = new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(Number(out.slice('ready\n'.length).trim())) : reject(new Error(`reserver exited ${code}`))));
  });
  return { child, opened, done };
}

describe('the service cap on SQLite, four processes on one file', () => {
  it('holds exactly what the cap allows, never more, and the service row equals the users\' rows', async () => {
    const path = join(dir, 'budget.sqlite');
    // Created (and migrated) once before the race.
    await createSqliteBudgetStore({ path }).close();
    const NANO = 1_000_000;
    // Each held reservation leaves half its hold spent: the cap fits 40 of them, 4 x 30 attempts want 120.
    const CAP = 20 * NANO;
    const procs = Array.from({ length: 4 }, (_, i) => reserver(path, `student-${i}`, 30, NANO, CAP));
    // Every process opens the file first, then all start together.
    await Promise.all(procs.map((p) => p.opened));
    for (const p of procs) p.child.stdin!.end('go\n');
    const held = await Promise.all(procs.map((p) => p.done));
    const store = createSqliteBudgetStore({ path });
    try {
      const service = await store.spent(SERVICE_BUCKET, '2026-11-21');
      const users = (await Promise.all([0, 1, 2, 3].map((i) => store.spent(`student-${i}`, '2026-11-21')))).reduce((a, b) => a + b, 0);
      expect(service).toBe(users);
      expect(service).toBeLessThanOrEqual(CAP);
      // Held ones cost half a reservation each; reservations are refused only when a whole one does not fit.
      const total = held.reduce((a, b) => a + b, 0);
      expect(service).toBe(total * (NANO / 2));
      expect(CAP - service).toBeLessThan(NANO);
      expect(held.filter((n) => n > 0).length).toBeGreaterThan(1);
    } finally {
      await store.close();
    }
  }, 60_000);
});
