/**
 * The job queue's statements on the `jobs` and `job_runs` tables (db/postgres-job-queue.ts runs them),
 * one method each, named for what they do. Every write after a job is taken is fenced by the take's
 * lease (issue 63): it applies only while the row, and the key's claim in `job_runs`, still carry the
 * lease of the worker writing, so a worker whose expiry passed and whose job another replica took
 * changes nothing. Each fenced write resolves to whether it applied.
 */
import type { Sql } from 'postgres';
import type { JobKind } from '../lifecycle/job-queue.js';

/** A job this worker took: the row's fields, and the take's lease. */
export interface TakenJob {
  id: string;
  /** This take's token: the writes that follow apply only while the row (and the key's claim) still carry it. */
  lease: string;
  kind: JobKind;
  key: string;
  payload: unknown;
  link: string | null;
  attempts: number;
}

/** How a claim of a key went: won, the key already done, or held by a live worker. */
export type ClaimOutcome = 'won' | 'done' | 'held';

/** The advisory lock the pruning replica holds for its transaction (a fixed 64-bit number of this queue's own). */
const PRUNE_LOCK = 7_261_032_415;

export class JobStatements {
  constructor(
    private readonly sql: Sql,
    private readonly kinds: readonly JobKind[],
    /** JOB_EXPIRE_SECONDS: how long a take (and a claim) lasts. */
    private readonly expireSeconds: number,
  ) {}

  /** A job not yet running: waiting (or waiting for later), or taken by a worker that let its expiry pass. */
  private notRunning() {
    return this.sql`kind = any(${this.kinds as JobKind[]}) and failed_at is null and (locked_until is null or locked_until < now())`;
  }

  /** The row of `job` while this worker still holds it (its lease). */
  private held(job: TakenJob) {
    return this.sql`id = ${job.id} and lease = ${job.lease}::uuid`;
  }

  /** Takes up to `limit` due jobs (waiting ones, and taken ones whose worker let the expiry pass), each with a fresh lease. */
  take(limit: number): Promise<TakenJob[]> {
    return this.sql<TakenJob[]>`
      with next as (
        select id from jobs
        where ${this.notRunning()} and run_after <= now()
        order by run_after, id
        limit ${limit}
        for update skip locked
      )
      update jobs set locked_until = now() + make_interval(secs => ${this.expireSeconds}), attempts = jobs.attempts + 1, lease = gen_random_uuid()
      from next where jobs.id = next.id
      returning jobs.id::text as id, jobs.lease::text as lease, jobs.kind, jobs.key, jobs.payload, jobs.link, jobs.attempts`;
  }

  /**
   * Claims the job's key for its lease: 'won', or 'done' (it ran to the end before), or 'held' (a live
   * worker holds it: the same key queued twice, or a worker past its expiry but not yet past its claim's).
   */
  async claim(job: TakenJob): Promise<ClaimOutcome> {
    // The sub-select reads the snapshot from before the insert: whether the key was already done.
    const [row] = await this.sql<{ won: boolean; done: boolean | null }[]>`
      with claimed as (
        insert into job_runs (key, claimed_at, claim) values (${job.key}, now(), ${job.lease}::uuid)
        on conflict (key) do update set claimed_at = now(), claim = excluded.claim
          where job_runs.done_at is null
            and job_runs.claimed_at < now() - make_interval(secs => ${this.expireSeconds})
        returning key
      )
      select exists (select 1 from claimed) as won, (select done_at is not null from job_runs where key = ${job.key}) as done`;
    return row?.won ? 'won' : row?.done ? 'done' : 'held';
  }

  /** The job ran to the end: its claim marked done and its row deleted, in one statement. */
  async complete(job: TakenJob): Promise<boolean> {
    const rows = await this.sql`
      with done as (update job_runs set done_at = now() where key = ${job.key} and claim = ${job.lease}::uuid)
      delete from jobs where ${this.held(job)}`;
    return rows.count > 0;
  }

