/**
 * One bench run against an earlier tree and this one, alternately, in the same session:
 * `npx tsx bench/tools/before-after.ts <before tree> <bench file> [runs]` (the before tree a worktree of an
 * earlier commit with this repository's node_modules linked in). Each tree's own copy of the bench runs
 * `runs` times (default 5), before and after taking turns so drift spreads over both; every table row
 * the bench prints is then reported as the median of each figure over the runs, before → after, with
 * the ratio. Prints one Markdown section. BEFORE_AFTER_RAW=<dir> keeps each run's own output there.
 *
 * BEFORE_AFTER_TOGETHER=<database URL>,<database URL>: the two trees' benches run at the same time, each
 * with TEST_DATABASE_URL one of two database servers (swapped each round), instead of one after the
 * other. On one core (the peak bench's PEAK_CORES=1) both trees then share every slow and fast minute of
 * the machine, so a round's ratio is the two trees' difference and not the minute's; each tree gets half
 * the core, so run them at half the rate. Each database server must be on this machine and its own (the
 * peak bench counts its postmaster's processes as that tree's Postgres).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tests/support/spawn-service.js';

const [beforeTree, benchFile, runsArg] = process.argv.slice(2);
if (!beforeTree || !benchFile) {
  process.stderr.write('usage: tsx bench/tools/before-after.ts <before tree> <bench file> [runs]\n');
  process.exit(2);
}
const runs = Number(runsArg ?? 5);
/** BEFORE_AFTER_RAW=<dir>: each run's own output kept there (`<round>-<before|after>.md`), for the spread the medians hide. */
const rawDir = process.env.BEFORE_AFTER_RAW;
if (rawDir) mkdirSync(rawDir, { recursive: true });

