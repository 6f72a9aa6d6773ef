/**
 * The database coming back (issue 79), through the real service: two replicas of the real entry point
 * over a real PostgreSQL of the test's own, streamed turns (runs, remembered facts) running on both,
 * while the server is killed (SIGKILL) or shut down fast (SIGINT), alternately, and started again.
 * After each return:
 * - from 2 s on, every run that a client saw end `done` reads `done` on the other replica (its end,
 *   if written while the database was away, was written when it came back), quickly and never a 503;
 * - from 2 s on, neither replica logs a warning or an error (no failed query, no run-log write failed;
 *   the overload guard's refusals aside);
 * and over the whole test no uncaught fault is logged (but the driver's own while the database is away:
 * the service's policy, src/server.ts, logs a fault of the driver's socket handling after a cut
 * connection as a warning and keeps serving; one outside an outage and its settling fails the test), no
 * replica exits, every stream ends, no run is left running and no fact a client was told was saved is
 * lost. Last, with the database
 * down and a turn running, SIGTERM ends a replica within SHUTDOWN_TIMEOUT_MS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSseEvents } from '../src/sandbox/chat/sse-reader.js';
import { ownClusterSkipReason, startOwnPostgresCluster, type OwnPostgresCluster } from './support/postgres.js';
import { spawnService, type LogLine, type ServiceProcess } from './support/spawn-service.js';

const skip = ownClusterSkipReason();
const CYCLES = Number(process.env.DB_RETURN_CYCLES ?? 4);
const SETTLE_MS = 2_000;
const WATCH_MS = 6_000;
const SHUTDOWN_MS = 5_000;
const CLIENTS = 6;
const READERS = 8;

interface Turn {
  replica: 0 | 1;
  user: string;
  runId: string | null;
  last: string | undefined;
  endedAt: number;
  /** Facts the client was told were saved (`memory` events). */
  acknowledged: string[];
}

