/**
 * The production entry point from a clean production install (the Dockerfile's steps, outside Docker:
 * tests/support/production-install.ts): `node dist/src/server.js` with AGENT_ENV=production against a
 * real Postgres with pgvector (PGlite over the wire protocol), a real MCP server and the fake model
 * gateway. It must refuse to start without its variables, then start, migrate, answer health, serve
 * an authenticated turn, keep secrets out of its output, and exit 0 on SIGTERM.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { prepareProductionInstall, type ProductionInstall } from './support/production-install.js';
import { REPO_ROOT, runServiceToExit, spawnService, type ServiceProcess } from './support/spawn-service.js';
import { startTestMcpServer, type TestMcpServer } from './support/test-mcp-server.js';

const SHARED_SECRET = 'prod-entry-shared-secret-0123456789abcdef';
const GATEWAY_KEY = 'sk-prod-entry-gateway-key-7f3e9a1c';
const ANSWER = ['The production ', 'entry point ', 'answered.'];

let install: ProductionInstall;
let db: TestPostgres;
let gateway: FakeGateway;
let mcp: TestMcpServer;

beforeAll(async () => {
  // Build + `npm ci --omit=dev` (better-sqlite3 compiles from source here: allow minutes).
  // Assigned one by one, so afterAll releases whatever started even when another start failed.
  await Promise.all([
    prepareProductionInstall().then((v) => (install = v)),
    startTestPostgres().then((v) => (db = v)),
    startFakeGateway().then((v) => (gateway = v)),
    startTestMcpServer({
      tools: [{ name: 'eats_get_locations_open_now', description: 'Dining open now', run: async () => 'Resnik Cafe is open.' }],
    }).then((v) => (mcp = v)),
  ]);
}, 12 * 60_000);

afterAll(async () => {
  await Promise.allSettled([db?.stop(), gateway?.close(), mcp?.close()]);
  install?.remove();
});

function productionEnv(): Record<string, string> {
  return {
    AGENT_ENV: 'production',
    DATABASE_URL: db.url,
    MCP_SERVER_URL: mcp.url,
    LLM_GATEWAY_API_KEY: GATEWAY_KEY,
    LLM_GATEWAY_BASE_URL: gateway.baseUrl,
    AGENT_SHARED_SECRET: SHARED_SECRET,
  };
}

describe('production entry point (dist, production dependencies only)', () => {
  it('is a production install: compiled output, migrations, no dev dependencies', () => {
    expect(existsSync(join(install.dir, 'dist', 'src', 'server.js'))).toBe(true);
    expect(existsSync(join(install.dir, 'drizzle', 'meta', '_journal.json'))).toBe(true);
    expect(existsSync(join(install.dir, 'node_modules', 'hono'))).toBe(true);
    for (const dev of ['tsx', 'typescript', 'vitest', 'drizzle-kit', '@electric-sql/pglite', 'playwright-core']) {
      expect(existsSync(join(install.dir, 'node_modules', dev)), `${dev} must not be installed`).toBe(false);
    }
  });

  it('refuses AGENT_ENV=production without its variables, naming each missing one in one message', async () => {
    const result = await runServiceToExit({ entry: 'dist', cwd: install.dir, env: { AGENT_ENV: 'production' } });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    for (const name of ['DATABASE_URL', 'AGENT_SHARED_SECRET', 'LLM_GATEWAY_API_KEY', 'MCP_SERVER_URL']) {
      expect(lines[0]).toContain(name);
    }

    const short = await runServiceToExit({
      entry: 'dist',
      cwd: install.dir,
      env: { ...productionEnv(), AGENT_SHARED_SECRET: 'too-short' },
    });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/AGENT_SHARED_SECRET must be at least 32 characters/);
    expect(short.stderr).not.toContain('too-short');
  });

  describe('another AGENT_ENV from the same build, which has no sandbox (as the image)', () => {
    it('starts with its services configured: health 200, a turn answered, no playground', async () => {
      expect(existsSync(join(install.dir, 'dist', 'src', 'sandbox'))).toBe(false);
      const staging = await spawnService({ entry: 'dist', cwd: install.dir, env: { ...productionEnv(), AGENT_ENV: 'development' } });
      try {
        expect((await fetch(`${staging.url}/api/health`)).status).toBe(200);
        gateway.handler = () => ({ text: ANSWER });
        const res = await fetch(`${staging.url}/agent/respond`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${SHARED_SECRET}` },
          body: JSON.stringify({ query: 'Is anything open?' }),
        });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { response_text: string }).response_text).toContain(ANSWER.join(''));
        expect((await fetch(`${staging.url}/`)).status).toBe(404);
        expect(staging.logs.some((l) => l.msg === 'sandbox not in this build: no playground')).toBe(true);
      } finally {
        expect((await staging.stop('SIGTERM')).code).toBe(0);
      }
    });

    it('stops at start, naming what to set, when it would need the sandbox', async () => {
      const result = await runServiceToExit({ entry: 'dist', cwd: install.dir, env: { AGENT_ENV: 'test', MCP_SERVER_URL: mcp.url } });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/this build does not contain it \(the image leaves it out\): set LLM_GATEWAY_API_KEY$/m);
      expect(result.stderr).not.toMatch(/Cannot find module/);
    });
  });

  describe('with everything production requires', () => {
    let service: ServiceProcess;
    const importRecord = join(mkdtempSync(join(tmpdir(), 'prod-imports-')), 'imports.txt');
    beforeAll(async () => {
      service = await spawnService({
        entry: 'dist',
        cwd: install.dir,
        // The budget in Postgres (as several replicas share it): SQLite must then not even load.
        env: { ...productionEnv(), TOKEN_BUDGET_STORE: 'postgres', RECORD_IMPORTS_FILE: importRecord },
        nodeArgs: ['--import', pathToFileURL(join(REPO_ROOT, 'tests', 'support', 'record-imports.mjs')).href],
      });
    }, 60_000);

    it('loads no sandbox module (the image does not even ship them)', () => {
      const loaded = readFileSync(importRecord, 'utf8').trim().split('\n');
      const own = loaded.filter((url) => url.includes('/dist/src/'));
      // The record is real: the entry, the app and the pipeline were loaded through the hook.
      expect(own.some((url) => url.endsWith('/dist/src/server.js'))).toBe(true);
      expect(own.some((url) => url.endsWith('/dist/src/pipeline/turn.js'))).toBe(true);
      expect(own.filter((url) => url.includes('/dist/src/sandbox/'))).toEqual([]);
      expect(existsSync(join(install.dir, 'dist', 'src', 'sandbox'))).toBe(false);
    });

    it('loads nothing of OpenTelemetry without an OTLP endpoint (export off costs nothing at start)', () => {
      const loaded = readFileSync(importRecord, 'utf8').trim().split('\n');
      expect(loaded.some((url) => url.endsWith('/dist/src/telemetry/telemetry.js'))).toBe(true);
      expect(loaded.filter((url) => url.includes('/dist/src/telemetry/otel.js') || url.includes('/@opentelemetry/'))).toEqual([]);
    });
    it('loads no SQLite (better-sqlite3) with the budget in Postgres', () => {
      const loaded = readFileSync(importRecord, 'utf8').trim().split('\n');
      expect(loaded.filter((url) => url.includes('better-sqlite3') || url.endsWith('/sqlite-budget-store.js'))).toEqual([]);
    });
    it('loads no sharp (libvips, about 10 MB of an idle replica resident) until a photo comes', () => {
      const loaded = readFileSync(importRecord, 'utf8').trim().split('\n');
      expect(loaded.some((url) => url.endsWith('/dist/src/media/images.js'))).toBe(true);
      expect(loaded.filter((url) => url.includes('/node_modules/sharp/'))).toEqual([]);
    });
    afterAll(async () => {
      await service?.stop('SIGKILL');
    });

    it('listens on 0.0.0.0, answers health 200 from the Postgres store, serves no playground', async () => {
      expect(service.logs.find((l) => l.msg === 'listening')).toMatchObject({ host: '0.0.0.0', env: 'production' });
      const res = await fetch(`${service.url}/api/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        status: 'ok',
        memory: { backend: 'postgres', initialized: true, ready: true },
      });
      // The development playground is not served in production: `/` is an unknown path there.
      const root = await fetch(`${service.url}/`);
      expect(root.status).toBe(404);
      // Nor announced: the start log names a playground URL only outside production (checked after
      // these round trips, so a line logged right after "listening" has arrived).
      expect(service.logs.some((l) => l.msg === 'playground')).toBe(false);
      expect(await root.json()).toEqual({ error: expect.any(String), detail: expect.any(String) });
    });

    it('applied the migrations at start: pgvector and the memory tables exist', async () => {
      const sql = postgres(db.url, { max: 1 });
      try {
        const [row] = await sql<{ facts: string | null; ext: string | null }[]>`
          select to_regclass('public.memory_facts')::text as facts,
                 (select extname from pg_extension where extname = 'vector') as ext`;
        expect(row).toEqual({ facts: 'memory_facts', ext: 'vector' });
      } finally {
        await sql.end();
      }
    });

    it('serves an authenticated turn through the gateway, and rejects an unauthenticated one', async () => {
      const body = JSON.stringify({ query: 'Is anything open for lunch?', user_id: 'prod-entry-user' });
      const anonymous = await fetch(`${service.url}/agent/respond`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({ error: expect.any(String), detail: expect.any(String) });

      gateway.handler = () => ({ text: ANSWER });
      const before = gateway.chatRequests().length;
      const res = await fetch(`${service.url}/agent/respond`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${SHARED_SECRET}` },
        body,
      });
      expect(res.status).toBe(200);
      const turn = (await res.json()) as { response_text: string; action: string };
      expect(turn.response_text).toContain(ANSWER.join(''));
      expect(gateway.chatRequests().length).toBeGreaterThan(before);
      const sent = gateway.requests.find((r) => r.path.endsWith('/chat/completions'));
      expect(sent?.headers.authorization).toBe(`Bearer ${GATEWAY_KEY}`);
    });

    it('keeps the secrets and the user text out of its output, and exits 0 on SIGTERM', async () => {
      const result = await service.stop('SIGTERM');
      expect(result).toEqual({ code: 0, signal: null });
      expect(service.logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
      const output = service.stdout + service.stderr;
      expect(output).not.toContain(SHARED_SECRET);
      expect(output).not.toContain(GATEWAY_KEY);
      expect(output).not.toContain('Is anything open for lunch?');
    });
  });
});
