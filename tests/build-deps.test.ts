/**
 * The composition root owns what it opens (issue 50): `buildDeps(options)` returns `{ deps, close }`,
 * `close` closes the last opened part first (the job queue and background tasks before the clients and
 * stores they use, the tool client before the sandbox it talks to), a build that fails half-way closes
 * what it had opened before rethrowing, and a malformed catalog stops the build before anything opens.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import type { MemoryStore } from '../src/memory/store.js';
import { baseLeakPolicy } from '../src/security/leak-policy.js';
import { buildDeps } from '../src/server/build-deps.js';
import { testConfig } from './support/deps.js';

/** An in-memory store that records its life. */
function recordedStore(events: string[]): MemoryStore {
  const store = createInMemoryStore({ embeddingModel: null });
  return {
    ...store,
    init: async () => {
      events.push('store init');
      await store.init();
    },
    close: async () => {
      events.push('store close');
      await store.close();
    },
  };
}

const dir = () => mkdtempSync(join(tmpdir(), 'build-deps-'));

describe('buildDeps', () => {
  it('closes what it opened, the last opened first, each once', async () => {
    const events: string[] = [];
    const config = testConfig({ TOKEN_USAGE_DB: join(dir(), 'usage.sqlite') });
    const built = await buildDeps({ config, logger: silentLogger, leaks: baseLeakPolicy, overrides: { memory: recordedStore(events) } });
    // The zero-config parts: the sandbox stands in for the model and the tool server.
    expect(built.deps.gateway).not.toBeNull();
    expect(built.closingOrder).toEqual([
      'runs',
      'job queue',
      'background tasks',
      'budget refunds',
      'budget store',
      'campus tools client',
      'sandbox',
      'memory store',
      'overload guard',
    ]);
    expect((await built.deps.campusTools.list()).length).toBeGreaterThan(0);
    await built.close(5_000);
    await built.close(5_000);
    expect(events).toEqual(['store init', 'store close']);
    // Background tasks are refused once closed.
    let ran = false;
    built.deps.background.run('late', async () => {
      ran = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(ran).toBe(false);
  });

  it('closes nothing it was given but the memory store it opened for the caller', async () => {
    const events: string[] = [];
    const config = testConfig({ TOKEN_USAGE_DB: join(dir(), 'usage.sqlite') });
    const first = await buildDeps({ config, logger: silentLogger, leaks: baseLeakPolicy, overrides: { memory: recordedStore([]) } });
    const { deps } = first;
    const built = await buildDeps({
      config,
      logger: silentLogger,
      leaks: baseLeakPolicy,
      overrides: { memory: recordedStore(events), gateway: null, campusTools: deps.campusTools, playground: null, admission: deps.admission, overload: deps.overload, jobs: deps.jobs, background: deps.background, runs: deps.runs },
    });
    expect(built.closingOrder).toEqual(['memory store']);
    await built.close(1_000);
    expect(events).toEqual(['store init', 'store close']);
    // What was given still works: its owner closes it.
    expect((await deps.campusTools.list()).length).toBeGreaterThan(0);
    await first.close(5_000);
  });

  it('a build that fails half-way closes what it had opened, then throws', async () => {
    const events: string[] = [];
    // The budget store cannot make its file under a regular file: the build fails after the store, the
    // sandbox and the tool client were opened.
    const file = join(dir(), 'not-a-directory');
    writeFileSync(file, '');
    const config = testConfig({ TOKEN_USAGE_DB: join(file, 'usage.sqlite') });
    await expect(buildDeps({ config, logger: silentLogger, leaks: baseLeakPolicy, overrides: { memory: recordedStore(events) } })).rejects.toThrow();
    expect(events).toEqual(['store init', 'store close']);
  });

  it('a malformed catalog stops the build before anything opens', async () => {
    const events: string[] = [];
    const catalogFile = join(dir(), 'buildings.json');
    writeFileSync(catalogFile, '{ not json');
    const config = testConfig({ CAMPUS_BUILDINGS_FILE: catalogFile });
    await expect(buildDeps({ config, logger: silentLogger, leaks: baseLeakPolicy, overrides: { memory: recordedStore(events) } })).rejects.toThrow(/buildings\.json/);
    expect(events).toEqual([]);
  });
});
