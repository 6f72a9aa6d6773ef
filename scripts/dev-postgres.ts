/**
 * A local Postgres with pgvector for development: PGlite served over the wire protocol until Ctrl-C.
 * `npx tsx scripts/dev-postgres.ts [--port 5433] [--data .pglite]`, then start the service with the
 * printed DATABASE_URL. Data stays in the `--data` directory between runs (omit it for a throwaway one).
 */
import { parseArgs } from 'node:util';
import { startPgliteServer } from '../tests/support/pglite-server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '5433' },
    data: { type: 'string' },
  },
});

const server = await startPgliteServer({ port: Number(values.port), ...(values.data ? { dataDir: values.data } : {}) });
process.stdout.write(`PGlite with pgvector listening. DATABASE_URL=${server.url}\n`);

const stop = () => {
  void server.stop().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
