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
 * `pollingSeconds` (jobs other replicas sent, retries, jobs for later); once a fetch found nothing and
 * nothing runs here, every `idlePollingSeconds` (issue 75: an idle replica runs one statement in 6 s,
 * not one in 2; a job it queues itself is still fetched at once).
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
import { errorType, noTelemetry, spanned, type Telemetry, type TraceSpan } from '../telemetry/telemetry.js';
import type { Database } from './client.js';

export interface PostgresJobQueueOptions {
  database: Database;
  logger: Logger;
  telemetry?: Telemetry;
  /** Seconds a job may stay taken before another replica takes it over (JOB_EXPIRE_SECONDS). */
  expireSeconds: number;
  /** How often a replica running or finding jobs asks for more; default 2 s. */
  pollingSeconds?: number;
  /** How often a replica whose last fetch found nothing, running none, asks; default IDLE_POLL_FACTOR × pollingSeconds. */
  idlePollingSeconds?: number;
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

/** An idle replica asks for jobs this many times less often than a busy one (6 s against 2). */
export const IDLE_POLL_FACTOR = 3;

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

/** The job queue on Postgres (module note): the fetch loop and the jobs it runs, state in fields. */
class PostgresJobQueue implements JobQueue {
  readonly backend = 'postgres';
  private readonly logger: Logger;
  private readonly telemetry: Telemetry;
  private readonly concurrency: number;
  private readonly pollingMs: number;
  private readonly idlePollingMs: number;
  private readonly retryLimit: number;
  private readonly statements: JobStatements;
  private readonly handlers = new Map<JobKind, JobHandler>();
  /** The jobs this replica runs, by id: their aborts (for stop) and their ends. */
  private readonly running = new Map<string, { job: TakenJob; abort: AbortController; done: Promise<void> }>();
  /** Jobs stop gave back while their handlers still ran. */
  private readonly released = new Set<string>();
  /** Jobs whose insert failed run in this process: tracked by the background registry, `concurrency` at once. */
  private readonly here: JobQueue;
  private state: 'new' | 'started' | 'stopping' = 'new';
  /** Set while the loop waits: resolves it early (a job queued here, a slot freed, stop). */
  private wake: (() => void) | null = null;
  /** A wake that came while the loop was fetching: it fetches again instead of sleeping. */
  private wakePending = false;
  /** The last fetch filled every free slot, so the table may hold more: a job's end fetches again. */
  private lastFetchFull = false;
  private loop: Promise<void> | null = null;
  /** The fetch outage under way: when it began, its failures so far, when it was last reported. */
  private outage: { since: number; failures: number; warnedAt: number } | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: PostgresJobQueueOptions) {
    this.logger = options.logger;
    this.telemetry = options.telemetry ?? noTelemetry;
    this.concurrency = Math.max(1, options.concurrency ?? DEFAULT_JOB_CONCURRENCY);
    this.pollingMs = Math.max(50, (options.pollingSeconds ?? 2) * 1_000);
    this.idlePollingMs = options.idlePollingSeconds !== undefined ? Math.max(50, options.idlePollingSeconds * 1_000) : this.pollingMs * IDLE_POLL_FACTOR;
    this.retryLimit = options.retryLimit ?? 5;
    this.statements = new JobStatements(options.database.sql, KINDS, options.expireSeconds);
    this.here = createInProcessQueue({ background: options.background, logger: options.logger, expireSeconds: options.expireSeconds, concurrency: this.concurrency });
  }

  handle(kind: JobKind, handler: JobHandler): void {
    this.handlers.set(kind, handler);
    this.here.handle(kind, handler);
  }

  enqueue(kind: JobKind, payload: unknown, { key, linkedTo = null, startAfter }: { key: string; linkedTo?: TraceSpan | null; startAfter?: Date }): void {
    const link = linkedTo?.traceparent() ?? null;
    const runAfter = startAfter?.toISOString() ?? null;
    this.statements.insert(kind, key, payload, link, runAfter).then(
      // A job for later waits in the table for any replica; one for now is taken by this one's loop.
      () => (runAfter ? undefined : this.nudge()),
      (err: unknown) => {
        if (runAfter) {
          this.logger.warn('deferred job could not be queued; dropped', { kind, error: errorType(err) });
          return;
        }
        // The database is away: run it here rather than lose it (the registry's drain waits for it).
        this.logger.warn('job could not be queued; running it in this process', { kind, error: errorType(err) });
        this.here.enqueue(kind, payload, { key, linkedTo });
      },
    );
  }

