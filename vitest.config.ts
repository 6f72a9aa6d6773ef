import { defineConfig } from 'vitest/config';

// Tests start real servers (HTTP, MCP, PGlite over the wire protocol); two cores on CI,
// so files run in parallel forks with generous timeouts instead of fixed sleeps.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
