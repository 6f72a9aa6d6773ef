/**
 * What a bench needs to run the production entry point as the platform does: a clean production install
 * (tests/support/production-install.ts, the Dockerfile's steps), Postgres with pgvector (PGlite over the
 * wire), a real MCP server and the fake gateway, with the environment that joins them.
 */
import { startFakeGateway, type FakeGateway } from '../tests/support/fake-gateway.js';
import { startTestPostgres } from '../tests/support/postgres.js';
import { prepareProductionInstall } from '../tests/support/production-install.js';
import { spawnService, type ServiceProcess } from '../tests/support/spawn-service.js';
import { startTestMcpServer } from '../tests/support/test-mcp-server.js';

export const BENCH_SECRET = 'production-bench-shared-secret-0123456789';

export interface ProductionFixtures {
  dir: string;
  env: Record<string, string>;
  gateway: FakeGateway;
  /** Starts `node dist/src/server.js` with these flags (and extra environment). */
  start(nodeArgs: string[], env?: Record<string, string>): Promise<ServiceProcess>;
  close(): Promise<void>;
}

export async function startProductionFixtures(name: string): Promise<ProductionFixtures> {
  const [install, db, gateway, mcp] = await Promise.all([
    prepareProductionInstall({ reuseDependencies: true, log: (l) => process.stderr.write(`${name}: ${l}\n`) }),
    startTestPostgres(),
    startFakeGateway(),
    startTestMcpServer({ tools: [{ name: 'eats_get_locations_open_now', run: async () => 'Resnik Cafe is open.' }] }),
  ]);
  const env = {
    AGENT_ENV: 'production',
    DATABASE_URL: db.url,
    MCP_SERVER_URL: mcp.url,
    LLM_GATEWAY_API_KEY: 'sk-production-bench',
    LLM_GATEWAY_BASE_URL: gateway.baseUrl,
    AGENT_SHARED_SECRET: BENCH_SECRET,
    TOKEN_BUDGET_STORE: 'postgres',
    // Many concurrent turns over few users: the per-user cap is lifted, benches measure held streams.
    MAX_TURNS_IN_FLIGHT: '10',
    LOG_LEVEL: 'info',
  };
  return {
    dir: install.dir,
    env,
    gateway,
    start: (nodeArgs, extra = {}) => spawnService({ entry: 'dist', cwd: install.dir, nodeArgs, env: { ...env, ...extra } }),
    async close() {
      await Promise.allSettled([db.stop(), gateway.close(), mcp.close()]);
      install.remove();
    },
  };
}
