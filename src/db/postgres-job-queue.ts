/**
 * The job queue on Postgres, with pg-boss (docs/design/job-queue.md says why pg-boss): jobs are stored
 * in the turn, fetched by any replica with `FOR UPDATE SKIP LOCKED`, retried with exponential backoff,
 * and taken over when their worker dies: an active job past its expiry (JOB_EXPIRE_SECONDS) is moved
 * back to retry by pg-boss's maintenance, which runs every `maintenanceSeconds` on one replica. So a
 * killed worker's job runs again within expiry + maintenance + polling.
 *
 * Exactly once in effect: before a handler runs, the job's key is claimed in `job_runs` (an insert,
 * or the takeover of a claim older than the expiry: a dead worker's). A job whose key is done, or
 * claimed by a live worker, completes without running. A worker killed half way through leaves its
 * claim unfinished. The takeover runs the handler again, and the fact operations refuse what the
 * first run already stored.
 *
 * Throughput: each replica runs `concurrency` (JOB_CONCURRENCY) pg-boss workers on the queue, each
 * fetching one job at a time, so that many jobs are in flight while their model calls are awaited. A
 * pg-boss worker sleeps out its polling interval after each fetch unless it is notified, so a worker that
 * finished a job is notified to fetch the next at once (it sleeps only after a fetch that found nothing),
 * a job sent from this process notifies one idle worker, and a worker that takes a job notifies another
 * (the queue may hold more: a burst is taken up by a chain of fetches, one more than it has jobs). So
 * one worker polls every `pollingSeconds` (jobs other replicas sent, retries, deferred jobs) and the
 * others only every PARKED_POLLING_SECONDS, in case a wake-up is lost: an idle replica's statements went
 * from 5.5 to 1.6 a second (`bench/turn-statements.ts`, BENCHMARKS.md; issue 46: ten workers polling
 * every 2 s were more statements than the turns brought at the campus peak). The wake-ups are pg-boss's own
 * `notifyWorker`. (pg-boss's batch fetch was not used: a batch completes together, so one slow job would
 * hold back the rest of its batch.)
 *
 * pg-boss creates and migrates its own schema (`pgboss`) in `start()`, inside a transaction that first
 * takes `pg_advisory_xact_lock`, so replicas starting together never race. It talks to Postgres through
 * its own small `pg` pool (`max` 3: fetches and completions are short statements shared by all workers).
 *
 * Job data holds the turn's text (what extraction reads), so it is not kept: completed jobs are
 * archived after a minute and archived jobs deleted after a minute more.
 */
import PgBoss from 'pg-boss';
import type { Logger } from '../logger.js';
import { DEFAULT_JOB_CONCURRENCY, jobSignal, type JobHandler, type JobKind, type JobQueue, type QueueHealth } from '../lifecycle/job-queue.js';
import { errorType, noTelemetry, spanned, type Telemetry } from '../telemetry/telemetry.js';
import type { Database } from './client.js';

export interface PostgresJobQueueOptions {
  url: string;
  database: Database;
  logger: Logger;
  telemetry?: Telemetry;
  /** Seconds a job may stay active before another replica takes it over (JOB_EXPIRE_SECONDS). */
  expireSeconds: number;
  /** How often pg-boss's maintenance looks for expired jobs; default a quarter of the expiry, 1 to 10 s. */
  maintenanceSeconds?: number;
  /** How often an idle worker asks for a job; default 2 s. */
  pollingSeconds?: number;
  /** Attempts after the first; default 5 (backoff from 2 s, doubling). */
  retryLimit?: number;
  /** Jobs this replica runs at once (JOB_CONCURRENCY); default 10. */
  concurrency?: number;
}

/** Connections of pg-boss's own `pg` pool, per replica (DEPLOY.md adds them to the `postgres` pool's). */
export const QUEUE_POOL_MAX = 3;

const QUEUES: JobKind[] = ['memory-extraction'];

/** The polling interval of every worker but the first (module note): they are woken when there is work. */
export const PARKED_POLLING_SECONDS = 30;

/** How long health waits for the queue's depth before reporting it unknown (null). */
const HEALTH_TIMEOUT_MS = 1_500;

interface JobData {
  key: string;
  payload: unknown;
  /** The turn's span as a `traceparent`, so the job's own trace links to it on whichever replica runs it. */
  link: string | null;
}

