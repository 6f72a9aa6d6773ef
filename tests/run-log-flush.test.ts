/**
 * The run's end committed without waiting for the WAL's flush (issue 75, docs/perf-log/2026-11-30-commits.md)
 * and what keeps issue 79's promise (a run a client saw end reads ended after the database returns):
 * - (the end visible at once and kept until a beat confirms it: tests/run-log-postgres.test.ts)
 * - on a durable server of the test's own: an end and a beat return before their commits are flushed,
 *   and the ends are let go only once a beat reads the WAL flushed past them, or (the WAL writer slowed,
 *   so only a synchronous commit flushes) the third beat after them commits with the flush itself;
 * - a server that crashed and came back between an end and its beat: the beat finds another start time
 *   and the ends are written again, as they were (a row the crash took back to `running`, and one it lost
 *   whole); an end that survived is fenced off; a row a beat inserted for a run still going, lost, is
 *   inserted again by the first beat on the restarted server.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { PostgresRunStore } from '../src/runs/postgres-run-store.js';
import { framesOfLines, type Frame, type RunEnd } from '../src/runs/run-log.js';
import { ownClusterSkipReason, startOwnPostgresCluster, type OwnPostgresCluster } from './support/postgres.js';

const frame = (seq: number, event = 'delta'): Frame => ({ seq, event, data: JSON.stringify({ text: `piece ${seq}` }) });
const done = (lastSeq: number): RunEnd => ({ status: 'done', lastSeq, response: { response_text: 'x' } as never, error: null, followedElsewhere: false });

async function rowOf(database: Database, id: string) {
  const [row] = await database.sql<{ status: string; tail_lines: string | null }[]>`select status, tail_lines from agent_runs where id = ${id}`;
  return row;
}

const skip = ownClusterSkipReason();

/**
 * Runs `body` with the WAL writer slowed to 10 s (its default flushes asynchronous commits every 200 ms),
 * so within a test nothing but a synchronous commit flushes the last of the WAL; the setting is restored after.
 */
async function withWalWriterSlowed(database: Database, body: () => Promise<void>): Promise<void> {
  await database.sql`alter system set wal_writer_delay = '10s'`;
  await database.sql`select pg_reload_conf()`;
  try {
    await body();
  } finally {
    await database.sql`alter system reset wal_writer_delay`;
    await database.sql`select pg_reload_conf()`;
  }
}

