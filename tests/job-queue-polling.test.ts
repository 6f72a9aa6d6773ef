/**
 * The Postgres queue's polling (issue 46): a replica has one fetch loop, which takes as many due jobs as
 * it has free slots in one statement. Jobs another replica sent are found by its poll and run
 * concurrently on this replica, not one at a time. Two queues (replicas) on one database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { createPostgresJobQueue } from '../src/db/postgres-job-queue.js';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import type { JobQueue } from '../src/lifecycle/job-queue.js';
import { silentLogger } from '../src/logger.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { until } from './support/until.js';

const JOB_MS = 600;

describe('the Postgres queue: one fetch loop per replica', () => {
  let pg: TestPostgres;
  let database: Database;
  let sender: JobQueue;
  let taker: JobQueue;
  const started: { replica: 'sender' | 'taker'; at: number }[] = [];

  beforeAll(async () => {
    pg = await startTestPostgres();
    database = createDatabase(pg.url, { max: 4 });
    await runMigrations(database);
    // The sender runs one job at a time and holds its first for long; the taker runs five at once.
    sender = createPostgresJobQueue({ database, logger: silentLogger, background: createBackgroundTasks(silentLogger), expireSeconds: 60, pollingSeconds: 0.5, concurrency: 1 });
    taker = createPostgresJobQueue({ database, logger: silentLogger, background: createBackgroundTasks(silentLogger), expireSeconds: 60, pollingSeconds: 0.5, concurrency: 5 });
    sender.handle('memory-extraction', async () => {
      started.push({ replica: 'sender', at: Date.now() });
      await new Promise((r) => setTimeout(r, 5_000));
    });
    taker.handle('memory-extraction', async () => {
      started.push({ replica: 'taker', at: Date.now() });
      await new Promise((r) => setTimeout(r, JOB_MS));
    });
    await sender.start();
    await taker.start();
  }, 60_000);

  afterAll(async () => {
    await Promise.all([sender?.stop(1_000), taker?.stop(1_000)]);
    await database?.close();
    await pg?.stop();
  });

  it('runs a burst another replica sent concurrently: one fetch takes it up to the free slots', async () => {
    for (let i = 0; i < 6; i++) sender.enqueue('memory-extraction', { i }, { key: `burst:${i}` });
    await until('five jobs on the taker', () => (started.filter((s) => s.replica === 'taker').length >= 5 ? true : undefined), 20_000);
    const taken = started.filter((s) => s.replica === 'taker').slice(0, 5).map((s) => s.at);
    // All five started before the first of them could have finished: none waited behind another.
    expect(Math.max(...taken) - Math.min(...taken)).toBeLessThan(JOB_MS);
  }, 30_000);
});
