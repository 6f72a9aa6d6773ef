/**
 * The Postgres run log's statements (src/runs/postgres-run-store.ts) on a Postgres with the migrations
 * (the real server with TEST_DATABASE_URL, else PGlite over the wire): frames appended and read after a
 * cursor, the fence (a run cancelled or ended takes no more frames, a write retried is not kept twice,
 * another replica cannot write it), the stale heartbeat marked `interrupted` and never a live one,
 * retention, and a user's runs deleted with their frames; the frames an end writes kept in the run's
 * row (`tail_lines`, and the older release's `tail` read), and the end's notice only for a run followed elsewhere. A run's row written lazily (none
 * at its begin; with its first write or the next heartbeat), what an id with no row names (gone, young,
 * orphaned) and an orphan written `interrupted`; a cleared user's rows never written after; the ends
 * of one batch window in one statement, and a queued end written at once for a reader elsewhere; an end
 * read at once elsewhere and kept until a beat confirms it (tests/run-log-flush.test.ts: on a server that crashes).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import { HEARTBEAT_STALE_SECONDS, PostgresRunStore } from '../src/runs/postgres-run-store.js';
import { END_BATCH_MS } from '../src/runs/postgres-run-statements.js';
import type { Frame, RunEnd } from '../src/runs/run-log.js';
import { RunIds } from '../src/runs/run-ids.js';
import { ReplicaHeartbeat } from '../src/runs/replica-heartbeat.js';
import { silentLogger } from '../src/logger.js';
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

/** The database's age in seconds (`pg_postmaster_start_time()`: a database younger than the stale window judges no replica dead). */
async function databaseAge(): Promise<number> {
  const [row] = await database.sql<{ age: number }[]>`select extract(epoch from now() - pg_postmaster_start_time())::float8 as age`;
  return row!.age;
}

/** Waits until the database has been up for the stale window, as a replica's death is judged only then. */
async function untilUpForStaleWindow(): Promise<void> {
  await vi.waitFor(async () => expect(await databaseAge()).toBeGreaterThanOrEqual(HEARTBEAT_STALE_SECONDS), { timeout: HEARTBEAT_STALE_SECONDS * 1_000 + 2_000, interval: 100 });
}

