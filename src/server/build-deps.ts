/**
 * The real dependencies of the service, built from the configuration: what `server.ts` serves, and
 * what `npm run eval` runs its cases through (the same wiring, so an evaluation judges what production
 * runs). Opened resources are pushed on `closers`, to be closed in reverse order.
 */
import { loadCatalog } from '../campus/catalog.js';
import { createShowMapTool } from '../campus/show-map-tool.js';
import type { Config } from '../config.js';
import type { AppDeps } from '../deps.js';
import { createBackgroundTasks } from '../lifecycle/background-tasks.js';
import { createTurnsInFlight } from '../lifecycle/turns-in-flight.js';
import { createInProcessQueue } from '../lifecycle/job-queue.js';
import { createOverloadGuard } from '../lifecycle/overload.js';
import { createPostgresJobQueue } from '../db/postgres-job-queue.js';
import type { Logger } from '../logger.js';
import { createEmbedderFromConfig, createMemoryStoreFromConfig } from '../memory/memory-from-config.js';
import { createTurnMemory } from '../memory/create-turn-memory.js';
import { responseByteLimit } from '../model/response-limit.js';
import type { LeakPolicy } from '../security/leak-policy.js';
import { createBudgetStoreFromConfig } from '../admission/budget-store-from-config.js';
import { createAdmission } from '../admission/create-admission.js';
import { moderationFromConfig } from '../admission/moderation.js';
import { noTurnMemory } from '../memory/turn-memory.js';
import { noModeration, openAdmission } from '../admission/admission.js';
import { noOverloadGuard } from '../lifecycle/overload.js';
import { createOpenAIGateway } from '../model/openai-gateway.js';
import { createMcpCampusTools } from '../tools/mcp-campus-tools.js';
import { noCampusTools } from '../tools/campus-tools.js';
import { observedStore } from '../memory/observed-store.js';
import { tracedGateway } from '../model/traced-gateway.js';
import type { Telemetry } from '../telemetry/telemetry.js';

/** Resources to release at shutdown, closed in reverse order of creation. */
export type Closer = { name: string; close: () => Promise<unknown> };

/** What a turn's memory is built from, for an override that builds its own over the built parts. */
export type TurnMemoryParts = Pick<AppDeps, 'memory' | 'gateway' | 'background' | 'jobs' | 'logger' | 'leaks' | 'admission'>;

/**
 * Parts given instead of built: a part given is used as it is (wrapped for telemetry like a built one),
 * and nothing only it needed is opened (a given admission opens no budget store; a given gateway and
 * tool client start no sandbox). The turn's memory may be given as a function of the built parts.
 */
export type DepsOverrides = Partial<Omit<AppDeps, 'turnMemory'>> & {
  turnMemory?: AppDeps['turnMemory'] | ((parts: TurnMemoryParts) => AppDeps['turnMemory']);
};

/**
 * Parts that reach nothing and refuse nothing: no model, no campus tools, no memory of turns, every turn
 * admitted, no moderation, no overload shedding, no playground. The tests' defaults, and what the OpenAPI
 * document is made over (the routes are the same whatever the parts).
 */
export const INERT_PARTS: DepsOverrides = {
  gateway: null,
  campusTools: noCampusTools,
  turnMemory: noTurnMemory,
  admission: openAdmission,
  moderation: noModeration,
  overload: noOverloadGuard,
  playground: null,
};

export interface BuildOptions {
  /**
   * Where background jobs run: `configured` (the Postgres queue with DATABASE_URL, else in process),
   * or always `in-process`: `npm run eval` counts a case's extraction tokens and waits for them in its
   * own process, and must not hand its jobs to a running replica.
   */
  jobs?: 'configured' | 'in-process';
  /** Parts given instead of built (the tests' fakes; see DepsOverrides). */
  overrides?: DepsOverrides;
}

