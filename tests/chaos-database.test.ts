/**
 * The database vanishing under load, 20 times, against the real entry point: remember-tool writes
 * stream from several users at once (the sandbox's offline model calls `memory_remember` over the real
 * openai code path), and the database (PGlite over the wire, on disk) is stopped in the middle, sockets
 * cut. Each time: the process stays up, every open stream ends with `done` or an `error` event, health
 * goes degraded; after the database is back on the same port and directory health recovers, and every
 * fact whose `memory` event a client received is still there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSseEvents } from '../src/sandbox/chat/sse-reader.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { spawnService, type ServiceProcess } from './support/spawn-service.js';

const TRIALS = Number(process.env.CHAOS_TRIALS ?? 20);
const STREAMS_PER_TRIAL = 4;

let dataDir: string;
let pg: TestPostgres | null = null;
let service: ServiceProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'chaos-pg-'));
  pg = await startTestPostgres({ dataDir });
  service = await spawnService({
    entry: 'source',
    env: { DATABASE_URL: pg.url, MAX_TURNS_IN_FLIGHT: '10' },
  });
}, 120_000);

afterAll(async () => {
  await service?.stop('SIGKILL');
  await pg?.stop().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

interface StreamResult {
  user: string;
  last: string | undefined;
  /** Facts the client was told were saved. */
  acknowledged: string[];
}

async function remember(user: string, fact: string, firstEvent: () => void): Promise<StreamResult> {
  const res = await fetch(`${service.url}/agent/respond/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: `Please remember that I like ${fact}`, user_id: user }),
  });
  // Admission happens before the stream: a database already gone can only make the memory part fail.
  expect(res.status).toBe(200);
  const result: StreamResult = { user, last: undefined, acknowledged: [] };
  for await (const e of readSseEvents(res.body!)) {
    firstEvent();
    result.last = e.type;
    const data = e.data as { op?: string; fact?: string };
    if (e.type === 'memory' && data.op === 'add' && data.fact) result.acknowledged.push(data.fact);
  }
  return result;
}

async function health(): Promise<number> {
  try {
    return (await fetch(`${service.url}/api/health`)).status;
  } catch {
    return 0;
  }
}

describe('the database vanishing during memory writes', () => {
  it(`never takes the process down (${TRIALS} trials)`, async () => {
    const port = pg!.port;
    let acknowledgedTotal = 0;
    for (let trial = 1; trial <= TRIALS; trial++) {
      let started!: () => void;
      const firstEvent = new Promise<void>((r) => (started = r));
      const streams = Array.from({ length: STREAMS_PER_TRIAL }, (_, k) =>
        remember(`chaos-${trial}-${k}`, `green tea number ${trial} ${k}`, started),
      );
      // Cut the database once the turns are under way, at points spread over the memory work (the
      // remember tool reads the user's facts, then writes; about 30 ms after the first event here):
      // before it, during the read, during the write, after the acknowledgement.
      await firstEvent;
      await new Promise((r) => setTimeout(r, (trial % 5) * 25));
      await pg!.stop();
      pg = null;

      const t0 = Date.now();
      const results = await Promise.all(streams);
      const t1 = Date.now();
      for (const r of results) expect(['done', 'error'], `trial ${trial} ${r.user}`).toContain(r.last);
      expect(service.child.exitCode, `trial ${trial}`).toBeNull();
      await expect.poll(health, { timeout: 15_000 }).toBe(503);

      const t2 = Date.now();
      pg = await startTestPostgres({ dataDir, port });
      const t3 = Date.now();
      await expect.poll(health, { timeout: 30_000, interval: 200 }).toBe(200);
      if (process.env.CHAOS_TIMING) console.log(`trial ${trial}: streams ${t1 - t0} ms, degraded ${t2 - t1} ms, pg start ${t3 - t2} ms, healthy ${Date.now() - t3} ms`);
      for (const r of results) {
        if (r.acknowledged.length === 0) continue;
        acknowledgedTotal += r.acknowledged.length;
        // Health answered on one pooled connection; others may still be reconnecting: read until 200.
        let page: { items: Array<{ text: string }> } | null = null;
        await expect
          .poll(
            async () => {
              const res = await fetch(`${service.url}/memory/${r.user}`);
              if (res.status === 200) page = (await res.json()) as { items: Array<{ text: string }> };
              return res.status;
            },
            { timeout: 10_000, interval: 200 },
          )
          .toBe(200);
        for (const fact of r.acknowledged) expect(page!.items.map((i) => i.text), `trial ${trial} ${r.user}`).toContain(fact);
      }
    }
    // The trials really exercised acknowledged writes, not only failures.
    expect(acknowledgedTotal).toBeGreaterThan(0);
    expect(service.child.exitCode).toBeNull();
  }, 15 * 60_000);
});
