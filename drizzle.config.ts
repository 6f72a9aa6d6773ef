/**
 * drizzle-kit configuration: `npm run db:generate` writes SQL migrations from src/db/schema.ts into
 * drizzle/, where they are committed and applied at start by src/db/migrate.ts (never `push`).
 */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
