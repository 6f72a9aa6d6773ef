/**
 * What the docs say that the code can confirm (issue 50): the heap flags quoted as the image's against
 * the Dockerfile, counts (eval cases and turns, labelled planner questions, the offline table) against their
 * sources, defaults quoted in prose against the configuration schema, the file names module headers
 * give against the tree, and a reason for every full-suite-only test file. Each check proves it can fail
 * on a planted claim. (Paths, scripts and variables the docs name are tests/docs.test.ts; the README's
 * configuration table is tests/docs-config-table.test.ts.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CASES as EVAL_CASES } from '../scripts/eval/cases.js';
import { variableDefaults } from '../src/config.js';
import { checkedDocs, readTree } from './support/doc-claims.js';
import { REPO_ROOT } from './support/spawn-service.js';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const docs = checkedDocs(REPO_ROOT).map((file) => ({ file, text: read(file) }));

/** The image's heap flags: `--max-old-space-size=128` and the like, from the Dockerfile's NODE_OPTIONS. */
const IMAGE_FLAGS = new Map([...(/NODE_OPTIONS="([^"]+)"/.exec(read('Dockerfile'))?.[1] ?? '').matchAll(/(--max-[a-z-]+)=(\d+)/g)].map((m) => [m[1]!, m[2]!]));

/** Lines that quote heap flags as the image's (NODE_OPTIONS, "the image runs", "Heap bound") with a value the Dockerfile does not have. */
function heapFlagProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (!/NODE_OPTIONS|the image runs|the image now|Heap bound/i.test(line)) return;
    for (const [, flag, value] of line.matchAll(/(--max-[a-z-]+)=(\d+)/g)) {
      if (IMAGE_FLAGS.has(flag!) && IMAGE_FLAGS.get(flag!) !== value) problems.push(`${file}:${i + 1}: ${flag}=${value}, the image runs ${flag}=${IMAGE_FLAGS.get(flag!)}`);
    }
  });
  return problems;
}

/** Entries of the array literal `const NAME: … = [` in a test file: its lines opening an entry at two spaces. */
function tableRows(file: string, name: string, opening: RegExp): number {
  const text = read(file);
  const start = text.indexOf(`const ${name}`);
  const body = text.slice(start, text.indexOf('\n];', start));
  return body.split('\n').filter((line) => opening.test(line)).length;
}