async function streamTurn(service: ServiceProcess, replica: 0 | 1, user: string, query: string): Promise<Turn> {
  try {
    const res = await fetch(`${service.url}/agent/respond/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, user_id: user }),
    });
    const turn: Turn = { replica, user, runId: res.headers.get('x-run-id'), last: undefined, endedAt: 0, acknowledged: [] };
    if (res.status !== 200) {
      await res.body?.cancel();
      return { ...turn, last: `http ${res.status}`, endedAt: Date.now() };
    }
    for await (const e of readSseEvents(res.body!)) {
      turn.last = e.type;
      const data = e.data as { op?: string; fact?: string };
      if (e.type === 'memory' && data.op === 'add' && data.fact) turn.acknowledged.push(data.fact);
    }
    return { ...turn, endedAt: Date.now() };
  } catch (err) {
    return { replica, user, runId: null, last: `fetch failed: ${String(err)}`, endedAt: Date.now(), acknowledged: [] };
  }
}

/**
 * Warnings and errors logged between `from` and `to`, but the overload guard's: a refusal for a late
 * event loop is about this machine's two cores (the database's recovery, both replicas and the test on
 * them), not a query that failed or waited.
 */
/**
 * `fn` over `items`, READERS at a time: a client's pace. Hundreds of reads at once would measure the
 * overload guard (a 503 with Retry-After when the event loop lags), not the database's return.
 */
async function paced<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += READERS) out.push(...(await Promise.all(items.slice(i, i + READERS).map(fn))));
  return out;
}

const warnings = (logs: LogLine[], from: number, to: number) =>
  logs.filter(
    (l) =>
      (l.level === 'warn' || l.level === 'error') &&
      l.msg !== 'turns refused: overloaded' &&
      Date.parse(String(l.ts)) >= from &&
      Date.parse(String(l.ts)) <= to,
  );

/** What a logged error says (its name, code and message, no stack), so a failure here names its cause. */
const errorOf = (line: LogLine): string => {
  const err = line.err as { name?: string; message?: string; code?: string } | undefined;
  return err ? `: ${err.name ?? 'Error'}${err.code ? ` ${err.code}` : ''}: ${err.message ?? ''}` : '';
};

describe.skipIf(skip !== null)(`two replicas while the database goes and comes back (${skip ?? 'real PostgreSQL'})`, () => {
  let cluster: OwnPostgresCluster;
  const replicas: ServiceProcess[] = [];

  beforeAll(async () => {
    cluster = await startOwnPostgresCluster();
    for (let k = 0; k < 2; k++) {
      replicas.push(
        await spawnService({
          entry: 'source',
          env: { DATABASE_URL: cluster.url, SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_MS), MAX_TURNS_IN_FLIGHT: '40' },
        }),
      );
    }
  }, 240_000);

  afterAll(async () => {
    if (process.env.CHAOS_LOG_DIR) {
      const { writeFileSync } = await import('node:fs');
      replicas.forEach((r, k) => writeFileSync(`${process.env.CHAOS_LOG_DIR}/replica-${k}.log`, r.stdout + r.stderr));
    }
    await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
    await cluster?.remove();
  });

  it(`ends are kept, reads answer and nothing is logged from 2 s after each return (${CYCLES} outages)`, async () => {
    const turns: Turn[] = [];
    let running = true;
    const client = async (k: number) => {
      for (let n = 0; running; n++) {
        const replica = ((k + n) % 2) as 0 | 1;
        const query = n % 3 === 0 ? `Please remember that I like green tea number ${k} ${n}` : 'where is the library?';
        turns.push(await streamTurn(replicas[replica]!, replica, `chaos-real-${k}`, query));
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, k) => client(k));
    const problems: string[] = [];
    /** Each outage, from the kill to SETTLE_MS after the return: where a driver fault is the policy's. */
    const outages: Array<[number, number]> = [];
    let checked = 0;
    let checkedUpTo = 0;
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const signal = cycle % 2 === 0 ? 'SIGKILL' : 'SIGINT';
        await new Promise((r) => setTimeout(r, 1_000));
        const killedAt = Date.now();
        await cluster.kill(signal);
        await new Promise((r) => setTimeout(r, 2_000));
        await cluster.start();
        const back = Date.now();
        outages.push([killedAt, back + SETTLE_MS]);
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        // Every run that ended `done` since the last check (those of the outage among them), read on the
        // replica that did not produce it; the last check below reads them all again.
        const done = turns.slice(checkedUpTo).filter((t) => t.last === 'done' && t.runId !== null);
        checkedUpTo = turns.length;
        const reads = await paced(done, async (t) => {
          const started = Date.now();
          const res = await fetch(`${replicas[1 - t.replica]!.url}/agent/runs/${t.runId}?user_id=${t.user}`).catch(() => null);
          const body = res?.status === 200 ? ((await res.json()) as { status: string }) : null;
          return { t, status: res?.status ?? 0, state: body?.status, ms: Date.now() - started };
        });
        for (const r of reads) {
          if (r.status !== 200 || r.state !== 'done' || r.ms > 5_000) problems.push(`${signal}: run ${r.t.runId} ended done on ${r.t.replica}: read ${r.status} ${r.state} in ${r.ms} ms`);
        }
        checked += reads.length;
        await new Promise((r) => setTimeout(r, WATCH_MS));
        for (const [k, replica] of replicas.entries()) {
          for (const line of warnings(replica.logs, back + SETTLE_MS, Date.now())) problems.push(`${signal}: replica ${k} logged ${line.level} "${line.msg}" ${Date.parse(String(line.ts)) - back} ms after the return${errorOf(line)}`);
        }
      }
    } finally {
      running = false;
      await Promise.all(clients);
    }
    expect(problems, problems.slice(0, 20).join('\n')).toEqual([]);
    // The test judged real work: runs read in every window, and every stream ended.
    expect(checked).toBeGreaterThan(CYCLES * 10);
    // Every stream ended; a turn refused at the door (503 with Retry-After: the overload guard) opened none.
    for (const t of turns) expect(['done', 'error', 'http 503'], JSON.stringify(t)).toContain(t.last);
    expect(turns.filter((t) => t.last === 'done').length).toBeGreaterThan(turns.length / 2);
    // No run is left running: each reads as its stream ended, on the replica that did not produce it.
    const ends = await paced(
      turns.filter((t) => t.runId !== null && (t.last === 'done' || t.last === 'error')),
      async (t) => {
        const res = await fetch(`${replicas[1 - t.replica]!.url}/agent/runs/${t.runId}?user_id=${t.user}`);
        return { t, state: res.status === 200 ? ((await res.json()) as { status: string }).status : `http ${res.status}` };
      },
    );
    expect(ends.filter(({ t, state }) => (t.last === 'done' ? state !== 'done' : state === 'running' || state.startsWith('http'))).map(({ t, state }) => `${t.runId}: ${t.last}, reads ${state}`)).toEqual([]);
    // No acknowledged fact is lost.
    const acknowledged = turns.flatMap((t) => t.acknowledged.map((fact) => ({ user: t.user, fact })));
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const user of new Set(acknowledged.map((a) => a.user))) {
      const page = (await (await fetch(`${replicas[0]!.url}/memory/${user}?limit=200`)).json()) as { items: { text: string }[] };
      for (const { fact } of acknowledged.filter((a) => a.user === user)) expect(page.items.map((i) => i.text), user).toContain(fact);
    }
    for (const replica of replicas) {
      expect(replica.child.exitCode).toBeNull();
      const during = (l: LogLine) => outages.some(([from, to]) => Date.parse(String(l.ts)) >= from && Date.parse(String(l.ts)) <= to);
      const driverFault = (l: LogLine) => l.level === 'warn' && /in the database driver; kept serving$/.test(String(l.msg)) && during(l);
      expect(replica.logs.filter((l) => /uncaught|unhandled/.test(String(l.msg)) && !driverFault(l))).toEqual([]);
    }
  }, 120_000 + CYCLES * 30_000);

  it(`SIGTERM with the database down and a turn running exits within SHUTDOWN_TIMEOUT_MS (${SHUTDOWN_MS} ms)`, async () => {
    const replica = replicas[0]!;
    await cluster.kill('SIGKILL');
    // Turns whose memory writes and run ends cannot reach the database.
    const turns = Array.from({ length: 4 }, (_, k) => streamTurn(replica, 0, `chaos-real-stop-${k}`, `Please remember that I like oolong number ${k}`));
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const exit = await replica.stop('SIGTERM', SHUTDOWN_MS + 10_000);
    const took = Date.now() - started;
    console.log(`SIGTERM with the database down: exit ${exit.code} after ${took} ms (bound ${SHUTDOWN_MS} ms)`);
    await Promise.all(turns);
    expect(exit.code).toBe(0);
    // The bound is the service's own deadline; the margin is the process's exit and the signal's delivery.
    expect(took).toBeLessThanOrEqual(SHUTDOWN_MS + 300);
    await cluster.start();
  }, 60_000);
});
