/**
 * A burst of photos on one replica (issue 77): the production entry point (`node dist/src/server.js` from a
 * clean production install, the image's heap flags and MALLOC_ARENA_MAX, AGENT_ENV=production over Postgres), with the fake
 * gateway and MCP server in a process of their own (bench/helpers/fakes-process.ts) and the load
 * generated here. Twenty `/agent/respond` turns at once, each carrying a phone photo of about 480 KB
 * (1,200 × 900, with EXIF and GPS) that the service decodes and re-encodes for gpt-4o-mini; the floor is
 * the same twenty turns with the same words and no photo, on the same process, measured the same way.
 * The two bursts alternate (floor, photos, floor, photos), each on a fresh service process. Peak RSS from /proc (VmHWM, reset before
 * each burst), turn latency, and the service's CPU per turn. Target: the peak stays under the platform's
 * 256 MB memory limit.
 */
import sharp from 'sharp';
import { imageMallocEnv } from '../tests/support/image-flags.js';
import { mb, procCpuMs, procStatusKb, imageNodeOptions, resetPeak } from './support/proc.js';
import { BENCH_SECRET, startIsolatedFixtures, warmUpTurn } from './support/production-fixtures.js';
import { quantile } from './support/stats.js';

const BURST = 20;
const ROUNDS = 2;
const LIMIT_MB = 256;

interface Burst {
  peakKb: number;
  cpuMs: number;
  latencies: number[];
  failed: number;
}

async function burst(url: string, pid: number, query: string): Promise<Burst> {
  resetPeak(pid);
  const cpu0 = procCpuMs(pid);
  let failed = 0;
  const latencies = await Promise.all(
    Array.from({ length: BURST }, async (_, i) => {
      const started = performance.now();
      const res = await fetch(`${url}/agent/respond`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_SECRET}` },
        body: JSON.stringify({ query, user_id: `photo-${i}` }),
      });
      const body = await res.text();
      if (res.status !== 200) {
        failed++;
        process.stderr.write(`photos: ${res.status} ${body.slice(0, 200)}\n`);
      }
      return performance.now() - started;
    }),
  );
  return { peakKb: procStatusKb(pid, 'VmHWM'), cpuMs: procCpuMs(pid) - cpu0, latencies, failed };
}

async function main(): Promise<void> {
  const photo = await sharp({ create: { width: 1_200, height: 900, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .jpeg({ quality: 78 })
    .withExif({ IFD0: { Make: 'BenchPhone' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '40/1 26/1 3/1' } } as never)
    .toBuffer();
  const words = 'Which building is this talk in?';
  const withPhoto = `${words}\n\n![flyer.jpg](data:image/jpeg;base64,${photo.toString('base64')})`;
  const fixtures = await startIsolatedFixtures('photos');
  const nodeArgs = imageNodeOptions();
  // As the image runs it (its allocator setting); PHOTOS_MALLOC=default measures glibc's default arenas.
  const env = process.env.PHOTOS_MALLOC === 'default' ? {} : imageMallocEnv();
  /** One burst on a fresh service (warmed by one turn), so no burst's peak carries another's leftovers. */
  const onFreshService = async (query: string): Promise<Burst> => {
    const service = await fixtures.start(nodeArgs, env);
    try {
      await warmUpTurn(service.url);
      return await burst(service.url, service.child.pid!, query);
    } finally {
      await service.stop('SIGTERM').catch(() => undefined);
    }
  };
  try {
    {
      const floors: Burst[] = [];
      const photos: Burst[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        floors.push(await onFreshService(words));
        photos.push(await onFreshService(withPhoto));
      }
      const peak = (b: Burst[]) => Math.max(...b.map((x) => x.peakKb));
      const lat = (b: Burst[], q: number) => quantile(b.flatMap((x) => x.latencies), q);
      const cpu = (b: Burst[]) => b.reduce((s, x) => s + x.cpuMs, 0) / (b.length * BURST);
      const failed = [...floors, ...photos].reduce((s, x) => s + x.failed, 0);
      const over = peak(photos) / 1024 >= LIMIT_MB;
      process.stdout.write(
        [
          '## Photos: a burst of twenty on one replica',
          '',
          `Method: the production entry point (\`node dist/src/server.js\`, a clean \`npm ci --omit=dev\`, \`${nodeArgs.join(' ')}\`, ` +
            `${Object.entries(env).map(([k, v]) => `\`${k}=${v}\``).join(' ') || "glibc's default arenas"}, ` +
            'AGENT_ENV=production over Postgres), the fake gateway and MCP server in a process of their own, the load from the bench process. ' +
            `A burst is ${BURST} \`/agent/respond\` turns at once by ${BURST} users; the photo burst carries a ${Math.round(photo.length / 1024)} KB JPEG ` +
            '(1,200 × 900, EXIF with GPS) in each message, decoded and re-encoded for gpt-4o-mini (at most 2 at a time, media/images.ts); ' +
            `the floor is the same burst without the photo. ${ROUNDS} rounds, alternating floor and photos, each burst on a fresh service process warmed by one turn; ` +
            'peak RSS is /proc VmHWM reset before each burst (the highest of the rounds), CPU is the service process\'s user + system time.',
          '',
          '| Burst | Peak RSS | Turn p50 | Turn p99 | Service CPU per turn |',
          '|---|---:|---:|---:|---:|',
          `| floor: ${BURST} turns, no photo | ${mb(peak(floors))} MB | ${lat(floors, 0.5).toFixed(0)} ms | ${lat(floors, 0.99).toFixed(0)} ms | ${cpu(floors).toFixed(1)} ms |`,
          `| **${BURST} turns, one photo each** | **${mb(peak(photos))} MB** | ${lat(photos, 0.5).toFixed(0)} ms | ${lat(photos, 0.99).toFixed(0)} ms | ${cpu(photos).toFixed(1)} ms |`,
          `| ratio | ${(peak(photos) / peak(floors)).toFixed(2)}× | ${(lat(photos, 0.5) / lat(floors, 0.5)).toFixed(2)}× | ${(lat(photos, 0.99) / lat(floors, 0.99)).toFixed(2)}× | ${(cpu(photos) / cpu(floors)).toFixed(2)}× |`,
          '',
          `Target: the photo burst's peak under the platform's ${LIMIT_MB} MB: **${over ? 'missed' : 'met'}** (${mb(peak(photos))} MB). ` +
            `${failed} of ${BURST * ROUNDS * 2} turns did not answer 200.`,
          '',
        ].join('\n'),
      );
      if (over || failed > 0) process.exitCode = 1;
    }
  } finally {
    await fixtures.close();
  }
}

await main();
