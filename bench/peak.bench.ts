/**
 * A campus peak (issue 35): students arriving at a steady rate against one and two replicas of the built
 * service (`node dist/src/server.js` from a clean production install, the image's heap flags,
 * AGENT_ENV=production) sharing one real PostgreSQL with pgvector (memory, budget and job queue), the
 * sandbox campus tool server in its own process, and a gateway paced like a real model in its own process
 * (bench/helpers/peak-fakes.ts). The load generator is this process.
 *
 * Per level (PEAK_LEVELS turns/s, default 4,8,12,16): a fresh database and fresh replicas, PEAK_WARMUP s
 * (10) of arrivals not measured, then PEAK_SECONDS (60) measured; arrivals are Poisson at the level's
 * rate, 80% signed in, the mix of bench/support/peak-load.ts, 55% on the streamed route, 25% JSON, 20% `/v1`
 * streamed. Measured: turns answered / refused (429 or 503 with Retry-After) / failed (anything else);
 * the service's overhead on the first delta (the time to the first answer text less the model's own
 * first-token waits for that turn, as the gateway scripted them; tool calls to the local tool server count
 * as overhead); extraction lag (a fact-stating turn's end to its fact's row); queue depth each second and
 * its drain after the last turn; peak RSS, CPU per turn and Postgres connections per replica (every pool it opens,
 * told apart by PGAPPNAME); tokens charged to budgets against the usage the gateway reported.
 *
 * Postgres transactions per turn: pg_stat_database's commits and rollbacks from the start of the measured
 * window until the queue has drained, less the bench's own sampling queries, over the measured turns (every
 * statement outside a transaction is one, so this counts the service's round trips that wrote or read).
 *
 * PEAK_CORES=1 (issue 46): the platform's single vCPU. The replicas and the Postgres server (the postmaster
 * and every backend it forks) are pinned to CPU 0, the load generator, the gateway and the tool server to
 * CPU 1 (`taskset`), and Postgres's CPU per turn is measured apart (its process tree over the measured
 * window). Needs two CPUs and a Postgres on this machine.
 *
 * PEAK_MIX=outside: the mix of issue 46's outside run (bench/support/peak-load.ts OUTSIDE_MIX) in place of the campus mix.
 * PEAK_ONLY=<kind> and PEAK_ANSWER_TOKENS=N narrow the mix to one kind of turn and one answer length, to
 * split a turn's cost (docs/perf-log/2026-11-26-issue-46-cuts.md, "What a turn costs, by kind and length"); PEAK_SERVICE_ENV=KEY=VALUE,...
 * passes settings on to the replicas (ANSWER_BATCH_MS=250; EMBEDDINGS_API_KEY= for no moderation and no
 * embeddings). PEAK_STORED_FACTS=N (1-3) plays returning students: each signed-in student starts with N
 * facts of their own, so their turns recall a memory block. PEAK_TURNS_OUT=<file> appends each measured
 * streamed turn's first-delta overhead, kind and route (and the tree it ran from) as JSON lines. A level
 * at which a replica refused logs that replica's refusal lines (reason, loop delay, heap) to stderr.
 *
 * `npm run bench -- peak`; PEAK_REPLICAS (default 1,2) picks the configurations; PEAK_SPEND=1 runs the
 * replicas with a per-user and a service-wide daily spend limit far above what the run spends, so every
 * reservation also checks and adds money and the service row (issue 47). Prints a Markdown section;
 * exits 1 when a target at 12 turns/s on two replicas is missed.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { prepareProductionInstall } from '../tests/support/production-install.js';
import { startTestPostgres } from '../tests/support/postgres.js';
import { queuedJobs } from './support/queue-depth.js';
import type { ServiceProcess } from '../tests/support/spawn-service.js';
import { spawnService } from '../tests/support/spawn-service.js';
import { BENCH_SECRET, productionEnv, serviceSettingsFrom, startHelper } from './support/production-fixtures.js';
import { imageNodeOptions, mb, pinToCpu, pinTreeToCpu, procCpuMs, procStatusKb, processTreeCpuMs } from './support/proc.js';
import { HOMES, mixEnv, mixFromEnv, peakTurn, type PeakTurn } from './support/peak-load.js';
import { ensureRealPostgres } from './support/real-postgres.js';
import { quantile } from './support/stats.js';

const LEVELS = (process.env.PEAK_LEVELS ?? '4,8,12,16').split(',').map(Number);
const REPLICA_COUNTS = (process.env.PEAK_REPLICAS ?? '1,2').split(',').map(Number);
const WARMUP_S = Number(process.env.PEAK_WARMUP ?? 10);
const MEASURE_S = Number(process.env.PEAK_SECONDS ?? 60);
/** The campus figure the targets are judged at. */
const CAMPUS_RATE = 12;

