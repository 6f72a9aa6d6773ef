/**
 * What the run log's end statement costs the database (issue 75): the ends of two runs in one statement
 * (`RunStatements.ends`, as a batch window under load holds), each run a streamed answer of 400 deltas,
 * its status and `done` frames, run against a fresh migrated database on a real PostgreSQL on this
 * machine. Measured as the serving backend's CPU (/proc/<pid>/schedstat of the connection's process) per
 * statement, with the tail and, as the statement's floor, without it, alternating ROUNDS times.
 *
 * Then what a statement costs apart from its rows (the batch window's lever, END_BATCH_MS): the same
 * ends of runs whose rows a heartbeat wrote (as at the peak, where a turn outlasts a beat) sent one a
 * statement and four a statement, the backend's CPU and this process's (the driver's:
 * `process.cpuUsage`) per end.
 *
 * `TEST_DATABASE_URL=postgres://…/postgres npx tsx bench/tools/end-statement.ts` (ROUNDS, default 4;
 * STATEMENTS a round, default 300).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { RunStatements, type EndRow } from '../../src/runs/postgres-run-statements.js';
import { frameLines, type Frame } from '../../src/runs/run-log.js';
import { startTestPostgres } from '../../tests/support/postgres.js';

const ROUNDS = Number(process.env.ROUNDS ?? 4);
const STATEMENTS = Number(process.env.STATEMENTS ?? 300);
if (!process.env.TEST_DATABASE_URL) throw new Error('end-statement: set TEST_DATABASE_URL to a PostgreSQL on this machine (its backends are read in /proc)');

/** A streamed answer's frames: a status, 400 deltas of a few characters (1,600 in all, as the peak's), the `done`. */
function answerFrames(): Frame[] {
  const words = 'the library opens at eight and closes at ten on weekdays; "Hunt" \\ Gates-Hillman '.split(' ');
  const frames: Frame[] = [{ seq: 1, event: 'status', data: JSON.stringify({ text: 'Looking that up' }) }];
  let answer = '';
  for (let i = 0; i < 400; i++) {
    const text = `${words[i % words.length]} `.slice(0, 4);
    answer += text;
    frames.push({ seq: frames.length + 1, event: 'delta', data: JSON.stringify({ text }) });
  }
  frames.push({ seq: frames.length + 1, event: 'done', data: JSON.stringify({ response_text: answer, tools_used: ['campus_places'], model: 'openai/gpt-4o-mini' }) });
  return frames;
}

const db = await startTestPostgres();
const database = createDatabase(db.url, { max: 1 });
try {
  await runMigrations(database);
  const statements = new RunStatements(database.sql, randomUUID(), 3_600, 3);
  const [backend] = await database.sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
  const pid = backend!.pid;
  const cpuMs = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  const frames = answerFrames();
  const tail = frameLines(frames);
  const response = JSON.parse(frames.at(-1)!.data) as EndRow['response'];
  const ends = (withTail: boolean): EndRow[] =>
    [0, 1].map(() => ({ id: randomUUID(), owner: `user-${randomUUID()}`, status: 'done', last_seq: frames.length, tail: withTail ? tail : '', response, error: null, notify: false }));

  const perStatement: Record<'tail' | 'floor', number[]> = { tail: [], floor: [] };
  for (let i = 0; i < 30; i++) await statements.ends(ends(true));
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 === 0 ? (['tail', 'floor'] as const) : (['floor', 'tail'] as const)) {
      const before = cpuMs();
      for (let i = 0; i < STATEMENTS; i++) await statements.ends(ends(variant === 'tail'));
      perStatement[variant].push((cpuMs() - before) / STATEMENTS);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const tailMs = median(perStatement.tail);
  const floorMs = median(perStatement.floor);
  console.log(`end statement, two runs of ${frames.length} frames (${tail.length} characters of tail each), backend CPU per statement, median of ${ROUNDS} rounds of ${STATEMENTS}:`);
  console.log(`  with the tails: ${tailMs.toFixed(3)} ms; without (the floor): ${floorMs.toFixed(3)} ms; the tails: ${((tailMs - floorMs) / 2).toFixed(3)} ms a run`);
  const [stored] = await database.sql<{ compression: string | null }[]>`select pg_column_compression(tail_lines) as compression from agent_runs where tail_lines is not null limit 1`;
  console.log(`  the tail stored with ${stored?.compression ?? 'no'} compression`);

  // The batch window's lever: the same ends, one a statement and four a statement.
  const replica = randomUUID();
  const batched = new RunStatements(database.sql, replica, 3_600, 3);
  const driverMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1_000;
  };
  const perEnd: Record<1 | 4, { backend: number[]; driver: number[] }> = { 1: { backend: [], driver: [] }, 4: { backend: [], driver: [] } };
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of round % 2 === 0 ? ([1, 4] as const) : ([4, 1] as const)) {
      // Rows written first, by a beat, as a turn longer than a beat has them; then only the ends are counted.
      const runs = Array.from({ length: STATEMENTS }, () => [randomUUID(), `user-${randomUUID()}`] as const);
      await batched.heartbeat(round + 1, runs, [], null, [], false);
      const backendBefore = cpuMs();
      const driverBefore = driverMs();
      for (let i = 0; i < runs.length; i += size) {
        await batched.ends(runs.slice(i, i + size).map(([id]) => ({ id, owner: null, status: 'done', last_seq: frames.length, tail, response, error: null, notify: false })));
      }
      perEnd[size].backend.push((cpuMs() - backendBefore) / runs.length);
      perEnd[size].driver.push((driverMs() - driverBefore) / runs.length);
    }
  }
  const one = { backend: median(perEnd[1].backend), driver: median(perEnd[1].driver) };
  const four = { backend: median(perEnd[4].backend), driver: median(perEnd[4].driver) };
  // a + b/n per end for a batch of n: b, the statement's own cost, from the two sizes.
  const own = (x: number, y: number) => ((x - y) * 4) / 3;
  console.log(`ends of written rows, ${STATEMENTS} a round, CPU per end (backend / driver), median of ${ROUNDS} rounds:`);
  console.log(`  one a statement: ${one.backend.toFixed(3)} / ${one.driver.toFixed(3)} ms; four a statement: ${four.backend.toFixed(3)} / ${four.driver.toFixed(3)} ms`);
  console.log(`  a statement's own cost, apart from its rows: ${own(one.backend, four.backend).toFixed(3)} ms of the backend and ${own(one.driver, four.driver).toFixed(3)} ms of the driver`);
} finally {
  await database.close();
  await db.stop();
}
