/**
 * The job queue on Postgres: the `jobs` table (drizzle migration 0007), read and written through the
 * service's one `postgres` pool (docs/design/job-queue.md says why it replaced pg-boss). Jobs are stored
 * in the turn, taken by any replica with `FOR UPDATE SKIP LOCKED`, retried with exponential backoff, and
 * taken over when their worker dies.
 *
 * A row is waiting while `locked_until` is null. Taking it sets `locked_until` to now + the expiry
 * (JOB_EXPIRE_SECONDS) and counts an attempt. A row whose `locked_until` has passed belongs to a dead
 * worker, and the next fetch on any replica takes it like a waiting one. So there is no maintenance
 * pass to elect, and a killed worker's job runs again within expiry + polling.
 *
 * Exactly once in effect: before a handler runs, the job's key is claimed in `job_runs` (an insert, or
 * the takeover of a claim older than the expiry: a dead worker's). A job whose key is done, or claimed by
 * a live worker, is deleted without running. A worker killed half way through leaves its claim
 * unfinished; the takeover runs the handler again, and the fact operations refuse what the first run
 * already stored. A finished job's claim is marked done and its row deleted in one statement.
 *
 * Fenced (issue 63): each take writes a fresh lease on the row and the claim records it; every write
 * after the take applies only while they still carry it, so a worker whose expiry passed and whose job
 * another replica took changes nothing (db/job-statements.ts holds the statements). Old done claims and
 * failed rows are pruned at start and every PRUNE_EVERY_MS, by one replica at a time.
 *
 * Throughput: one fetch loop per replica takes as many due jobs as it has free slots (JOB_CONCURRENCY)
 * in one statement, and runs them at once (a job is mostly a wait on the model). It fetches again as soon
 * as a fetch came back full and a slot is free, when this process queues a job, and otherwise every
 * `pollingSeconds` (jobs other replicas sent, retries, jobs for later). An idle replica runs one
 * statement per polling interval.
 *
 * Round trips of one job: its insert, a share of one fetch, its claim, and its completion (4); pg-boss
 * took 3 transactions of 6 statements around its own (docs/perf-log/2026-11-25-issue-46-where-cpu-goes.md).
 *
 * A claim lost to a live worker does not drop the job (pg-boss's completion did): the row waits
 * RETRY_DELAY_SECONDS and is looked at again, so if that worker dies this copy runs the job, and once the
 * key is done the copy is deleted without running.
 *
 * The database away: a job whose insert fails runs in this process instead (the in-process queue on the
 * background registry: SIGTERM's drain waits for it, `concurrency` at most at once); one for later is
 * dropped with a warning. The fetch loop keeps polling and reports the outage at its start, once a
 * minute while it lasts, and at its end (FETCH_FAILURE_WARN_MS).
 *
 * Data kept: a job's payload holds the turn's text (what extraction reads), so a finished job's row is
 * deleted at once. A job whose attempts ran out keeps its row a day for the operator, with `failed_at`
 * and its error's type but without its payload.
 */
import type { Logger } from '../logger.js';
import { JobStatements, type TakenJob } from './job-statements.js';
import { settleWithin } from '../lifecycle/settle-within.js';
import type { BackgroundTasks } from '../lifecycle/background-tasks.js';
import { createInProcessQueue, DEFAULT_JOB_CONCURRENCY, jobSignal, type JobHandler, type JobKind, type JobQueue, type QueueHealth } from '../lifecycle/job-queue.js';
import { errorType, noTelemetry, spanned, type Telemetry } from '../telemetry/telemetry.js';
import type { Database } from './client.js';

