/**
 * Test dependencies through the service's one composition root (`src/server/build-deps.ts`): the real
 * modules with local defaults (in-memory store, silent logger, no model, no tools, open admission, no
 * overload guard), each overridable per test. Tests build apps through this instead of patching globals.
 */
import { parseConfig, type Config } from '../../src/config.js';
import type { AppDeps } from '../../src/deps.js';
import { createBackgroundTasks } from '../../src/lifecycle/background-tasks.js';
import { silentLogger } from '../../src/logger.js';
import { createInMemoryStore } from '../../src/memory/in-memory-store.js';
import type { TurnMemory } from '../../src/memory/turn-memory.js';
import { createTurnMemory, type TurnMemoryOptions } from '../../src/memory/create-turn-memory.js';
import { noTelemetry } from '../../src/telemetry/telemetry.js';
import { serviceReferencePrompts } from '../../src/memory/service-prompts.js';
import { baseLeakPolicy, leakPolicyFromConfig } from '../../src/security/leak-policy.js';
import { buildDeps, INERT_PARTS, type DepsOverrides } from '../../src/server/build-deps.js';

/** A configuration as the service would parse it from `env` (AGENT_ENV=test by default). */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return parseConfig({ AGENT_ENV: 'test', ...env });
}

/** What a test gets unless it says otherwise: nothing that reaches out, nothing that refuses. */
const TEST_DEFAULTS: DepsOverrides = INERT_PARTS;

export async function createTestDeps(overrides: DepsOverrides = {}): Promise<AppDeps> {
  const config = overrides.config ?? testConfig();
  const logger = overrides.logger ?? silentLogger;
  const leaks = overrides.leaks ?? leakPolicyFromConfig(config, serviceReferencePrompts(config.campus));
  // In memory whatever DATABASE_URL a test's configuration names (a test of Postgres gives its store).
  const memory = overrides.memory ?? createInMemoryStore({ embeddingModel: config.embeddings.apiKey ? config.embeddings.model : null });
  // Nothing a test builds here needs closing (in-memory store and queue; the rest is given).
  const { deps } = await buildDeps({ config, logger, leaks, telemetry: overrides.telemetry ?? noTelemetry, overrides: { ...TEST_DEFAULTS, ...overrides, memory } });
  return deps;
}

/**
 * The turn memory as the tests wire it: no embeddings, a silent logger, no extraction rate limit, the
 * base leak policy and its own background registry unless given.
 */
export function testTurnMemory(parts: Pick<TurnMemoryOptions, 'store' | 'gateway'> & Partial<TurnMemoryOptions>): TurnMemory {
  return createTurnMemory({
    embedder: null,
    background: createBackgroundTasks(silentLogger),
    logger: silentLogger,
    extractionModel: 'test/extractor',
    leaks: baseLeakPolicy,
    extractionIntervalMs: 0,
    ...parts,
  });
}