/** What a build without the sandbox (the image) is told when configuration left a stand-in to it. */
export class NoSandboxInBuildError extends Error {
  override name = 'NoSandboxInBuildError';
  constructor(env: string, missing: string[]) {
    super(
      `AGENT_ENV=${env} would use the sandbox for ${missing.join(' and ')}, but this build does not contain it ` +
        `(the image leaves it out): set ${missing.join(' and ')}`,
    );
  }
}

/**
 * The sandbox when this build has it. The image removes `dist/src/sandbox` (production never loads it),
 * yet a staging deploy of the same image runs with another AGENT_ENV: the choice is made from what the
 * build contains. Without it, a configuration that names its model gateway and tool server runs without
 * a playground; one that leaves either to the sandbox stops with a message that names what to set.
 */
async function startSandboxIfBuilt(config: Config, logger: Logger, given: DepsOverrides) {
  const needs = { model: given.gateway === undefined && !config.gateway.apiKey, tools: given.campusTools === undefined && !config.mcpServerUrl };
  const loaded = await import('../sandbox/start-sandbox.js').catch((err: unknown) => {
    const notBuilt = (err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes('start-sandbox');
    if (!notBuilt) throw err;
    return null;
  });
  if (loaded) return loaded.startSandbox(needs);
  const missing = [...(needs.model ? ['LLM_GATEWAY_API_KEY'] : []), ...(needs.tools ? ['MCP_SERVER_URL'] : [])];
  if (missing.length > 0) throw new NoSandboxInBuildError(config.env, missing);
  logger.info('sandbox not in this build: no playground', { env: config.env });
  return null;
}

/**
 * The one composition root: production (`server.ts`), `npm run eval` and the tests (through
 * `tests/support/deps.ts`, which gives its fakes as overrides) all build their dependencies here.
 */
export async function buildDeps(
  config: Config,
  logger: Logger,
  leaks: LeakPolicy,
  telemetry: Telemetry,
  closers: Closer[],
  options: BuildOptions = {},
): Promise<AppDeps> {
  const given = options.overrides ?? {};
  // First, so a malformed catalog file stops startup (CatalogError names the file) before anything opens.
  const catalog = given.catalog ?? loadCatalog(config.campus.buildingsFile);
  const showMapTool = given.showMapTool !== undefined ? given.showMapTool : createShowMapTool({ catalog, mapBaseUrl: config.campus.mapBaseUrl });
  const now = given.now ?? (() => new Date());
  const background = given.background ?? createBackgroundTasks(logger, telemetry);
  const turns = given.turns ?? createTurnsInFlight(config.maxTurnsInFlight, config.maxAnonymousTurnsInFlight);
  let overload = given.overload;
  if (!overload) {
    const guard = createOverloadGuard({ limits: config.overload, turns, logger, onRefusal: () => telemetry.metrics.refusal('overload') });
    closers.push({ name: 'overload guard', close: async () => guard.close() });
    overload = guard;
  }
  // Postgres when DATABASE_URL is set (migrated under an advisory lock, vector size checked), else in-memory.
  // A given store is this process's to open too (a test's in-memory or Postgres store).
  if (given.memory) await given.memory.init();
  const { store: opened, database } = given.memory ? { store: given.memory, database: null } : await createMemoryStoreFromConfig(config, logger);
  const memory = telemetry.enabled ? observedStore(opened, telemetry.metrics) : opened;
  // Background jobs: on the Postgres queue when there is a database (replicas share it; a killed
  // replica's job is taken over), else in this process. Stopped by server.ts's drain, not a closer.
  const jobs =
    given.jobs ??
    (database && config.databaseUrl && options.jobs !== 'in-process'
      ? createPostgresJobQueue({
          url: config.databaseUrl,
          database,
          logger,
          telemetry,
          expireSeconds: config.jobExpireSeconds,
          concurrency: config.jobConcurrency,
        })
      : createInProcessQueue({ background, logger, expireSeconds: config.jobExpireSeconds, concurrency: config.jobConcurrency }));
  closers.push({ name: 'memory store', close: () => memory.close() });
  // Outside production, the sandbox stands in for what configuration leaves out (and what no override
  // gives), and serves the playground page. Loaded on demand: production never loads a sandbox module.
  const needsSandbox = given.gateway === undefined || given.campusTools === undefined || given.playground === undefined;
  const sandbox = config.env === 'production' || !needsSandbox ? null : await startSandboxIfBuilt(config, logger, given);
  // The sandbox tool server closes after the MCP client (closers run in reverse).
  if (sandbox) closers.push({ name: 'sandbox', close: () => sandbox.close() });
  // Chat model: the gateway, or the offline sandbox model behind the same openai client code path
  // through its fetch seam (production refuses to start without a key; null is the guard).
  // Both: the same limits, and nothing configured as secret in what is sent (the leak policy on the way out).
  const gatewayLimits = {
    callTimeoutMs: config.modelCallTimeoutMs,
    responseBounds: responseByteLimit(config.budget.maxOutputTokens),
    promptCacheKey: config.budget.promptCacheKey,
    outbound: leaks.redact,
  };
  const untraced =
    given.gateway !== undefined
      ? given.gateway
      : config.gateway.apiKey
        ? createOpenAIGateway({ baseUrl: config.gateway.baseUrl, apiKey: config.gateway.apiKey, ...gatewayLimits })
        : sandbox?.model
          ? createOpenAIGateway({ baseUrl: sandbox.model.baseUrl, apiKey: 'offline', fetch: sandbox.model.fetch, ...gatewayLimits })
          : null;
  // With telemetry on, every model call gets its `chat` span and the gen_ai.client.* metrics.
  const gateway = untraced && telemetry.enabled ? tracedGateway(untraced, telemetry.metrics) : untraced;
  let campusTools = given.campusTools;
  if (!campusTools) {
    const mcpUrl = config.mcpServerUrl ?? sandbox?.mcpUrl ?? null;
    const client = mcpUrl ? createMcpCampusTools({ url: mcpUrl, logger, callTimeoutMs: config.toolCallTimeoutMs }) : noCampusTools;
    closers.push({ name: 'campus tools client', close: () => client.close() });
    campusTools = client;
  }
  // Admission: the token budget (SQLite by default; Postgres when replicas must share it) and moderation
  // (off without EMBEDDINGS_API_KEY). The store opens before serving so a bad TOKEN_USAGE_DB fails startup.
  const moderation = given.moderation ?? moderationFromConfig(config, logger);
  let admission = given.admission;
  if (!admission) {
    const budget = await createBudgetStoreFromConfig(config, database ? { database } : {});
    closers.push({ name: 'token budget store', close: () => budget.close() });
    admission = createAdmission({ budget, moderation, config, logger, now, metrics: telemetry.metrics });
  }
  // Long-term memory for signed-in turns (the pipeline skips it for anonymous ones); needs a model for extraction.
  const parts: TurnMemoryParts = { memory, gateway, background, jobs, logger, leaks, admission };
  const turnMemory =
    typeof given.turnMemory === 'function'
      ? given.turnMemory(parts)
      : (given.turnMemory ??
        (gateway
          ? createTurnMemory({
              store: memory,
              embedder: createEmbedderFromConfig(config),
              gateway,
              background,
              jobs,
              logger,
              extractionModel: config.gateway.extractionModel,
              leaks,
              reserve: admission.reserveCall,
            })
          : noTurnMemory));
  // Handlers are registered (the memory's extraction): the queue may start taking jobs.
  await jobs.start();
  return {
    config,
    logger,
    leaks,
    memory,
    background,
    jobs,
    turns,
    overload,
    now,
    catalog,
    showMapTool,
    gateway,
    campusTools,
    turnMemory,
    admission,
    moderation,
    telemetry,
    playground: given.playground !== undefined ? given.playground : (sandbox?.playground ?? null),
  };
}