  async start(): Promise<void> {
    if (this.state !== 'new') return;
    await this.prune();
    this.pruneTimer = setInterval(() => void this.prune(), this.options.pruneEveryMs ?? PRUNE_EVERY_MS);
    this.pruneTimer.unref();
    this.state = 'started';
    this.loop = this.fetchLoop();
  }

  async health(): Promise<QueueHealth | null> {
    if (this.state === 'new') return null;
    // Health must answer fast with the database gone (the platform's check has a deadline): the
    // read is given up after HEALTH_TIMEOUT_MS, like the memory store's.
    const read = this.statements.depth().then((row): QueueHealth => ({ backend: 'postgres', depth: row.depth, oldest_seconds: Math.round(row.oldest ?? 0) }));
    return settleWithin<QueueHealth | null>(read, HEALTH_TIMEOUT_MS, null);
  }

  async stop(timeoutMs: number): Promise<void> {
    // Stops fetching, waits for the jobs it runs up to the bound, then aborts the rest and gives them
    // back (due at once, for another replica once this one is gone). Bounded even with the database
    // gone: a fetch or a give-back that hangs is left behind (its jobs are taken over after the expiry).
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    if (this.state !== 'started') {
      this.state = 'stopping';
      return;
    }
    this.state = 'stopping';
    this.wake?.();
    const deadline = Date.now() + Math.max(1_000, timeoutMs);
    await settleWithin(Promise.all([this.loop, ...[...this.running.values()].map((r) => r.done)]).then(() => undefined), deadline - Date.now(), undefined);
    const left = [...this.running.values()];
    for (const r of left) {
      this.released.add(r.job.id);
      r.abort.abort(new Error('the job queue is stopping'));
    }
    await settleWithin(this.release(left.map((r) => r.job)), Math.max(500, deadline - Date.now()), undefined);
  }

  private nudge(): void {
    this.wakePending = true;
    this.wake?.();
  }

  /** Logs a write that found the lease gone: another replica took the job after this one's expiry. */
  private fenced(job: TakenJob, what: string) {
    return (applied: boolean) => {
      if (!applied) this.logger.info('job lease lost; this worker\'s write changed nothing', { kind: job.kind, job_id: job.id, write: what });
    };
  }

  /** A job that threw: due again after its backoff, or failed for good once its retries are spent. */
  private async giveBack(job: TakenJob, err: unknown): Promise<void> {
    // The claim goes back first (this worker's only), so the retry (on any replica) may take it at once.
    await this.statements.releaseClaim(job).catch(() => undefined);
    if (job.attempts > this.retryLimit) {
      this.logger.error('job failed; no retries left', { kind: job.kind, job_id: job.id, attempts: job.attempts, error: errorType(err) });
      await this.statements.fail(job, errorType(err)).then(this.fenced(job, 'fail'));
      return;
    }
    const delay = retryDelaySeconds(job.attempts);
    this.logger.warn('job failed; retrying', { kind: job.kind, job_id: job.id, attempts: job.attempts, retry_in_s: delay, error: errorType(err) });
    await this.statements.retryLater(job, delay, errorType(err)).then(this.fenced(job, 'give back'));
  }

  private async run(job: TakenJob, signal: AbortSignal): Promise<void> {
    const handler = this.handlers.get(job.kind);
    if (!handler) {
      await this.giveBack(job, new Error(`no handler for ${job.kind}`));
      return;
    }
    // A job of a past attempt that killed its worker every time: not run again.
    if (job.attempts > this.retryLimit + 1) {
      await this.giveBack(job, new Error('attempts exhausted by takeovers'));
      return;
    }
    const claimed = await this.statements.claim(job);
    if (claimed === 'done') {
      this.logger.info('job already done; skipped', { kind: job.kind, job_id: job.id });
      await this.statements.dropDone(job).then(this.fenced(job, 'drop done'));
      return;
    }
    if (claimed === 'held') {
      // Not dropped: if that worker dies, this copy is what runs it. Looked at again after a delay,
      // without counting an attempt.
      this.logger.info('job running elsewhere; waits', { kind: job.kind, job_id: job.id });
      await this.statements.waitForClaim(job, RETRY_DELAY_SECONDS).then(this.fenced(job, 'wait for claim'));
      return;
    }
    if (signal.aborted) {
      // Stopped (or past its expiry) while the claim was on its way: the handler is not started on a
      // dead signal (it would never hear the abort). Stop gave the job back; its claim goes too.
      if (this.released.has(job.id)) await this.statements.releaseClaim(job).catch(() => undefined);
      else await this.giveBack(job, signal.reason);
      return;
    }
    try {
      await spanned(this.telemetry.backgroundSpan(job.kind, job.link, { 'campus.job.id': job.id }), async (span) => {
        await handler(job.payload, { key: job.key, span, signal });
      });
    } catch (err) {
      // Aborted by stop, which already gave it back as due at once: not a failed attempt.
      if (this.released.has(job.id)) return;
      await this.giveBack(job, err);
      return;
    }
    // Done only while this worker still holds the key's claim and the row: after a takeover, the
    // replica that took it records the end (its run is the one that counts).
    await this.statements.complete(job).then(this.fenced(job, 'complete'));
  }

