/**
 * What the benches read from Linux's /proc about a child process (resident memory, its peak, CPU time),
 * and the image's NODE_OPTIONS (tests/support/image-flags.ts), so benches run with the heap flags it ships.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** A field of /proc/<pid>/status in kB. */
export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`bench: ${field} missing from /proc/${pid}/status`);
  return Number(match[1]);
}

/** Resets the peak-RSS counter (VmHWM) to the current RSS; "5" is the kernel's clear_refs code for it. */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** User + system CPU time of a process so far, in milliseconds (clock ticks of 10 ms). */
export function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at "state"; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The fields of /proc/<pid>/stat after the command name (state is 0, ppid 1, utime 11, stime 12, cutime 13, cstime 14). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // gone
  }
}

/** The direct children of a process (read from every process's parent id). */
export function childPids(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => Number(statFields(child)?.[1]) === pid);
}

/**
 * CPU of a process and its children, in milliseconds: its own, its waited-for children's (children that
 * ended), and its live children's. A server that forks a process per connection (Postgres) is measured whole.
 */
export function processTreeCpuMs(pid: number): number {
  const own = statFields(pid);
  if (!own) return 0;
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const child of childPids(pid)) {
    const f = statFields(child);
    if (f) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return ticks * 10;
}

/** Pins a process (every thread) to one CPU; its children forked later inherit it. */
export function pinToCpu(pid: number, cpu: number): void {
  execFileSync('taskset', ['-a', '-c', '-p', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** Pins a process and its live children (a Postgres postmaster and its backends) to one CPU. */
export function pinTreeToCpu(pid: number, cpu: number): void {
  for (const p of [pid, ...childPids(pid)]) {
    try {
      pinToCpu(p, cpu);
    } catch {
      // A child that ended meanwhile.
    }
  }
}

export { imageNodeOptions } from '../../tests/support/image-flags.js';

export const mb = (kb: number) => (kb / 1024).toFixed(1);
