/**
 * Streamed turns on one core, against the floor, and held streams, on the production entry point
 * (`node dist/src/server.js` from a clean production install, the image's NODE_OPTIONS, Postgres +
 * pgvector over the wire, a real MCP server, the fake gateway; bench/production-fixtures.ts).
 *
 * 1. CPU per streamed turn: the service and the floor (bench/floor-server.mjs: the same Hono/SSE stack
 *    and openai client re-framing the gateway's chunks as SSE, no pipeline) run as child processes
 *    pinned to the same core; the bench process (client and fake gateway) is pinned to the other. The
 *    same 20-chunk answer is asked of each, interleaved in rounds; CPU is the server process's user +
 *    system time from /proc over each batch, divided by the turns in it. Also turn time and time to
 *    the first delta seen by the client, and the JSON route; and the streamed route again on a second
 *    service with telemetry export on (to a collector in the bench process), for the CPU it adds.
 * 2. Held streams: 100, 250, 500 and 1,000 streaming turns opened at once, each answer 300 tokens
 *    100 ms apart (30 s open); a fresh service per level. Peak RSS (VmHWM, reset after a warm-up turn),
 *    time to the first delta p99, turns that did not end with `done`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT, type ServiceProcess } from '../tests/support/spawn-service.js';
import { imageNodeOptions, mb, procCpuMs, procStatusKb, resetPeak } from './proc.js';
import { BENCH_SECRET, startProductionFixtures } from './production-fixtures.js';
import { ms, quantile } from './stats.js';

const CHUNKS = Array.from({ length: 20 }, (_, i) => `word${i} `);
const ROUNDS = 5;
const BATCH = 100;
const WARM_UP = 50;
const HELD_LEVELS = [100, 250, 500, 1000];
const HELD_TOKENS = 300;
const HELD_GAP_MS = 100;
const SERVER_CORE = '1';
const BENCH_CORE = '0';

const flags = imageNodeOptions();
const fixtures = await startProductionFixtures('streams');
const extraEnv = { DAILY_TOKEN_LIMIT: '1000000000' };

/** Pins a process (all its threads) to one core. */
function pin(pid: number, core: string): void {
  execFileSync('taskset', ['-a', '-cp', core, String(pid)], { stdio: 'ignore' });
}

interface Floor {
  url: string;
  pid: number;
  stop(): void;
}

function startFloor(): Promise<Floor> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, join(REPO_ROOT, 'bench', 'floor-server.mjs')], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', GATEWAY_URL: fixtures.gateway.baseUrl },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.once('error', reject);
    child.stdout!.setEncoding('utf8').on('data', (line: string) => {
      const port = /listening (\d+)/.exec(line)?.[1];
      if (port) resolve({ url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGKILL') });
    });
  });
}

interface Timing {
  total: number;
  firstDelta: number;
  ok: boolean;
  /** Refused before any stream: 503 with Retry-After (the overload guard). */
  refused?: boolean;
}

