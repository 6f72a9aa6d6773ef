/**
 * The Postgres run log's statements on `agent_runs`, `agent_run_frames` and `agent_run_replicas`
 * (runs/postgres-run-store.ts runs them and keeps the in-flight state), one method each, named for what
 * they do, as the job queue's are (db/job-statements.ts). Every write of a run is fenced: it applies only
 * while the row is `running` and this replica's, so a run cancelled or marked interrupted elsewhere takes
 * no more; a write another replica may wait on notifies in the same statement, so a follower woken by
 * the notice always finds what was written.
 */
import type postgres from 'postgres';
import type { RunRef } from './run-ids.js';
import { framesOfLines, type Frame, type RunEnd, type RunSignal, type RunStatus, type StoredRun } from './run-log.js';

/** The channel of the replicas' notices: `f <run>` (frames or state changed), `w <run>` (wanted), `c <run>` (cancelled). */
export const CHANNEL = 'campus_runs';

/** The advisory lock the pruning replica holds for its transaction (a fixed number of the run log's own). */
const PRUNE_LOCK = 7_261_032_562;

interface RunRow {
  owner: string;
  status: RunStatus;
  last_seq: number;
  closed: boolean;
  response: StoredRun['response'];
  error: StoredRun['error'];
  stale: boolean;
  frames: Frame[];
  /** The end's frames as the releases before tail lines wrote them (a JSON array), after the cursor. */
  tail: Frame[];
  /** The end's frames (`frameLines`), whole. */
  tail_lines: string | null;
}

/**
 * The batch window of ends: a replica writes the ends of the runs that finished within it in one
 * statement (at most 20 a second however many turns end), so under load a turn's end costs a share of
 * one. Only readers on other replicas wait for it, and a run one of them follows is written at once.
 */
export const END_BATCH_MS = 50;

export interface QueuedEnd {
  frames: readonly Frame[];
  end: RunEnd;
  notify: boolean;
  resolve(): void;
  reject(err: unknown): void;
}

/** What a heartbeat read: the server's start time and its WAL's insert and flush positions (bytes). */
export interface WalReading {
  instance: string;
  inserted: bigint;
  flushed: bigint;
}

/** One run's end as the statement takes it; `owner` only while the run's row is not written yet. */
export interface EndRow {
  id: string;
  owner: string | null;
  status: RunEnd['status'];
  last_seq: number;
  /** The frames not yet written, as `frameLines` text ('' when none: the row keeps null). */
  tail: string;
  response: RunEnd['response'];
  error: RunEnd['error'];
  /** A reader on another replica follows the run: tell the replicas. */
  notify: boolean;
}

/**
 * One statement for `rows`: an update of each run whose row is written, an insert-or-update of each
 * whose row is not, both only while the row is `running` and `replica`'s; the frames not yet written go
 * in the row (`tail_lines`), its expiry is this replica's retention from now, and a notice on `channel`
 * for each run a reader elsewhere follows. The tails go beside the rows' JSON, not in it, each a
 * parameter of its own (a VALUES list: no array literal to escape and parse), so the database stores
 * them as sent (docs/perf-log/2026-11-30-tail-lines.md).
 *
 * It commits asynchronously (`synchronous_commit` off for its own transaction, set inside it): visible to
 * every reader at once, but not waiting for the WAL's flush, which at the peak cost every turn's commits
 * a place in the flush queue (docs/perf-log/2026-11-30-commits.md). The store keeps the ends until the
 * replica's heartbeats have seen the WAL flushed past them, and writes them again if the server restarted
 * in between (postgres-run-store.ts `settle`).
 */
