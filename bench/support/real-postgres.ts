/**
 * A real PostgreSQL with pgvector for a bench that needs what production runs: the server named by
 * TEST_DATABASE_URL, or one started here with `../shared/tools/postgres-pgvector` (Debian's PostgreSQL 15
 * and pgvector built from ../shared/vendor; needs root the first time). Sets TEST_DATABASE_URL, so
 * tests/support/postgres.ts gives every start a database of its own on it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tests/support/spawn-service.js';

const SCRIPT = join(REPO_ROOT, '..', 'shared', 'tools', 'postgres-pgvector');

/** The server's URL and how to stop it (a no-op for a server the bench did not start). */
export function ensureRealPostgres(port = 55499): { url: string; stop(): void } {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: () => undefined };
  if (!existsSync(SCRIPT)) throw new Error('bench: needs a real Postgres: set TEST_DATABASE_URL (README, "Tests")');
  const dir = mkdtempSync(join(tmpdir(), 'bench-postgres-'));
  // Durable settings (no PG_FAST): the figures are about the database production runs.
  const url = execFileSync('bash', [SCRIPT, 'start', dir, String(port)], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
  process.env.TEST_DATABASE_URL = url;
  return {
    url,
    stop() {
      execFileSync('bash', [SCRIPT, 'stop', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
