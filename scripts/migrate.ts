/**
 * `npm run db:migrate`: applies the committed migrations to DATABASE_URL and checks the vector column
 * against EMBEDDING_MODEL, exactly as the service does at start, then exits.
 */
import { parseConfig } from '../src/config.js';
import { createDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';

const config = parseConfig(process.env);
if (!config.databaseUrl) {
  process.stderr.write('db:migrate: DATABASE_URL is not set\n');
  process.exit(1);
}
const database = createDatabase(config.databaseUrl, { max: 1 });
try {
  const { applied } = await runMigrations(database, { embeddingModel: config.embeddings.model });
  process.stdout.write(`db:migrate: ${applied} migration(s) applied; schema is current\n`);
} catch (err) {
  // The message never carries the URL; only the cause's own text.
  process.stderr.write(`db:migrate: failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await database.close();
}
