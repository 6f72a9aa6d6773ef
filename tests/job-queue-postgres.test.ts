/**
 * The Postgres job queue's own rules (src/db/postgres-job-queue.ts, the `jobs` table), on a database of
 * each test's own: retries with backoff, a job whose retries ran out kept without its payload, a job
 * given back on stop and run by another replica at once, a duplicate that waits behind a live claim
 * instead of being dropped, a stop that stays bounded with the database gone silent, and the migration
 * that carries over what pg-boss still held.
 */
import { connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { createPostgresJobQueue, IDLE_POLL_FACTOR, RETRY_DELAY_SECONDS, retryDelaySeconds } from '../src/db/postgres-job-queue.js';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import type { JobQueue } from '../src/lifecycle/job-queue.js';
import { createLogger, silentLogger, type Logger } from '../src/logger.js';
import { startTestPostgres } from './support/postgres.js';
import { until } from './support/until.js';

const opened: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close().catch(() => undefined);
});

async function freshDatabase(options: { migrate?: boolean } = {}): Promise<Database> {
  const pg = await startTestPostgres();
  opened.push(() => pg.stop());
  const database = createDatabase(pg.url, { max: 3 });
  opened.push(() => database.close());
  if (options.migrate !== false) await runMigrations(database);
  return database;
}

function queue(database: Database, options: { concurrency?: number; retryLimit?: number; expireSeconds?: number; logger?: Logger } = {}): JobQueue {
  const jobs = createPostgresJobQueue({ database, logger: silentLogger, background: createBackgroundTasks(silentLogger), expireSeconds: 30, pollingSeconds: 0.2, ...options });
  opened.push(() => jobs.stop(1_000));
  return jobs;
}

/**
 * A TCP relay in front of the database that can go silent: `freeze()` stops passing bytes either way
 * while every connection stays open, as a database host that vanished without a reset looks.
 */
