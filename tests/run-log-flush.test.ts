/**
 * The run's end committed without waiting for the WAL's flush (issue 75, docs/perf-log/2026-11-30-commits.md)
 * and what keeps issue 79's promise (a run a client saw end reads ended after the database returns):
 * - (the end visible at once and kept until a beat confirms it: tests/run-log-postgres.test.ts)
 * - on a durable server of the test's own: an end returns before its commit is flushed, a beat after
 *   its own (and so every end's before it);
 * - a server that crashed and came back between an end and its beat: the beat finds another start time
 *   and the ends are written again, as they were (a row the crash took back to `running`, and one it lost
 *   whole); an end that survived is fenced off.
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

  it('an end returns before its commit is flushed; a beat returns after its commit, and the ends before it, are', async () => {
    // One connection, so each check reads the WAL right after the statement before it on the same backend.
    const one = createDatabase(cluster.url, { max: 1 });
    const store = new PostgresRunStore(one, 600);
    const behind = async () => (await one.sql<{ behind: boolean }[]>`select pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn() as behind`)[0]!.behind;
    try {
      await store.heartbeat([]);
      let endsBehind = 0;
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const id = randomUUID();
        ids.push(id);
        await store.begin(id, 'u1');
        await store.end(id, [frame(1, 'done')], done(1));
        if (await behind()) endsBehind++;
      }
      let beatsBehind = 0;
      for (let i = 0; i < 20; i++) {
        await store.heartbeat([]);
        if (await behind()) beatsBehind++;
      }
      // The WAL writer flushes the ends' commits on its own timer (every 200 ms): now and then one is
      // flushed by the time it is read. A beat flushes its commit and everything before it; the server's
      // own background records (rare) may follow it.
      expect(endsBehind).toBeGreaterThanOrEqual(15);
      expect(beatsBehind).toBeLessThanOrEqual(2);
      expect(store.unflushed).toBe(false);
      for (const id of ids) expect((await rowOf(one, id))?.status).toBe('done');
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
      // No flush waited for: whatever of these commits the crash takes, the beat after it writes again.
      await cluster.kill('SIGKILL');
      await cluster.start();
      await vi.waitFor(async () => void (await store.heartbeat([])), { timeout: 10_000, interval: 100 });
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
});