const PLANNER_QUESTIONS = tableRows('tests/planner-recall.test.ts', 'CASES', /^ {2}\[['"`]/);
const OFFLINE_QUESTIONS = ['MAPS', 'EATS', 'COURSES', 'GUIDE', 'SECOND_PASS', 'THIRD_PASS', 'BUS', 'FOURTH_PASS'].reduce(
  (n, table) => n + tableRows('tests/offline-campus-questions.test.ts', table, /^ {2}\{ q: /),
  0,
);

/** Counts the docs state, each read from its source. */
const COUNTS: Array<{ claim: RegExp; actual: number; source: string }> = [
  { claim: /(\d+) (?:campus )?cases\b/g, actual: EVAL_CASES.length, source: 'scripts/eval/cases.ts' },
  // Issue 60: DEPLOY sized the spend cap from "the offline eval's 56 turns" after the eval had grown.
  { claim: /offline eval's (\d+) turns/g, actual: EVAL_CASES.reduce((n, c) => n + c.steps.length, 0), source: 'scripts/eval/cases.ts (its steps)' },
  { claim: /(\d+) labelled student questions/g, actual: PLANNER_QUESTIONS, source: 'tests/planner-recall.test.ts' },
  { claim: /offline-campus-questions\.test\.ts` asks (\d+) questions/g, actual: OFFLINE_QUESTIONS, source: 'tests/offline-campus-questions.test.ts' },
];

function countProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const { claim, actual, source } of COUNTS) {
    for (const m of text.matchAll(claim)) if (Number(m[1]) !== actual) problems.push(`${file}: "${m[0]}", ${source} holds ${actual}`);
  }
  return problems;
}

const DEFAULTS = variableDefaults();

/** Prose that gives a variable's default: "`PORT` default … `5055`", "`X`, 60 s by default" (milliseconds read as seconds). */
function defaultProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const m of text.matchAll(/`([A-Z][A-Z0-9_]+)`,? (?:by )?default\b[^`|.;()\n]{0,30}`([\w./:-]+)`/g)) {
    const value = DEFAULTS[m[1]!];
    if (value !== undefined && value !== null && typeof value !== 'object' && String(value) !== m[2]) problems.push(`${file}: ${m[1]} default quoted as ${m[2]}, the schema has ${String(value)}`);
  }
  for (const m of text.matchAll(/`([A-Z][A-Z0-9_]+_(?:MS|INTERVAL|DELAY|TIMEOUT))`, (?:(\d+) s by default|default (\d+) s\b)/g)) {
    const seconds = Number(m[2] ?? m[3]);
    const value = DEFAULTS[m[1]!];
    if (typeof value === 'number' && value !== seconds * 1000) problems.push(`${file}: ${m[1]} default quoted as ${seconds} s, the schema has ${value} ms`);
  }
  return problems;
}

/** Every TypeScript file under src/. */
function sourceFiles(dir = join(REPO_ROOT, 'src')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [relative(REPO_ROOT, path)] : [];
  });
}

const tree = readTree(REPO_ROOT);

/** The contract files the project is built to, kept beside it in ../shared (README "Contract"). */
const SHARED_DOCS = new Set(['CONTRACT.md', 'CAMPUS_TOOLS.md']);

/** File names a module's header comment (before its first import) gives that no file of the tree has. */
function headerProblems(file: string, source: string): string[] {
  const header = source.slice(0, Math.max(0, source.search(/^import /m)));
  const named = [...header.matchAll(/(?<![\w/.-])(?:[\w-]+\/)*([\w-]+\.(?:ts|mjs|md|json|sql))\b/g)].map((m) => m[1]!);
  return [...new Set(named)].filter((name) => !tree.basenames.has(name) && !SHARED_DOCS.has(name)).map((name) => `${file}: names ${name}`);
}

describe('docs state what the code says', () => {
  it('quote the image heap flags as the Dockerfile sets them', () => {
    expect(IMAGE_FLAGS.size).toBeGreaterThan(0);
    expect(docs.flatMap((d) => heapFlagProblems(d.file, d.text))).toEqual([]);
    expect(heapFlagProblems('planted.md', 'The image runs `--max-semi-space-size=16`.')).toEqual([
      `planted.md:1: --max-semi-space-size=16, the image runs --max-semi-space-size=${IMAGE_FLAGS.get('--max-semi-space-size')}`,
    ]);
  });

/** Every .ts file of src/, read once. */
const SOURCES = sourceFiles().map((f) => read(f));

/** The fields of the options interface of `create…(options: X)` in src/, or null when there is none. */
function optionFields(fn: string): string[] | null {
  const type = SOURCES.map((t) => new RegExp(`export function ${fn}\\(\\w+: (\\w+)\\)`).exec(t)?.[1]).find(Boolean);
  const body = type ? SOURCES.map((t) => new RegExp(`export interface ${type} \\{([\\s\\S]*?)\\n\\}`).exec(t)?.[1]).find(Boolean) : undefined;
  return body ? [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]!) : null;
}

/** Option lists a doc gives as `` `createX({ a, b?, … })` `` that name other fields than X's options interface. */
function optionListProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const m of text.matchAll(/`(create\w+)\(\{ ([^}`]+) \}\)`/g)) {
    const fields = optionFields(m[1]!);
    if (!fields) continue;
    const listed = m[2]!.split(',').map((f) => f.trim().replace(/\?$/, ''));
    // A call with values (`baseUrl: X`) is an example, not the list of options.
    if (listed.some((f) => !/^\w+$/.test(f))) continue;
    const missing = fields.filter((f) => !listed.includes(f));
    const extra = listed.filter((f) => !fields.includes(f));
    if (missing.length || extra.length) problems.push(`${file}: ${m[1]} lists ${missing.length ? `no ${missing.join(', ')}` : ''}${missing.length && extra.length ? '; ' : ''}${extra.length ? `${extra.join(', ')} it does not take` : ''}`);
  }
  return problems;
}

  it('count eval cases, labelled planner questions and the offline table as their sources hold them', () => {
    expect(docs.flatMap((d) => countProblems(d.file, d.text))).toEqual([]);
    // Each count is stated somewhere, and a wrong one is caught.
    for (const { claim } of COUNTS) expect(docs.some((d) => new RegExp(claim.source).test(d.text)), String(claim)).toBe(true);
    expect(countProblems('planted.md', `holds ${PLANNER_QUESTIONS + 1} labelled student questions`)).toHaveLength(1);
    expect(countProblems('planted.md', "the offline eval's 56 turns cost")).toHaveLength(1);
  });

  it('list a factory\'s options as its options interface has them (issue 60: pipeline.md had lost four)', () => {
    expect(docs.flatMap((d) => optionListProblems(d.file, d.text))).toEqual([]);
    expect(docs.some((d) => /`createOpenAIGateway\(\{/.test(d.text))).toBe(true);
    expect(optionListProblems('planted.md', '`createMcpCampusTools({ url, logger, fetch?, now? })`')).toEqual(['planted.md: createMcpCampusTools lists no callTimeoutMs, listTtlMs, failureTtlMs']);
  });

  it('quote defaults in prose as the configuration schema has them', () => {
    expect(docs.flatMap((d) => defaultProblems(d.file, d.text))).toEqual([]);
    expect(defaultProblems('planted.md', '`PORT` default and image value `5056`; `OTEL_METRIC_EXPORT_INTERVAL`, 30 s by default')).toEqual([
      'planted.md: PORT default quoted as 5056, the schema has 5055',
      'planted.md: OTEL_METRIC_EXPORT_INTERVAL default quoted as 30 s, the schema has 60000 ms',
    ]);
  });

  it('module headers name only files that exist', () => {
    expect(sourceFiles().flatMap((file) => headerProblems(file, read(file)))).toEqual([]);
    expect(headerProblems('src/x.ts', '/**\n * Wired in server/run-deps.ts.\n */\nimport x from "y";\n')).toEqual(['src/x.ts: names run-deps.ts']);
  });

  it('give a reason for every full-suite-only test file (vitest.config.ts)', () => {
    const config = read('vitest.config.ts');
    const list = config.slice(config.indexOf('FULL_SUITE_ONLY = ['), config.indexOf('];', config.indexOf('FULL_SUITE_ONLY = [')));
    const entries = list.split('\n').filter((line) => /^\s+'tests\//.test(line));
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((line) => !/\/\/ \S/.test(line)).map((line) => line.trim())).toEqual([]);
  });
});
