/**
 * The Postgres run log's statements (src/runs/postgres-run-store.ts) on a Postgres with the migrations
 * (the real server with TEST_DATABASE_URL, else PGlite over the wire): frames appended and read after a
 * cursor, the fence (a run cancelled or ended takes no more frames, a write retried is not kept twice,
 * another replica cannot write it), the stale heartbeat marked `interrupted` and never a live one,
 * retention, and a user's runs deleted with their frames; the frames an end writes kept in the run's
 * row (`tail`), and the end's notice only for a run followed elsewhere.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { PostgresRunStore } from '../src/runs/postgres-run-store.js';
import type { Frame } from '../src/runs/run-log.js';
import { realPostgresSkipReason, startTestPostgres, type TestPostgres } from './support/postgres.js';

let pg: TestPostgres;
let database: Database;

beforeAll(async () => {
  pg = await startTestPostgres();
  database = createDatabase(pg.url, { max: 2 });
  await runMigrations(database);
}, 60_000);

afterAll(async () => {
  await database?.close();
  await pg?.stop();
});

const frame = (seq: number, event = 'delta'): Frame => ({ seq, event, data: JSON.stringify({ text: `piece "${seq}" \\ {x}` }) });

describe('the Postgres run log', () => {
  it('appends, reads after a cursor, ends once, and keeps a retried write once', async () => {
    const store = new PostgresRunStore(database, 600);
    const id = randomUUID();
    await store.begin(id, 'u1');
    await store.append(id, [frame(1), frame(2)], 2);
    await store.append(id, [frame(2), frame(3)], 3);
    const read = await store.read(id, 1);
    expect(read).toMatchObject({ owner: 'u1', status: 'running', lastSeq: 3, stale: false, closed: false });
    expect(read!.frames).toEqual([frame(2), frame(3)]);
    await store.end(id, [frame(4, 'done')], { status: 'done', lastSeq: 4, response: { response_text: 'x' } as never, error: null, followedElsewhere: false });
    // A second end, and frames after it, change nothing.
    await store.end(id, [frame(5, 'error')], { status: 'failed', lastSeq: 5, response: null, error: { error: 'e', detail: 'd' }, followedElsewhere: false });
    await store.append(id, [frame(6)], 6);
    const ended = await store.read(id, 0);
    expect(ended).toMatchObject({ status: 'done', lastSeq: 4, closed: true, response: { response_text: 'x' }, error: null });
    expect(ended!.frames.map((f) => f.seq)).toEqual([1, 2, 3, 4]);
    await store.close();
  });

  it('keeps the frames written at the end in the run\'s row: read after any cursor in order, with no frame rows', async () => {
    const store = new PostgresRunStore(database, 600);
    const whole = randomUUID();
    await store.begin(whole, 'u6');
    const frames = [frame(1), frame(2), frame(3), frame(4, 'done')];
    await store.end(whole, frames, { status: 'done', lastSeq: 4, response: null, error: null, followedElsewhere: false });
    expect(await database.sql`select 1 from agent_run_frames where run_id = ${whole}`).toHaveLength(0);
    for (const cursor of [0, 1, 3, 4]) expect((await store.read(whole, cursor))!.frames).toEqual(frames.slice(cursor));
    // Written through first (rows), then the rest at the end (the tail): one sequence, each frame once.
    const split = randomUUID();
    await store.begin(split, 'u6');
    await store.append(split, frames.slice(0, 2), 2);
    await store.end(split, frames.slice(1), { status: 'done', lastSeq: 4, response: null, error: null, followedElsewhere: true });
    for (const cursor of [0, 1, 2, 3]) expect((await store.read(split, cursor))!.frames).toEqual(frames.slice(cursor));
    expect(await store.forgetOwner('u6')).toBe(2);
    await store.close();
  });

  // Notices between connections need the real server (PGlite serves its connections one session at a time).
  const noNotices = realPostgresSkipReason();
  it.skipIf(noNotices !== null)(`tells the other replicas of an end only when a reader there follows the run${noNotices ? ` (skipped: ${noNotices})` : ''}`, async () => {
    const producer = new PostgresRunStore(database, 600);
    const other = new PostgresRunStore(database, 600);
    const quiet = randomUUID();
    const followed = randomUUID();
    const probe = randomUUID();
    const woken: string[] = [];
    // Watching starts the replica's LISTEN; a probe's notice shows it is listening.
    for (const id of [quiet, followed, probe]) other.watch(id, () => woken.push(id));
    await vi.waitFor(async () => {
      await producer.signal(probe, 'want');
      expect(woken).toContain(probe);
    });
    await producer.begin(quiet, 'u7');
    await producer.begin(followed, 'u7');
    await producer.end(quiet, [frame(1, 'done')], { status: 'done', lastSeq: 1, response: null, error: null, followedElsewhere: false });
    await producer.end(followed, [frame(1, 'done')], { status: 'done', lastSeq: 1, response: null, error: null, followedElsewhere: true });
    // Notices arrive in order on the one channel: the followed run's came after the quiet run's end.
    await vi.waitFor(() => expect(woken).toContain(followed));
    expect(woken).not.toContain(quiet);
    expect((await other.read(quiet, 0))!.frames).toEqual([frame(1, 'done')]);
    await producer.close();
    await other.close();
  });

  it('fences: another replica cannot write a run, a cancelled run takes no more frames', async () => {
    const producer = new PostgresRunStore(database, 600);
    const other = new PostgresRunStore(database, 600);
    const id = randomUUID();
    await producer.begin(id, 'u2');
    await other.append(id, [frame(1)], 1);
    expect((await producer.read(id, 0))!.frames).toEqual([]);
    expect(await other.cancel(id, 'someone-else')).toBe(false);
    expect(await other.cancel(id, 'u2')).toBe(true);
    expect(await other.cancel(id, 'u2')).toBe(false);
    await producer.end(id, [frame(1), frame(2, 'error')], { status: 'failed', lastSeq: 2, response: null, error: null, followedElsewhere: false });
    expect(await producer.read(id, 0)).toMatchObject({ status: 'cancelled', closed: false, frames: [] });
    await producer.close();
    await other.close();
  });

  it('marks a run whose heartbeat stopped interrupted, and never one whose replica beats', async () => {
    const store = new PostgresRunStore(database, 600);
    const live = randomUUID();
    const dead = randomUUID();
    await store.begin(live, 'u3');
    await store.begin(dead, 'u3');
    await database.sql`update agent_runs set heartbeat_at = now() - interval '10 seconds' where id in (${live}, ${dead})`;
    await store.heartbeat([live]);
    expect((await store.read(live, 0))!.stale).toBe(false);
    expect(await store.interrupt(live)).toBe(false);
    expect((await store.read(dead, 0))!.stale).toBe(true);
    expect(await store.interrupt(dead)).toBe(true);
    expect(await store.read(dead, 0)).toMatchObject({ status: 'interrupted', stale: false });
    await store.close();
  });

  it('expires ended runs after the retention, prunes them, and deletes a user\'s runs with their frames', async () => {
    const store = new PostgresRunStore(database, 1);
    const old = randomUUID();
    const mine = randomUUID();
    await store.begin(old, 'u4');
    await store.end(old, [frame(1, 'done')], { status: 'done', lastSeq: 1, response: null, error: null, followedElsewhere: false });
    await store.begin(mine, 'u5');
    await store.append(mine, [frame(1)], 1);
    await database.sql`update agent_runs set ended_at = now() - interval '5 seconds' where id = ${old}`;
    expect(await store.read(old, 0)).toBeNull();
    expect(await store.prune()).toBeGreaterThanOrEqual(1);
    expect(await database.sql`select 1 from agent_run_frames where run_id = ${old}`).toHaveLength(0);
    expect(await store.forgetOwner('u5')).toBe(1);
    expect(await store.read(mine, 0)).toBeNull();
    expect(await database.sql`select 1 from agent_run_frames where run_id = ${mine}`).toHaveLength(0);
    await store.close();
  });
});
