/**
 * Two replicas of the service for the run tests, on one Postgres (the real server through
 * TEST_DATABASE_URL; CI starts it): each its own app, pool and run log over one database, one fake
 * gateway, an admission that records its charges. Not a test file.
 */
import { openAdmission } from '../../src/admission/admission.js';
import { createApp } from '../../src/app.js';
import { createDatabase, type Database } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { silentLogger } from '../../src/logger.js';
import { PostgresRunStore } from '../../src/runs/postgres-run-store.js';
import { RunIds } from '../../src/runs/run-ids.js';
import { Runs } from '../../src/runs/runs.js';
import { noTelemetry } from '../../src/telemetry/telemetry.js';
import { recordingAdmission } from './admission-fakes.js';
import { createTestDeps, testConfig } from './deps.js';
import { gatewayClient, startFakeGateway, type FakeGateway } from './fake-gateway.js';
import { listen, type Listening } from './listen.js';
import { startTestPostgres, type TestPostgres } from './postgres.js';

/** The run ids' MAC key of these replicas and of a spawned service (no AGENT_SHARED_SECRET). */
export const RUN_IDS = new RunIds(null);

export interface RunReplica {
  server: Listening;
  database: Database;
  runs: Runs;
  /** This replica's id in `agent_run_replicas`. */
  replica: string;
}

export interface RunReplicas {
  pg: TestPostgres;
  gw: FakeGateway;
  replicas: RunReplica[];
  admission: ReturnType<typeof recordingAdmission>;
  close(): Promise<void>;
}

export async function startRunReplicas(): Promise<RunReplicas> {
  const pg = await startTestPostgres();
  const gw = await startFakeGateway();
  const admission = recordingAdmission(openAdmission);
  const config = testConfig({ ANSWER_BATCH_MS: '0', MAX_TURNS_IN_FLIGHT: '200', MAX_ANONYMOUS_TURNS_IN_FLIGHT: '200' });
  const replicas: RunReplica[] = [];
  for (let i = 0; i < 2; i++) {
    const database = createDatabase(pg.url);
    if (i === 0) await runMigrations(database);
    const log = new PostgresRunStore(database, 600);
    const runs = new Runs({ store: log, liveness: log, graceMs: 30_000, logger: silentLogger, metrics: noTelemetry.metrics });
    const deps = await createTestDeps({ config, gateway: gatewayClient(gw), admission, runs });
    replicas.push({ server: await listen(createApp(deps).fetch), database, runs, replica: log.replica });
  }
  return {
    pg,
    gw,
    replicas,
    admission,
    async close() {
      for (const r of replicas) {
        await r.server.close();
        await r.runs.close(Date.now() + 2_000);
        await r.database.close();
      }
      await gw.close();
      await pg.stop();
    },
  };
}