  /** Gives the key's claim back (this worker's only), so a retry on any replica may take it at once. */
  async releaseClaim(job: TakenJob): Promise<void> {
    await this.sql`delete from job_runs where key = ${job.key} and done_at is null and claim = ${job.lease}::uuid`;
  }

  /** Its retries are spent: kept a day for the operator, without its payload (the turn's text). */
  async fail(job: TakenJob, error: string): Promise<boolean> {
    const rows = await this.sql`update jobs set failed_at = now(), locked_until = null, payload = null, last_error = ${error} where ${this.held(job)}`;
    return rows.count > 0;
  }

  /** Due again after `delaySeconds`, its attempt counted. */
  async retryLater(job: TakenJob, delaySeconds: number, error: string): Promise<boolean> {
    const rows = await this.sql`update jobs set locked_until = null, run_after = now() + make_interval(secs => ${delaySeconds}), last_error = ${error} where ${this.held(job)}`;
    return rows.count > 0;
  }

  /** Its key is held by a live worker: looked at again after `delaySeconds`, without counting an attempt. */
  async waitForClaim(job: TakenJob, delaySeconds: number): Promise<boolean> {
    const rows = await this.sql`update jobs set locked_until = null, attempts = greatest(attempts - 1, 0), run_after = now() + make_interval(secs => ${delaySeconds}) where ${this.held(job)}`;
    return rows.count > 0;
  }

  /** Its key ran to the end before: the copy is deleted without running. */
  async dropDone(job: TakenJob): Promise<boolean> {
    const rows = await this.sql`delete from jobs where ${this.held(job)}`;
    return rows.count > 0;
  }

  /** Jobs this replica gives up (stopping): due again at once, their claims released; only those it still holds. */
  async release(taken: readonly TakenJob[]): Promise<void> {
    if (taken.length === 0) return;
    const ids = taken.map((j) => j.id);
    const keys = taken.map((j) => j.key);
    const leases = taken.map((j) => j.lease);
    await this.sql`
      update jobs set locked_until = null, attempts = greatest(attempts - 1, 0)
      from unnest(${ids}::bigint[], ${leases}::uuid[]) as mine(id, lease)
      where jobs.id = mine.id and jobs.lease = mine.lease`;
    await this.sql`delete from job_runs where key = any(${keys}) and done_at is null and claim = any(${leases}::uuid[])`;
  }

  /** Queues a job: due at `runAfter` (ISO), or now. */
  async insert(kind: JobKind, key: string, payload: unknown, link: string | null, runAfter: string | null): Promise<void> {
    await this.sql`insert into jobs (kind, key, payload, link, run_after) values (${kind}, ${key}, ${JSON.stringify(payload ?? null)}::jsonb, ${link}, coalesce(${runAfter}::timestamptz, now()))`;
  }

  /** Jobs not yet running, and the age of the oldest (seconds). */
  async depth(): Promise<{ depth: number; oldest: number | null }> {
    const [row] = await this.sql<{ depth: number; oldest: number | null }[]>`
      select count(*)::int as depth, extract(epoch from now() - min(created_at))::float8 as oldest
      from jobs where ${this.notRunning()}`;
    return { depth: row?.depth ?? 0, oldest: row?.oldest ?? null };
  }

  /**
   * Claims of finished jobs older than a day (a late duplicate found them until then) and failed jobs
   * older than a day (kept for the operator), deleted by one replica at a time: a transaction-scoped
   * advisory lock, and a replica that finds it taken skips this round. Resolves to whether it pruned.
   */
  async prune(): Promise<boolean> {
    return this.sql.begin(async (tx) => {
      const [row] = await tx<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(${PRUNE_LOCK}) as locked`;
      if (!row?.locked) return false;
      await tx`delete from job_runs where done_at < now() - interval '1 day'`;
      await tx`delete from jobs where failed_at < now() - interval '1 day'`;
      return true;
    });
  }
}