function endsStatement(sql: postgres.Sql, replica: string, channel: string, retentionSeconds: number, rows: readonly EndRow[]) {
  const expires = sql`now() + make_interval(secs => ${retentionSeconds})`;
  const meta = rows.map(({ tail: _tail, ...row }) => row);
  return sql`
      with e as (
        -- The transaction commits without waiting for the WAL's flush (see the comment above).
        select e.*, nullif(t.tail, '') as tail, set_config('synchronous_commit', 'off', true) as unflushed
        from json_to_recordset(${JSON.stringify(meta)}::json)
          as e(id uuid, owner text, status text, last_seq integer, response jsonb, error jsonb, notify boolean)
        join (values ${sql(rows.map((r) => [r.id, r.tail]))}) as t(id, tail) on t.id::uuid = e.id
      ), updated as (
        update agent_runs r
        set status = e.status, last_seq = e.last_seq, closed = true, ended_at = now(), expires_at = ${expires}, tail_lines = e.tail, response = e.response, error = e.error
        from e
        where e.owner is null and r.id = e.id and r.status = 'running' and r.replica = ${replica}
        returning r.id
      ), inserted as (
        insert into agent_runs (id, owner, replica, status, last_seq, closed, ended_at, expires_at, tail_lines, response, error)
        select e.id, e.owner, ${replica}, e.status, e.last_seq, true, now(), ${expires}, e.tail, e.response, e.error from e where e.owner is not null
        on conflict (id) do update
        set status = excluded.status, last_seq = excluded.last_seq, closed = true, ended_at = now(), expires_at = excluded.expires_at, tail_lines = excluded.tail_lines,
            response = excluded.response, error = excluded.error
        where agent_runs.status = 'running' and agent_runs.replica = ${replica}
        returning id
      )
      select pg_notify(${channel}, 'f ' || w.id)
      from (select id from updated union all select id from inserted) w join e on e.id = w.id
      where e.notify`;
}

export class RunStatements {
  constructor(
    private readonly sql: postgres.Sql,
    /** This replica: its running rows carry it. */
    private readonly replica: string,
    /** RUN_RETENTION_SECONDS: an ended run's expiry from its end, and how long a dead replica's rows are kept. */
    private readonly retentionSeconds: number,
    /** A running run whose heartbeat is this old, in a database up at least as long, belongs to a dead replica. */
    private readonly staleSeconds: number,
  ) {}

  /** An ended run's expiry: this replica's RUN_RETENTION_SECONDS from now, fixed with its end and stored with it. */
  private expires() {
    return this.sql`now() + make_interval(secs => ${this.retentionSeconds})`;
  }

  /**
   * The test of a dead replica: `heartbeat` (a column) is `staleSeconds` old, and so is the database's
   * own start. After the database restarts every replica's heartbeat is old, though the live ones beat
   * again within a second of its return (their pools reconnect within one, db/client.ts): judged by the
   * heartbeat alone, their runs (and those whose ends wait to be written) were marked `interrupted` by
   * the first reader (issue 79). A database that stayed up while a replica could not reach it is no such
   * case: that replica's runs are what a reader can prove, interrupted.
   */
  private stale(heartbeat: postgres.PendingQuery<postgres.Row[]>) {
    return this.sql`(${heartbeat} < now() - make_interval(secs => ${this.staleSeconds})
      and pg_postmaster_start_time() < now() - make_interval(secs => ${this.staleSeconds}))`;
  }

  /**
   * Frames of a run produced here, and its row: updated while written (`owner` undefined), inserted or
   * updated while not; the frames inserted and the replicas told in the same statement.
   */
  append(runId: string, owner: string | undefined, frames: readonly Frame[], lastSeq: number) {
    const row =
      owner === undefined
        ? this.sql`
            update agent_runs set last_seq = greatest(last_seq, ${lastSeq}), heartbeat_at = now()
            where id = ${runId} and status = 'running' and replica = ${this.replica}
            returning id`
        : this.sql`
            insert into agent_runs (id, owner, replica, last_seq) values (${runId}, ${owner}, ${this.replica}, ${lastSeq})
            on conflict (id) do update set last_seq = greatest(agent_runs.last_seq, excluded.last_seq), heartbeat_at = now()
            where agent_runs.status = 'running' and agent_runs.replica = ${this.replica}
            returning id`;
    const insertFrames = this.sql`
      insert into agent_run_frames (run_id, seq, event, data)
      select r.id, u.seq, u.event, u.data
      from r, jsonb_to_recordset(${JSON.stringify(frames)}::jsonb) as u(seq integer, event text, data text)
      on conflict do nothing`;
    return this.sql`with r as (${row}), f as (${insertFrames}) select pg_notify(${CHANNEL}, 'f ' || r.id) from r`;
  }

