/**
 * The shape of the code, checked from its import graph (tests/support/import-graph.ts) so it cannot
 * drift: no import cycle between files or between folders ("rooms") of src/, every import going down the
 * declared order of rooms (ROOMS, the README's "Rooms of src/"), nothing below the pipeline
 * reaching up into it, the database schema not reaching into memory, the sandbox loaded only through
 * the one dynamic import in server/build-deps.ts, tests importing no script entry point, benches taking their fakes
 * from tests/support/ only. `npx vitest run tests/architecture.test.ts` is the command to check it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FULL_SUITE_ONLY } from '../vitest.config.js';
import { findCycles, importGraph, roomOf, upwardImports } from './support/import-graph.js';
import { REPO_ROOT } from './support/spawn-service.js';

/** Whether a test file's source starts the service (spawnService) or any child process. */
const spawnsProcesses = (source: string) => /\bspawnService\(|['"](node:)?child_process['"]/.test(source);

const src = importGraph(join(REPO_ROOT, 'src'), REPO_ROOT);
const tests = importGraph(join(REPO_ROOT, 'tests'), REPO_ROOT);
const bench = importGraph(join(REPO_ROOT, 'bench'), REPO_ROOT);

/**
 * The rooms of src/, lowest first (README "Rooms of src/"): a room imports only from rooms before it.
 * Type-only imports count: a type is owned by the idea that defines it, at its level.
 */
const ROOMS = [
  'config', 'security', 'logger', 'telemetry', 'transport', 'http', 'node-http-server', 'lifecycle', 'media', 'model', 'tools', 'request', 'campus', 'prompt',
  'guards', 'db', 'memory', 'admission', 'pipeline', 'runs', 'sse', 'deps', 'routes', 'app', 'sandbox', 'server',
];

/** The rooms allowed to import the pipeline: the edge that runs turns and the process wiring. */
const PIPELINE_USERS = new Set(['pipeline', 'runs', 'routes', 'app', 'deps', 'server']);

describe('architecture', () => {
  it('reads a real graph', () => {
    expect(src.length).toBeGreaterThan(100);
    expect(src.some((e) => e.from === 'src/server.ts' && e.to === 'src/app.ts')).toBe(true);
  });

  it('keeps every file of src/ outside the sandbox sample data at 400 lines or fewer', () => {
    const files = [...new Set(src.flatMap((e) => [e.from, e.to]))].filter((f) => f.startsWith('src/') && !f.startsWith('src/sandbox/campus/data/'));
    expect(files.length).toBeGreaterThan(100);
    const long = files.filter((f) => readFileSync(join(REPO_ROOT, f), 'utf8').split('\n').length - 1 > 400);
    expect(long).toEqual([]);
  });

  it('has no import cycle between files of src/', () => {
    expect(findCycles(src)).toEqual([]);
  });

  it('has no import cycle between the rooms of src/', () => {
    const rooms = src.map((e) => ({ from: roomOf(e.from), to: roomOf(e.to) })).filter((e) => e.from !== e.to);
    expect(findCycles(rooms)).toEqual([]);
  });

  it('imports only downwards in the declared order of rooms', () => {
    expect(upwardImports(src, ROOMS)).toEqual([]);
  });

  it('lets no lower room import the pipeline', () => {
    const upward = src.filter((e) => roomOf(e.to) === 'pipeline' && !PIPELINE_USERS.has(roomOf(e.from)));
    expect(upward.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('validates requests with @hono/zod-validator, through src/http/validate.ts only (issue 63)', () => {
    const files = [...new Set(src.flatMap((e) => [e.from, e.to]))].filter((f) => f.startsWith('src/'));
    const validators = files.filter((f) => /from '@hono\/(zod|standard)-validator'/.test(readFileSync(join(REPO_ROOT, f), 'utf8')));
    expect(validators).toEqual(['src/http/validate.ts']);
    expect(readFileSync(join(REPO_ROOT, 'src/http/validate.ts'), 'utf8')).toContain("import { zValidator } from '@hono/zod-validator';");
    // hono-openapi documents; it does not validate here (its own `validator` is never imported).
    for (const file of ['src/http/validate.ts', 'src/routes/route-docs.ts', 'src/routes/api-docs.ts']) {
      expect(readFileSync(join(REPO_ROOT, file), 'utf8')).not.toMatch(/import \{[^}]*\bvalidator\b[^}]*\} from 'hono-openapi'/);
    }
  });

  it('keeps the database schema out of memory/', () => {
    expect(src.filter((e) => roomOf(e.from) === 'db' && roomOf(e.to) === 'memory')).toEqual([]);
  });

  it('loads the sandbox only through the dynamic import in server/build-deps.ts', () => {
    const intoSandbox = src.filter((e) => roomOf(e.to) === 'sandbox' && roomOf(e.from) !== 'sandbox');
    expect(intoSandbox).toEqual([{ from: 'src/server/build-deps.ts', to: 'src/sandbox/start-sandbox.ts', dynamic: true, typeOnly: false }]);
  });

  it('keeps tests off script entry points and benches on tests/support/ and tests/fixtures/ for their fakes and data', () => {
    // scripts/*.ts are entry points (they run on import); the deploy client's module under
    // scripts/deploy/ and the eval's modules under scripts/eval/ have no side effects (their entries are
    // scripts/deploy.ts and scripts/eval.ts): tests/deploy-script.test.ts and tests/eval-checks.test.ts use them.
    const modules = ['scripts/deploy/', 'scripts/eval/'];
    expect(tests.filter((e) => e.to.startsWith('scripts/') && !modules.some((m) => e.to.startsWith(m))).map((e) => e.from)).toEqual([]);
    const benchIntoTests = bench.filter((e) => e.to.startsWith('tests/'));
    expect(benchIntoTests.filter((e) => !e.to.startsWith('tests/support/') && !e.to.startsWith('tests/fixtures/')).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
    expect(bench.filter((e) => e.to.startsWith('scripts/')).map((e) => e.from)).toEqual([]);
  });
});

describe('upwardImports', () => {
  it('enters grounding through its one door, guards/grounding/index.ts (issue 76)', () => {
    const inside = (f: string) => f.startsWith('src/guards/grounding/');
    const through = src.filter((e) => inside(e.to) && !inside(e.from));
    expect(through.length).toBeGreaterThan(0);
    expect(through.filter((e) => e.to !== 'src/guards/grounding/index.ts').map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('keeps the fast loop in process: no test file outside FULL_SUITE_ONLY starts the service or any child process (issue 76)', () => {
    const fast = readdirSync(join(REPO_ROOT, 'tests'))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `tests/${f}`)
      // This file names the patterns below; it reads files and starts nothing.
      .filter((f) => !FULL_SUITE_ONLY.includes(f) && f !== 'tests/architecture.test.ts');
    expect(fast.length).toBeGreaterThan(100);
    const spawning = fast.filter((f) => spawnsProcesses(readFileSync(join(REPO_ROOT, f), 'utf8')));
    expect(spawning).toEqual([]);
    // The rule can fail: a file that starts the service, or any child process, is caught.
    expect(spawnsProcesses("const s = await spawnService({ entry: 'source' });")).toBe(true);
    expect(spawnsProcesses("import { spawn } from 'node:child_process';")).toBe(true);
    expect(spawnsProcesses("import { listen } from './support/listen.js';")).toBe(false);
  });

  it('catches a planted upward import, naming both files (so the order check can fail)', () => {
    const planted = [
      ...src,
      { from: 'src/guards/disclosure.ts', to: 'src/memory/store.ts', dynamic: false, typeOnly: false },
      { from: 'src/security/secrets.ts', to: 'src/db/schema.ts', dynamic: false, typeOnly: true },
    ];
    expect(upwardImports(planted, ROOMS)).toEqual([
      'src/guards/disclosure.ts -> src/memory/store.ts: guards is below memory',
      'src/security/secrets.ts -> src/db/schema.ts: security is below db',
    ]);
    expect(upwardImports([{ from: 'src/newroom/a.ts', to: 'src/config.ts', dynamic: false, typeOnly: false }], ROOMS)).toEqual([
      'src/newroom/a.ts -> src/config.ts: room newroom has no place in the order',
    ]);
  });

  it('catches an upward import planted in the source itself', async () => {
    const { mkdtempSync, cpSync, appendFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const copy = mkdtempSync(join(tmpdir(), 'arch-'));
    try {
      cpSync(join(REPO_ROOT, 'src'), join(copy, 'src'), { recursive: true });
      appendFileSync(join(copy, 'src', 'guards', 'disclosure.ts'), "\nimport '../memory/store.js';\n");
      expect(upwardImports(importGraph(join(copy, 'src'), copy), ROOMS)).toEqual(['src/guards/disclosure.ts -> src/memory/store.ts: guards is below memory']);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('findCycles', () => {
  it('finds a cycle and accepts a DAG (so the checks above can fail)', () => {
    expect(findCycles([{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'a' }])).toEqual([['a', 'b', 'c', 'a']]);
    expect(findCycles([{ from: 'a', to: 'b' }, { from: 'a', to: 'c' }, { from: 'b', to: 'c' }])).toEqual([]);
  });
});