const headers = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_SECRET}` };

/** One turn read to its end; the time to the first `delta` frame and to the end, as the client sees them. */
async function timedTurn(url: string, body: unknown): Promise<Timing> {
  const start = performance.now();
  let firstDelta = NaN;
  try {
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 200 || !res.body) {
      const refused = res.status === 503 && res.headers.has('retry-after');
      await res.body?.cancel();
      return { total: performance.now() - start, firstDelta, ok: false, refused };
    }
    const decoder = new TextDecoder();
    let text = '';
    const reader = res.body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += decoder.decode(r.value, { stream: true });
      if (Number.isNaN(firstDelta) && text.includes('event: delta')) firstDelta = performance.now() - start;
    }
    const total = performance.now() - start;
    const ok = url.endsWith('/agent/respond') ? text.includes('"response_text"') : /event: done\n/.test(text);
    return { total, firstDelta: Number.isNaN(firstDelta) ? total : firstDelta, ok };
  } catch {
    return { total: performance.now() - start, firstDelta, ok: false };
  }
}

interface Variant {
  label: string;
  url: string;
  pid: number;
  body: unknown;
  cpuMs: number;
  turns: number;
  timings: Timing[];
}

/** An OTLP/HTTP collector that accepts every export (for the telemetry-on variant); in the bench process, on the bench core. */
async function startCollector(): Promise<{ url: string; exports: () => number; close(): void }> {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports: () => exports, close: () => server.close() };
}

async function cpuSection(): Promise<string[]> {
  fixtures.gateway.handler = () => ({ text: CHUNKS, usage: { prompt_tokens: 400, completion_tokens: 20 } });
  const service = await fixtures.start(flags, extraEnv);
  const collector = await startCollector();
  // The same service with export on: every trace sampled, protobuf (the default protocol), metrics every 10 s.
  const traced = await fixtures.start(flags, {
    ...extraEnv,
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_METRIC_EXPORT_INTERVAL: '10000',
    OTEL_BSP_SCHEDULE_DELAY: '1000',
  });
  const floor = await startFloor();
  try {
    pin(service.child.pid!, SERVER_CORE);
    pin(traced.child.pid!, SERVER_CORE);
    pin(floor.pid, SERVER_CORE);
    pin(process.pid, BENCH_CORE);
    const query = { query: 'thanks, and in one sentence please' };
    const variants: Variant[] = [
      { label: 'floor: openai stream re-framed as SSE, no pipeline', url: `${floor.url}/floor`, pid: floor.pid, body: query, cpuMs: 0, turns: 0, timings: [] },
      { label: 'service, streamed (`/agent/respond/stream`)', url: `${service.url}/agent/respond/stream`, pid: service.child.pid!, body: query, cpuMs: 0, turns: 0, timings: [] },
      { label: 'service, JSON (`/agent/respond`)', url: `${service.url}/agent/respond`, pid: service.child.pid!, body: query, cpuMs: 0, turns: 0, timings: [] },
      {
        label: 'service, streamed, telemetry export on (OTLP/HTTP protobuf, every trace sampled)',
        url: `${traced.url}/agent/respond/stream`,
        pid: traced.child.pid!,
        body: query,
        cpuMs: 0,
        turns: 0,
        timings: [],
      },
    ];
    for (const v of variants) for (let i = 0; i < WARM_UP; i++) await timedTurn(v.url, v.body);
    for (let round = 0; round < ROUNDS; round++) {
      for (const v of variants) {
        const before = procCpuMs(v.pid);
        for (let i = 0; i < BATCH; i++) v.timings.push(await timedTurn(v.url, v.body));
        v.cpuMs += procCpuMs(v.pid) - before;
        v.turns += BATCH;
      }
    }
    const [base, streamed, json, exported] = variants as [Variant, Variant, Variant, Variant];
    const cpu = (v: Variant) => v.cpuMs / v.turns;
    const p = (v: Variant, q: number, pick: (t: Timing) => number) => quantile(v.timings.map(pick), q);
    const failed = variants.reduce((n, v) => n + v.timings.filter((t) => !t.ok).length, 0);
    const row = (v: Variant) =>
      `| ${v.label} | ${ms(cpu(v))} | ${(cpu(v) / cpu(base)).toFixed(2)}× | ${ms(p(v, 0.5, (t) => t.total))} | ${ms(p(v, 0.99, (t) => t.total))} | ` +
      `${(p(v, 0.5, (t) => t.total) / p(base, 0.5, (t) => t.total)).toFixed(2)}× | ${v === json ? '-' : ms(p(v, 0.5, (t) => t.firstDelta))} | ${v === json ? '-' : ms(p(v, 0.99, (t) => t.firstDelta))} |`;
    if (failed > 0) process.exitCode = 1;
    return [
      '## Streamed turns on one core, against the floor',
      '',
      `Method: the production entry point (image flags \`${flags.join(' ')}\`, AGENT_ENV=production, Postgres budget and memory, ` +
        'access log at info) and the floor (`bench/floor-server.mjs`: Hono + `streamSSE` + the openai client, each gateway chunk ' +
        're-framed as a `delta` event, no pipeline) as child processes pinned to one core, the client and the fake gateway pinned to ' +
        `the other. The same anonymous plain answer (20 chunks + usage, zero latency) per turn; ${WARM_UP} warm-up turns each, then ` +
        `${ROUNDS} interleaved rounds of ${BATCH} sequential turns per variant. CPU = the server process's user + system time from ` +
        '/proc over its batches ÷ turns (10 ms ticks over ≥ 500 turns). Times are as the client sees them over loopback.',
      '',
      '| Variant | CPU per turn | CPU ratio to the floor | Turn p50 | Turn p99 | p50 ratio | First delta p50 | First delta p99 |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      row(base),
      row(streamed),
      row(json),
      row(exported),
      '',
      `Telemetry: export off is the streamed row (OpenTelemetry is not loaded). Export on adds ` +
        `${ms(cpu(exported) - cpu(streamed))} of CPU per streamed turn (${(((cpu(exported) - cpu(streamed)) / cpu(streamed)) * 100).toFixed(0)}% over export off): ` +
        `about 13 spans and the metric updates per turn, batched to the collector (${collector.exports()} export requests in the run).`,
      '',
      `${failed} of ${variants.length * (ROUNDS * BATCH)} measured turns failed. Targets (issue 12): CPU per streamed turn ≤ 1.6× the ` +
        `floor: ${cpu(streamed) / cpu(base) <= 1.6 ? 'met' : '**not met**'}; JSON route p50 no slower than the streamed route: ` +
        `${p(json, 0.5, (t) => t.total) <= p(streamed, 0.5, (t) => t.total) ? 'met' : '**not met**'}.`,
      '',
    ];
  } finally {
    floor.stop();
    collector.close();
    await service.stop('SIGKILL').catch(() => undefined);
    await traced.stop('SIGKILL').catch(() => undefined);
  }
}

