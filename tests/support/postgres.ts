/**
 * A Postgres with pgvector for tests and benches, on one of two engines:
 *
 * - the real server named by TEST_DATABASE_URL (CI starts PostgreSQL 15 with pgvector through
 *   `../shared/tools/postgres-pgvector` and sets it; a developer can point it at any server whose role may
 *   create databases). Each start is a database of its own (`CREATE DATABASE`), dropped by `stop()`, so test
 *   files running in parallel never see each other's rows.
 * - PGlite with its vector extension, served over the wire protocol (tests/support/pglite-server.ts):
 *   the fallback, so a clone of the project alone passes `npm test`. It runs one statement at a time.
 *
 * Either way the service connects through DATABASE_URL with the same `postgres` driver as production.
 * A start that keeps its data on disk (`dataDir`) is a restartable server of the test's own: PGlite,
 * whatever is configured (the chaos tests stop and restart it).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { startPgliteServer } from './pglite-server.js';

const execFileAsync = promisify(execFile);

export interface TestPostgres {
  /** A connection URL for this test's own database. */
  url: string;
  /** The server's port. */
  port: number;
  /** `real`: a PostgreSQL server (TEST_DATABASE_URL); `pglite`: the embedded fallback. */
  engine: 'real' | 'pglite';
  stop(): Promise<void>;
}

/** The real server tests use when one is configured (read when asked: a bench may start one first); undefined means PGlite. */
export function realPostgresUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

/** What a bench's method says of its Postgres. */
export function postgresLabel(): string {
  return realPostgresUrl() ? 'a real PostgreSQL with pgvector (TEST_DATABASE_URL)' : 'PGlite (Postgres with pgvector in WebAssembly, over the wire)';
}

/**
 * For tests that only mean something on a real server (concurrent connections, `SKIP LOCKED` races, two
 * replicas under load): the reason they are skipped, or null when they run. Under CI a missing server
 * fails the run instead of skipping (as a missing browser does), so CI cannot go green without them.
 */
export function realPostgresSkipReason(): string | null {
  if (realPostgresUrl()) return null;
  if (process.env.CI === 'true') throw new Error('CI=true but TEST_DATABASE_URL is unset: .ci/run starts the real Postgres');
  return 'needs a real PostgreSQL with pgvector: set TEST_DATABASE_URL (README, "Tests")';
}

/**
 * Starts an empty database. `dataDir` (and `port`) ask for a restartable server of the test's own: a
 * second start on the same directory keeps the data.
 */
export async function startTestPostgres(options: { dataDir?: string; port?: number } = {}): Promise<TestPostgres> {
  const real = realPostgresUrl();
  if (real && !options.dataDir && !options.port) return createRealDatabase(real);
  const { url, port, stop } = await startPgliteServer(options);
  return { url, port, engine: 'pglite', stop };
}

async function createRealDatabase(serverUrl: string): Promise<TestPostgres> {
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined, connect_timeout: 10 });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    port: Number(url.port || 5432),
    engine: 'real',
    async stop() {
      const dropper = postgres(serverUrl, { max: 1, onnotice: () => undefined, connect_timeout: 10 });
      try {
        // FORCE ends sessions a test left open (a killed replica's pool).
        await dropper.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await dropper.end({ timeout: 5 });
      }
    },
  };
}

/** `../shared/tools/postgres-pgvector`, which installs and starts a real PostgreSQL 15 with pgvector. */
const CLUSTER_TOOL = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'tools', 'postgres-pgvector');

/** A real PostgreSQL cluster of one test's own, which the test kills and starts again (issue 79). */
export interface OwnPostgresCluster {
  /** The cluster's `postgres` database. */
  url: string;
  port: number;
  /**
   * Stops the server the way an outage does: SIGKILL (the postmaster and every backend at once, a crash)
   * or SIGINT (a fast shutdown: sessions get 57P01 and are closed). Resolves when it is gone.
   */
  kill(signal: 'SIGKILL' | 'SIGINT'): Promise<void>;
  /** Starts it again on the same port and data; resolves when it accepts connections. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  remove(): Promise<void>;
}

/**
 * For tests that kill and restart the real server: the reason they are skipped, or null when they run.
 * They run where the real server runs (TEST_DATABASE_URL: this machine has PostgreSQL) and the cluster
 * tool is beside the project; under CI a missing one fails the run, as realPostgresSkipReason does.
 */
export function ownClusterSkipReason(): string | null {
  const real = realPostgresSkipReason();
  if (real) return real;
  if (existsSync(CLUSTER_TOOL)) return null;
  if (process.env.CI === 'true') throw new Error(`CI=true but ${CLUSTER_TOOL} is missing`);
  return `needs ${CLUSTER_TOOL}`;
}

/**
 * Starts a new cluster in a temporary directory on `port`. Durable as production is (no PG_FAST): with
 * `synchronous_commit` off a crash loses the last commits the service was told had succeeded, which a
 * test of crashes would then blame on the service.
 */
export async function startOwnPostgresCluster(): Promise<OwnPostgresCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'own-pg-'));
  // A port free now (the kernel's choice), not a fixed one another cluster (CI's own) may hold.
  const port = await new Promise<number>((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const tool = (...args: string[]) => execFileAsync('bash', [CLUSTER_TOOL, ...args], { env: { ...process.env, PG_FAST: '0' } });
  const { stdout } = await tool('start', dir, String(port));
  const url = stdout.trim().split('\n').at(-1)!;
  const postmaster = () => Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  return {
    url,
    port,
    async kill(signal) {
      const pid = postmaster();
      // The backends are the postmaster's children: a crash takes them at the same moment. The postmaster
      // is stopped first, so no backend it forks between the listing and the kill outlives it (an orphan
      // holding a connection attempt would be a crash no server has).
      if (signal === 'SIGKILL') process.kill(pid, 'SIGSTOP');
      const { stdout: children } = signal === 'SIGKILL' ? await execFileAsync('pgrep', ['-P', String(pid)]).catch(() => ({ stdout: '' })) : { stdout: '' };
      process.kill(pid, signal);
      for (const child of children.split('\n').filter(Boolean)) {
        try {
          process.kill(Number(child), 'SIGKILL');
        } catch {
          // already gone
        }
      }
      for (const until = Date.now() + 30_000; alive(pid); ) {
        if (Date.now() > until) throw new Error(`postgres ${pid} did not exit after ${signal}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async start() {
      await tool('start', dir, String(port));
    },
    async remove() {
      await tool('stop', dir).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