  /** The ends of a batch, in one statement (see `endsStatement`). */
  ends(rows: readonly EndRow[]) {
    return endsStatement(this.sql, this.replica, CHANNEL, this.retentionSeconds, rows);
  }

  /**
   * A run and its frames after `afterSeq` (the frame rows, then the end's tail after them: `tail_lines`,
   * or `tail` as the releases before it wrote it); null when unknown or expired.
   */
  async read(runId: string, afterSeq: number): Promise<StoredRun | null> {
    const [row] = await this.sql<RunRow[]>`
      select r.owner, r.status, r.last_seq, r.closed, r.response, r.error,
             (r.status = 'running' and ${this.stale(this.sql`r.heartbeat_at`)}) as stale,
             coalesce((
               select json_agg(json_build_object('seq', f.seq, 'event', f.event, 'data', f.data) order by f.seq)
               from agent_run_frames f where f.run_id = r.id and f.seq > ${afterSeq}
             ), '[]'::json) as frames,
             coalesce((
               select json_agg(t.frame) from json_array_elements(r.tail) as t(frame) where (t.frame->>'seq')::integer > ${afterSeq}
             ), '[]'::json) as tail,
             r.tail_lines
      from agent_runs r
      where r.id = ${runId} and (r.expires_at is null or r.expires_at > now())`;
    if (!row) return null;
    // The tail follows the rows (written after every one of them); a frame in both is kept once.
    const last = row.frames.at(-1)?.seq ?? afterSeq;
    const tail = row.tail_lines === null ? row.tail.filter((f) => f.seq > last) : framesOfLines(row.tail_lines, last);
    return {
      owner: row.owner,
      status: row.status,
      lastSeq: row.last_seq,
      closed: row.closed,
      response: row.response,
      error: row.error,
      stale: row.stale,
      frames: [...row.frames, ...tail],
    };
  }

  /** A stale running run marked `interrupted` (fenced on the stale heartbeat); true when this call did. */
  async interrupt(runId: string): Promise<boolean> {
    const rows = await this.sql`
      with r as (
        update agent_runs set status = 'interrupted', ended_at = now(), expires_at = ${this.expires()}
        where id = ${runId} and status = 'running' and ${this.stale(this.sql`heartbeat_at`)}
        returning id
      )
      select pg_notify(${CHANNEL}, 'f ' || r.id) from r`;
    return rows.length > 0;
  }

  /** The replica a run id names: its last beat and whether it is stale; null when unknown. */
  async replicaOf(ref: RunRef): Promise<{ beat: number; stale: boolean } | null> {
    const [replica] = await this.sql<{ beat: string; stale: boolean }[]>`
      select beat, ${this.stale(this.sql`heartbeat_at`)} as stale
      from agent_run_replicas where id = ${ref.replica}`;
    return replica ? { beat: Number(replica.beat), stale: replica.stale } : null;
  }

  /** The row of an orphaned run written `interrupted`, fenced as `interrupt` is; true when this call did. */
  async interruptOrphan(ref: RunRef, owner: string): Promise<boolean> {
    // Only while the replica is stale and has not written the row; it ended with the replica's last beat.
    const rows = await this.sql`
      with r as (
        insert into agent_runs (id, owner, replica, status, heartbeat_at, ended_at, expires_at)
        select ${ref.key}, ${owner}, p.id, 'interrupted', p.heartbeat_at, p.heartbeat_at, ${this.expires()}
        from agent_run_replicas p
        where p.id = ${ref.replica} and p.beat <= ${ref.beat}
          and ${this.stale(this.sql`p.heartbeat_at`)}
        on conflict (id) do nothing
        returning id
      )
      select pg_notify(${CHANNEL}, 'f ' || r.id) from r`;
    return rows.length > 0;
  }

  /** `owner`'s running run marked `cancelled`, its replica told; true when it was running. */
  async cancel(runId: string, owner: string): Promise<boolean> {
    const rows = await this.sql`
      with r as (
        update agent_runs set status = 'cancelled', ended_at = now(), expires_at = ${this.expires()}
        where id = ${runId} and owner = ${owner} and status = 'running'
        returning id
      )
      select pg_notify(${CHANNEL}, 'c ' || r.id) from r`;
    return rows.length > 0;
  }

