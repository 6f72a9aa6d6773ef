/**
 * Postgres round trips of one turn of each kind (issue 46), and of a service that does nothing: the
 * service (`src/server.ts`, AGENT_ENV=production, Postgres for memory, budget and job queue) with the
 * peak bench's gateway and the sandbox tool server, each in a process of its own, on a real PostgreSQL
 * that preloads pg_stat_statements. Per kind of the peak mix (bench/support/peak-load.ts): the statistics are
 * reset, one signed-in turn is streamed, its memory extraction (if any) is waited for, and the statements
 * the database ran are counted by text. Idle: the same count over IDLE_S seconds with no turn. A turn's
 * own statements are those of a text the idle service never ran (the job queue's polling and upkeep, and
 * the transactions around them, are left out; a turn's own BEGIN/COMMIT are left out with them).
 *
 * `TEST_DATABASE_URL=postgres://…/postgres npx tsx bench/tools/turn-statements.ts` (the server started with
 * `shared_preload_libraries = 'pg_stat_statements'`; BENCHMARKS.md says how).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { startTestPostgres } from '../../tests/support/postgres.js';
import { queuedJobs } from '../support/queue-depth.js';
import { spawnService } from '../../tests/support/spawn-service.js';
import { peakTurn, type TurnKind } from '../support/peak-load.js';
import { BENCH_SECRET, productionEnv, startHelper } from '../support/production-fixtures.js';

const IDLE_S = Number(process.env.IDLE_S ?? 10);
const MARK = '/* turn-statements */';

if (!process.env.TEST_DATABASE_URL) throw new Error('turn-statements: set TEST_DATABASE_URL to a PostgreSQL that preloads pg_stat_statements');
const db = await startTestPostgres();
const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
await sql.unsafe('create extension if not exists pg_stat_statements');
const [fakes, tools] = await Promise.all([
  startHelper('bench/helpers/peak-fakes.ts', [], (line) => (line.startsWith('{') ? (JSON.parse(line) as { gateway: string; stats: string }) : null)),
  startHelper('src/sandbox/campus/main.ts', [], (line) => (line.startsWith('{') ? ((JSON.parse(line) as { url?: string }).url ?? null) : null), {
    SANDBOX_TOOLS_PORT: '0',
    LOG_LEVEL: 'info',
  }),
]);
const service = await spawnService({
  entry: 'source',
  env: { ...productionEnv(db.url, tools.value, fakes.value.gateway), EMBEDDINGS_API_KEY: 'sk-statements', EMBEDDINGS_BASE_URL: fakes.value.gateway, DAILY_TOKEN_LIMIT: '100000000' },
});

/** Streams one turn to its end. */
async function play(query: string, history: unknown[], user: string): Promise<void> {
  const res = await fetch(`${service.url}/agent/respond/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_SECRET}` },
    body: JSON.stringify({ query, message_history: history, user_id: user }),
  });
  if (res.status !== 200) throw new Error(`turn-statements: ${res.status} ${await res.text()}`);
  await res.text();
}

/** No job waiting or running, and a moment for the last statements to be counted. */
async function queueIdle(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await queuedJobs(sql, true, MARK)) === 0) break;
    await sleep(200);
  }
  await sleep(1_000);
}

const reset = () => sql.unsafe(`${MARK} select pg_stat_statements_reset()`);
/** The statements of this database since the reset, the bench's own left out. */
async function counted(): Promise<Array<{ query: string; calls: number }>> {
  return sql.unsafe<{ query: string; calls: number }[]>(
    `${MARK} select regexp_replace(query, '\\s+', ' ', 'g') as query, calls::int as calls from pg_stat_statements
     where dbid = (select oid from pg_database where datname = current_database()) and query not like '%turn-statements%'
     order by calls desc`,
  );
}

const KINDS: TurnKind[] = ['place', 'food', 'course', 'follow-up', 'fact', 'remember', 'small talk'];
const draws: Record<TurnKind, number> = { place: 0.1, food: 0.3, course: 0.45, 'follow-up': 0.6, fact: 0.72, remember: 0.82, 'small talk': 0.95 };
const rows: string[] = [];
try {
  // Warm: pools open, prices and catalog loaded, one turn of each kind through every path once.
  for (const [i, kind] of KINDS.entries()) {
    const t = peakTurn(100 + i, draws[kind]);
    await play(t.query, t.history, `warm-${i}`);
  }
  await queueIdle();
  await reset();
  await sleep(IDLE_S * 1_000);
  const idle = await counted();
  const idleCalls = idle.reduce((n, r) => n + r.calls, 0);
  const perSecond = idleCalls / IDLE_S;
  const idleTexts = new Set(idle.map((r) => r.query));
  rows.push(`| idle (no turn, ${IDLE_S} s) | ${idleCalls} (${perSecond.toFixed(1)}/s) | - | ${idle.slice(0, 3).map((r) => `${r.calls}× \`${r.query.slice(0, 70)}\``).join('<br>')} |`);
  for (const [i, kind] of KINDS.entries()) {
    const t = peakTurn(200 + i, draws[kind]);
    if (t.kind !== kind) throw new Error(`turn-statements: draw for ${kind} gave ${t.kind}`);
    await reset();
    const started = Date.now();
    await play(t.query, t.history, `stmt-${kind.replace(' ', '-')}-${i}`);
    await queueIdle();
    const seconds = (Date.now() - started) / 1000;
    const stats = await counted();
    const calls = stats.reduce((n, r) => n + r.calls, 0);
    const own = stats.filter((r) => !idleTexts.has(r.query));
    rows.push(
      `| ${kind} | ${calls} over ${seconds.toFixed(1)} s | ${own.reduce((n, r) => n + r.calls, 0)} | ${own
        .slice(0, 6)
        .map((r) => `${r.calls}× \`${r.query.slice(0, 70)}\``)
        .join('<br>')} |`,
    );
  }
} finally {
  await service.stop();
  for (const child of [fakes.child, tools.child]) {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
  await sql.end({ timeout: 5 });
  await db.stop();
}
process.stdout.write(['| turn | statements, all | the turn\'s own (round trips) | the turn\'s own, most frequent first |', '|---|---:|---:|---|', ...rows, ''].join('\n'));
