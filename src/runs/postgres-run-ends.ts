/**
 * The Postgres run log's ends, written in batches (runs/postgres-run-store.ts): the ends of the runs
 * that finished within one window go in one statement, fenced as every write of the log is.
 */
import type postgres from 'postgres';
import type { Frame, RunEnd } from './run-log.js';

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

/** One run's end as the statement takes it; `owner` only while the run's row is not written yet. */
export interface EndRow {
  id: string;
  owner: string | null;
  status: RunEnd['status'];
  last_seq: number;
  tail: readonly Frame[] | null;
  response: RunEnd['response'];
  error: RunEnd['error'];
  /** A reader on another replica follows the run: tell the replicas. */
  notify: boolean;
}

/**
 * One statement for `rows`: an update of each run whose row is written, an insert-or-update of each
 * whose row is not, both only while the row is `running` and `replica`'s; the frames not yet written go
 * in the row (`tail`), its expiry is this replica's retention from now, and a notice on `channel` for
 * each run a reader elsewhere follows.
 */
export function endsStatement(sql: postgres.Sql, replica: string, channel: string, retentionSeconds: number, rows: readonly EndRow[]) {
  const expires = sql`now() + make_interval(secs => ${retentionSeconds})`;
  return sql`
      with e as (
        select * from json_to_recordset(${JSON.stringify(rows)}::json)
          as e(id uuid, owner text, status text, last_seq integer, tail json, response jsonb, error jsonb, notify boolean)
      ), updated as (
        update agent_runs r
        set status = e.status, last_seq = e.last_seq, closed = true, ended_at = now(), expires_at = ${expires}, tail = e.tail, response = e.response, error = e.error
        from e
        where e.owner is null and r.id = e.id and r.status = 'running' and r.replica = ${replica}
        returning r.id
      ), inserted as (
        insert into agent_runs (id, owner, replica, status, last_seq, closed, ended_at, expires_at, tail, response, error)
        select e.id, e.owner, ${replica}, e.status, e.last_seq, true, now(), ${expires}, e.tail, e.response, e.error from e where e.owner is not null
        on conflict (id) do update
        set status = excluded.status, last_seq = excluded.last_seq, closed = true, ended_at = now(), expires_at = excluded.expires_at, tail = excluded.tail,
            response = excluded.response, error = excluded.error
        where agent_runs.status = 'running' and agent_runs.replica = ${replica}
        returning id
      )
      select pg_notify(${channel}, 'f ' || w.id)
      from (select id from updated union all select id from inserted) w join e on e.id = w.id
      where e.notify`;
}