async function silentableRelay(target: string): Promise<{ url: string; freeze(): void; /** Bytes from the client dropped since the freeze. */ readonly held: number; close(): Promise<void> }> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let frozen = false;
  let held = 0;
  const server = createServer((client) => {
    const server = connect(Number(upstream.port), upstream.hostname);
    for (const [from, to] of [[client, server], [server, client]] as const) {
      sockets.add(from);
      from.on('data', (chunk: Buffer) => {
        if (!frozen) to.write(chunk);
        else if (from === client) held += chunk.length;
      });
      from.on('error', () => undefined);
      from.on('close', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    freeze: () => void (frozen = true),
    get held() {
      return held;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const rowsOf = (database: Database, key: string) =>
  database.sql<{ attempts: number; payload: unknown; failed_at: Date | null; last_error: string | null; locked_until: Date | null }[]>`
    select attempts, payload, failed_at, last_error, locked_until from jobs where key = ${key}`;

describe('the Postgres job queue', () => {
  it('backs off exponentially between retries', () => {
    expect([1, 2, 3, 4, 5].map(retryDelaySeconds)).toEqual([2, 4, 8, 16, 32]);
  });

  it('retries a job that threw after the backoff, then deletes it once it succeeds', async () => {
    const database = await freshDatabase();
    const jobs = queue(database);
    const ranAt: number[] = [];
    jobs.handle('memory-extraction', async () => {
      ranAt.push(Date.now());
      if (ranAt.length === 1) throw new TypeError('model away');
    });
    await jobs.start();
    jobs.enqueue('memory-extraction', { n: 1 }, { key: 'retry:1' });
    await until('the retry', () => (ranAt.length === 2 ? true : undefined), 15_000);
    expect(ranAt[1]! - ranAt[0]!).toBeGreaterThanOrEqual(RETRY_DELAY_SECONDS * 1_000 - 50);
    await until('the row deleted', async () => ((await rowsOf(database, 'retry:1')).length === 0 ? true : undefined));
    const [claim] = await database.sql<{ done: boolean }[]>`select done_at is not null as done from job_runs where key = 'retry:1'`;
    expect(claim?.done).toBe(true);
  }, 30_000);

  it('an idle replica asks for jobs IDLE_POLL_FACTOR times less often, and still takes a job it queues at once (issue 75)', async () => {
    const database = await freshDatabase();
    // The fetches the queue sends, counted on their way through the driver's tag (its fragments go through it too).
    let statements = 0;
    const counted = new Proxy(database.sql, {
      apply(target, self, args) {
        if ((args[0] as string[] | undefined)?.join?.('').includes('for update skip locked')) statements++;
        return Reflect.apply(target, self, args);
      },
    });
    const jobs = createPostgresJobQueue({ database: { ...database, sql: counted }, logger: silentLogger, background: createBackgroundTasks(silentLogger), expireSeconds: 30, pollingSeconds: 0.2 });
    opened.push(() => jobs.stop(1_000));
    const ran: number[] = [];
    jobs.handle('memory-extraction', async () => void ran.push(Date.now()));
    await jobs.start();
    await new Promise((r) => setTimeout(r, 1_000));
    const from = statements;
    await new Promise((r) => setTimeout(r, 3_000));
    // 0.2 s busy, 0.6 s idle: about 5 fetches in 3 s (15 before, polling at the busy interval), each one statement.
    const idle = statements - from;
    expect(idle).toBeGreaterThanOrEqual(3);
    expect(idle).toBeLessThanOrEqual(6);
    const queuedAt = Date.now();
    jobs.enqueue('memory-extraction', { n: 1 }, { key: 'idle:1' });
    await until('the job', () => (ran.length === 1 ? true : undefined), 5_000);
    expect(ran[0]! - queuedAt).toBeLessThan(IDLE_POLL_FACTOR * 200);
  }, 30_000);

  it('keeps a job whose retries ran out a day, without its payload, and leaves it out of the depth', async () => {
    const database = await freshDatabase();
    const jobs = queue(database, { retryLimit: 1 });
    let runs = 0;
    jobs.handle('memory-extraction', async () => {
      runs++;
      throw new RangeError('always');
    });
    await jobs.start();
    jobs.enqueue('memory-extraction', { text: 'I live in Donner House' }, { key: 'fail:1' });
    const [row] = await until('the job failed for good', async () => {
      const rows = await rowsOf(database, 'fail:1');
      return rows[0]?.failed_at ? rows : undefined;
    }, 15_000);
    expect(runs).toBe(2);
    expect(row).toMatchObject({ attempts: 2, payload: null, last_error: 'RangeError', locked_until: null });
    expect(await jobs.health()).toEqual({ backend: 'postgres', depth: 0, oldest_seconds: 0 });
    // Not taken again.
    await new Promise((r) => setTimeout(r, 600));
    expect(runs).toBe(2);
  }, 30_000);

  it('on stop, aborts a job past the bound and gives it back: another replica runs it at once', async () => {
    const database = await freshDatabase();
    const first = queue(database, { concurrency: 1 });
    let aborted = false;
    let started = false;
    first.handle('memory-extraction', (_payload, job) => new Promise<void>((_resolve, reject) => {
      started = true;
      job.signal.addEventListener('abort', () => {
        aborted = true;
        reject(job.signal.reason);
      });
    }));
    await first.start();
    first.enqueue('memory-extraction', { n: 1 }, { key: 'handover:1' });
    // Its handler running (the row is taken a statement before the handler starts: the claim comes between).
    await until('the first replica runs it', () => (started ? true : undefined));
    expect((await rowsOf(database, 'handover:1'))[0]?.locked_until).toBeTruthy();
    const stoppedAt = Date.now();
    await first.stop(1_000);
    expect(aborted).toBe(true);
    expect(Date.now() - stoppedAt).toBeLessThan(3_000);
    const [released] = await rowsOf(database, 'handover:1');
    // Due at once, the stopped attempt not counted, its claim released.
    expect(released).toMatchObject({ locked_until: null, attempts: 0 });
    expect(await database.sql`select 1 from job_runs where key = 'handover:1' and done_at is null`).toHaveLength(0);
    const second = queue(database);
    let ranOnSecond = 0;
    second.handle('memory-extraction', async () => {
      ranOnSecond++;
    });
    const startedAt = Date.now();
    await second.start();
    await until('the second replica ran it', () => (ranOnSecond === 1 ? true : undefined), 5_000);
    expect(Date.now() - startedAt).toBeLessThan(RETRY_DELAY_SECONDS * 1_000);
  }, 30_000);

  it('on stop while a job\'s claim is on its way, never starts its handler: the claim is released and another replica runs it', async () => {
    const database = await freshDatabase();
    // The claim (the statement between taking the row and starting the handler) held until the test lets it go.
    let claimSent!: () => void;
    const claimIsSent = new Promise<void>((resolve) => (claimSent = resolve));
    let letClaimGo!: () => void;
    const claimMayGo = new Promise<void>((resolve) => (letClaimGo = resolve));
    let claimDone!: () => void;
    const claimIsDone = new Promise<void>((resolve) => (claimDone = resolve));
    const gated = new Proxy(database.sql, {
      apply(target, self, args) {
        if (!(args[0] as string[] | undefined)?.join?.('').includes('insert into job_runs')) return Reflect.apply(target, self, args);
        claimSent();
        return claimMayGo.then(async () => {
          try {
            return await Reflect.apply(target, self, args);
          } finally {
            claimDone();
          }
        });
      },
    });
    const first = createPostgresJobQueue({ database: { ...database, sql: gated }, logger: silentLogger, background: createBackgroundTasks(silentLogger), expireSeconds: 30, pollingSeconds: 0.2, concurrency: 1 });
    opened.push(() => first.stop(1_000));
    let ranOnFirst = 0;
    first.handle('memory-extraction', async () => void ranOnFirst++);
    await first.start();
    first.enqueue('memory-extraction', { n: 1 }, { key: 'midclaim:1' });
    await claimIsSent;
    const stoppedAt = Date.now();
    await first.stop(1_000);
    expect(Date.now() - stoppedAt).toBeLessThan(3_000);
    // Given back while its claim was still on its way: the claim then lands, and is released, not run on.
    letClaimGo();
    await claimIsDone;
    await until('the late claim released', async () =>
      (await database.sql`select 1 from job_runs where key = 'midclaim:1'`).length === 0 ? true : undefined);
    expect(ranOnFirst).toBe(0);
    expect((await rowsOf(database, 'midclaim:1'))[0]).toMatchObject({ locked_until: null, attempts: 0 });
    const second = queue(database);
    let ranOnSecond = 0;
    second.handle('memory-extraction', async () => void ranOnSecond++);
    await second.start();
    await until('the second replica ran it', () => (ranOnSecond === 1 ? true : undefined), 5_000);
    expect(ranOnFirst).toBe(0);
  }, 30_000);

  it('fences a worker whose lease passed: after another replica took the job, its give-back, release and completion change nothing', async () => {
    const database = await freshDatabase();
    const expireSeconds = 1;
    const state = () =>
      database.sql<{ lease: string | null; locked_until: Date | null; claim: string | null; done_at: Date | null }[]>`
        select jobs.lease::text, jobs.locked_until, job_runs.claim::text, job_runs.done_at
        from jobs left join job_runs on job_runs.key = jobs.key where jobs.key = 'fence:1'`;
    // Replica A takes the job, then its handler hangs past the expiry, ignoring the abort (a stuck call).
    const aLines: Array<{ msg: string; write?: string }> = [];
    const a = queue(database, { expireSeconds, concurrency: 1, logger: createLogger({ level: 'info', sink: (l) => aLines.push(JSON.parse(l)) }) });
    let failA!: () => void;
    const aFails = new Promise<void>((resolve) => (failA = resolve));
    let aRan = 0;
    a.handle('memory-extraction', async () => {
      aRan++;
      await aFails;
      throw new Error('the stuck call finally failed');
    });
    await a.start();
    a.enqueue('memory-extraction', { n: 1 }, { key: 'fence:1' });
    await until('A holds it', async () => ((await state())[0]?.claim ? true : undefined));
    const leaseA = (await state())[0]!.lease;
    // A's claim of the key is as old as a dead worker's (its take expires on its own, after a second).
    await database.sql`update job_runs set claimed_at = now() - interval '1 hour' where key = 'fence:1'`;
    // Past the expiry, replica B takes it over and runs it; it holds its run until A's write has landed.
    const b = queue(database, { expireSeconds: 30, concurrency: 1 });
    let bRan = 0;
    let finishB!: () => void;
    const bMayFinish = new Promise<void>((resolve) => (finishB = resolve));
    b.handle('memory-extraction', async () => {
      bRan++;
      await bMayFinish;
    });
    await new Promise((r) => setTimeout(r, expireSeconds * 1_000 + 200));
    await b.start();
    await until('B runs it', () => (bRan === 1 ? true : undefined), 5_000);
    const taken = (await state())[0]!;
    expect(taken.lease).not.toBe(leaseA);
    expect(taken.claim).toBe(taken.lease);
    // A's handler fails now: its give-back (claim released, row due again) must not touch B's run.
    failA();
    await until("A's give-back, refused", () => aLines.some((l) => l.msg.startsWith('job lease lost')), 5_000);
    const during = (await state())[0]!;
    expect(during).toMatchObject({ lease: taken.lease, claim: taken.lease, done_at: null });
    expect(during.locked_until).not.toBeNull();
    // A stopping now gives back nothing it no longer holds either.
    await a.stop(1_000);
    expect((await state())[0]).toMatchObject({ lease: taken.lease, claim: taken.lease });
    finishB();
    await until('the row deleted', async () => ((await rowsOf(database, 'fence:1')).length === 0 ? true : undefined));
    expect(await database.sql`select 1 from job_runs where key = 'fence:1' and done_at is not null`).toHaveLength(1);
    await new Promise((r) => setTimeout(r, RETRY_DELAY_SECONDS * 1_000 + 500));
    expect([aRan, bRan]).toEqual([1, 1]);
  }, 30_000);

  it('prunes day-old done claims and failed jobs on a timer, one replica at a time', async () => {
    const database = await freshDatabase();
    await database.sql`insert into job_runs (key, claimed_at, done_at) values ('old', now() - interval '3 days', now() - interval '2 days'), ('new', now(), now())`;
    await database.sql`insert into jobs (kind, key, failed_at) values ('memory-extraction', 'old-failed', now() - interval '2 days')`;
    // Two replicas pruning every 200 ms: the rows go, and neither fails on the other's lock.
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', sink: (l) => lines.push(l) });
    for (let i = 0; i < 2; i++) {
      const jobs = createPostgresJobQueue({ database, logger, background: createBackgroundTasks(silentLogger), expireSeconds: 30, pollingSeconds: 5, pruneEveryMs: 200 });
      opened.push(() => jobs.stop(1_000));
      await jobs.start();
    }
    await database.sql`insert into job_runs (key, claimed_at, done_at) values ('later', now() - interval '3 days', now() - interval '2 days')`;
    await until('the later row pruned by the timer', async () => ((await database.sql`select 1 from job_runs where key = 'later'`).length === 0 ? true : undefined), 5_000);
    expect((await database.sql<{ key: string }[]>`select key from job_runs order by key`).map((r) => r.key)).toEqual(['new']);
    expect(await database.sql`select 1 from jobs where key = 'old-failed'`).toHaveLength(0);
    expect(lines.filter((l) => l.includes('could not prune'))).toEqual([]);
  }, 30_000);

  it('keeps a duplicate behind a live claim, and runs it once that claim is a dead worker’s', async () => {
    const database = await freshDatabase();
    const expireSeconds = 2;
    // A worker elsewhere claimed the key just now and then died without finishing.
    await database.sql`insert into job_runs (key, claimed_at) values ('dup:1', now())`;
    const jobs = queue(database, { expireSeconds });
    let ran = 0;
    jobs.handle('memory-extraction', async () => {
      ran++;
    });
    await jobs.start();
    const enqueuedAt = Date.now();
    jobs.enqueue('memory-extraction', { n: 1 }, { key: 'dup:1' });
    await until('the duplicate ran', () => (ran === 1 ? true : undefined), 15_000);
    // Not before the dead worker's claim had passed its expiry.
    expect(Date.now() - enqueuedAt).toBeGreaterThanOrEqual(expireSeconds * 1_000 - 100);
    await until('the row deleted', async () => ((await rowsOf(database, 'dup:1')).length === 0 ? true : undefined));
    expect(ran).toBe(1);
  }, 30_000);

  it('stops within its bound when the database goes silent under a fetch', async () => {
    const pg = await startTestPostgres();
    opened.push(() => pg.stop());
    const direct = createDatabase(pg.url, { max: 1 });
    opened.push(() => direct.close());
    await runMigrations(direct);
    const relay = await silentableRelay(pg.url);
    opened.push(() => relay.close());
    const database = createDatabase(relay.url, { max: 2 });
    // Not closed with the others: its connections hang on the silent relay until the relay is closed.
    opened.push(() => Promise.race([database.close(), new Promise((r) => setTimeout(r, 200))]));
    const jobs = createPostgresJobQueue({ database, logger: silentLogger, background: createBackgroundTasks(silentLogger), expireSeconds: 30, pollingSeconds: 0.1 });
    jobs.handle('memory-extraction', async () => undefined);
    await jobs.start();
    relay.freeze();
    // The loop's next poll sends a fetch that never comes back.
    await until('a fetch sent into the silence', () => relay.held > 0, 5_000);
    const stoppedAt = Date.now();
    await jobs.stop(1_000);
    expect(Date.now() - stoppedAt).toBeLessThan(2_500);
  }, 30_000);

  it('runs a job it could not queue in this process, through the background registry: at most `concurrency` at once, and the drain waits for them', async () => {
    // No migration: the jobs table is missing, so every insert fails as with the database away.
    const database = await freshDatabase({ migrate: false });
    const background = createBackgroundTasks(silentLogger);
    const jobs = createPostgresJobQueue({ database, logger: silentLogger, background, expireSeconds: 30, pollingSeconds: 0.2, concurrency: 2 });
    let open = () => undefined as void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let now = 0;
    let most = 0;
    const ran: string[] = [];
    jobs.handle('memory-extraction', async (payload, { key }) => {
      most = Math.max(most, ++now);
      await gate;
      now--;
      ran.push(`${key}:${(payload as { n: number }).n}`);
    });
    await jobs.start();
    for (let n = 0; n < 4; n++) jobs.enqueue('memory-extraction', { n }, { key: `k${n}` });
    await until('two fallback jobs running and four registered', () => background.pending === 4 && now === 2, 10_000);
    // Shutdown's order (build-deps.ts): the queue stops, then the registry is closed and drained.
    await jobs.stop(200);
    background.close();
    const drained = background.drain(5_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(ran).toEqual([]);
    open();
    expect(await drained).toBe(true);
    expect(ran.sort()).toEqual(['k0:0', 'k1:1', 'k2:2', 'k3:3']);
    expect(most).toBe(2);
  });

  it('reports a fetch outage at its start, at most once per interval while it lasts, and once at its end', async () => {
    const database = await freshDatabase({ migrate: false });
    const lines: Array<{ level: string; msg: string; failures?: number }> = [];
    const logger = createLogger({ sink: (line) => lines.push(JSON.parse(line)) });
    const jobs = createPostgresJobQueue({ database, logger, background: createBackgroundTasks(silentLogger), expireSeconds: 30, pollingSeconds: 0.05, outageReportMs: 300 });
    opened.push(() => jobs.stop(1_000));
    jobs.handle('memory-extraction', async () => undefined);
    const startedAt = Date.now();
    await jobs.start();
    // An outage of several report intervals: the start reported, then at least two reminders.
    await until('the outage reported three times', () => lines.filter((l) => l.msg.startsWith('job queue')).length >= 3, 10_000);
    // The database comes back: the next fetch works.
    await runMigrations(database);
    const elapsed = Date.now() - startedAt;
    await until('the fetch to work again', () => lines.some((l) => l.msg === 'job queue fetching again'), 10_000);
    const reports = lines.filter((l) => l.msg === 'job queue could not fetch jobs' || l.msg === 'job queue still cannot fetch jobs');
    const back = lines.filter((l) => l.msg === 'job queue fetching again');
    expect(reports[0]?.msg).toBe('job queue could not fetch jobs');
    expect(reports.slice(1).every((l) => l.msg === 'job queue still cannot fetch jobs' && l.level === 'warn')).toBe(true);
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports.length).toBeLessThanOrEqual(1 + Math.ceil(elapsed / 300));
    expect(back).toHaveLength(1);
    // Polled every 50 ms for a second: many failures, counted, few lines.
    expect(back[0]!.failures).toBeGreaterThan(reports.length * 2);
  });

  it('the migration carries over the jobs pg-boss still held, and nothing else', async () => {
    const database = await freshDatabase({ migrate: false });
    // The columns of pg-boss 10's job table that the migration reads.
    await database.sql.unsafe(`
      create schema pgboss;
      create table pgboss.job (id uuid default gen_random_uuid(), name text not null, data jsonb, state text not null,
        start_after timestamptz not null default now(), created_on timestamptz not null default now());
      insert into pgboss.job (name, data, state, start_after) values
        ('memory-extraction', '{"key": "memory-extraction:a", "payload": {"query": "q"}, "link": "00-trace-span-01"}', 'created', now()),
        ('memory-extraction', '{"key": "memory-extraction:b", "payload": {}, "link": null}', 'retry', now() + interval '1 hour'),
        ('memory-extraction', '{"key": "memory-extraction:c", "payload": {}, "link": null}', 'completed', now()),
        ('other-queue', '{"key": "x", "payload": {}}', 'created', now());`);
    await runMigrations(database);
    const rows = await database.sql<{ key: string; payload: unknown; link: string | null; later: boolean }[]>`
      select key, payload::text as payload, link, run_after > now() + interval '30 minutes' as later from jobs order by key`;
    expect(rows.map((r) => ({ ...r, payload: JSON.parse(String(r.payload)) }))).toEqual([
      { key: 'memory-extraction:a', payload: { query: 'q' }, link: '00-trace-span-01', later: false },
      { key: 'memory-extraction:b', payload: {}, link: null, later: true },
    ]);
  }, 30_000);
});
