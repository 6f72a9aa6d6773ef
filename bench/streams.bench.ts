/**
 * Streamed turns and held streams on one core, the service against the floor, on the production entry
 * point (`node dist/src/server.js` from a clean production install, AGENT_ENV=production, Postgres +
 * pgvector over the wire, a real MCP server, the fake gateway; bench/support/production-fixtures.ts, isolated:
 * PGlite and the fakes each in a process of their own).
 *
 * The floor (bench/helpers/floor-server.mjs) is the same stack without the service: Hono `streamSSE` and the
 * openai client, each gateway chunk re-framed as a `delta` event. The service and the floor run as
 * child processes pinned to one core, measured the same way in the same run; the load generator (this
 * process), PGlite and the fakes are pinned to the other core. CPU is user + system time from /proc.
 *
 * 1. CPU per short streamed turn (20 chunks at once), interleaved batches; the JSON route; the streamed
 *    route again with telemetry export on.
 * 2. Held streams: 100, 250 and 500 streaming turns opened at once, each answer 300 tokens 100 ms apart
 *    (30 s open), against a fresh floor and a fresh service per level, with the image's heap flags and
 *    with Node's defaults: server CPU over the level, peak RSS (VmHWM, reset after a warm-up turn), time
 *    to the first delta, turns that did not end with `done`.
 * 3. Overload: 1,000 held streams at once, more than one core serves: the overload guard must refuse
 *    the excess with 503 + Retry-After before any stream, and the admitted streams keep their pace.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT, type ServiceProcess } from '../tests/support/spawn-service.js';
import { imageNodeOptions, mb, procCpuMs, procStatusKb, resetPeak } from './support/proc.js';
import { BENCH_SECRET, HELD_MARK, startIsolatedFixtures } from './support/production-fixtures.js';
import { ms, quantile } from './support/stats.js';
import { postgresLabel } from '../tests/support/postgres.js';

const CHUNKS = Array.from({ length: 20 }, (_, i) => `word${i} `);
const ROUNDS = 5;
const BATCH = 100;
const WARM_UP = 50;
// STREAMS_HELD_LEVELS / STREAMS_OVERLOAD (and HELD_TOKENS for the fakes) shrink a trial run; the defaults are the issue's.
const HELD_LEVELS = (process.env.STREAMS_HELD_LEVELS ?? '100,250,500').split(',').map(Number);
const OVERLOAD_STREAMS = Number(process.env.STREAMS_OVERLOAD ?? 1000);
const HELD_TOKENS = 300;
const HELD_GAP_MS = 100;
const SERVER_CORE = '1';
const BENCH_CORE = '0';

// STREAMS_FLAGS tries other heap flags in place of the image's (a trial run before changing the Dockerfile).
const flags = process.env.STREAMS_FLAGS !== undefined ? process.env.STREAMS_FLAGS.split(/\s+/).filter(Boolean) : imageNodeOptions();
const fixtures = await startIsolatedFixtures('streams');
for (const pid of fixtures.pids) pin(pid, BENCH_CORE);
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

function startFloor(nodeArgs: string[] = flags): Promise<Floor> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, join(REPO_ROOT, 'bench', 'helpers', 'floor-server.mjs')], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', GATEWAY_URL: fixtures.gatewayUrl },
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
  /** For a refusal: bytes of SSE frames in its body (a refusal must have none). */
  refusalBytes?: number;
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
      const body = await res.text().catch(() => '');
      const refusalBytes = refused && !res.headers.get('content-type')?.includes('text/event-stream') && !body.includes('event:') ? 0 : body.length;
      return { total: performance.now() - start, firstDelta, ok: false, refused, refusalBytes };
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
  // The fakes answer a streamed request without the held mark with 20 chunks at once (bench/helpers/fakes-process.ts).
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
        'access log at info) and the floor (`bench/helpers/floor-server.mjs`: Hono + `streamSSE` + the openai client, each gateway chunk ' +
        `re-framed as a \`delta\` event, no pipeline) as child processes pinned to one core; the client (this process), ${postgresLabel()} and the ` +
        `fakes, each in a process of its own, pinned to the other. The same anonymous plain answer (20 chunks + usage, zero latency) per turn; ${WARM_UP} warm-up turns each, then ` +
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
      `${failed} of ${variants.length * (ROUNDS * BATCH)} measured turns failed. Targets (issues 12 and 26): CPU per streamed turn ≤ 1.6× the ` +
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