interface HeldLevel {
  streams: number;
  peakKb: number;
  firstDelta: number[];
  /** Streams that started and did not end with `done`. */
  failed: number;
  /** Turns refused with 503 + Retry-After before any stream (the overload guard): graceful, not failures. */
  refused: number;
  seconds: number;
  /** How the process ended when it did not survive the level (e.g. V8 out of heap), else null. */
  crashed: string | null;
}

async function heldLevel(streams: number): Promise<HeldLevel> {
  const words = Array.from({ length: HELD_TOKENS }, (_, i) => ` w${i % 97}`);
  fixtures.gateway.handler = (body: { stream?: boolean }) =>
    body.stream ? { text: words, chunkDelayMs: HELD_GAP_MS } : { text: '{"operations": []}' };
  const service: ServiceProcess = await fixtures.start(flags, extraEnv);
  try {
    const pid = service.child.pid!;
    pin(pid, SERVER_CORE);
    pin(process.pid, BENCH_CORE);
    fixtures.gateway.handler = (body: { stream?: boolean }) =>
      body.stream ? { text: words.slice(0, 3) } : { text: '{"operations": []}' };
    await timedTurn(`${service.url}/agent/respond/stream`, { query: 'Where can I get coffee?', user_id: 'warm-up' });
    fixtures.gateway.handler = (body: { stream?: boolean }) =>
      body.stream ? { text: words, chunkDelayMs: HELD_GAP_MS } : { text: '{"operations": []}' };
    resetPeak(pid);
    let peakKb = procStatusKb(pid, 'VmHWM');
    let crashed: string | null = null;
    void service.exited.then((e) => {
      crashed = `exited (${e.signal ?? `code ${e.code}`}): ${service.stderr.trim().split('\n').slice(-2).join(' / ').slice(0, 160)}`;
    });
    // Sampled while it runs: a process that dies takes its VmHWM with it.
    const sampler = setInterval(() => {
      try {
        peakKb = Math.max(peakKb, procStatusKb(pid, 'VmHWM'));
      } catch {
        // gone
      }
    }, 200);
    const start = performance.now();
    const results = await Promise.all(
      Array.from({ length: streams }, (_, i) =>
        timedTurn(`${service.url}/agent/respond/stream`, { query: `Where can I get coffee near building ${i}?`, user_id: `held-${i % 250}` }),
      ),
    );
    const seconds = (performance.now() - start) / 1000;
    clearInterval(sampler);
    try {
      peakKb = Math.max(peakKb, procStatusKb(pid, 'VmHWM'));
    } catch {
      // gone
    }
    const level = {
      streams,
      peakKb,
      firstDelta: results.filter((r) => r.ok).map((r) => r.firstDelta),
      failed: results.filter((r) => !r.ok && !r.refused).length,
      refused: results.filter((r) => r.refused).length,
      seconds,
      crashed,
    };
    process.stderr.write(
      `streams: ${streams}: peak ${mb(peakKb)} MB, first delta p99 ${ms(quantile(level.firstDelta, 0.99))}, failed ${level.failed}, refused ${level.refused}${crashed ? `, ${crashed}` : ''}\n`,
    );
    return level;
  } finally {
    await service.stop('SIGKILL').catch(() => undefined);
  }
}