function commitOf(tree: string): string {
  return spawnSync('git', ['-C', tree, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
}

/** One run of the tree's bench (its database `databaseUrl` when given): its stdout (a run that missed one of its targets still measured: kept). */
function runBench(tree: string, databaseUrl?: string): Promise<string> {
  const env = { ...process.env, AGENT_ENV: 'test', LOG_LEVEL: 'silent', ...(databaseUrl ? { TEST_DATABASE_URL: databaseUrl } : {}) };
  const child = spawn(process.execPath, ['--import', 'tsx', join(tree, 'bench', benchFile!)], { cwd: tree, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => {
      if (status !== 0 && !stdout.includes('|')) reject(new Error(`${benchFile} in ${tree} exited with ${status} and measured nothing`));
      else resolve(stdout);
    });
  });
}

/** Durations in milliseconds: a bench prints each in the unit its size calls for, so runs of one cell mix µs, ms and s. */
const TO_MS: Record<string, number> = { µs: 0.001, ms: 1, s: 1000 };

/** A figure with its unit (`12.3 ms`, `0.84 µs`, `1.41×`, `184.6 MB`), durations as milliseconds, or null. */
function figure(cell: string): { value: number; unit: string } | null {
  const m = /^\**(\+?)([0-9][0-9,]*(?:\.[0-9]+)?)\s*(ms|µs|s|MB|×|%)?\**$/.exec(cell.trim());
  if (!m) return null;
  const value = Number(m[2]!.replace(/,/g, ''));
  const unit = m[3] ?? '';
  return unit in TO_MS ? { value: value * TO_MS[unit]!, unit: 'ms' } : { value, unit };
}

/**
 * The figures of a cell that holds several (`65 / 140 ms`, `38.2 ms, 37.9 ms`, one per replica or per
 * quantile): each part, a unit given once at the end applying to every part; null when a part is not one.
 */
function figures(cell: string): { value: number; unit: string }[] | null {
  const parts = cell.trim().split(/\s*(?:,|\s\/)\s+/);
  if (parts.length < 2) return null;
  const unit = /(ms|µs|s|MB|×|%)\**$/.exec(parts.at(-1)!)?.[1] ?? '';
  const read = parts.map((p) => figure(/[a-zµ×%]\**$/i.test(p) ? p : `${p} ${unit}`.trim()));
  return read.every((f) => f !== null) ? (read as { value: number; unit: string }[]) : null;
}

/** A duration in milliseconds in the unit its size calls for. */
const duration = (msValue: number) =>
  msValue >= 1000 ? `${(msValue / 1000).toFixed(2)} s` : msValue >= 1 ? `${msValue.toFixed(1)} ms` : `${(msValue * 1000).toFixed(0)} µs`;

/** Table rows by position (table, row: the same bench prints the same rows), each cell's values over the runs. */
type Rows = Map<string, { header: string[]; cells: string[]; figures: Map<number, { unit: string; values: number[] }>; parts: Map<number, { unit: string; values: number[] }[]> }>;

function collect(outputs: string[]): Rows {
  const rows: Rows = new Map();
  for (const out of outputs) {
    let header: string[] = [];
    let table = 0;
    let row = 0;
    for (const line of out.split('\n')) {
      if (!line.startsWith('|')) continue;
      const cells = line.split('|').slice(1, -1).map((c) => c.trim());
      if (cells.every((c) => /^-+:?$|^:?-+$/.test(c))) continue;
      if (cells.every((c) => !figure(c))) {
        header = cells;
        table++;
        row = 0;
        continue;
      }
      const key = `${table}:${row++}`;
      const entry = rows.get(key) ?? { header, cells, figures: new Map(), parts: new Map() };
      cells.forEach((c, i) => {
        const f = i > 0 ? figure(c) : null;
        const several = i > 0 && !f ? figures(c) : null;
        if (several) {
          const slots = entry.parts.get(i) ?? several.map((p) => ({ unit: p.unit, values: [] as number[] }));
          several.forEach((p, k) => slots[k]?.values.push(p.value));
          entry.parts.set(i, slots);
        }
        if (!f) return;
        const slot = entry.figures.get(i) ?? { unit: f.unit, values: [] };
        slot.values.push(f.value);
        entry.figures.set(i, slot);
      });
      rows.set(key, entry);
    }
  }
  return rows;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

const together = process.env.BEFORE_AFTER_TOGETHER?.split(',').filter(Boolean) ?? null;
if (together && together.length !== 2) throw new Error('BEFORE_AFTER_TOGETHER takes two database URLs, comma-separated');
const outputs = { before: [] as string[], after: [] as string[] };
for (let i = 0; i < runs; i++) {
  process.stderr.write(`round ${i + 1}/${runs}\n`);
  const keep = (which: 'before' | 'after', out: string) => {
    outputs[which].push(out);
    if (rawDir) writeFileSync(join(rawDir, `${i + 1}-${which}.md`), out);
  };
  if (together) {
    // Both at once, each tree on the other database server than in the round before.
    const [first, second] = i % 2 === 0 ? together : [together[1]!, together[0]!];
    const [before, after] = await Promise.all([runBench(beforeTree, first), runBench(REPO_ROOT, second)]);
    keep('before', before);
    keep('after', after);
    continue;
  }
  // Alternate which goes first, so neither always runs on a warmer machine.
  const order: Array<'before' | 'after'> = i % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  for (const which of order) keep(which, await runBench(which === 'before' ? beforeTree : REPO_ROOT));
}
const before = collect(outputs.before);
const after = collect(outputs.after);

const lines = [
  `## ${benchFile}: before and after`,
  '',
  `Method: \`npx tsx bench/tools/before-after.ts <tree at ${commitOf(beforeTree)}> ${benchFile} ${runs}\`: the bench of each tree (before: ` +
    `commit ${commitOf(beforeTree)}; after: ${commitOf(REPO_ROOT)}) run ${runs} times, ` +
    (together ? 'both at once, each on its own database server (swapped each round; BEFORE_AFTER_TOGETHER), ' : 'alternating, ') +
    'in one session on this machine; ' +
    'each figure is the median over the runs; ratio = after ÷ before' + (together ? '; paired: the median of the rounds\' own ratios.' : '.'),
  '',
];
let lastHeader = '';
for (const [key, a] of after) {
  const b = before.get(key);
  if (!b) continue;
  const header = a.header.join(' | ');
  if (header !== lastHeader) {
    lines.push('', `| ${a.header.join(' | ')} |`, `|${a.header.map(() => '---').join('|')}|`);
    lastHeader = header;
  }
  /** One figure's medians, before → after with the ratio; null for a parameter (the same in every run of both trees). */
  const compare = (fa: { unit: string; values: number[] }, fb: { unit: string; values: number[] }): string | null => {
    if (new Set([...fa.values, ...fb.values]).size === 1) return null;
    const [mb, ma] = [median(fb.values), median(fa.values)];
    const fmt = (v: number) =>
      fa.unit === 'ms' ? duration(v) : `${v.toLocaleString('en-US', { maximumFractionDigits: v < 10 ? 2 : 1 })}${fa.unit && fa.unit !== '×' && fa.unit !== '%' ? ` ${fa.unit}` : fa.unit}`;
    // Run together, a round's two figures are a pair: the median of the rounds' own ratios too.
    const paired = together && fa.values.length === fb.values.length && fb.values.every((v) => v > 0) ? median(fa.values.map((v, k) => v / fb.values[k]!)) : null;
    return `${fmt(mb)} → ${fmt(ma)}${mb > 0 ? ` (${(ma / mb).toFixed(2)}×${paired === null ? '' : `, paired ${paired.toFixed(3)}×`})` : ''}`;
  };
  const cells = a.cells.map((c, i) => {
    const fa = a.figures.get(i);
    const fb = b.figures.get(i);
    if (fa && fb) return compare(fa, fb) ?? c;
    // A cell of several figures: each part compared on its own, in order.
    const pa = a.parts.get(i);
    const pb = b.parts.get(i);
    if (!pa || !pb || pa.length !== pb.length) return c;
    const compared = pa.map((p, k) => compare(p, pb[k]!));
    return compared.every((x) => x === null) ? c : compared.map((x, k) => x ?? `${median(pa[k]!.values)}${pa[k]!.unit ? ` ${pa[k]!.unit}` : ''}`).join('; ');
  });
  lines.push(`| ${cells.join(' | ')} |`);
}
process.stdout.write(lines.join('\n') + '\n');
