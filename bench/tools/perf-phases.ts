/**
 * Where a process's CPU went by event-loop phase, from `perf` samples: what runs when a batch window's
 * timer fires (an answer's frame: verify, deliver, the SSE write) against what runs when a socket is read
 * (a model chunk, a request). A V8 profile cannot say this (promises lose the caller), and `perf` also
 * sees the kernel's side of a socket write or read and the helper threads (GC, the optimising compiler).
 *
 * perf record -F 999 -g -p <replica pids, comma-separated> -o /tmp/perf.data -- sleep 20
 * perf script -i /tmp/perf.data -F comm,tid,ip,sym | npx tsx bench/tools/perf-phases.ts
 *
 * The replicas run with `--perf-basic-prof-only-functions` (the peak bench's PEAK_NODE_ARGS) so their
 * JavaScript frames have names. A sample's phase is the libuv function under `uv_run` on its stack; its
 * part is the first frame from the leaf that a part claims (a sample in the loop's epoll wait, whose
 * stack perf cannot unwind past libc, counts to I/O): the kernel (by system call), V8's garbage
 * collector or compiler, else the service's parts of bench/support/cpu-parts.ts (shared with cpu-profile.ts).
 * Prints a Markdown table: the share of all samples per part and phase.
 */
import { readFileSync } from 'node:fs';
import { partOfFrame } from '../support/cpu-parts.js';

interface Frame {
  kernel: boolean;
  sym: string;
}

const PHASES: Record<string, string> = {
  uv__run_timers: 'timers',
  uv__io_poll: 'I/O',
  uv__run_check: 'immediates',
};
const OTHER_LOOP = 'other loop phases';
const HELPERS = 'helper threads';
const COLUMNS = ['timers', 'I/O', 'immediates', OTHER_LOOP, HELPERS];

/** The kernel's side, by the system call the sample is in. */
function kernelPart(stack: Frame[]): string {
  const syms = stack.filter((f) => f.kernel).map((f) => f.sym);
  if (syms.some((s) => /writev|ksys_write|sock_write_iter/.test(s))) return 'kernel: socket writes (loopback delivery included)';
  if (syms.some((s) => /ksys_read|sock_read_iter|vfs_read/.test(s))) return 'kernel: reads';
  if (syms.some((s) => /epoll/.test(s))) return 'kernel: epoll';
  if (syms.some((s) => /entry_SYSCALL/.test(s))) return 'kernel: other system calls';
  return 'kernel: scheduling and interrupts';
}

const GC = /Scavenger|MarkCompact|Sweeper|ConcurrentMarking|MinorMarkSweep|Heap::|GCTracer|MarkingVisitor|RecordWrite/;
const COMPILER = /compiler::|OptimizedCompilationJob|maglev::|Turboshaft/;
const JS_FRAME = /^JS:[*~^+]?(\S*) (.+):\d+:\d+$/;

function partOf(stack: Frame[]): string {
  if (stack[0]?.kernel) return kernelPart(stack);
  for (const frame of stack) {
    if (GC.test(frame.sym)) return 'garbage collection';
    if (COMPILER.test(frame.sym)) return "V8's optimising compiler";
    const js = JS_FRAME.exec(frame.sym);
    if (js) {
      const part = partOfFrame(js[2]!, js[1]!);
      if (part) return part;
    }
  }
  return 'Node and V8 (other)';
}

function phaseOf(stack: Frame[]): string {
  const at = stack.findIndex((f) => f.sym === 'uv_run');
  if (at > 0) return PHASES[stack[at - 1]!.sym] ?? OTHER_LOOP;
  // The loop's wait: perf's unwinding ends in libc's epoll_pwait, above uv__io_poll.
  if (stack.some((f) => f.sym.startsWith('epoll_pwait') || f.sym.startsWith('epoll_wait'))) return 'I/O';
  return stack.some((f) => f.sym === 'start_thread') ? HELPERS : OTHER_LOOP;
}

/** `perf script -F comm,tid,ip,sym` output: a header line per sample, then one `ip sym` line per frame. */
function samplesOf(text: string): Frame[][] {
  const samples: Frame[][] = [];
  let current: Frame[] | null = null;
  for (const line of text.split('\n')) {
    if (!line.trim()) {
      if (current?.length) samples.push(current);
      current = null;
    } else if (/^\s/.test(line)) {
      const [ip = '', ...sym] = line.trim().split(' ');
      current?.push({ kernel: ip.startsWith('ffffffff'), sym: sym.join(' ') });
    } else current = [];
  }
  if (current?.length) samples.push(current);
  return samples;
}

const samples = samplesOf(readFileSync(process.argv[2] ?? 0, 'utf8'));
const cells = new Map<string, Map<string, number>>();
for (const stack of samples) {
  const part = partOf(stack);
  const row = cells.get(part) ?? new Map<string, number>();
  const phase = phaseOf(stack);
  row.set(phase, (row.get(phase) ?? 0) + 1);
  cells.set(part, row);
}
const pct = (n: number) => `${((n / samples.length) * 100).toFixed(1)}%`;
const total = (row: Map<string, number>) => [...row.values()].reduce((a, b) => a + b, 0);
const rows = [...cells].sort((a, b) => total(b[1]) - total(a[1]));
const columnTotal = (column: string) => rows.reduce((sum, [, row]) => sum + (row.get(column) ?? 0), 0);
const lines = [
  `| part | ${COLUMNS.join(' | ')} | all |`,
  `|---|${COLUMNS.map(() => '---:').join('|')}|---:|`,
  ...rows.map(([part, row]) => `| ${part} | ${COLUMNS.map((c) => pct(row.get(c) ?? 0)).join(' | ')} | ${pct(total(row))} |`),
  `| all | ${COLUMNS.map((c) => pct(columnTotal(c))).join(' | ')} | 100% |`,
];
process.stdout.write(lines.join('\n') + `\n\n${samples.length} samples.\n`);
