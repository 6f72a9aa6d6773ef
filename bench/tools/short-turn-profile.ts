/**
 * Where a short streamed turn's CPU goes: the production entry point under a V8 CPU profile, sent
 * SHORT_TURNS (default 1,000) short streamed turns one after another (the streams bench's cpu section's
 * turn: 20 chunks at once, no model wait), then stopped so the profile is written.
 * `npx tsx bench/tools/short-turn-profile.ts <profile dir>`, then `npx tsx bench/tools/cpu-profile.ts <dir>/*.cpuprofile`.
 * SHORT_TURN_ENV (`KEY=VALUE,...`) passes settings to the service (to profile a variant); SHORT_TURN_DUMP=1
 * prints the first measured turn's SSE to stderr (to compare the frames two trees send); SHORT_TURN_PAUSE_MS
 * prints the service's pid after the warm-up and waits that long (to attach `strace -c -f -p <pid>`).
 */
import { BENCH_SECRET, serviceSettingsFrom, startIsolatedFixtures } from '../support/production-fixtures.js';
import { imageNodeOptions, procCpuMs } from '../support/proc.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: short-turn-profile.ts <profile dir>');
const turns = Number(process.env.SHORT_TURNS ?? 1000);
const fixtures = await startIsolatedFixtures('short-turn-profile');
try {
  const service = await fixtures.start([...imageNodeOptions(), '--cpu-prof', `--cpu-prof-dir=${dir}`], {
    DAILY_TOKEN_LIMIT: '1000000000',
    ...serviceSettingsFrom('SHORT_TURN_ENV'),
  });
  let dumped = false;
  const turn = async () => {
    const res = await fetch(`${service.url}/agent/respond/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_SECRET}` },
      body: JSON.stringify({ query: 'thanks, and in one sentence please' }),
    });
    const text = await res.text();
    if (process.env.SHORT_TURN_DUMP && !dumped) {
      dumped = true;
      process.stderr.write(text);
    }
    if (!text.includes('event: done')) throw new Error(`a turn did not end with done: ${text.slice(-200)}`);
  };
  for (let i = 0; i < 50; i++) await turn();
  if (process.env.SHORT_TURN_PAUSE_MS) {
    process.stdout.write(`service pid ${service.child.pid}\n`);
    await new Promise((r) => setTimeout(r, Number(process.env.SHORT_TURN_PAUSE_MS)));
  }
  const before = procCpuMs(service.child.pid!);
  for (let i = 0; i < turns; i++) await turn();
  process.stdout.write(`${((procCpuMs(service.child.pid!) - before) / turns).toFixed(2)} ms CPU per turn over ${turns} turns\n`);
  await service.stop();
} finally {
  await fixtures.close();
}
