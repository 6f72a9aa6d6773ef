/**
 * A job enqueued with `startAfter` (an extraction the service-wide spending cap refused, waiting for the
 * reset; issue 47) runs once, and not before then, on both queues: in process on a timer, and on the
 * Postgres queue (pg-boss's `startAfter`), where it waits in the table for any replica.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { createPostgresJobQueue } from '../src/db/postgres-job-queue.js';
import { runMigrations } from '../src/db/migrate.js';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import { createInProcessQueue, type JobQueue } from '../src/lifecycle/job-queue.js';
import { silentLogger } from '../src/logger.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { until } from './support/until.js';

const DELAY_MS = 1_500;

/** Enqueues one deferred and one immediate job; resolves with when each ran. */
async function runDeferred(jobs: JobQueue): Promise<{ enqueuedAt: number; ran: Map<string, number> }> {
  const ran = new Map<string, number>();
  jobs.handle('memory-extraction', async (payload) => {
    const name = (payload as { name: string }).name;
    expect(ran.has(name), `${name} ran twice`).toBe(false);
    ran.set(name, Date.now());
  });
  await jobs.start();
  const enqueuedAt = Date.now();
  jobs.enqueue('memory-extraction', { name: 'later' }, { key: 'deferred:later', startAfter: new Date(enqueuedAt + DELAY_MS) });
  jobs.enqueue('memory-extraction', { name: 'now' }, { key: 'deferred:now' });
  await until('both jobs', () => (ran.size === 2 ? true : undefined), 15_000);
  return { enqueuedAt, ran };
}

describe('a job for later', () => {
  it('runs once after startAfter in process; a job without one runs at once', async () => {
    const background = createBackgroundTasks(silentLogger);
    const { enqueuedAt, ran } = await runDeferred(createInProcessQueue({ background, logger: silentLogger, expireSeconds: 30 }));
    expect(ran.get('later')! - enqueuedAt).toBeGreaterThanOrEqual(DELAY_MS - 5);
    expect(ran.get('now')!).toBeLessThan(ran.get('later')!);
  });

  describe('on the Postgres queue', () => {
    let pg: TestPostgres;
    let database: Database;
    let jobs: JobQueue;
    beforeAll(async () => {
      pg = await startTestPostgres();
      database = createDatabase(pg.url, { max: 2 });
      await runMigrations(database);
      jobs = createPostgresJobQueue({ database, logger: silentLogger, background: createBackgroundTasks(silentLogger), expireSeconds: 30, pollingSeconds: 0.5 });
    }, 60_000);
    afterAll(async () => {
      await jobs?.stop(1_000);
      await database?.close();
      await pg?.stop();
    });

    it('waits in the table until startAfter, then runs once', async () => {
      const { enqueuedAt, ran } = await runDeferred(jobs);
      expect(ran.get('later')! - enqueuedAt).toBeGreaterThanOrEqual(DELAY_MS - 5);
      expect(ran.get('now')!).toBeLessThan(ran.get('later')!);
    }, 30_000);
  });
});
