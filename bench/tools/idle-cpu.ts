/**
 * What an idle replica spends (issue 46: at a low turn rate, a replica's own timers are a share of every
 * turn): the production entry point with the image's heap flags, Postgres and the fakes in processes of
 * their own, one signed-in warm-up turn, five quiet seconds, then the CPU of each of the service's threads
 * over IDLE_SECONDS (default 30), from /proc/<pid>/task/<tid>/schedstat (nanoseconds of run time, where
 * /proc's stat counts whole 10 ms ticks). IDLE_SERVICE_ENV=KEY=VALUE,... sets the service's variables
 * (`OVERLOAD_MAX_LOOP_DELAY_MS=0`: no delay histogram). `npx tsx bench/tools/idle-cpu.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { imageNodeOptions } from '../../tests/support/image-flags.js';
import { serviceSettingsFrom, startIsolatedFixtures, warmUpTurn } from '../support/production-fixtures.js';

const SECONDS = Number(process.env.IDLE_SECONDS ?? 30);
const serviceEnv = serviceSettingsFrom('IDLE_SERVICE_ENV');

/** Run time so far of each thread of `pid`, ms, by thread id and name. */
function threadRunMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      out.set(`${tid === String(pid) ? 'main' : tid} (${name})`, ns / 1e6);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

const fixtures = await startIsolatedFixtures('idle-cpu');
const service = await fixtures.start(imageNodeOptions(), serviceEnv);
try {
  await warmUpTurn(service.url);
  await sleep(5_000);
  const pid = service.child.pid!;
  const before = threadRunMs(pid);
  await sleep(SECONDS * 1_000);
  const after = threadRunMs(pid);
  let total = 0;
  const rows: string[] = [];
  for (const [thread, ms] of after) {
    const spent = ms - (before.get(thread) ?? 0);
    total += spent;
    if (spent >= 0.05) rows.push(`| ${thread} | ${spent.toFixed(1)} ms | ${(spent / SECONDS).toFixed(2)} ms/s |`);
  }
  console.log(`Idle over ${SECONDS} s${Object.keys(serviceEnv).length ? ` (${process.env.IDLE_SERVICE_ENV})` : ''}:\n`);
  console.log('| thread | run time | per second |\n|---|---:|---:|');
  console.log(rows.join('\n'));
  console.log(`| all | ${total.toFixed(1)} ms | ${(total / SECONDS).toFixed(2)} ms/s |`);
} finally {
  await service.stop('SIGTERM');
  await fixtures.close();
}