const TARGETS = { overheadP99Ms: 250, lagP99Ms: 10_000, drainMs: 15_000, peakRssMb: 200 };
/** Spend limits that never bind, so the money accounting runs on every call (issue 47). */
const SPEND = process.env.PEAK_SPEND === '1';
/** The platform's one vCPU (issue 46): replicas and Postgres on CPU 0, the rest of the bench on CPU 1. */
const ONE_CORE = process.env.PEAK_CORES === '1';
/** PEAK_MIX=outside: the mix of issue 46's outside run (bench/support/peak-load.ts) in place of the campus mix. */
const MIX = mixFromEnv();
/** PEAK_STORED_FACTS=N (at most 3): each signed-in student of the mix starts with N facts of their own. */
const STORED_FACTS = Number(process.env.PEAK_STORED_FACTS ?? 0);
if (!Number.isInteger(STORED_FACTS) || STORED_FACTS < 0 || STORED_FACTS > 3) throw new Error('PEAK_STORED_FACTS must be 0 to 3');
/** PEAK_SERVICE_ENV=KEY=VALUE,...: settings passed on to the replicas, after the bench's own. */
const SERVICE_ENV = serviceSettingsFrom('PEAK_SERVICE_ENV');
const SERVICE_CPU = 0;
const BENCH_CPU = 1;

type Route = 'stream' | 'json' | 'v1';
type Outcome = 'answered' | 'refused' | 'failed';

interface TurnRecord {
  n: number;
  replica: number;
  route: Route;
  turn: PeakTurn;
  user: string | null;
  measured: boolean;
  start: number;
  firstDelta: number | null;
  end: number;
  outcome: Outcome;
  why?: string;
}

interface Stats {
  prompt_tokens: number;
  completion_tokens: number;
  calls: Record<string, number>;
  model_ms: Record<string, number>;
}