  /** Every run of `owner` deleted; the number. */
  async deleteOwner(owner: string): Promise<number> {
    const rows = await this.sql`delete from agent_runs where owner = ${owner}`;
    return rows.count;
  }

  /**
   * Expired runs, and a dead replica's running rows and its own row past the retention, deleted by one
   * replica at a time: one statement (its implicit transaction holds the advisory lock; a replica that
   * does not get it deletes nothing), so a minute's prune costs an idle replica one round trip.
   */
  async prune(): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`
      with lock as (select pg_try_advisory_xact_lock(${PRUNE_LOCK}) as locked),
      runs as (
        delete from agent_runs
        where (select locked from lock)
          and (expires_at < now() or (status = 'running' and heartbeat_at < now() - make_interval(secs => ${this.retentionSeconds})))
        returning 1
      ), replicas as (
        -- A data-modifying CTE runs to completion whether or not the query reads it.
        delete from agent_run_replicas
        where (select locked from lock) and heartbeat_at < now() - make_interval(secs => ${this.retentionSeconds})
      )
      select (select count(*) from runs)::int as n`;
    return row?.n ?? 0;
  }

  /**
   * One heartbeat: this replica's row at `beat`, the rows of `fresh` runs (id, owner), the rows of
   * `restate` (inserted by earlier beats, not known durable) again when the server's start time is not
   * `instance` (a crash may have lost them), and the runs it produces. It commits without waiting for
   * the WAL's flush, as the ends do (nothing waits on its durability: a crash takes the replica's row and
   * the rows it inserted back together, and live replicas beat again), unless `flush`: then its commit
   * makes every write before it durable. Returns the server's start time (another than before: it
   * restarted in between) and two WAL positions as byte offsets: `inserted`, read while the beat ran, so
   * past every commit that returned before it was sent, and `flushed`, what is on disk: a write committed
   * before a beat that read `inserted` is durable once a later beat on the same server reads `flushed` at
   * least that.
   */
  async heartbeat(
    beat: number,
    fresh: ReadonlyArray<readonly [string, string]>,
    restate: ReadonlyArray<readonly [string, string]>,
    instance: string | null,
    runIds: readonly string[],
    /** Commit with the WAL's flush (the server's setting) instead: the store saw the flush lag a beat. */
    flush: boolean,
  ): Promise<WalReading> {
    const rows = [...fresh.map(([id, owner]) => [id, owner, 'fresh'] as const), ...restate.map(([id, owner]) => [id, owner, 'again'] as const)];
    const [row] = await this.sql<{ instance: string; inserted: string; flushed: string }[]>`
      with replica as (
        insert into agent_run_replicas (id, beat) values (${this.replica}, ${beat})
        on conflict (id) do update set beat = greatest(agent_run_replicas.beat, excluded.beat), heartbeat_at = now()
      ), inserted as (
        -- The fresh rows, and the restated ones only on a server that started since the given instance.
        insert into agent_runs (id, owner, replica)
        select u.id, u.owner, ${this.replica}
        from unnest(${rows.map(([id]) => id)}::uuid[], ${rows.map(([, o]) => o)}::text[], ${rows.map(([, , kind]) => kind)}::text[]) as u(id, owner, kind)
        where u.kind = 'fresh' or pg_postmaster_start_time()::text is distinct from ${instance}::text
        on conflict (id) do nothing
      ), beating as (
        update agent_runs set heartbeat_at = now()
        where id = any(${runIds as string[]}::uuid[]) and replica = ${this.replica} and status = 'running'
      )
      select pg_postmaster_start_time()::text as instance${flush ? this.sql`` : this.sql`, set_config('synchronous_commit', 'off', true) as unflushed`},
             (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text as inserted, (pg_current_wal_flush_lsn() - '0/0'::pg_lsn)::text as flushed`;
    return { instance: row!.instance, inserted: BigInt(row!.inserted), flushed: BigInt(row!.flushed) };
  }

  /** A signal to the run's replica. */
  signal(runId: string, kind: RunSignal) {
    return this.sql`select pg_notify(${CHANNEL}, ${kind === 'want' ? 'w ' : 'c '} || ${runId})`;
  }
}
