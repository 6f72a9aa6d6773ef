/**
 * Resident memory of the production entry point: `node dist/src/server.js` from a clean production
 * install (tests/support/production-install.ts: the Dockerfile's steps; node_modules is reused from
 * the lockfile-keyed cache, dist/ is built fresh), with the image's NODE_OPTIONS read from the
 * Dockerfile, AGENT_ENV=production against PGlite (Postgres + pgvector), a real MCP server and the
 * fake gateway. Measured from /proc: VmRSS idle, then the peak (VmHWM, reset before the load) while
 * 100 streaming turns run at once, each held open by the gateway's paced chunks.
 */
import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceProcess } from '../tests/support/spawn-service.js';
import { imageNodeOptions, mb, procStatusKb, resetPeak } from './support/proc.js';
import { BENCH_SECRET as SECRET, startProductionFixtures, type ProductionFixtures } from './support/production-fixtures.js';
import { postgresLabel } from '../tests/support/postgres.js';

const CONCURRENT = 100;
const ROUNDS = 3;
/** Chunks per answer × delay between them: each stream stays open ~2 s, so all 100 overlap. */
const CHUNKS = 40;
const CHUNK_DELAY_MS = 50;
/** The issue's budget: under 200 MB resident under load, inside a 256 MB container limit. */
const TARGET_MB = 200;
/** Bytes of the regular files under `dir` (symlinked roots followed): what the image's layer holds. */
function diskBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(realpathSync(dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += lstatSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** One streaming turn, read to its end; true when the last event was `done`. */
async function streamTurn(service: ServiceProcess, i: number, onOpen: () => void): Promise<boolean> {
  const res = await fetch(`${service.url}/agent/respond/stream`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${SECRET}` },
    body: JSON.stringify({ query: `Where can I get coffee near building ${i}?`, user_id: `bench-user-${i % 25}` }),
  });
  if (res.status !== 200 || !res.body) return false;
  onOpen();
  let text = '';
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true });
  // The last frame names its event (then its data and `id:` lines); `done` is the end of a good turn (CONTRACT.md "Stream").
  return text.trimEnd().split('\n\n').at(-1)?.startsWith('event: done\n') === true;
}

interface Measurement {
  startPeakKb: number;
  idleKb: number;
  idleWarmKb: number;
  loadPeakKb: number;
  afterKb: number;
  completed: number;
  failed: number;
  maxOpen: number;
  turnsPerSecond: number;
  exitCode: number | null;
}

/** Starts the production entry point with `nodeArgs`, measures it idle and under load, stops it. */
async function measure(fixtures: ProductionFixtures, nodeArgs: string[]): Promise<Measurement> {
  const service = await fixtures.start(nodeArgs);
  try {
    const pid = service.child.pid!;
    const health = await fetch(`${service.url}/api/health`);
    if (health.status !== 200) throw new Error(`footprint: health answered ${health.status}`);
    const startPeakKb = procStatusKb(pid, 'VmHWM');
    const idleKb = procStatusKb(pid, 'VmRSS');

    // One turn first, so lazily loaded modules (openai, MCP client) count as idle, not as load.
    if (!(await streamTurn(service, -1, () => undefined))) throw new Error('footprint: warm-up turn did not end with done');
    const idleWarmKb = procStatusKb(pid, 'VmRSS');

    resetPeak(pid);
    let open = 0;
    let maxOpen = 0;
    let completed = 0;
    let failed = 0;
    const started = performance.now();
    for (let round = 0; round < ROUNDS; round++) {
      const results = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) =>
          streamTurn(service, round * CONCURRENT + i, () => {
            open++;
            maxOpen = Math.max(maxOpen, open);
          }).finally(() => {
            open = Math.max(0, open - 1);
          }),
        ),
      );
      for (const ok of results) ok ? completed++ : failed++;
    }
    const seconds = (performance.now() - started) / 1000;
    const loadPeakKb = procStatusKb(pid, 'VmHWM');
    const afterKb = procStatusKb(pid, 'VmRSS');
    const exit = await service.stop('SIGTERM');
    return {
      startPeakKb, idleKb, idleWarmKb, loadPeakKb, afterKb, completed, failed, maxOpen,
      turnsPerSecond: completed / seconds,
      exitCode: exit.code,
    };
  } finally {
    await service.stop('SIGKILL').catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const nodeArgs = imageNodeOptions();
  const fixtures = await startProductionFixtures('footprint');
  const answer = 'Resnik Cafe in the Resnik House is open until 8 pm and serves coffee. '.repeat(4);
  fixtures.gateway.handler = () => ({
    text: Array.from({ length: CHUNKS }, (_, k) => answer.slice(k * 7, k * 7 + 7) || '.'),
    chunkDelayMs: CHUNK_DELAY_MS,
  });
  try {
    const image = await measure(fixtures, nodeArgs);
    // The same run with Node's default heap sizing: what the bound in the image changes.
    const defaults = await measure(fixtures, []);
    const row = (label: string, pick: (m: Measurement) => number, bold = false) => {
      const cell = (m: Measurement) => (bold ? `**${mb(pick(m))}**` : mb(pick(m)));
      return `| ${bold ? `**${label}**` : label} | ${cell(image)} | ${cell(defaults)} |`;
    };
    const verdict = image.loadPeakKb / 1024 < TARGET_MB ? 'under' : '**over**';
    process.stdout.write(
      [
        '## Footprint: resident memory of the production entry point',
        '',
        'Method: `node dist/src/server.js` from a clean `npm ci --omit=dev` install, `AGENT_ENV=production`, ' +
          `Postgres: ${postgresLabel()}, a real MCP server, the fake gateway streaming ` +
          `${CHUNKS} chunks ${CHUNK_DELAY_MS} ms apart. Load: ${ROUNDS} rounds of ${CONCURRENT} concurrent ` +
          '`/agent/respond/stream` turns by 25 signed-in users, so memory extraction jobs go through the Postgres ' +
          'job queue (its fetch loop, on the service\'s one `postgres` pool) during the load. RSS from /proc (VmRSS; peak = VmHWM, reset before the load). ' +
          `Image column: the Dockerfile's \`${nodeArgs.join(' ')}\`; second column: Node's default heap sizing.`,
        '',
        '| Phase | Resident MB, image options | Resident MB, Node defaults |',
        '|---|---:|---:|',
        row('start-up peak', (m) => m.startPeakKb),
        row('idle after start', (m) => m.idleKb),
        row('idle after one turn', (m) => m.idleWarmKb),
        row(`peak under ${CONCURRENT} concurrent streaming turns`, (m) => m.loadPeakKb, true),
        row('after the load', (m) => m.afterKb),
        '',
        `Image options: ${image.completed} turns ended with \`done\`, ${image.failed} did not; at most ` +
          `${image.maxOpen} streams open at once; ${image.turnsPerSecond.toFixed(1)} turns/s; SIGTERM exit code ` +
          `${image.exitCode}. Peak is ${verdict} the ${TARGET_MB} MB target (container limit 256 MB). ` +
          `What the image adds to its Node base: production node_modules ${mb(diskBytes(join(fixtures.dir, 'node_modules')) / 1024)} MB, ` +
          `dist ${mb(diskBytes(join(fixtures.dir, 'dist')) / 1024)} MB on disk.`,
        '',
      ].join('\n'),
    );
    if (image.failed > 0 || image.exitCode !== 0) process.exitCode = 1;
  } finally {
    await fixtures.close();
  }
}

await main();