/** A seeded generator (mulberry32), so every run offers the same arrivals. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const server = ensureRealPostgres();
const log = (line: string) => process.stderr.write(`peak: ${line}\n`);
const [install, fakes, tools] = await Promise.all([
  prepareProductionInstall({ reuseDependencies: true, log }),
  startHelper('bench/helpers/peak-fakes.ts', [], (line) => (line.startsWith('{') ? (JSON.parse(line) as { gateway: string; stats: string }) : null), mixEnv()),
  startHelper(
    'src/sandbox/campus/main.ts',
    [],
    (line) => (line.startsWith('{') ? ((JSON.parse(line) as { url?: string }).url ?? null) : null),
    { SANDBOX_TOOLS_PORT: '0', LOG_LEVEL: 'info' },
  ),
]);
const readStats = async (): Promise<Stats> => (await fetch(fakes.value.stats)).json() as Promise<Stats>;

/** The Postgres server's postmaster on this machine (its data directory's postmaster.pid), or null. */
async function postmasterPid(url: string): Promise<number | null> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const [row] = await sql<{ dir: string }[]>`select setting as dir from pg_settings where name = 'data_directory'`;
    return Number(readFileSync(`${row!.dir}/postmaster.pid`, 'utf8').split('\n')[0]) || null;
  } catch {
    return null;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const postmaster = ONE_CORE ? await postmasterPid(server.url) : null;
if (ONE_CORE) {
  if (postmaster === null) throw new Error('peak: PEAK_CORES=1 needs the Postgres server on this machine (its postmaster.pid)');
  pinTreeToCpu(postmaster, SERVICE_CPU);
  for (const pid of [process.pid, fakes.child.pid!, tools.child.pid!]) pinToCpu(pid, BENCH_CPU);
  log(`one core: replicas and Postgres (postmaster ${postmaster}) on CPU ${SERVICE_CPU}, the bench, gateway and tool server on CPU ${BENCH_CPU}`);
}

async function startReplicas(count: number, databaseUrl: string): Promise<ServiceProcess[]> {
  const replicas: ServiceProcess[] = [];
  for (let i = 0; i < count; i++) {
    replicas.push(
      await spawnService({
        entry: 'dist',
        cwd: install.dir,
        // PEAK_NODE_ARGS adds flags (a profile: `--cpu-prof --cpu-prof-dir=/tmp/prof`).
        nodeArgs: [...imageNodeOptions(), ...(process.env.PEAK_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [])],
        env: {
          ...productionEnv(databaseUrl, tools.value, fakes.value.gateway),
          // The postgres driver names its connections by it: pg_stat_activity tells replicas apart.
          PGAPPNAME: `peak-r${i}`,
          EMBEDDINGS_API_KEY: 'sk-peak-embeddings',
          EMBEDDINGS_BASE_URL: fakes.value.gateway,
          MAX_TURNS_IN_FLIGHT: '3',
          DAILY_TOKEN_LIMIT: '100000000',
          ...(SPEND && { DAILY_SPEND_LIMIT_USD: '1000', SERVICE_DAILY_SPEND_LIMIT_USD: '100000' }),
          LOG_LEVEL: 'info',
          // Settings of the service under test, to measure what one costs (ANSWER_BATCH_MS=250, EMBEDDINGS_API_KEY=).
          ...SERVICE_ENV,
        },
      }),
    );
  }
  return replicas;
}

/** One turn, as the front end sends it; what came back, judged. */
async function playTurn(record: TurnRecord, url: string): Promise<void> {
  const { turn, user, route } = record;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_SECRET}` };
  const body =
    route === 'v1'
      ? { model: 'campus-agent', stream: true, messages: [...turn.history, { role: 'user', content: turn.query }], ...(user && { user }) }
      : { query: turn.query, message_history: turn.history, ...(user && { user_id: user }) };
  const path = route === 'v1' ? '/v1/chat/completions' : route === 'stream' ? '/agent/respond/stream' : '/agent/respond';
  const finish = (outcome: Outcome, why?: string) => {
    record.end = Date.now();
    record.outcome = outcome;
    if (why) record.why = why;
  };
  try {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status === 429 || res.status === 503) {
      const envelope = (await res.text()).slice(0, 200);
      return finish(res.headers.get('retry-after') ? 'refused' : 'failed', `${res.status}${res.headers.get('retry-after') ? '' : ' without Retry-After'}: ${envelope}`);
    }
    if (res.status !== 200) return finish('failed', `status ${res.status}: ${(await res.text()).slice(0, 200)}`);
    if (route === 'json') {
      const json = (await res.json()) as { response_text?: string };
      return finish(json.response_text ? 'answered' : 'failed', 'no response_text');
    }
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (record.firstDelta === null && (route === 'stream' ? text.includes('event: delta') : /"content":"[^"]/.test(text))) record.firstDelta = Date.now();
      // Only the tail matters from here on: the last event.
      if (text.length > 8_192) text = text.slice(-4_096);
    }
    if (route === 'stream') {
      if (/event: done\n/.test(text)) return finish('answered');
      return finish('failed', /event: error\ndata: (.*)/.exec(text)?.[1]?.slice(0, 200) ?? 'stream ended without done');
    }
    if (text.includes('data: [DONE]') && !/"error"/.test(text.slice(-1_024))) return finish('answered');
    return finish('failed', 'v1 stream ended without [DONE] or with an error');
  } catch (err) {
    finish('failed', err instanceof Error ? err.message : String(err));
  }
}

interface LevelResult {
  replicas: number;
  rate: number;
  records: TurnRecord[];
  modelMs: Record<string, number>;
  perReplica: { peakRssMb: number; cpuMsPerTurn: number; connections: number }[];
  depth: number[];
  drainMs: number | null;
  lags: number[];
  factsMissing: number;
  factsDuplicated: number;
  charged: number;
  reported: number;
  /** Postgres transactions over the measured window (until drained), per measured turn. */
  xactPerTurn: number;
  /** PEAK_CORES=1: the Postgres server's CPU over the measured window, per answered turn. */
  pgCpuMsPerTurn: number | null;
  /** With PEAK_SPEND: the service row's spend against the users' rows (equal when nothing is held). */
  spend: { service: number; users: number } | null;
}

/**
 * PEAK_STORED_FACTS facts for each of the mix's signed-in students (`peak-<tag>-s0` to `s999`), each
 * student's own ("Lives in Mudge House", "Is taking 15-417"), so every one of their turns recalls a
 * memory block no other student has, as a campus of returning students would.
 */
async function seedStoredFacts(sql: postgres.Sql, tag: string): Promise<void> {
  const texts = (student: number) =>
    [`Lives in ${HOMES[student % HOMES.length]} House`, `Is taking 15-${String(100 + student).padStart(3, '0')}`, `Prefers meetings after ${1 + (student % 11)} pm`].slice(0, STORED_FACTS);
  const rows = Array.from({ length: 1_000 }, (_, student) =>
    texts(student).map((text) => ({ user_id: `peak-${tag}-s${student}`, kind: 'learned', text, normalized: text.toLowerCase().replace(/[^a-z0-9 ]/g, '') })),
  ).flat();
  await sql`insert into memory_facts ${sql(rows, 'user_id', 'kind', 'text', 'normalized')}`;
}

/**
 * `base` numbers this level's turns apart from every other level's (the gateway keeps each turn's model
 * time by its number for the whole run).
 */
async function runLevel(replicaCount: number, rate: number, base: number): Promise<LevelResult> {
  const tag = `r${replicaCount}l${rate}`;
  const db = await startTestPostgres();
  const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
  const replicas = await startReplicas(replicaCount, db.url);
  // Returning students (PEAK_STORED_FACTS): each signed-in student of the mix starts with facts of their own.
  if (STORED_FACTS > 0) await seedStoredFacts(sql, tag);
  if (ONE_CORE) for (const r of replicas) pinToCpu(r.child.pid!, SERVICE_CPU);
  // Finds which queue table the tree under test has, before anything is counted.
  await queuedJobs(sql, false);
  const statsBefore = await readStats();
  const random = rng(rate * 7919 + replicaCount);
  const records: TurnRecord[] = [];
  const inFlight: Promise<void>[] = [];
  const depth: number[] = [];
  const connections = replicas.map(() => 0);
  const cpuAtMeasure: number[] = [];
  let sampling = true;
  let samplerQueries = 0;
  const transactions = async () => {
    const [row] = await sql<{ n: string }[]>`select (xact_commit + xact_rollback)::text as n from pg_stat_database where datname = current_database()`;
    return Number(row!.n);
  };
  let xactAtMeasure: number | null = null;
  let pgCpuAtMeasure = 0;
  let samplerAtMeasure = 0;
  const sampler = (async () => {
    while (sampling) {
      samplerQueries += 2;
      depth.push(await queuedJobs(sql, false).catch(() => -1));
      const held = await sql<{ app: string; n: number }[]>`
        select application_name as app, count(*)::int as n from pg_stat_activity where datname = current_database() group by 1`;
      for (const row of held) {
        const i = Number(/^peak-r(\d+)$/.exec(row.app)?.[1] ?? -1);
        if (i >= 0) connections[i] = Math.max(connections[i]!, row.n);
      }
      await sleep(1_000);
    }
  })();

  const started = Date.now();
  const stopAt = started + (WARMUP_S + MEASURE_S) * 1_000;
  let next = started;
  let n = base;
  let measuring = false;
  while (next < stopAt) {
    const wait = next - Date.now();
    if (wait > 0) await sleep(wait);
    if (!measuring && Date.now() >= started + WARMUP_S * 1_000) {
      measuring = true;
      for (const r of replicas) cpuAtMeasure.push(procCpuMs(r.child.pid!));
      if (postmaster !== null) pgCpuAtMeasure = processTreeCpuMs(postmaster);
      samplerAtMeasure = samplerQueries;
      xactAtMeasure = await transactions();
    }
    const turn = peakTurn(++n, random(), MIX);
    const signedIn = random() < 0.8;
    // A fact-stating student is one of their own, so their fact's row tells the lag of that turn alone.
    const user = !signedIn ? null : turn.kind === 'fact' ? `peak-${tag}-f${n}` : `peak-${tag}-s${Math.floor(random() * 1_000)}`;
    const draw = random();
    const route: Route = draw < 0.55 ? 'stream' : draw < 0.8 ? 'json' : 'v1';
    const replica = n % replicaCount;
    const record: TurnRecord = { n, replica, route, turn, user, measured: measuring, start: Date.now(), firstDelta: null, end: 0, outcome: 'failed' };
    records.push(record);
    inFlight.push(playTurn(record, replicas[replica]!.url));
    // Poisson arrivals: exponential gaps with the level's mean.
    next += (-Math.log(1 - random()) / rate) * 1_000;
  }
  const cpuAtEnd = replicas.map((r) => procCpuMs(r.child.pid!));
  const pgCpuAtEnd = postmaster !== null ? processTreeCpuMs(postmaster) : 0;
  await Promise.all(inFlight);
  const lastEnd = Math.max(...records.map((r) => r.end));
  // The queue drains: the time from the last turn's end until no job waits or runs.
  let drainMs: number | null = null;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(200)) {
    samplerQueries++;
    if ((await queuedJobs(sql, true)) === 0) {
      drainMs = Math.max(0, Date.now() - lastEnd);
      break;
    }
  }
  sampling = false;
  await sampler;
  // Backends report their counts to the statistics at most once a second.
  await sleep(1_500);
  const xact = (await transactions()) - (xactAtMeasure ?? 0) - (samplerQueries - samplerAtMeasure) - 1;
  const measuredTurns = records.filter((r) => r.measured).length;

  const factTurns = records.filter((r) => r.measured && r.turn.kind === 'fact' && r.user && r.outcome === 'answered');
  const facts = await sql<{ user_id: string; n: number; first: Date }[]>`
    select user_id, count(*)::int as n, min(created_at) as first from memory_facts where user_id like ${`peak-${tag}-f%`} group by 1`;
  const byUser = new Map(facts.map((f) => [f.user_id, f]));
  const lags: number[] = [];
  let factsMissing = 0;
  let factsDuplicated = 0;
  for (const r of factTurns) {
    const fact = byUser.get(r.user!);
    if (!fact) factsMissing++;
    else {
      lags.push(Math.max(0, fact.first.getTime() - r.end));
      if (fact.n > 1) factsDuplicated++;
    }
  }
  // The service's own row (`#service`, under a spend cap) is the users' rows again: not counted twice.
  const [charged] = await sql<{ n: string | null }[]>`select sum(tokens)::text as n from token_usage where bucket <> '#service'`;
  const [money] = await sql<{ service: string | null; users: string | null }[]>`
    select sum(nano_usd) filter (where bucket = '#service')::text as service, sum(nano_usd) filter (where bucket <> '#service')::text as users
    from token_usage`.catch(() => [{ service: null, users: null }]);
  const statsAfter = await readStats();
  const answeredPerReplica = replicas.map((_, i) => records.filter((r) => r.measured && r.replica === i && r.outcome === 'answered').length);
  const perReplica = replicas.map((r, i) => ({
    peakRssMb: procStatusKb(r.child.pid!, 'VmHWM') / 1024,
    cpuMsPerTurn: (cpuAtEnd[i]! - (cpuAtMeasure[i] ?? cpuAtEnd[i]!)) / Math.max(1, answeredPerReplica[i]!),
    connections: connections[i]!,
  }));
  // Why a replica refused (its one log line a second while refusing): the reason, the loop delay and heap it read.
  const overloads = replicas.flatMap((r, i) => r.logs.filter((l) => l.msg === 'turns refused: overloaded').map((l) => ({ replica: i, ...l })));
  if (overloads.length > 0) {
    const seconds = (l: Record<string, unknown>) => `r${String(l.replica)} ${String(l.reason)} refused ${String(l.refused)}, loop ${String(l.loop_delay_ms)} ms, heap ${String(l.heap_percent)}%, open ${String(l.open_turns)}`;
    log(`  overload: ${overloads.map(seconds).join('; ')}`);
  }
  for (const r of replicas) await r.stop('SIGTERM').catch(() => r.stop('SIGKILL'));
  await sql.end({ timeout: 5 });
  await db.stop();
  return {
    replicas: replicaCount,
    rate,
    records,
    modelMs: statsAfter.model_ms,
    perReplica,
    depth,
    drainMs,
    lags,
    factsMissing,
    factsDuplicated,
    charged: Number(charged?.n ?? 0),
    xactPerTurn: xact / Math.max(1, measuredTurns),
    pgCpuMsPerTurn: postmaster !== null ? (pgCpuAtEnd - pgCpuAtMeasure) / Math.max(1, answeredPerReplica.reduce((a, b) => a + b, 0)) : null,
    spend: SPEND ? { service: Number(money?.service ?? 0), users: Number(money?.users ?? 0) } : null,
    reported: statsAfter.prompt_tokens + statsAfter.completion_tokens - (statsBefore.prompt_tokens + statsBefore.completion_tokens),
  };
}