export function createPostgresJobQueue(options: PostgresJobQueueOptions): JobQueue {
  const { database, logger } = options;
  const telemetry = options.telemetry ?? noTelemetry;
  const maintenanceSeconds = options.maintenanceSeconds ?? Math.min(10, Math.max(1, Math.floor(options.expireSeconds / 4)));
  const boss = new PgBoss({
    connectionString: options.url,
    max: QUEUE_POOL_MAX,
    maintenanceIntervalSeconds: maintenanceSeconds,
    // The depth and age health reports are read on demand; pg-boss's own state monitor is not needed.
    monitorStateIntervalSeconds: 3_600,
    archiveCompletedAfterSeconds: 60,
    archiveFailedAfterSeconds: 60 * 60 * 24,
    deleteAfterSeconds: 60,
  });
  // pg-boss reports its own failures (a lost connection while polling) as events; they never throw.
  boss.on('error', (err: unknown) => logger.warn('job queue error', { error: errorType(err) }));
  const handlers = new Map<JobKind, JobHandler>();
  let started = false;
  /** The workers of each queue that are not running a job: the ones a new job may wake. */
  const idleWorkers = new Map<JobKind, Set<string>>();

  /** Claims `key`; false when it is done or a live worker holds it. */
  async function claim(key: string): Promise<boolean> {
    const rows = await database.sql<{ key: string }[]>`
      insert into job_runs (key, claimed_at) values (${key}, now())
      on conflict (key) do update set claimed_at = now()
        where job_runs.done_at is null
          and job_runs.claimed_at < now() - make_interval(secs => ${options.expireSeconds})
      returning key`;
    return rows.length === 1;
  }

  async function run(kind: JobKind, job: PgBoss.Job<JobData>): Promise<void> {
    const handler = handlers.get(kind);
    if (!handler) throw new Error(`no handler for ${kind}`);
    const { key, payload, link = null } = job.data;
    if (!(await claim(key))) {
      logger.info('job already done or running elsewhere; skipped', { kind, job_id: job.id });
      return;
    }
    try {
      await spanned(telemetry.backgroundSpan(kind, link, { 'campus.job.id': job.id }), async (span) => {
        await handler(payload, { key, span, signal: jobSignal(options.expireSeconds) });
        await database.sql`update job_runs set done_at = now() where key = ${key}`;
      });
    } catch (err) {
      // Given up: the claim goes back, so the retry (on any replica) may take it at once.
      await database.sql`delete from job_runs where key = ${key} and done_at is null`.catch(() => undefined);
      throw err;
    }
  }

  /** A job was sent from this process: one idle worker fetches now rather than at its next poll. */
  function wakeOne(kind: JobKind): void {
    const idle = idleWorkers.get(kind);
    const first = idle?.values().next();
    if (!idle || !first || first.done) return;
    // Moved to the back, so the next send wakes another; a worker whose fetch finds nothing (another
    // replica took the job) stays idle, and one that takes a job leaves the set until the job ends.
    idle.delete(first.value);
    idle.add(first.value);
    boss.notifyWorker(first.value);
  }

  return {
    backend: 'postgres',
    handle(kind, handler) {
      handlers.set(kind, handler);
    },
    enqueue(kind, payload, { key, linkedTo = null, startAfter }) {
      const data: JobData = { key, payload, link: linkedTo?.traceparent() ?? null };
      if (startAfter) {
        // A job for later waits in the table for any replica; nothing to wake now.
        boss.send(kind, data, { startAfter }).catch((err: unknown) => logger.warn('deferred job could not be queued; dropped', { kind, error: errorType(err) }));
        return;
      }
      boss.send(kind, data).then(() => wakeOne(kind), (err: unknown) => {
        // The database is away: run it here rather than lose it.
        logger.warn('job could not be queued; running it in this process', { kind, error: errorType(err) });
        const handler = handlers.get(kind);
        if (!handler) return;
        spanned(telemetry.backgroundSpan(kind, linkedTo), (span) => handler(payload, { key, span, signal: jobSignal(options.expireSeconds) })).catch(
          (failure: unknown) => logger.error('job failed', { kind, err: failure }),
        );
      });
    },
    async start() {
      await boss.start();
      for (const kind of QUEUES) {
        await boss.createQueue(kind, { name: kind, retryLimit: options.retryLimit ?? 5, retryDelay: 2, retryBackoff: true, expireInSeconds: options.expireSeconds });
        const idle = new Set<string>();
        idleWorkers.set(kind, idle);
        for (let i = 0; i < (options.concurrency ?? DEFAULT_JOB_CONCURRENCY); i++) {
          let id = '';
          const pollingIntervalSeconds = i === 0 ? (options.pollingSeconds ?? 2) : Math.max(PARKED_POLLING_SECONDS, options.pollingSeconds ?? 2);
          id = await boss.work<JobData>(kind, { pollingIntervalSeconds, batchSize: 1 }, async ([job]) => {
            if (!job) return;
            idle.delete(id);
            wakeOne(kind);
            try {
              await run(kind, job);
            } finally {
              idle.add(id);
              // The queue may hold more: fetch again at once instead of sleeping out the interval.
              boss.notifyWorker(id);
            }
          });
          idle.add(id);
        }
      }
      // Claims of finished jobs are kept a day (a late duplicate still finds them), then pruned.
      await database.sql`delete from job_runs where done_at < now() - interval '1 day'`.catch(() => undefined);
      started = true;
    },
    async health(): Promise<QueueHealth | null> {
      if (!started) return null;
      // Health must answer fast with the database gone (the platform's check has a deadline): the
      // read is given up after HEALTH_TIMEOUT_MS, like the memory store's.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const read = database.sql<{ depth: number; oldest: number | null }[]>`
          select count(*)::int as depth, extract(epoch from now() - min(created_on))::float8 as oldest
          from pgboss.job where name = any(${QUEUES}) and state in ('created', 'retry')`
        .then(([row]): QueueHealth => ({ backend: 'postgres', depth: row?.depth ?? 0, oldest_seconds: Math.round(row?.oldest ?? 0) }))
        .catch(() => null);
      const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), HEALTH_TIMEOUT_MS)));
      try {
        return await Promise.race([read, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    async stop(timeoutMs) {
      // Stops fetching, waits for the jobs it holds up to the bound, then fails the rest back to the
      // queue (they are retried, on another replica once this one is gone), and closes its pool.
      await boss.stop({ graceful: true, timeout: Math.max(1_000, timeoutMs), wait: true }).catch((err: unknown) =>
        logger.warn('job queue did not stop cleanly', { error: errorType(err) }),
      );
    },
  };
}
