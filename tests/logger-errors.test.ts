/**
 * An error in the log names its code (src/logger.ts `describeError`): the server's SQLSTATE (the real
 * driver on a real database: the real server with TEST_DATABASE_URL, else PGlite over the wire) and a
 * system call's (the real driver on port 1, where nothing listens, as the other tests' unreachable
 * addresses), so an operator reading a warning after an outage can tell a database that was away from a
 * query the server refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { createLogger } from '../src/logger.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';

let pg: TestPostgres;

beforeAll(async () => {
  pg = await startTestPostgres();
}, 60_000);

afterAll(async () => {
  await pg?.stop();
});

/** The `err` field of the one warning logged with `err`. */
function logged(err: unknown): Record<string, unknown> {
  const lines: Array<Record<string, unknown>> = [];
  createLogger({ level: 'debug', sink: (line) => lines.push(JSON.parse(line)) }).warn('query failed', { err });
  expect(lines).toHaveLength(1);
  return lines[0]!.err as Record<string, unknown>;
}

describe('an error in the log', () => {
  it("carries the server's SQLSTATE for a query it refused", async () => {
    const sql = postgres(pg.url, { max: 1, onnotice: () => undefined });
    try {
      const err = await sql`select 1 / 0`.catch((e: unknown) => e);
      expect(logged(err)).toMatchObject({ name: 'PostgresError', code: '22012', message: 'division by zero' });
    } finally {
      await sql.end();
    }
  });

  it("carries the system call's code for a database that refuses connections", async () => {
    const sql = postgres('postgres://postgres@127.0.0.1:1/postgres', { max: 1, connect_timeout: 2, onnotice: () => undefined });
    try {
      const err = await sql`select 1`.catch((e: unknown) => e);
      expect(logged(err)).toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('has no code when the error has none', () => {
    expect(logged(new Error('plain'))).not.toHaveProperty('code');
  });
});