async function heldSection(): Promise<string[]> {
  const levels: HeldLevel[] = [];
  for (const n of HELD_LEVELS) {
    process.stderr.write(`streams: ${n} held streams\n`);
    levels.push(await heldLevel(n));
  }
  if (levels.some((l) => l.failed > 0)) process.exitCode = 1;
  return [
    '## Held streams: resident memory and first delta on one core',
    '',
    `Method: a fresh production entry point per level (image flags \`${flags.join(' ')}\`, pinned to one core), one warm-up turn, ` +
      `then N streaming turns opened at once (250 users), each answer ${HELD_TOKENS} tokens ${HELD_GAP_MS} ms apart ` +
      `(${(HELD_TOKENS * HELD_GAP_MS) / 1000} s open). Peak RSS = VmHWM of the server process, reset after the warm-up; first delta ` +
      'from the request leaving the client to the first `delta` frame arriving, over the streams admitted. The overload guard ' +
      '(default OVERLOAD_MAX_OPEN_TURNS 500) refuses turns past it with 503 + Retry-After before any stream: counted as refused.',
    '',
    '| Held streams | Peak RSS | First delta p50 | First delta p99 | Refused (503 + Retry-After) | Started, not ended with `done` | Wall time |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...levels.map(
      (l) =>
        `| ${l.streams.toLocaleString('en-US')} | ${mb(l.peakKb)} MB | ${ms(quantile(l.firstDelta, 0.5))} | ${ms(quantile(l.firstDelta, 0.99))} | ${l.refused} | ${l.failed} | ${l.seconds.toFixed(1)} s |`,
    ),
    '',
    ...levels.filter((l) => l.crashed).map((l) => `At ${l.streams} streams the process did not survive: ${l.crashed}.`),
    '',
    (() => {
      const top = levels.find((l) => l.streams === 1000);
      const met = top && top.peakKb / 1024 <= 200 && top.failed === 0 && !top.crashed && quantile(top.firstDelta, 0.99) <= 1000;
      return (
        `Targets (issue 12): 1,000 held streams with the image flags: peak RSS ≤ 200 MB, 0 errors, first-delta p99 ≤ 1 s: ${met ? 'met' : '**not met**'}` +
        `${top && top.refused > 0 ? ` (${top.refused} of the 1,000 were refused with 503 + Retry-After, none cut)` : ''}.`
      );
    })(),
    '',
    'The client, the fake gateway and PGlite (Postgres) run in the bench process on the other core: with hundreds of streams ' +
      "opened at once, part of the first-delta time is the bench's own database and gateway serving them.",
    '',
  ];
}

try {
  const only = process.env.STREAMS_BENCH_PART;
  const lines = [...(only === 'held' ? [] : await cpuSection()), ...(only === 'cpu' ? [] : await heldSection())];
  process.stdout.write(lines.join('\n'));
} finally {
  await fixtures.close();
}