describe.skipIf(skip !== null)(`the run end on a durable server that crashes (${skip ?? 'a cluster of the test\'s own'})`, () => {
  let cluster: OwnPostgresCluster;
  let database: Database;

  beforeAll(async () => {
    cluster = await startOwnPostgresCluster();
    database = createDatabase(cluster.url, { max: 2 });
    await runMigrations(database);
  }, 180_000);

  afterAll(async () => {
    await database?.close();
    await cluster?.remove();
  });

  it('ends and beats return before their commits are flushed; the ends are let go once a beat reads the flush past them, or a beat flushes', async () => {
    // One connection, so each reading of the WAL comes right after the statement before it on the same backend.
    const one = createDatabase(cluster.url, { max: 1 });
    const store = new PostgresRunStore(one, 600);
    const wal = async () => {
      const [row] = await one.sql<{ inserted: string; flushed: string }[]>`
        select (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text as inserted, (pg_current_wal_flush_lsn() - '0/0'::pg_lsn)::text as flushed`;
      return { inserted: BigInt(row!.inserted), flushed: BigInt(row!.flushed) };
    };
    const ends = async (n: number) => {
      let behind = 0;
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const id = randomUUID();
        ids.push(id);
        await store.begin(id, 'u1');
        await store.end(id, [frame(1, 'done')], done(1));
        const w = await wal();
        if (w.flushed < w.inserted) behind++;
      }
      return { ids, behind, past: (await wal()).inserted };
    };
    // Within the beats below nothing but a synchronous commit flushes the last of the WAL.
    try {
      await withWalWriterSlowed(database, async () => {
        await store.heartbeat([]);
        const first = await ends(20);
        expect(first.behind).toBeGreaterThanOrEqual(15);
        // The beat after the ends reads where the WAL ends; the next finds the flush short of it: both
        // return before their own commits are flushed, and the ends are kept (a store that trusted a beat
        // or two, not the flush, would have let them go).
        for (let i = 0; i < 2; i++) {
          await store.heartbeat([]);
          const w = await wal();
          expect(w.flushed).toBeLessThan(w.inserted);
          expect(w.flushed).toBeLessThan(first.past);
          expect(store.unflushed).toBe(true);
        }
        // The WAL writer is behind: the third beat commits with the flush, and lets the ends go.
        await store.heartbeat([]);
        expect((await wal()).flushed).toBeGreaterThanOrEqual(first.past);
        expect(store.unflushed).toBe(false);
        for (const id of first.ids) expect((await rowOf(one, id))?.status).toBe('done');

        // A synchronous commit that wrote (here another's) flushes the WAL before it: the beat after it
        // sees the ends flushed, and lets them go without a flush of its own.
        const second = await ends(5);
        await store.heartbeat([]);
        expect(store.unflushed).toBe(true);
        await database.sql`create table if not exists flush_point (at timestamptz)`;
        await database.sql`insert into flush_point values (now())`;
        await store.heartbeat([]);
        const w = await wal();
        expect(w.flushed).toBeGreaterThanOrEqual(second.past);
        expect(w.flushed).toBeLessThan(w.inserted);
        expect(store.unflushed).toBe(false);
      });
    } finally {
      await store.close();
      await one.close();
    }
  }, 60_000);

  it('writes again the ends a restart may have lost: a row taken back to running, a row lost whole; one that survived stays as it was', async () => {
    const store = new PostgresRunStore(database, 600);
    try {
      await store.heartbeat([]);
      // `written`: its row inserted by a beat (durable) before its end; `short`: its row is its end's.
      const written = randomUUID();
      const short = randomUUID();
      const survived = randomUUID();
      await store.begin(written, 'u1');
      await store.heartbeat([written]);
      await store.begin(short, 'u2');
      await store.begin(survived, 'u3');
      await Promise.all([
        store.end(written, [frame(1), frame(2, 'done')], done(2)),
        store.end(short, [frame(1, 'done')], done(1)),
        store.end(survived, [frame(1), frame(2), frame(3, 'done')], done(3)),
      ]);
      expect(store.unflushed).toBe(true);
      // Flushed by another commit that wrote (any synchronous commit that wrote WAL flushes the WAL before
      // it), so what the crash loses below is decided here: nothing, and the test then takes back two
      // ends as a crash would.
      await database.sql`create table if not exists flush_point (at timestamptz)`;
      await database.sql`insert into flush_point values (now())`;
      await cluster.kill('SIGKILL');
      await cluster.start();
      // What a crash in the flush's window may leave: the ends of `written` and `short` lost.
      await vi.waitFor(
        async () => {
          await database.sql`update agent_runs set status = 'running', closed = false, ended_at = null, expires_at = null, tail_lines = null, response = null where id = ${written}`;
          await database.sql`delete from agent_runs where id = ${short}`;
        },
        { timeout: 10_000, interval: 100 },
      );
      const survivedBefore = await database.sql`select status, last_seq, tail_lines, ended_at from agent_runs where id = ${survived}`;
      expect(survivedBefore).toHaveLength(1);
      // The beat on the restarted server writes them again.
      await vi.waitFor(async () => void (await store.heartbeat([])), { timeout: 10_000, interval: 100 });
      await vi.waitFor(
        async () => {
          expect((await rowOf(database, written))?.status).toBe('done');
          expect((await rowOf(database, short))?.status).toBe('done');
        },
        { timeout: 5_000, interval: 50 },
      );
      expect(framesOfLines((await rowOf(database, written))!.tail_lines!, 0).map((f) => f.seq)).toEqual([1, 2]);
      const [shortRow] = await database.sql<{ owner: string; tail_lines: string }[]>`select owner, tail_lines from agent_runs where id = ${short}`;
      expect(shortRow).toMatchObject({ owner: 'u2' });
      expect(framesOfLines(shortRow!.tail_lines, 0).map((f) => f.event)).toEqual(['done']);
      expect(await database.sql`select status, last_seq, tail_lines, ended_at from agent_runs where id = ${survived}`).toEqual(survivedBefore);
      // The writes again are confirmed by a beat after them, and then nothing is kept.
      await vi.waitFor(
        async () => {
          await store.heartbeat([]);
          expect(store.unflushed).toBe(false);
        },
        { timeout: 5_000, interval: 50 },
      );
    } finally {
      await store.close();
    }
  }, 120_000);

  it('a crash right after the ends: once the server is back and a beat ran, every end reads as written', async () => {
    const store = new PostgresRunStore(database, 600);
    try {
      await store.heartbeat([]);
      const ids = Array.from({ length: 6 }, () => randomUUID());
      for (const [k, id] of ids.entries()) {
        await store.begin(id, `u${k}`);
        if (k % 2 === 0) await store.heartbeat([id]);
      }
      await Promise.all(ids.map((id) => store.end(id, [frame(1), frame(2), frame(3, 'done')], done(3))));
      // And a run still going, its row inserted by a beat.
      const going = randomUUID();
      await store.begin(going, 'u9');
      await store.heartbeat([going]);
      // No flush waited for: whatever of these commits the crash takes, the beat after it writes again.
      await cluster.kill('SIGKILL');
      await cluster.start();
      await vi.waitFor(async () => void (await store.heartbeat([going])), { timeout: 10_000, interval: 100 });
      expect((await rowOf(database, going))?.status).toBe('running');
      await vi.waitFor(
        async () => {
          for (const id of ids) expect((await rowOf(database, id))?.status).toBe('done');
        },
        { timeout: 5_000, interval: 50 },
      );
      for (const id of ids) expect(framesOfLines((await rowOf(database, id))!.tail_lines!, 0).map((f) => f.seq)).toEqual([1, 2, 3]);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('a row a beat inserted for a run still going: the first beat on a restarted server that lost it inserts it again; without a restart none is', async () => {
    const store = new PostgresRunStore(database, 600);
    const unflushed = async () => (await database.sql<{ behind: boolean }[]>`select pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn() as behind`)[0]!.behind;
    // Only synchronous commits flush within the test (the WAL writer slowed), so the beats' rows are lost by the crash.
    try {
      await withWalWriterSlowed(database, async () => {
        await store.heartbeat([]);
        const deleted = randomUUID();
        const going = randomUUID();
        await store.begin(deleted, 'u10');
        await store.heartbeat([deleted]);
        // Without a restart a beat inserts nothing again (here a row deleted by hand, without a flush, as no crash would).
        await database.sql.begin(async (t) => {
          await t`set local synchronous_commit = off`;
          await t`delete from agent_runs where id = ${deleted}`;
        });
        await store.heartbeat([deleted]);
        expect(await rowOf(database, deleted)).toBeUndefined();
        await store.begin(going, 'u11');
        await store.heartbeat([deleted, going]);
        expect((await rowOf(database, going))?.status).toBe('running');
        expect(await unflushed()).toBe(true);
        await cluster.kill('SIGKILL');
        await cluster.start();
        // The crash lost the row (its commit was not flushed) ...
        await vi.waitFor(async () => expect(await rowOf(database, going)).toBeUndefined(), { timeout: 10_000, interval: 100 });
        // ... and the first beat on the restarted server inserts both again, in its own statement: a reader
        // never finds the replica's beat past the run's id without its row.
        await vi.waitFor(async () => void (await store.heartbeat([deleted, going])), { timeout: 10_000, interval: 100 });
        const rows = await database.sql<{ id: string; owner: string; status: string; replica: string }[]>`
          select id, owner, status, replica from agent_runs where id in (${deleted}, ${going}) order by owner`;
        expect(rows).toEqual([
          { id: deleted, owner: 'u10', status: 'running', replica: store.replica },
          { id: going, owner: 'u11', status: 'running', replica: store.replica },
        ]);
        // Its end, later, is written on it.
        await store.end(going, [frame(1), frame(2, 'done')], done(2));
        expect((await rowOf(database, going))?.status).toBe('done');
      });
    } finally {
      await store.close();
    }
  }, 120_000);
});