export interface PostgresJobQueueOptions {
  database: Database;
  logger: Logger;
  telemetry?: Telemetry;
  /** Seconds a job may stay taken before another replica takes it over (JOB_EXPIRE_SECONDS). */
  expireSeconds: number;
  /** How often an idle replica asks for jobs; default 2 s. */
  pollingSeconds?: number;
  /** Attempts after the first; default 5 (backoff from 2 s, doubling). */
  retryLimit?: number;
  /** Jobs this replica runs at once (JOB_CONCURRENCY); default 10. */
  concurrency?: number;
  /**
   * The process's background registry: a job the table could not take (the database away) runs here
   * instead, through the in-process queue on this registry, so SIGTERM's drain waits for it and at most
   * `concurrency` such jobs run at once.
   */
  background: BackgroundTasks;
  /** How often a fetch outage is reported while it lasts; default FETCH_FAILURE_WARN_MS. */
  outageReportMs?: number;
  /** How often old done and failed rows are pruned; default PRUNE_EVERY_MS. */
  pruneEveryMs?: number;
}

/** Old rows are pruned this often (and at start), by one replica at a time. */
export const PRUNE_EVERY_MS = 60 * 60 * 1_000;

const KINDS: JobKind[] = ['memory-extraction'];

/** The first retry's delay; each further retry waits twice as long. */
export const RETRY_DELAY_SECONDS = 2;

/** How long health waits for the queue's depth before reporting it unknown (null). */
const HEALTH_TIMEOUT_MS = 1_500;

/**
 * While fetches keep failing (the database away), the loop warns at its first failure, then at most this
 * often (each warning counts the failures since the outage began), and says once when a fetch works again:
 * a replica polling every 2 s through an hour's outage writes about 60 lines, not 1,800.
 */
const FETCH_FAILURE_WARN_MS = 60_000;


/** Seconds before retry `attempt` (1 for the first retry): 2, 4, 8, … */
export function retryDelaySeconds(attempt: number): number {
  return RETRY_DELAY_SECONDS * 2 ** Math.max(0, attempt - 1);
}