interface HeldRun {
  target: 'floor' | 'service';
  flags: string[];
  streams: number;
  cpuMs: number;
  peakKb: number;
  firstDelta: number[];
  /** Streams that started and did not end with `done`. */
  failed: number;
  /** Turns refused with 503 + Retry-After before any stream (the overload guard): graceful, not failures. */
  refused: number;
  /** Refusals that were not a 503 with Retry-After and no body bytes of a stream. */
  badRefusals: number;
  seconds: number;
  /** RSS after the warm-up turn, before the streams (VmRSS): what the process holds before any stream. */
  idleKb: number;
  /** How the process ended when it did not survive the level (e.g. V8 out of heap), else null. */
  crashed: string | null;
}

const heldBody = (target: HeldRun['target'], i: number) =>
  target === 'floor'
    ? { query: `${HELD_MARK} Where can I get coffee near building ${i}?` }
    : { query: `${HELD_MARK} Where can I get coffee near building ${i}?`, user_id: `held-${i % 250}` };

/** One level: a fresh floor or service, a warm-up turn, then `streams` held streams opened at once. */
async function heldRun(target: HeldRun['target'], streams: number, nodeArgs: string[], guard: 'off' | 'default' = 'off'): Promise<HeldRun> {
  const floor = target === 'floor' ? await startFloor(nodeArgs) : null;
  // The levels measure what the process does with N streams, as the floor (which has no guard) does: the
  // overload guard is off for them. The overload run keeps the service's defaults.
  const env = guard === 'off' ? { ...extraEnv, OVERLOAD_MAX_OPEN_TURNS: '0', OVERLOAD_MAX_LOOP_DELAY_MS: '0', OVERLOAD_MAX_HEAP_PERCENT: '0' } : extraEnv;
  const service: ServiceProcess | null = target === 'service' ? await fixtures.start(nodeArgs, env) : null;
  const pid = floor?.pid ?? service!.child.pid!;
  const url = floor ? `${floor.url}/floor` : `${service!.url}/agent/respond/stream`;
  try {
    pin(pid, SERVER_CORE);
    pin(process.pid, BENCH_CORE);
    await timedTurn(url, target === 'floor' ? { query: 'warm up' } : { query: 'warm up', user_id: 'warm-up' });
    const idleKb = procStatusKb(pid, 'VmRSS');
    resetPeak(pid);
    let peakKb = procStatusKb(pid, 'VmHWM');
    let crashed: string | null = null;
    void service?.exited.then((e) => {
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
    const cpuBefore = procCpuMs(pid);
    const start = performance.now();
    const results = await Promise.all(Array.from({ length: streams }, (_, i) => timedTurn(url, heldBody(target, i))));
    const seconds = (performance.now() - start) / 1000;
    clearInterval(sampler);
    let cpuMs = NaN;
    try {
      peakKb = Math.max(peakKb, procStatusKb(pid, 'VmHWM'));
      cpuMs = procCpuMs(pid) - cpuBefore;
    } catch {
      // gone
    }
    const run: HeldRun = {
      target,
      flags: nodeArgs,
      streams,
      cpuMs,
      peakKb,
      firstDelta: results.filter((r) => r.ok).map((r) => r.firstDelta),
      failed: results.filter((r) => !r.ok && !r.refused).length,
      refused: results.filter((r) => r.refused).length,
      badRefusals: results.filter((r) => r.refused && r.refusalBytes !== 0).length,
      seconds,
      idleKb,
      crashed,
    };
    process.stderr.write(
      `streams: ${target} ${nodeArgs.length ? nodeArgs.join(' ') : 'Node defaults'} ${streams}: cpu ${(cpuMs / 1000).toFixed(2)} s, peak ${mb(peakKb)} MB, ` +
        `first delta p99 ${ms(quantile(run.firstDelta, 0.99))}, failed ${run.failed}, refused ${run.refused}${crashed ? `, ${crashed}` : ''}\n`,
    );
    return run;
  } finally {
    floor?.stop();
    await service?.stop('SIGKILL').catch(() => undefined);
  }
}

/** No heap flags: Node's defaults (one array, so runs are found by it). */
const NODE_DEFAULTS: string[] = [];
/** The image's flags before issue 26 measured them: the heap-flag table keeps them as a candidate. */
const PREVIOUS_FLAGS = ['--max-old-space-size=128', '--max-semi-space-size=8'];
const seconds = (run: HeldRun) => `${(run.cpuMs / 1000).toFixed(2)} s`;
const p99 = (run: HeldRun) => quantile(run.firstDelta, 0.99);
const flagText = (args: string[]) => (args.length ? `\`${args.join(' ')}\`` : 'none (Node defaults)');

async function heldSection(): Promise<string[]> {
  // The image's flags against the floor with the same flags; the other candidates, service only.
  const candidates = [flags, ...[PREVIOUS_FLAGS, NODE_DEFAULTS].filter((c) => c.join(' ') !== flags.join(' '))];
  const runs: HeldRun[] = [];
  for (const n of HELD_LEVELS) {
    runs.push(await heldRun('floor', n, flags));
    runs.push(await heldRun('service', n, flags));
  }
  // STREAMS_IMAGE_FLAGS_ONLY=1: a trial run without the other candidates (the heap-flag table then needs the full run).
  for (const args of process.env.STREAMS_IMAGE_FLAGS_ONLY ? [] : candidates.slice(1)) {
    for (const n of HELD_LEVELS) runs.push(await heldRun('service', n, args));
  }
  const find = (target: HeldRun['target'], n: number, args: string[]) => runs.find((r) => r.target === target && r.streams === n && r.flags === args)!;
  const overload = await heldRun('service', OVERLOAD_STREAMS, flags, 'default');
  if (runs.some((r) => r.failed > 0 || r.crashed) || overload.failed > 0 || overload.badRefusals > 0) process.exitCode = 1;

  const heapFlagRows = () => [
    '### Heap flags from the measurement',
    '',
    'The service at each level with each candidate (a fresh process per run, as above); the floor with the image flags for scale.',
    '',
    '| Heap flags | Held streams | Service CPU | Service peak RSS | Service first delta p99 | Service refused (503) | Floor CPU (image flags) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...candidates.flatMap((args) =>
      HELD_LEVELS.map((n) => {
        const [sv, f] = [find('service', n, args), find('floor', n, flags)];
        return `| ${flagText(args)}${args === flags ? ' (the image)' : ''} | ${n} | ${seconds(sv)} | ${mb(sv.peakKb)} MB | ${ms(p99(sv))} | ${sv.refused} | ${seconds(f)} |`;
      }),
    ),
    '',
  ];
  const pairRows = (args: string[]) =>
    HELD_LEVELS.map((n) => {
      const [f, sv] = [find('floor', n, args), find('service', n, args)];
      return (
        `| ${n} | ${seconds(f)} | ${seconds(sv)} | ${(sv.cpuMs / f.cpuMs).toFixed(2)}× | ${mb(f.peakKb)} MB | ${mb(sv.peakKb)} MB | ` +
        `+${((sv.peakKb - f.peakKb) / 1024).toFixed(1)} MB | ${ms(p99(f))} | ${ms(p99(sv))} | ${(p99(sv) / p99(f)).toFixed(2)}× | ${sv.refused} | ${f.failed + sv.failed} |`
      );
    });
  const header = [
    '| Held streams | Floor CPU | Service CPU | CPU ratio | Floor peak RSS | Service peak RSS | Over the floor | Floor first delta p99 | Service first delta p99 | p99 ratio | Service refused (503, saturated) | Not ended with `done` |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  // The peak-RSS gap in two parts: what each process holds before the first stream, and what the streams add.
  const splitRows = HELD_LEVELS.map((n) => {
    const [f, sv] = [find('floor', n, flags), find('service', n, flags)];
    const [fGrowth, sGrowth] = [f.peakKb - f.idleKb, sv.peakKb - sv.idleKb];
    return (
      `| ${n} | ${mb(f.idleKb)} MB | ${mb(sv.idleKb)} MB | +${mb(sv.idleKb - f.idleKb)} MB | +${mb(fGrowth)} MB | +${mb(sGrowth)} MB | ` +
      `${sGrowth >= fGrowth ? '+' : '−'}${mb(Math.abs(sGrowth - fGrowth))} MB |`
    );
  });
  const at250 = [find('floor', 250, flags), find('service', 250, flags)] as const;
  const cpuMet = at250[1].cpuMs <= 1.2 * at250[0].cpuMs;
  const rssMet = at250[1].peakKb - at250[0].peakKb <= 25 * 1024;
  const p99Met = p99(at250[1]) <= Math.max(1.5 * p99(at250[0]), p99(at250[0]) + 50);
  const overloadP99Met = p99(overload) <= 2 * p99(at250[0]);
  const verdict = (met: boolean) => (met ? 'met' : '**not met**');
  return [
    '## Held streams on one core, against the floor',
    '',
    `Method: per level a fresh floor and a fresh service (production entry point, its overload guard off so every level is served, as the floor serves it), each alone on the server core, one warm-up turn, ` +
      `then N streaming turns opened at once, each answer ${HELD_TOKENS} tokens ${HELD_GAP_MS} ms apart (${(HELD_TOKENS * HELD_GAP_MS) / 1000} s open; ` +
      `the service with 250 users, so memory recall and extraction run). The client (this process), ${postgresLabel()} and the fakes run in ` +
      'processes of their own on the other core. CPU = user + system time of the server process from /proc from the first request ' +
      'to the last stream\'s end; peak RSS = its VmHWM, reset after the warm-up; first delta from the request leaving the client to ' +
      'the first `delta` frame arriving, over the streams served.',
    '',
    `Both with the image's heap flags (${flagText(flags)}):`,
    '',
    ...header,
    ...pairRows(flags),
    '',
    'Where the peak-RSS gap is: RSS after the warm-up turn, before the first stream (VmRSS), and what the streams added to it (peak less idle), image flags:',
    '',
    '| Held streams | Floor idle RSS | Service idle RSS | Idle gap | Floor growth | Service growth | Growth gap |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...splitRows,
    '',
    ...(process.env.STREAMS_IMAGE_FLAGS_ONLY ? [] : heapFlagRows()),
    '### Overload',
    '',
    `${OVERLOAD_STREAMS.toLocaleString('en-US')} held streams opened at once against one service with the image flags and the default overload ` +
      `guard: ${overload.streams - overload.refused} admitted, ${overload.refused} refused with 503 + Retry-After ` +
      `(${overload.badRefusals} refusals that were not a bodiless 503 with Retry-After), ${overload.failed} admitted streams that did not end ` +
      `with \`done\`${overload.crashed ? `; the process did not survive: ${overload.crashed}` : ''}. Admitted streams' first delta p50 ` +
      `${ms(quantile(overload.firstDelta, 0.5))}, p99 ${ms(p99(overload))} (the floor's p99 at 250: ${ms(p99(at250[0]))}); server CPU ` +
      `${seconds(overload)}, peak RSS ${mb(overload.peakKb)} MB.`,
    '',
    'Targets (issue 26, image flags, ratios to the floor in this run): at 250 held streams, service CPU ≤ 1.2× the floor: ' +
      `${verdict(cpuMet)} (${(at250[1].cpuMs / at250[0].cpuMs).toFixed(2)}×); peak RSS ≤ the floor's + 25 MB: ${verdict(rssMet)} ` +
      `(+${((at250[1].peakKb - at250[0].peakKb) / 1024).toFixed(1)} MB); first-delta p99 ≤ 1.5× the floor's (or +50 ms): ${verdict(p99Met)}. ` +
      `Overload: no admitted stream fails: ${verdict(overload.failed === 0 && !overload.crashed)}; refused turns get 503 with Retry-After ` +
      `before any byte of a stream: ${verdict(overload.badRefusals === 0)}; admitted first-delta p99 ≤ 2× the floor's at 250: ${verdict(overloadP99Met)}.`,
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
