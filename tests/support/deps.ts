/**
 * Test dependencies: the real modules with local defaults (in-memory store, silent logger), overridable
 * per test. Tests build apps through this instead of patching globals.
 */
import { loadCatalog } from '../../src/campus/catalog.js';
import { createShowMapTool } from '../../src/campus/show-map-tool.js';
import { parseConfig, type Config } from '../../src/config.js';
import type { AppDeps } from '../../src/deps.js';
import { createBackgroundTasks } from '../../src/lifecycle/background-tasks.js';
import { createTurnsInFlight } from '../../src/lifecycle/turns-in-flight.js';
import { silentLogger } from '../../src/logger.js';
import { createInMemoryStore } from '../../src/memory/in-memory-store.js';
import { noTurnMemory, type TurnMemory } from '../../src/memory/turn-memory.js';
import { createTurnMemory, type TurnMemoryOptions } from '../../src/memory/create-turn-memory.js';
import { noTelemetry } from '../../src/telemetry/telemetry.js';
import { createInProcessQueue } from '../../src/lifecycle/job-queue.js';
import { noOverloadGuard } from '../../src/lifecycle/overload.js';
import { noModeration, openAdmission } from '../../src/admission/admission.js';
import { noCampusTools } from '../../src/tools/campus-tools.js';
import { serviceReferencePrompts } from '../../src/memory/service-prompts.js';
import { baseLeakPolicy, leakPolicyFromConfig } from '../../src/security/leak-policy.js';

/** A configuration as the service would parse it from `env` (AGENT_ENV=test by default). */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return parseConfig({ AGENT_ENV: 'test', ...env });
}

export async function createTestDeps(overrides: Partial<AppDeps> = {}): Promise<AppDeps> {
  const config = overrides.config ?? testConfig();
  const logger = overrides.logger ?? silentLogger;
  const memory =
    overrides.memory ??
    createInMemoryStore({ embeddingModel: config.embeddings.apiKey ? config.embeddings.model : null });
  await memory.init();
  const catalog = overrides.catalog ?? loadCatalog(config.campus.buildingsFile);
  const background = overrides.background ?? createBackgroundTasks(logger);
  return {
    config,
    logger,
    leaks: leakPolicyFromConfig(config, serviceReferencePrompts(config.campus)),
    memory,
    background,
    jobs: createInProcessQueue({ background, logger, expireSeconds: config.jobExpireSeconds, concurrency: config.jobConcurrency }),
    turns: createTurnsInFlight(config.maxTurnsInFlight, config.maxAnonymousTurnsInFlight),
    overload: noOverloadGuard,
    now: overrides.now ?? (() => new Date()),
    catalog,
    showMapTool: createShowMapTool({ catalog, mapBaseUrl: config.campus.mapBaseUrl }),
    gateway: null,
    campusTools: noCampusTools,
    turnMemory: noTurnMemory,
    telemetry: noTelemetry,
    admission: openAdmission,
    moderation: noModeration,
    ...overrides,
  };
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