export function createPostgresJobQueue(options: PostgresJobQueueOptions): JobQueue {
  const { database, logger } = options;
  const { sql } = database;
  const telemetry = options.telemetry ?? noTelemetry;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_JOB_CONCURRENCY);
  const pollingMs = Math.max(50, (options.pollingSeconds ?? 2) * 1_000);
  const retryLimit = options.retryLimit ?? 5;
  const handlers = new Map<JobKind, JobHandler>();
  /** The jobs this replica runs, by id: their aborts (for stop) and their ends. */
  const running = new Map<string, { job: TakenJob; abort: AbortController; done: Promise<void> }>();
  /** Jobs stop gave back while their handlers still ran. */
  const released = new Set<string>();
  let state: 'new' | 'started' | 'stopping' = 'new';
  /** Set while the loop waits: resolves it early (a job queued here, a slot freed, stop). */
  let wake: (() => void) | null = null;
  /** A wake that came while the loop was fetching: it fetches again instead of sleeping. */
  let wakePending = false;
  /** The last fetch filled every free slot, so the table may hold more: a job's end fetches again. */
  let lastFetchFull = false;
  let loop: Promise<void> | null = null;
  /** Jobs whose insert failed run in this process: tracked by the background registry, `concurrency` at once. */
  const here = createInProcessQueue({ background: options.background, logger, expireSeconds: options.expireSeconds, concurrency });
  /** The fetch outage under way: when it began, its failures so far, when it was last reported. */
  let outage: { since: number; failures: number; warnedAt: number } | null = null;

  function nudge(): void {
    wakePending = true;
    wake?.();
  }

  const statements = new JobStatements(sql, KINDS, options.expireSeconds);

  /** Logs a write that found the lease gone: another replica took the job after this one's expiry. */
  const fenced = (job: TakenJob, what: string) => (applied: boolean) => {
    if (!applied) logger.info('job lease lost; this worker\'s write changed nothing', { kind: job.kind, job_id: job.id, write: what });
  };

  /** A job that threw: due again after its backoff, or failed for good once its retries are spent. */
  async function giveBack(job: TakenJob, err: unknown): Promise<void> {
    // The claim goes back first (this worker's only), so the retry (on any replica) may take it at once.
    await statements.releaseClaim(job).catch(() => undefined);
    if (job.attempts > retryLimit) {
      logger.error('job failed; no retries left', { kind: job.kind, job_id: job.id, attempts: job.attempts, error: errorType(err) });
      await statements.fail(job, errorType(err)).then(fenced(job, 'fail'));
      return;
    }
    const delay = retryDelaySeconds(job.attempts);
    logger.warn('job failed; retrying', { kind: job.kind, job_id: job.id, attempts: job.attempts, retry_in_s: delay, error: errorType(err) });
    await statements.retryLater(job, delay, errorType(err)).then(fenced(job, 'give back'));
  }

  async function run(job: TakenJob, signal: AbortSignal): Promise<void> {
    const handler = handlers.get(job.kind);
    if (!handler) {
      await giveBack(job, new Error(`no handler for ${job.kind}`));
      return;
    }
    // A job of a past attempt that killed its worker every time: not run again.
    if (job.attempts > retryLimit + 1) {
      await giveBack(job, new Error('attempts exhausted by takeovers'));
      return;
    }
    const claimed = await statements.claim(job);
    if (claimed === 'done') {
      logger.info('job already done; skipped', { kind: job.kind, job_id: job.id });
      await statements.dropDone(job).then(fenced(job, 'drop done'));
      return;
    }
    if (claimed === 'held') {
      // Not dropped: if that worker dies, this copy is what runs it. Looked at again after a delay,
      // without counting an attempt.
      logger.info('job running elsewhere; waits', { kind: job.kind, job_id: job.id });
      await statements.waitForClaim(job, RETRY_DELAY_SECONDS).then(fenced(job, 'wait for claim'));
      return;
    }
    try {
      await spanned(telemetry.backgroundSpan(job.kind, job.link, { 'campus.job.id': job.id }), async (span) => {
        await handler(job.payload, { key: job.key, span, signal });
      });
    } catch (err) {
      // Aborted by stop, which already gave it back as due at once: not a failed attempt.
      if (released.has(job.id)) return;
      await giveBack(job, err);
      return;
    }
    // Done only while this worker still holds the key's claim and the row: after a takeover, the
    // replica that took it records the end (its run is the one that counts).
    await statements.complete(job).then(fenced(job, 'complete'));
  }

  function startJob(job: TakenJob): void {
    const abort = new AbortController();
    const signal = AbortSignal.any([abort.signal, jobSignal(options.expireSeconds)]);
    const done = run(job, signal)
      .catch((err: unknown) => logger.warn('job queue could not record a job’s end', { kind: job.kind, job_id: job.id, error: errorType(err) }))
      .finally(() => {
        running.delete(job.id);
        if (lastFetchFull) nudge();
      });
    running.set(job.id, { job, abort, done });
  }

  /** Waits for a nudge or `ms`, whichever is first. */
  function sleep(ms: number): Promise<void> {
    if (wakePending) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  }

  async function fetchLoop(): Promise<void> {
    while (state === 'started') {
      const free = concurrency - running.size;
      if (free <= 0) {
        // Every slot is busy: the next job's end nudges the loop.
        wakePending = false;
        await sleep(pollingMs);
        continue;
      }
      wakePending = false;
      let taken: TakenJob[] = [];
      try {
        taken = await statements.take(free);
      } catch (err) {
        // The database is away: the jobs wait in it; look again at the next interval.
        fetchFailed(err);
        await sleep(pollingMs);
        continue;
      }
      if (outage) {
        logger.info('job queue fetching again', { failures: outage.failures, after_s: Math.round((Date.now() - outage.since) / 1_000) });
        outage = null;
      }
      if (state !== 'started') {
        // Stopped while fetching: what was just taken goes straight back.
        await release(taken);
        return;
      }
      lastFetchFull = taken.length === free;
      for (const job of taken) startJob(job);
      // A full fetch may have left more: fetch again when a slot is free, without waiting.
      if (taken.length === free) continue;
      await sleep(pollingMs);
    }
  }

  /** A failed fetch: reported at the outage's start, then once per FETCH_FAILURE_WARN_MS (module note). */
  function fetchFailed(err: unknown): void {
    const now = Date.now();
    if (!outage) {
      outage = { since: now, failures: 1, warnedAt: now };
      logger.warn('job queue could not fetch jobs', { error: errorType(err) });
      return;
    }
    outage.failures++;
    if (now - outage.warnedAt < (options.outageReportMs ?? FETCH_FAILURE_WARN_MS)) return;
    outage.warnedAt = now;
    logger.warn('job queue still cannot fetch jobs', { error: errorType(err), failures: outage.failures, for_s: Math.round((now - outage.since) / 1_000) });
  }

  /** Jobs this replica gives up: due again at once for any replica, their claims released. Never throws. */
  const release = (taken: TakenJob[]) => statements.release(taken).catch(() => undefined);

  /** Old done and failed rows pruned (statements.prune: one replica at a time). Never throws. */
  const prune = () =>
    statements.prune().then(
      () => undefined,
      (err: unknown) => logger.warn('job queue could not prune old rows', { error: errorType(err) }),
    );
  let pruneTimer: NodeJS.Timeout | null = null;

  return {
    backend: 'postgres',
    handle(kind, handler) {
      handlers.set(kind, handler);
      here.handle(kind, handler);
    },
    enqueue(kind, payload, { key, linkedTo = null, startAfter }) {
      const link = linkedTo?.traceparent() ?? null;
      const runAfter = startAfter?.toISOString() ?? null;
      statements.insert(kind, key, payload, link, runAfter).then(
        // A job for later waits in the table for any replica; one for now is taken by this one's loop.
        () => (runAfter ? undefined : nudge()),
        (err: unknown) => {
          if (runAfter) {
            logger.warn('deferred job could not be queued; dropped', { kind, error: errorType(err) });
            return;
          }
          // The database is away: run it here rather than lose it (the registry's drain waits for it).
          logger.warn('job could not be queued; running it in this process', { kind, error: errorType(err) });
          here.enqueue(kind, payload, { key, linkedTo });
        },
      );
    },
    async start() {
      if (state !== 'new') return;
      await prune();
      pruneTimer = setInterval(() => void prune(), options.pruneEveryMs ?? PRUNE_EVERY_MS);
      pruneTimer.unref();
      state = 'started';
      loop = fetchLoop();
    },
    async health(): Promise<QueueHealth | null> {
      if (state === 'new') return null;
      // Health must answer fast with the database gone (the platform's check has a deadline): the
      // read is given up after HEALTH_TIMEOUT_MS, like the memory store's.
      const read = statements.depth().then((row): QueueHealth => ({ backend: 'postgres', depth: row.depth, oldest_seconds: Math.round(row.oldest ?? 0) }));
      return settleWithin<QueueHealth | null>(read, HEALTH_TIMEOUT_MS, null);
    },
    async stop(timeoutMs) {
      // Stops fetching, waits for the jobs it runs up to the bound, then aborts the rest and gives them
      // back (due at once, for another replica once this one is gone). Bounded even with the database
      // gone: a fetch or a give-back that hangs is left behind (its jobs are taken over after the expiry).
      if (pruneTimer) clearInterval(pruneTimer);
      if (state !== 'started') {
        state = 'stopping';
        return;
      }
      state = 'stopping';
      wake?.();
      const deadline = Date.now() + Math.max(1_000, timeoutMs);
      await settleWithin(Promise.all([loop, ...[...running.values()].map((r) => r.done)]).then(() => undefined), deadline - Date.now(), undefined);
      const left = [...running.values()];
      for (const r of left) {
        released.add(r.job.id);
        r.abort.abort(new Error('the job queue is stopping'));
      }
      await settleWithin(release(left.map((r) => r.job)), Math.max(500, deadline - Date.now()), undefined);
    },
  };
}