  private startJob(job: TakenJob): void {
    const abort = new AbortController();
    const signal = AbortSignal.any([abort.signal, jobSignal(this.options.expireSeconds)]);
    const done = this.run(job, signal)
      .catch((err: unknown) => this.logger.warn('job queue could not record a job’s end', { kind: job.kind, job_id: job.id, error: errorType(err) }))
      .finally(() => {
        this.running.delete(job.id);
        if (this.lastFetchFull) this.nudge();
      });
    this.running.set(job.id, { job, abort, done });
  }

  /** Waits for a nudge or `ms`, whichever is first. */
  private sleep(ms: number): Promise<void> {
    if (this.wakePending) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.wake = done;
    });
  }

  private async fetchLoop(): Promise<void> {
    while (this.state === 'started') {
      const free = this.concurrency - this.running.size;
      if (free <= 0) {
        // Every slot is busy: the next job's end nudges the loop.
        this.wakePending = false;
        await this.sleep(this.pollingMs);
        continue;
      }
      this.wakePending = false;
      let taken: TakenJob[] = [];
      try {
        taken = await this.statements.take(free);
      } catch (err) {
        // The database is away: the jobs wait in it; look again at the next interval.
        this.fetchFailed(err);
        await this.sleep(this.pollingMs);
        continue;
      }
      if (this.outage) {
        this.logger.info('job queue fetching again', { failures: this.outage.failures, after_s: Math.round((Date.now() - this.outage.since) / 1_000) });
        this.outage = null;
      }
      if ((this.state as string) !== 'started') {
        // Stopped while fetching: what was just taken goes straight back.
        await this.release(taken);
        return;
      }
      this.lastFetchFull = taken.length === free;
      for (const job of taken) this.startJob(job);
      // A full fetch may have left more: fetch again when a slot is free, without waiting.
      if (taken.length === free) continue;
      await this.sleep(taken.length === 0 && this.running.size === 0 ? this.idlePollingMs : this.pollingMs);
    }
  }

  /** A failed fetch: reported at the outage's start, then once per FETCH_FAILURE_WARN_MS (module note). */
  private fetchFailed(err: unknown): void {
    const now = Date.now();
    if (!this.outage) {
      this.outage = { since: now, failures: 1, warnedAt: now };
      this.logger.warn('job queue could not fetch jobs', { error: errorType(err) });
      return;
    }
    this.outage.failures++;
    if (now - this.outage.warnedAt < (this.options.outageReportMs ?? FETCH_FAILURE_WARN_MS)) return;
    this.outage.warnedAt = now;
    this.logger.warn('job queue still cannot fetch jobs', { error: errorType(err), failures: this.outage.failures, for_s: Math.round((now - this.outage.since) / 1_000) });
  }

  /** Jobs this replica gives up: due again at once for any replica, their claims released. Never throws. */
  private release(taken: TakenJob[]): Promise<unknown> {
    return this.statements.release(taken).catch(() => undefined);
  }

  /** Old done and failed rows pruned (statements.prune: one replica at a time). Never throws. */
  private prune(): Promise<void> {
    return this.statements.prune().then(
      () => undefined,
      (err: unknown) => this.logger.warn('job queue could not prune old rows', { error: errorType(err) }),
    );
  }
}

export function createPostgresJobQueue(options: PostgresJobQueueOptions): JobQueue {
  return new PostgresJobQueue(options);
}
