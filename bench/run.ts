/**
 * `npm run bench`: runs every `bench/*.bench.ts` in its own process (one at a time, so they do not
 * disturb each other), collects the Markdown section each prints on stdout, and writes BENCHMARKS.md.
 * `npm run bench -- peak image` runs the benches whose file names contain those words and replaces only
 * their sections in BENCHMARKS.md (each section sits between `<!-- bench: <file> -->` markers), keeping
 * the others as they were recorded. A full run keeps the sections no bench file writes (recorded by
 * hand, under a name of their own).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

const marked = (file: string, section: string) => `<!-- bench: ${file} -->\n${section}<!-- /bench: ${file} -->\n`;

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const header = [
  '# Benchmarks',
  '',
  `Recorded ${new Date().toISOString()} by \`npm run bench\` on ${cpus().length} × ${cpu}, ` +
    `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. Numbers are from one run on this ` +
    'machine: compare runs on the same machine, not across machines.',
  '',
].join('\n');
const path = join(root, 'BENCHMARKS.md');
/** The sections of the file as it stands, by name (a bench file, or a hand-kept section's own name). */
function recordedSections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/<!-- bench: (.+?) -->\n([\s\S]*?)<!-- \/bench: \1 -->\n/g)) out.set(m[1]!, m[2]!);
  return out;
}

if (only.length === 0) {
  // A section no bench file writes (one recorded by hand: a run on another Node, a before/after) is kept.
  const kept = [...recordedSections(existsSync(path) ? readFileSync(path, 'utf8') : '')].filter(([name]) => !sections.has(name));
  writeFileSync(path, header + '\n' + [...sections, ...kept].map(([file, section]) => marked(file, section)).join('\n'));
} else {
  // The sections of the benches run replace their own; a bench new to the file is added at the end.
  let text = existsSync(path) ? readFileSync(path, 'utf8') : header;
  for (const [file, section] of sections) {
    const block = new RegExp(`<!-- bench: ${file.replace(/\./g, '\\.')} -->\\n[\\s\\S]*?<!-- /bench: ${file.replace(/\./g, '\\.')} -->\\n`);
    const stamped = marked(file, section.replace(/\n$/, `\n\n_Section recorded ${new Date().toISOString()}, Node ${process.version}._\n`));
    text = block.test(text) ? text.replace(block, () => stamped) : `${text.trimEnd()}\n\n${stamped}`;
  }
  writeFileSync(path, text);
  process.stdout.write([...sections.values()].join('\n'));
}