describe('a database restarted under the replicas (issue 79)', () => {
  it('judges no replica dead until it has been up for the stale window: every heartbeat is old after a restart, live ones too', async () => {
    const store = new PostgresRunStore(database, 600);
    const run = randomUUID();
    await store.begin(run, 'u30');
    await store.heartbeat([]);
    await database.sql`update agent_runs set heartbeat_at = now() - interval '10 seconds' where id = ${run}`;
    // Young (PGlite starts with the test file): not stale, whatever its heartbeat; a real server that
    // has been up longer shows the other half of the rule.
    const young = (await databaseAge()) < HEARTBEAT_STALE_SECONDS;
    expect((await store.read(run, 0))!.stale).toBe(!young);
    await untilUpForStaleWindow();
    // Up for the window, and the heartbeat still old: its replica is dead.
    expect((await store.read(run, 0))!.stale).toBe(true);
    await store.forgetOwner('u30');
    await store.close();
  });
});

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

  it('keeps a tail of any text as it was sent: spaces, quotes, escapes, line breaks, non-Latin text, empty data (issue 75\'s tail lines)', async () => {
    const store = new PostgresRunStore(database, 600);
    const texts = ['two  spaces ', '"quoted" \\ back\\slash {x} [y]', 'line\nbreak\r\nand\ttab', 'NUL-free \u2028 \u2029 separators', 'Gates–Hillman Ω 日本語 🙂', '', ' '];
    const frames: Frame[] = texts.map((text, i) => ({ seq: i + 1, event: 'delta', data: JSON.stringify({ text }) }));
    frames.push({ seq: frames.length + 1, event: 'error', data: '{"error":"x y","detail":"a\\nb"}' });
    const id = randomUUID();
    await store.begin(id, 'u7');
    await store.end(id, frames, { status: 'failed', lastSeq: frames.length, response: null, error: { error: 'x y', detail: 'a\nb' }, followedElsewhere: false });
    for (const cursor of [0, 3, frames.length]) expect((await store.read(id, cursor))!.frames).toEqual(frames.slice(cursor));
    const [row] = await database.sql<{ tail: unknown; lines: string }[]>`select tail, tail_lines as lines from agent_runs where id = ${id}`;
    expect(row).toMatchObject({ tail: null });
    expect(row!.lines.split('\n')).toHaveLength(frames.length);
    await store.forgetOwner('u7');
    await store.close();
  });

  it('reads a run ended by the release before tail lines (its tail a JSON array), rows first, each frame once', async () => {
    const store = new PostgresRunStore(database, 600);
    const id = randomUUID();
    const frames = [frame(1), frame(2), frame(3), frame(4, 'done')];
    await store.begin(id, 'u6b');
    await store.append(id, frames.slice(0, 2), 2);
    // What that release's end statement wrote: the tail as JSON, tail_lines absent.
    await database.sql`update agent_runs set status = 'done', last_seq = 4, closed = true, ended_at = now(), expires_at = now() + interval '1 hour',
      tail = ${JSON.stringify(frames.slice(1))}::json where id = ${id}`;
    for (const cursor of [0, 1, 2, 3, 4]) expect((await store.read(id, cursor))!.frames).toEqual(frames.slice(cursor));
    await store.forgetOwner('u6b');
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
    await producer.heartbeat([]);
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
    await untilUpForStaleWindow();
    const store = new PostgresRunStore(database, 600);
    const live = randomUUID();
    const dead = randomUUID();
    await store.begin(live, 'u3');
    await store.begin(dead, 'u3');
    await store.heartbeat([]);
    await database.sql`update agent_runs set heartbeat_at = now() - interval '10 seconds' where id in (${live}, ${dead})`;
    await store.heartbeat([live]);
    expect((await store.read(live, 0))!.stale).toBe(false);
    expect(await store.interrupt(live)).toBe(false);
    expect((await store.read(dead, 0))!.stale).toBe(true);
    expect(await store.interrupt(dead)).toBe(true);
    expect(await store.read(dead, 0)).toMatchObject({ status: 'interrupted', stale: false });
    await store.close();
  });

  it('writes a run\'s row lazily: none at its begin, one statement for a short run (its end), at the next heartbeat for a longer one', async () => {
    const store = new PostgresRunStore(database, 600);
    const rowOf = async (id: string) => (await database.sql`select status, owner, replica from agent_runs where id = ${id}`)[0];
    const short = randomUUID();
    await store.begin(short, 'u8');
    expect(await rowOf(short)).toBeUndefined();
    await store.end(short, [frame(1), frame(2, 'done')], { status: 'done', lastSeq: 2, response: null, error: null, followedElsewhere: false });
    expect(await rowOf(short)).toEqual({ status: 'done', owner: 'u8', replica: store.replica });
    expect((await store.read(short, 0))!.frames).toEqual([frame(1), frame(2, 'done')]);
    const long = randomUUID();
    await store.begin(long, 'u8');
    const before = store.beat;
    await store.heartbeat([]);
    expect(store.beat).toBe(before + 1);
    expect(await rowOf(long)).toEqual({ status: 'running', owner: 'u8', replica: store.replica });
    const [replica] = await database.sql`select beat from agent_run_replicas where id = ${store.replica}`;
    expect(Number(replica!.beat)).toBe(store.beat);
    // Its end is now an update of that row, fenced as before.
    await store.end(long, [frame(1, 'done')], { status: 'done', lastSeq: 1, response: null, error: null, followedElsewhere: false });
    expect(await rowOf(long)).toMatchObject({ status: 'done' });
    // Frames written through for a reader elsewhere bring the row with them.
    const wanted = randomUUID();
    await store.begin(wanted, 'u8');
    await store.append(wanted, [frame(1)], 1);
    expect(await store.read(wanted, 0)).toMatchObject({ owner: 'u8', status: 'running', frames: [frame(1)] });
    expect(await store.forgetOwner('u8')).toBe(3);
    await store.close();
  });

  it('tells what a run id with no row names: gone, young (its replica beats), or orphaned (its replica died first), and writes an orphan interrupted once', async () => {
    const producer = new PostgresRunStore(database, 600);
    const reader = new PostgresRunStore(database, 600);
    await producer.heartbeat([]);
    const ids = new RunIds(null);
    const young = ids.issue('u9', producer.replica, producer.beat);
    await producer.begin(young.key, 'u9');
    expect(await reader.read(young.key, 0)).toBeNull();
    expect(await reader.unwritten(young)).toBe('young');
    // Not interrupted while its replica beats.
    expect(await reader.interruptOrphan(young, 'u9')).toBe(false);
    // An id of a replica never seen, and one whose replica's heartbeat is past it (its row written, then deleted): gone.
    expect(await reader.unwritten(ids.issue('u9', randomUUID(), 0))).toBe('gone');
    const old = ids.issue('u9', producer.replica, producer.beat - 1);
    expect(await reader.unwritten(old)).toBe('gone');
    // The replica stops beating (killed before the next heartbeat), in a database up for the stale window: its young run is orphaned.
    await untilUpForStaleWindow();
    await database.sql`update agent_run_replicas set heartbeat_at = now() - interval '10 seconds' where id = ${producer.replica}`;
    expect(await reader.unwritten(young)).toBe('orphaned');
    expect(await reader.unwritten(old)).toBe('gone');
    expect(await reader.interruptOrphan(young, 'u9')).toBe(true);
    expect(await reader.interruptOrphan(young, 'u9')).toBe(false);
    expect(await reader.read(young.key, 0)).toMatchObject({ owner: 'u9', status: 'interrupted', closed: false, frames: [] });
    // A producer that was only slow comes back: its writes are fenced off, its heartbeat leaves the row as it is.
    await producer.end(young.key, [frame(1, 'done')], { status: 'done', lastSeq: 1, response: null, error: null, followedElsewhere: false });
    await producer.heartbeat([young.key]);
    expect(await reader.read(young.key, 0)).toMatchObject({ status: 'interrupted', frames: [] });
    await producer.forgetOwner('u9');
    await producer.close();
    await reader.close();
  });

  it('writes the ends of one batch window in one statement', async () => {
    const statements: string[] = [];
    const counted = postgres(pg.url, { max: 2, onnotice: () => undefined, debug: (_conn, query) => statements.push(query) });
    // Drizzle over the counted driver, as createDatabase builds it (Drizzle passes JSON text through as it is).
    const store = new PostgresRunStore({ db: drizzle(counted), sql: counted, close: () => counted.end() }, 600);
    const other = new PostgresRunStore(database, 600);
    const [a, b] = [randomUUID(), randomUUID()];
    for (const id of [a, b]) await store.begin(id, 'u11');
    const ended = (n: number): RunEnd => ({ status: 'done', lastSeq: n, response: { response_text: `answer ${n}` } as never, error: null, followedElsewhere: false });
    const before = statements.length;
    await Promise.all([store.end(a, [frame(1), frame(2, 'done')], ended(2)), store.end(b, [frame(1, 'done')], ended(1))]);
    // The run log's own statements (the driver's LISTEN and its type lookup on a new connection left out).
    expect(statements.slice(before).filter((q) => q.includes('agent_runs'))).toHaveLength(1);
    expect(await other.read(a, 0)).toMatchObject({ status: 'done', closed: true, response: { response_text: 'answer 2' }, frames: [frame(1), frame(2, 'done')] });
    expect(await other.read(b, 1)).toMatchObject({ status: 'done', lastSeq: 1, frames: [] });
    await store.forgetOwner('u11');
    await store.close();
    await other.close();
    await counted.end();
  });

  it.skipIf(noNotices !== null)(`writes a queued end at once when a reader elsewhere wants it, with its notice${noNotices ? ` (skipped: ${noNotices})` : ''}`, async () => {
    const store = new PostgresRunStore(database, 600);
    const other = new PostgresRunStore(database, 600);
    const c = randomUUID();
    await store.begin(c, 'u11');
    const ended = (n: number): RunEnd => ({ status: 'done', lastSeq: n, response: null, error: null, followedElsewhere: false });
    const woken: string[] = [];
    other.watch(c, () => woken.push(c));
    const probe = randomUUID();
    other.watch(probe, () => woken.push(probe));
    await vi.waitFor(async () => {
      await store.signal(probe, 'want');
      expect(woken).toContain(probe);
    });
    const queuedAt = Date.now();
    const end = store.end(c, [frame(1, 'done')], ended(1));
    await other.signal(c, 'want');
    await vi.waitFor(() => expect(woken).toContain(c), { timeout: 2_000, interval: 5 });
    await end;
    expect(Date.now() - queuedAt).toBeLessThan(END_BATCH_MS);
    expect(await other.read(c, 0)).toMatchObject({ status: 'done', frames: [frame(1, 'done')] });
    await store.forgetOwner('u11');
    await store.close();
    await other.close();
  });

  it('clearing a user forgets their runs not yet written: an end after it writes nothing', async () => {
    const store = new PostgresRunStore(database, 600);
    const id = randomUUID();
    await store.begin(id, 'u10');
    expect(await store.forgetOwner('u10')).toBe(0);
    await store.end(id, [frame(1, 'error')], { status: 'cancelled', lastSeq: 1, response: null, error: null, followedElsewhere: false });
    await store.heartbeat([id]);
    expect(await store.read(id, 0)).toBeNull();
    await store.close();
  });

  it('keeps each run for the retention of the replica that ended it, whichever replica prunes (issue 74)', async () => {
    const long = new PostgresRunStore(database, 600);
    const short = new PostgresRunStore(database, 1);
    const keptLong = randomUUID();
    const keptShort = randomUUID();
    await long.begin(keptLong, 'u20');
    await long.end(keptLong, [frame(1, 'done')], { status: 'done', lastSeq: 1, response: null, error: null, followedElsewhere: false });
    await short.begin(keptShort, 'u21');
    await short.end(keptShort, [frame(1, 'done')], { status: 'done', lastSeq: 1, response: null, error: null, followedElsewhere: false });
    const [row] = await database.sql<{ seconds: number }[]>`select extract(epoch from expires_at - ended_at)::int as seconds from agent_runs where id = ${keptLong}`;
    expect(row!.seconds).toBe(600);
    // Past the short retention: the short replica's run is gone for every reader, the long one's kept by both.
    await database.sql`update agent_runs set ended_at = ended_at - interval '2 seconds', expires_at = expires_at - interval '2 seconds' where id in (${keptLong}, ${keptShort})`;
    await short.prune();
    expect(await long.read(keptLong, 0)).toMatchObject({ status: 'done' });
    expect(await short.read(keptLong, 0)).toMatchObject({ status: 'done' });
    expect(await long.read(keptShort, 0)).toBeNull();
    expect(await database.sql`select 1 from agent_runs where id = ${keptShort}`).toHaveLength(0);
    await long.prune();
    expect(await database.sql`select 1 from agent_runs where id = ${keptLong}`).toHaveLength(1);
    // A run interrupted or cancelled takes the retention of the replica that ended it so.
    const cancelled = randomUUID();
    await long.begin(cancelled, 'u22');
    await long.heartbeat([cancelled]);
    expect(await short.cancel(cancelled, 'u22')).toBe(true);
    const [ended] = await database.sql<{ seconds: number }[]>`select extract(epoch from expires_at - ended_at)::int as seconds from agent_runs where id = ${cancelled}`;
    expect(ended!.seconds).toBe(1);
    await long.close();
    await short.close();
  });

  it('expires ended runs after the retention, prunes them, and deletes a user\'s runs with their frames', async () => {
    const store = new PostgresRunStore(database, 1);
    const old = randomUUID();
    const mine = randomUUID();
    await store.begin(old, 'u4');
    await store.end(old, [frame(1, 'done')], { status: 'done', lastSeq: 1, response: null, error: null, followedElsewhere: false });
    await store.begin(mine, 'u5');
    await store.append(mine, [frame(1)], 1);
    await database.sql`update agent_runs set ended_at = now() - interval '5 seconds', expires_at = now() - interval '4 seconds' where id = ${old}`;
    expect(await store.read(old, 0)).toBeNull();
    // A replica dead past the retention loses its row too; a live one keeps it.
    const dead = randomUUID();
    await database.sql`insert into agent_run_replicas (id, beat, heartbeat_at) values (${dead}, 1, now() - interval '5 seconds')`;
    await store.heartbeat([mine]);
    expect(await store.prune()).toBeGreaterThanOrEqual(1);
    expect(await database.sql`select 1 from agent_run_replicas where id = ${dead}`).toHaveLength(0);
    expect(await database.sql`select 1 from agent_run_replicas where id = ${store.replica}`).toHaveLength(1);
    expect(await database.sql`select 1 from agent_run_frames where run_id = ${old}`).toHaveLength(0);
    expect(await store.forgetOwner('u5')).toBe(1);
    expect(await store.read(mine, 0)).toBeNull();
    expect(await database.sql`select 1 from agent_run_frames where run_id = ${mine}`).toHaveLength(0);
    await store.close();
  });

  it('an end is read at once elsewhere, kept until the beats see it flushed (issue 75: it commits without the flush), and the replica beats for it, then stops', async () => {
    const store = new PostgresRunStore(database, 600);
    const other = new PostgresRunStore(database, 600);
    let producing: string[] = [];
    let beats = 0;
    const counted = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'heartbeat') return (ids: readonly string[]) => (beats++, target.heartbeat(ids));
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const heartbeat = new ReplicaHeartbeat(counted, () => producing, silentLogger);
    await heartbeat.ready;
    try {
      const id = randomUUID();
      await store.begin(id, 'u1');
      producing = [id];
      heartbeat.producing();
      expect(store.unflushed).toBe(false);
      await store.end(id, [frame(1), frame(2, 'done')], { status: 'done', lastSeq: 2, response: { response_text: 'x' } as never, error: null, followedElsewhere: false });
      producing = [];
      // Visible to another replica before any beat confirmed it.
      const read = await other.read(id, 0);
      expect(read).toMatchObject({ status: 'done', lastSeq: 2 });
      expect(read!.frames.map((f) => f.seq)).toEqual([1, 2]);
      expect(store.unflushed).toBe(true);
      // The replica produces nothing now, but beats for the end (one reads where the WAL ends, a later one
      // that the flush passed it): then it is let go and the beats stop.
      await vi.waitFor(() => expect(store.unflushed).toBe(false), { timeout: 4_000, interval: 20 });
      const after = beats;
      await new Promise((r) => setTimeout(r, 2_500));
      expect(beats).toBe(after);
      expect((await database.sql<{ status: string }[]>`select status from agent_runs where id = ${id}`)[0]?.status).toBe('done');
    } finally {
      heartbeat.close();
      await store.close();
      await other.close();
    }
  }, 30_000);
});
