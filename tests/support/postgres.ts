/**
 * A real Postgres with pgvector for tests: PGlite with its vector extension, served over the wire
 * protocol so the service connects through DATABASE_URL with the same `postgres` driver as production.
 */
import { startPgliteServer } from './pglite-server.js';

export interface TestPostgres {
  /** `postgres://postgres:postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts an empty database on a free loopback port. `dataDir` keeps it on disk, so a second start on
 * the same directory is a restart that keeps the data.
 */
export async function startTestPostgres(options: { dataDir?: string; port?: number } = {}): Promise<TestPostgres> {
  // One start logic for tests, benches and `scripts/dev-postgres.ts`; see tests/support/pglite-server.ts for why
  // it is not PGLiteSocketServer alone (interleaved extended-protocol messages across connections).
  const { url, port, stop } = await startPgliteServer(options);
  return { url, port, stop };
}
