/**
 * A real Postgres with pgvector for tests: PGlite with its vector extension, served over the wire
 * protocol so the service connects through DATABASE_URL with the same `postgres` driver as production.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { AddressInfo } from 'node:net';

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
  const db = await PGlite.create({ dataDir: options.dataDir, extensions: { vector } });
  // PGlite is single-connection; the socket server multiplexes client connections onto it.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: options.port ?? 0, maxConnections: 32 });
  await server.start();
  const raw = (server as unknown as { server?: { address(): AddressInfo | string | null } }).server;
  const address = raw?.address();
  if (!address || typeof address === 'string') throw new Error('PGlite socket server has no TCP address');
  const port = address.port;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
