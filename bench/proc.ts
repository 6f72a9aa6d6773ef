/**
 * What the benches read from Linux's /proc about a child process (resident memory, its peak, CPU time),
 * and the image's NODE_OPTIONS (tests/support/image-flags.ts), so benches run with the heap flags it ships.
 */
import { readFileSync, writeFileSync } from 'node:fs';

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

export { imageNodeOptions } from '../tests/support/image-flags.js';

export const mb = (kb: number) => (kb / 1024).toFixed(1);
