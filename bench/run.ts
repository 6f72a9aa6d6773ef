/**
 * `npm run bench`: runs every `bench/*.bench.ts` in its own process (one at a time, so they do not
 * disturb each other), collects the Markdown section each prints on stdout, and writes BENCHMARKS.md.
 * `npm run bench -- peak image` runs the benches whose file names contain those words and replaces only
 * their sections in BENCHMARKS.md (each section sits between `<!-- bench: <file> -->` markers), keeping
 * the others as they were recorded. Either way everything outside the benches' own blocks (the current
 * figures, sections recorded by hand) is kept (support/record-sections.ts); a full run also refreshes the
 * file's "Recorded …" line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordSections } from './support/record-sections.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const sections = new Map<string, string>();
for (const file of files) {
  process.stderr.write(`bench: ${file}\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, AGENT_ENV: 'test', LOG_LEVEL: 'silent' },
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) {
    // A bench that measured but missed a target (or lost turns) still shows what it measured.
    const measured = result.stdout.trim();
    sections.set(file, `${measured ? `${measured}\n\n` : `## ${file}\n\n`}Exited with code ${result.status}: a target was missed or a run failed.\n`);
    process.exitCode = 1;
  } else {
    sections.set(file, result.stdout.trim() + '\n');
  }
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const recordedLine =
  `Recorded ${new Date().toISOString()} by \`npm run bench\` on ${cpus().length} × ${cpu}, ` +
  `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. Numbers are from one run on this ` +
  'machine: compare runs on the same machine, not across machines.';
const path = join(root, 'BENCHMARKS.md');
const text = recordSections(existsSync(path) ? readFileSync(path, 'utf8') : '', sections, {
  header: ['# Benchmarks', '', recordedLine, ''].join('\n'),
  recordedAt: new Date().toISOString(),
  node: process.version,
  ...(only.length === 0 ? { recordedLine } : {}),
});
writeFileSync(path, text);
if (only.length > 0) process.stdout.write([...sections.values()].join('\n'));