/** A streamed turn's first-delta overhead: the time to its first answer text less the model's scripted waits. */
const overheadOf = (r: LevelResult) => (x: TurnRecord) => x.firstDelta! - x.start - (r.modelMs[String(x.n)] ?? 0);

/** PEAK_TURNS_OUT=<file>: each measured streamed turn's overhead, kind and route appended as a JSON line (what a p99 is made of). */
function writeTurns(r: LevelResult): void {
  const file = process.env.PEAK_TURNS_OUT;
  if (!file) return;
  const turns = r.records.filter((x) => x.measured && x.outcome === 'answered' && x.firstDelta !== null);
  const line = (x: TurnRecord) => JSON.stringify({ tree: process.cwd(), rate: r.rate, replicas: r.replicas, n: x.n, kind: x.turn.kind, route: x.route, overhead: overheadOf(r)(x) });
  appendFileSync(file, turns.map((x) => `${line(x)}\n`).join(''));
}

/** What a level's figures say against each target. */
function judge(r: LevelResult) {
  const measured = r.records.filter((x) => x.measured);
  const count = (o: Outcome) => measured.filter((x) => x.outcome === o).length;
  const overheads = measured
    .filter((x) => x.outcome === 'answered' && x.firstDelta !== null)
    .map(overheadOf(r));
  const third = Math.max(1, Math.floor(r.depth.length / 3));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const depthFirst = mean(r.depth.slice(0, third));
  const depthLast = mean(r.depth.slice(-third));
  const reasons = (o: Outcome) => [...new Set(measured.filter((x) => x.outcome === o).map((x) => x.why ?? '?'))].slice(0, 3);
  const failedReasons = [...reasons('failed'), ...reasons('refused')];
  const figures = {
    answered: count('answered'),
    refused: count('refused'),
    failed: count('failed'),
    overheadP50: quantile(overheads, 0.5),
    overheadP99: quantile(overheads, 0.99),
    lagP50: quantile(r.lags, 0.5),
    lagP99: quantile(r.lags, 0.99),
    lagMax: r.lags.length ? Math.max(...r.lags) : 0,
    depthMax: Math.max(0, ...r.depth),
    depthFirst,
    depthLast,
    failedReasons,
  };
  const met = {
    noFailures: figures.failed === 0 && figures.refused === 0,
    overhead: figures.overheadP99 <= TARGETS.overheadP99Ms,
    // The queue keeps up: lag within bound, depth not growing over the level, drained quickly, nothing lost.
    extraction:
      figures.lagP99 <= TARGETS.lagP99Ms &&
      depthLast <= Math.max(2, depthFirst * 1.5) &&
      r.drainMs !== null &&
      r.drainMs <= TARGETS.drainMs &&
      r.factsMissing === 0 &&
      r.factsDuplicated === 0,
    rss: r.perReplica.every((p) => p.peakRssMb <= TARGETS.peakRssMb),
    budget: r.charged === r.reported && (r.spend === null || r.spend.service === r.spend.users),
  };
  return { figures, met, all: Object.values(met).every(Boolean) };
}

