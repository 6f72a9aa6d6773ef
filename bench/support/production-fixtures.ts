/**
 * What a bench needs to run the production entry point as the platform does: a clean production install
 * (tests/support/production-install.ts, the Dockerfile's steps), Postgres with pgvector (PGlite over the
 * wire), a real MCP server and the fake gateway, with the environment that joins them. In the bench
 * process, where a bench sets the gateway's answers; or `isolated`: Postgres and the fakes each in a
 * process of their own (bench/helpers/fakes-process.ts answers by the message), so a load generator in the
 * bench process does not share an event loop with them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startFakeGateway, type FakeGateway } from '../../tests/support/fake-gateway.js';
import { realPostgresUrl, startTestPostgres } from '../../tests/support/postgres.js';
import { prepareProductionInstall } from '../../tests/support/production-install.js';
import { REPO_ROOT, spawnService, type ServiceProcess } from '../../tests/support/spawn-service.js';
import { startTestMcpServer } from '../../tests/support/test-mcp-server.js';

export const BENCH_SECRET = 'production-bench-shared-secret-0123456789';

/** In a question, asks bench/helpers/fakes-process.ts for a held answer (300 tokens 100 ms apart). */
export const HELD_MARK = '[held]';

export interface ProductionFixtures {
  dir: string;
  env: Record<string, string>;
  gateway: FakeGateway;
  /** Starts `node dist/src/server.js` with these flags (and extra environment). */
  start(nodeArgs: string[], env?: Record<string, string>): Promise<ServiceProcess>;
  close(): Promise<void>;
}

export interface IsolatedFixtures extends Omit<ProductionFixtures, 'gateway'> {
  gatewayUrl: string;
  /** The processes of Postgres and of the fakes (to pin them beside the load generator). */
  pids: number[];
}

/** Starts a bench script under tsx; resolves with the child and the first stdout line `parse` accepts. */
export function startHelper<T>(
  script: string,
  args: string[],
  parse: (line: string) => T | null,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; value: T }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, script), ...args], {
      cwd: REPO_ROOT,
      // HELD_TOKENS and HELD_GAP_MS shorten the held answer for a quick trial run of a bench.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...pick(process.env, ['HELD_TOKENS', 'HELD_GAP_MS']), ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
    let buffered = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (const line of buffered.split('\n')) {
        const value = parse(line);
        if (value !== null) return resolve({ child, value });
      }
    });
  });
}

const pick = (env: NodeJS.ProcessEnv, names: string[]) => Object.fromEntries(names.flatMap((n) => (env[n] ? [[n, env[n]!]] : [])));

/**
 * Postgres in a process of its own: a database of its own on the real server when TEST_DATABASE_URL
 * names one (what production runs), else PGlite over the wire in a child process.
 */
async function isolatedPostgres(): Promise<{ url: string; pids: number[]; stop(): Promise<void> }> {
  if (realPostgresUrl()) {
    const db = await startTestPostgres();
    return { url: db.url, pids: [], stop: () => db.stop() };
  }
  const db = await startHelper('scripts/dev-postgres.ts', ['--port', '0'], (line) => /DATABASE_URL=(\S+)/.exec(line)?.[1] ?? null);
  return {
    url: db.value,
    pids: [db.child.pid!],
    async stop() {
      db.child.removeAllListeners('exit');
      db.child.kill('SIGTERM');
    },
  };
}

export async function startIsolatedFixtures(name: string): Promise<IsolatedFixtures> {
  const [install, db, fakes] = await Promise.all([
    prepareProductionInstall({ reuseDependencies: true, log: (l) => process.stderr.write(`${name}: ${l}\n`) }),
    isolatedPostgres(),
    startHelper('bench/helpers/fakes-process.ts', [], (line) => (line.startsWith('{') ? (JSON.parse(line) as { gateway: string; mcp: string }) : null)),
  ]);
  const env = productionEnv(db.url, fakes.value.mcp, fakes.value.gateway);
  return {
    dir: install.dir,
    env,
    gatewayUrl: fakes.value.gateway,
    pids: [...db.pids, fakes.child.pid!],
    start: (nodeArgs, extra = {}) => spawnService({ entry: 'dist', cwd: install.dir, nodeArgs, env: { ...env, ...extra } }),
    async close() {
      fakes.child.removeAllListeners('exit');
      fakes.child.kill('SIGTERM');
      await db.stop().catch(() => undefined);
      install.remove();
    },
  };
}

/** The service settings a bench variable holds (`KEY=VALUE,...`), to pass on to the service under test. */
export function serviceSettingsFrom(variable: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    (env[variable] ?? '')
      .split(',')
      .filter(Boolean)
      .map((setting) => {
        const at = setting.indexOf('=');
        if (at < 1) throw new Error(`${variable} takes KEY=VALUE settings separated by commas, not ${setting}`);
        return [setting.slice(0, at), setting.slice(at + 1)];
      }),
  );
}

/** One signed-in streamed turn, read to its end: what the idle benches send before they measure. */
export async function warmUpTurn(serviceUrl: string): Promise<void> {
  const res = await fetch(`${serviceUrl}/agent/respond/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_SECRET}` },
    body: JSON.stringify({ query: 'warm up', user_id: 'warm-up' }),
  });
  await res.text();
}

export function productionEnv(databaseUrl: string, mcpUrl: string, gatewayUrl: string): Record<string, string> {
  return {
    AGENT_ENV: 'production',
    DATABASE_URL: databaseUrl,
    MCP_SERVER_URL: mcpUrl,
    LLM_GATEWAY_API_KEY: 'sk-production-bench',
    LLM_GATEWAY_BASE_URL: gatewayUrl,
    AGENT_SHARED_SECRET: BENCH_SECRET,
    TOKEN_BUDGET_STORE: 'postgres',
    // Many concurrent turns over few users: the per-user cap is lifted, benches measure held streams.
    MAX_TURNS_IN_FLIGHT: '10',
    LOG_LEVEL: 'info',
  };
}

export async function startProductionFixtures(name: string): Promise<ProductionFixtures> {
  const [install, db, gateway, mcp] = await Promise.all([
    prepareProductionInstall({ reuseDependencies: true, log: (l) => process.stderr.write(`${name}: ${l}\n`) }),
    startTestPostgres(),
    startFakeGateway(),
    startTestMcpServer({ tools: [{ name: 'eats_get_locations_open_now', run: async () => 'Resnik Cafe is open.' }] }),
  ]);
  const env = productionEnv(db.url, mcp.url, gateway.baseUrl);
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
