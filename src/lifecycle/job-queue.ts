/**
 * Work that runs after the response (memory extraction after a turn), behind one interface with two
 * implementations:
 *
 * - in process (`createInProcessQueue`): the job runs at once in this process, registered with the
 *   background registry so SIGTERM waits for it. The zero-config default, without DATABASE_URL. A
 *   process killed with SIGKILL loses what it was running.
 * - on Postgres (`db/postgres-job-queue.ts`, the `jobs` table): the job is stored in the turn and run by any
 *   replica. A replica killed mid-job loses nothing: the job expires and another replica takes it over.
 *   A key claimed in `job_runs` makes a job that runs twice take effect once.
 *
 * A handler gets the job's span (a trace of its own, linked to the turn's) and a signal that ends
 * before the queue would hand the job to another replica.
 */
import type { Logger } from '../logger.js';
import type { TraceSpan } from '../telemetry/telemetry.js';
import type { BackgroundTasks } from './background-tasks.js';

/** JOB_EXPIRE_SECONDS by default: longer than an extraction may take (30 s), short enough for a quick takeover. */
export const DEFAULT_JOB_EXPIRE_SECONDS = 40;

/** The kinds of job; each has one handler, registered before the queue starts. */
export type JobKind = 'memory-extraction';

export interface JobContext {
  /** The job's idempotency key (the turn it belongs to). */
  key: string;
  span: TraceSpan;
  /** Aborted before the job's expiry (JOB_EXPIRE_SECONDS), so a live worker never runs into a takeover. */
  signal: AbortSignal;
}

export type JobHandler = (payload: unknown, job: JobContext) => Promise<void>;

export interface QueueHealth {
  backend: 'postgres' | 'in-process';
  /**
   * Jobs not yet done. Postgres: waiting to run (created, or waiting for a retry), all replicas
   * together. In process: the jobs running and those waiting for one of its JOB_CONCURRENCY slots.
   */
  depth: number;
  /** Seconds since the oldest waiting job was created; 0 when none waits. */
  oldest_seconds: number;
}

export interface JobQueue {
  readonly backend: QueueHealth['backend'];
  handle(kind: JobKind, handler: JobHandler): void;
  /**
   * Enqueues a job in the turn. Never throws: a job the queue cannot store runs in this process instead
   * (logged), so a database hiccup degrades to today's behaviour rather than losing the work.
   * `startAfter`: not before then (a job the service-wide spending cap refused waits for the reset). On
   * Postgres it waits in the table; in process, on a timer that does not hold the process open (a
   * process stopped first loses it, as it loses any in-process job on SIGKILL).
   */
  enqueue(kind: JobKind, payload: unknown, options: { key: string; linkedTo?: TraceSpan | null; startAfter?: Date }): void;
  /** Starts taking jobs (a no-op in process). */
  start(): Promise<void>;
  /** Depth and age of the queue; never throws (null when it cannot be read). */
  health(): Promise<QueueHealth | null>;
  /** Stops taking jobs; finishes what it holds within `timeoutMs`, releases the rest to other replicas. */
  stop(timeoutMs: number): Promise<void>;
}

/** The job's signal: aborted `marginMs` before its expiry. */
export function jobSignal(expireSeconds: number, marginMs = 2_000): AbortSignal {
  return AbortSignal.timeout(Math.max(1_000, expireSeconds * 1_000 - marginMs));
}

/** JOB_CONCURRENCY's default: jobs one process runs at once. */
export const DEFAULT_JOB_CONCURRENCY = 10;

/** Counts the jobs running in a process: at most `limit` at once, the rest wait in arrival order. */
export function createJobSlots(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    /** Resolves when a slot is this caller's; pair every acquire with one release. */
    async acquire(): Promise<void> {
      if (running < limit) {
        running++;
        return;
      }
      await new Promise<void>((take) => waiting.push(take));
    },
    release(): void {
      const next = waiting.shift();
      // The slot passes straight to the next waiter, so `running` stays as it is.
      if (next) next();
      else running--;
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
  };
}

/**
 * Jobs run in this process, through the background registry (so SIGTERM's drain waits for them), at most
 * `concurrency` at once: a burst of signed-in turns queues its extractions here instead of opening a
 * model call for each at once. A waiting job's deadline starts when it starts.
 */
export function createInProcessQueue(options: {
  background: BackgroundTasks;
  logger: Logger;
  expireSeconds: number;
  concurrency?: number;
}): JobQueue {
  const handlers = new Map<JobKind, JobHandler>();
  const slots = createJobSlots(options.concurrency ?? DEFAULT_JOB_CONCURRENCY);
  return {
    backend: 'in-process',
    handle(kind, handler) {
      handlers.set(kind, handler);
    },
    enqueue(kind, payload, { key, linkedTo = null, startAfter }) {
      const handler = handlers.get(kind);
      if (!handler) {
        options.logger.error('no handler for a job kind; job dropped', { kind });
        return;
      }
      const delayMs = startAfter ? startAfter.getTime() - Date.now() : 0;
      if (delayMs > 0) {
        setTimeout(() => this.enqueue(kind, payload, { key, linkedTo }), delayMs).unref();
        return;
      }
      options.background.run(
        kind,
        async (span) => {
          await slots.acquire();
          try {
            await handler(payload, { key, span, signal: jobSignal(options.expireSeconds) });
          } finally {
            slots.release();
          }
        },
        linkedTo,
      );
    },
    start: async () => undefined,
    health: async () => ({ backend: 'in-process', depth: slots.running + slots.waiting, oldest_seconds: 0 }),
    // The background registry's drain (server.ts) is what waits for these.
    stop: async () => undefined,
  };
}