const results: LevelResult[] = [];
try {
  for (const replicas of REPLICA_COUNTS) {
    for (const rate of LEVELS) {
      log(`${replicas} replica(s), ${rate} turns/s`);
      const result = await runLevel(replicas, rate, (results.length + 1) * 1_000_000);
      const { figures, met } = judge(result);
      writeTurns(result);
      log(`  answered ${figures.answered}, refused ${figures.refused}, failed ${figures.failed} ${figures.failedReasons.join(' | ')}; ` +
        `overhead p99 ${Math.round(figures.overheadP99)} ms; lag p99 ${Math.round(figures.lagP99)} ms; drain ${result.drainMs} ms; ` +
        `met ${JSON.stringify(met)}`);
      results.push(result);
    }
  }
} finally {
  for (const child of [fakes.child, tools.child]) {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
  install.remove();
  server.stop();
}

const s = (ms: number | null) => (ms === null ? 'not drained' : `${(ms / 1000).toFixed(1)} s`);
const mixText = MIX.weights.map(([kind, weight]) => `${kind} ${weight}%`).join(', ');
const lines: string[] = [
  (ONE_CORE ? '## Campus peak on one core: replicas and Postgres pinned to one CPU (`PEAK_CORES=1 bench/peak.bench.ts`)' : '## Campus peak: two replicas on a real Postgres (`bench/peak.bench.ts`)') +
    (MIX.name === 'outside' ? ', the outside mix (`PEAK_MIX=outside`)' : ''),
  '',
  `Method: ${REPLICA_COUNTS.join(' and ')} replica(s) of the built service (\`node ${imageNodeOptions().join(' ')} dist/src/server.js\`, ` +
    `AGENT_ENV=production, JOB_CONCURRENCY default${Object.keys(SERVICE_ENV).length ? `, ${Object.entries(SERVICE_ENV).map(([k, v]) => `${k}=${v}`).join(', ')}` : ''}) sharing one PostgreSQL 15 with pgvector 0.8.6 (durable settings; memory, budget ` +
    'and job queue in it), the sandbox tool server and a paced gateway each in a process of their own (first token after 0.5-1.5 s, ' +
    `40 tokens/s, ${MIX.answerTokens ? `${MIX.answerTokens} tokens every answer` : '100-400 tokens'}, a tool pass for places, food and courses; extraction and titles 1 s; embeddings and moderation ` +
    `50 ms). Per level a fresh database and fresh replicas; ${WARMUP_S} s of arrivals not measured, then ${MEASURE_S} s measured; ` +
    `Poisson arrivals, 80% signed in${STORED_FACTS > 0 ? ` (each student with ${STORED_FACTS} stored facts of their own, PEAK_STORED_FACTS)` : ''}; ${MIX.name === 'outside' ? 'the outside mix (PEAK_MIX=outside)' : 'mix'}: ${mixText} (a "fact" turn states "I live in ..."); ` +
    'routes: streamed 55%, JSON 25%, `/v1` streamed 20%; turns spread over the replicas in turn. ' +
    'Overhead = time to the first answer text less the model\'s scripted first-token waits of that turn (the local tool calls count ' +
    'as overhead). Lag = a fact-stating turn\'s end to its fact\'s row (`created_at`). Drain = the last turn\'s end to an empty queue. ' +
    'CPU per turn = replica CPU over the measured window / turns it answered. Connections = most held at once, every pool of the replica. ' +
    'Postgres transactions per turn = pg_stat_database commits and rollbacks from the measured window\'s start until the queue ' +
    'drained, less the bench\'s own sampling queries, over the turns that arrived in the window.' +
    (SPEND ? ' Spend limits on (PEAK_SPEND=1): a per-user and a service-wide daily limit that never bind, so every reservation and charge also carries money and the service row.' : '') +
    (ONE_CORE
      ? ` One core (PEAK_CORES=1): the replicas and the Postgres server (postmaster and every backend) pinned to CPU ${SERVICE_CPU} with taskset, the load generator, gateway and tool server to CPU ${BENCH_CPU}; Postgres CPU per turn = its process tree's CPU over the measured window / turns answered by all replicas; service CPU per turn = the replicas' CPU over the window / the same turns.`
      : ''),
  '',
  `| replicas | turns/s | answered | refused | failed | first-delta overhead p50 / p99 | extraction lag p50 / p99 / max | queue depth max (first → last third) | drain | peak RSS per replica | CPU per turn per replica | connections per replica | Postgres transactions per turn |${ONE_CORE ? ' CPU per turn: service / Postgres / both |' : ''} tokens charged = reported |`,
  `|---|---|---|---|---|---|---|---|---|---|---|---|---|${ONE_CORE ? '---|' : ''}---|`,
];
/** Service, Postgres and both, per answered turn (PEAK_CORES=1). */
const coreCell = (r: LevelResult) => {
  if (!ONE_CORE) return '';
  const answered = r.records.filter((x) => x.measured && x.outcome === 'answered');
  const service = r.perReplica.reduce((sum, p, i) => sum + p.cpuMsPerTurn * answered.filter((x) => x.replica === i).length, 0) / Math.max(1, answered.length);
  const pg = r.pgCpuMsPerTurn ?? 0;
  return ` ${service.toFixed(1)} / ${pg.toFixed(1)} / ${(service + pg).toFixed(1)} ms |`;
};
for (const r of results) {
  const { figures: f } = judge(r);
  lines.push(
    `| ${r.replicas} | ${r.rate} | ${f.answered} | ${f.refused} | ${f.failed} | ${Math.round(f.overheadP50)} / ${Math.round(f.overheadP99)} ms | ` +
      `${s(f.lagP50)} / ${s(f.lagP99)} / ${s(f.lagMax)}${r.factsMissing ? ` (${r.factsMissing} missing)` : ''}${r.factsDuplicated ? ` (${r.factsDuplicated} twice)` : ''} | ` +
      `${f.depthMax} (${f.depthFirst.toFixed(1)} → ${f.depthLast.toFixed(1)}) | ${s(r.drainMs)} | ` +
      `${r.perReplica.map((p) => `${p.peakRssMb.toFixed(0)} MB`).join(', ')} | ${r.perReplica.map((p) => `${p.cpuMsPerTurn.toFixed(1)} ms`).join(', ')} | ` +
      `${r.perReplica.map((p) => p.connections).join(', ')} | ${r.xactPerTurn.toFixed(1)} |${coreCell(r)} ` +
      `${r.charged === r.reported ? `yes (${r.charged})` : `no: ${r.charged} charged, ${r.reported} reported`}` +
      `${r.spend ? `; spend: service row ${r.spend.service} = users ${r.spend.users} nano-USD${r.spend.service === r.spend.users ? '' : ' (NOT EQUAL)'}` : ''} |`,
  );
}
const capacity = (replicas: number) =>
  Math.max(0, ...results.filter((r) => r.replicas === replicas && judge(r).all).map((r) => r.rate));
lines.push('');
for (const replicas of REPLICA_COUNTS) lines.push(`Capacity with ${replicas} replica(s)${ONE_CORE ? ' and Postgres on one core' : ''}: ${capacity(replicas) || 'below the lowest level'} turns/s (the highest level at which every target holds).`);
const campus = results.find((r) => r.replicas === 2 && r.rate === CAMPUS_RATE);
if (campus) {
  const { figures: f, met } = judge(campus);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  lines.push(
    '',
    `Targets at ${CAMPUS_RATE} turns/s on two replicas:`,
    '',
    '| target | measured | result |',
    '|---|---|---|',
    `| 0 failed turns, no refusals within capacity | ${f.failed} failed, ${f.refused} refused | ${verdict(met.noFailures)} |`,
    `| first-delta overhead p99 ≤ ${TARGETS.overheadP99Ms} ms | ${Math.round(f.overheadP99)} ms | ${verdict(met.overhead)} |`,
    `| extraction lag p99 ≤ 10 s, depth not growing, drained ≤ 15 s, each fact once | p99 ${s(f.lagP99)}, depth ${f.depthFirst.toFixed(1)} → ${f.depthLast.toFixed(1)}, drain ${s(campus.drainMs)}, ${campus.factsMissing} missing, ${campus.factsDuplicated} twice | ${verdict(met.extraction)} |`,
    `| peak RSS per replica ≤ ${TARGETS.peakRssMb} MB | ${campus.perReplica.map((p) => `${p.peakRssMb.toFixed(0)} MB`).join(', ')} | ${verdict(met.rss)} |`,
    `| Postgres connections per replica bounded (the postgres pool, 10) | most held: ${campus.perReplica.map((p) => p.connections).join(', ')} | ${verdict(campus.perReplica.every((p) => p.connections <= 10))} |`,
    `| tokens charged = usage reported, exactly | ${campus.charged} charged, ${campus.reported} reported | ${verdict(met.budget)} |`,
  );
  if (!judge(campus).all || campus.perReplica.some((p) => p.connections > 10)) process.exitCode = 1;
}
process.stdout.write(lines.join('\n') + '\n');
