/**
 * The one composition root: the real dependencies of the service, built from the configuration. What
 * `server.ts` serves, what `npm run eval` runs its cases through (the same wiring, so an evaluation judges
 * what production runs) and what the tests build their apps over (`tests/support/deps.ts`, its fakes
 * given as overrides). `buildDeps(options)` returns `{ deps, close }`: each part below is made by a small
 * builder that owns what it opens (OpenedParts), and `close` closes the last opened first, so every part
 * closes before the parts it uses.
 */
import { loadCatalog } from '../campus/catalog.js';
import { createShowMapTool } from '../campus/show-map-tool.js';
import type { Config } from '../config.js';
import type { Catalog } from '../campus/catalog.js';
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
import { noTelemetry, type Telemetry } from '../telemetry/telemetry.js';
import type { JobQueue } from '../lifecycle/job-queue.js';
import type { BackgroundTasks } from '../lifecycle/background-tasks.js';
import type { Database } from '../db/client.js';
import type { TurnMemory } from '../memory/turn-memory.js';
import { OpenedParts } from './opened-parts.js';
import { createImageReader } from '../media/images.js';
import { VisionModels } from '../model/vision.js';
import { createAttachmentReader } from '../pipeline/attachments.js';
import { ModelAllowlist } from '../model/model-allowlist.js';
import { Runs } from '../runs/runs.js';
import { MemoryRunStore } from '../runs/memory-run-store.js';
import { PostgresRunStore } from '../runs/postgres-run-store.js';

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

/** The started sandbox (its type from the module loaded on demand, never imported statically). */
type Sandbox = NonNullable<Awaited<ReturnType<typeof startSandboxIfBuilt>>>;

export interface BuildDepsOptions {
  config: Config;
  /** Every line the parts write; built by the caller, before the parts, over `leaks`. */
  logger: Logger;
  leaks: LeakPolicy;
  /** Spans and metrics of the parts; off unless given. */
  telemetry?: Telemetry;
  /**
   * Where background jobs run: `configured` (the Postgres queue with DATABASE_URL, else in process),
   * or always `in-process`: `npm run eval` counts a case's extraction tokens and waits for them in its
   * own process, and must not hand its jobs to a running replica.
   */
  jobs?: 'configured' | 'in-process';
  /** Parts given instead of built (the tests' fakes; see DepsOverrides). */
  overrides?: DepsOverrides;
}

export interface BuiltDeps {
  deps: AppDeps;
  /**
   * Closes what the build opened, within `timeoutMs`: the job queue stops taking jobs and finishes or
   * releases what it holds, background tasks are drained, then the clients and stores close, each
   * before what it uses. A part that fails to close is logged; `close` itself never throws.
   */
  close(timeoutMs: number): Promise<void>;
  /** The parts `close` will close, in that order: what the build opened, and the memory store it was given (the build initialises it, so it owns it); no other given part. */
  readonly closingOrder: readonly string[];
}

/** How long a build that failed half-way may take to close what it had opened. */
const FAILED_BUILD_CLOSE_MS = 5_000;

/** What every builder reads. */
interface Build {
  config: Config;
  logger: Logger;
  leaks: LeakPolicy;
  telemetry: Telemetry;
  given: DepsOverrides;
  opened: OpenedParts;
}

export async function buildDeps(options: BuildDepsOptions): Promise<BuiltDeps> {
  const { config, logger } = options;
  const given = options.overrides ?? {};
  // A malformed catalog file stops the start here (CatalogError names the file).
  const catalog = given.catalog ?? loadCatalog(config.campus.buildingsFile);
  const build: Build = { config, logger, leaks: options.leaks, telemetry: options.telemetry ?? noTelemetry, given, opened: new OpenedParts() };
  const close = (timeoutMs: number) =>
    build.opened.close(
      Date.now() + timeoutMs,
      (part, err) => logger.error('close failed', { resource: part, err }),
      (part) => logger.warn('shutdown deadline reached: stopped waiting for a part to close', { resource: part }),
    );
  try {
    const deps = await openParts(build, catalog, options.jobs ?? 'configured');
    return { deps, close, closingOrder: build.opened.closingOrder };
  } catch (err) {
    await close(FAILED_BUILD_CLOSE_MS);
    throw err;
  }
}

/** Every part, each built after what it uses. */
async function openParts(build: Build, catalog: Catalog, jobsWhere: 'configured' | 'in-process'): Promise<AppDeps> {
  const { config, logger, leaks, telemetry, given } = build;
  const showMapTool = given.showMapTool !== undefined ? given.showMapTool : createShowMapTool({ catalog, mapBaseUrl: config.campus.mapBaseUrl });
  const background = given.background ?? createBackgroundTasks(logger, telemetry);
  const turns = given.turns ?? createTurnsInFlight(config.maxTurnsInFlight, config.maxAnonymousTurnsInFlight);
  const overload =
    given.overload ??
    build.opened.own(
      'overload guard',
      createOverloadGuard({ limits: config.overload, turns, logger, onRefusal: () => telemetry.metrics.refusal('overload') }),
      (guard) => guard.close(),
    );
  const { memory, database } = await memoryStore(build);
  const jobs = given.jobs ?? jobQueue(build, database, background, jobsWhere);
  const sandbox = await sandboxFor(build);
  const gateway = modelGateway(build, sandbox);
  const campusTools = given.campusTools ?? campusToolsClient(build, sandbox);
  const moderation = given.moderation ?? moderationFromConfig(config, logger);
  const now = given.now ?? (() => new Date());
  const admission = given.admission ?? (await admissionOver(build, database, moderation, now));
  // Building the turn memory registers the extraction handler: the queue starts taking jobs only after.
  const turnMemory = turnMemoryOver(build, { memory, gateway, background, jobs, logger, leaks, admission });
  await startWork(build, { jobs, background });
  const runs = given.runs ?? (await runLog(build, database));
  return {
    models: given.models ?? new ModelAllowlist(config.gateway),
    attachments: given.attachments ?? attachmentReader(build, sandbox),
    config,
    logger,
    leaks,
    memory,
    background,
    jobs,
    turns,
    runs,
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

/**
 * The memory store: Postgres when DATABASE_URL is set (migrated under an advisory lock, vector size
 * checked), else in memory. A given store is this process's to open and close too (a test's in-memory
 * or Postgres store). With telemetry on, its calls are observed.
 */
async function memoryStore({ config, logger, telemetry, given, opened }: Build): Promise<{ memory: AppDeps['memory']; database: Database | null }> {
  if (given.memory) await given.memory.init();
  const { store, database } = given.memory ? { store: given.memory, database: null } : await createMemoryStoreFromConfig(config, logger);
  const memory = opened.own('memory store', telemetry.enabled ? observedStore(store, telemetry.metrics) : store, (m) => m.close());
  return { memory, database };
}

/**
 * Background jobs: on the Postgres queue when there is a database (replicas share it; a killed
 * replica's job is taken over), else in this process. Built here, taking jobs only once its handlers
 * are registered (startJobs).
 */
function jobQueue({ config, logger, telemetry }: Build, database: Database | null, background: BackgroundTasks, where: 'configured' | 'in-process'): JobQueue {
  const common = { logger, expireSeconds: config.jobExpireSeconds, concurrency: config.jobConcurrency };
  return database && where === 'configured'
    ? createPostgresJobQueue({ database, telemetry, background, ...common })
    : createInProcessQueue({ background, ...common });
}

/**
 * Outside production, the sandbox stands in for what configuration leaves out (and what no override
 * gives), and serves the playground page. Loaded on demand: production never loads a sandbox module.
 */
async function sandboxFor(build: Build): Promise<Sandbox | null> {
  const { config, logger, given, opened } = build;
  const needsSandbox = given.gateway === undefined || given.campusTools === undefined || given.playground === undefined;
  if (config.env === 'production' || !needsSandbox) return null;
  const sandbox = await startSandboxIfBuilt(config, logger, given);
  return sandbox && opened.own('sandbox', sandbox, (s) => s.close());
}

/**
 * The chat model: the gateway, or the offline sandbox model behind the same openai client code path
 * through its fetch seam (production refuses to start without a key; null is the guard). Both with the
 * same limits, and nothing configured as secret in what is sent (the leak policy on the way out). With
 * telemetry on, every call gets its `chat` span and the gen_ai.client.* metrics.
 */
function modelGateway({ config, leaks, telemetry, given }: Build, sandbox: Sandbox | null): AppDeps['gateway'] {
  const limits = {
    callTimeoutMs: config.modelCallTimeoutMs,
    textBatchMs: config.answerBatchMs,
    responseBounds: responseByteLimit(config.budget.maxOutputTokens, config.maxAnswerChars),
    promptCacheKey: config.budget.promptCacheKey,
    outbound: leaks.redact,
  };
  const untraced =
    given.gateway !== undefined
      ? given.gateway
      : config.gateway.apiKey
        ? createOpenAIGateway({ baseUrl: config.gateway.baseUrl, apiKey: config.gateway.apiKey, ...limits })
        : sandbox?.model
          ? createOpenAIGateway({ baseUrl: sandbox.model.baseUrl, apiKey: 'offline', fetch: sandbox.model.fetch, ...limits })
          : null;
  return untraced && telemetry.enabled ? tracedGateway(untraced, telemetry.metrics) : untraced;
}

/**
 * The reader of a turn's attachments: images for the models VISION_MODELS names, except on the sandbox's
 * offline model (no key, no gateway given), which reads no image, whatever model a request names.
 */
function attachmentReader({ config, given }: Build, sandbox: Sandbox | null): AppDeps['attachments'] {
  const offline = given.gateway === undefined && !config.gateway.apiKey && sandbox?.model != null;
  return createAttachmentReader({ images: createImageReader(), vision: new VisionModels(offline ? 'none' : config.gateway.visionModels) });
}

/** The campus tool server's client: the configured server, else the sandbox's; none without either. Opened after the sandbox, so it closes first. */
function campusToolsClient({ config, logger, opened }: Build, sandbox: Sandbox | null): AppDeps['campusTools'] {
  const url = config.mcpServerUrl ?? sandbox?.mcpUrl ?? null;
  if (!url) return noCampusTools;
  return opened.own('campus tools client', createMcpCampusTools({ url, logger, callTimeoutMs: config.toolCallTimeoutMs }), (c) => c.close());
}

/**
 * Admission: the token and spend budget (SQLite by default; Postgres when replicas must share it) and
 * moderation (off without EMBEDDINGS_API_KEY). The store opens before serving, so a bad TOKEN_USAGE_DB
 * fails the start.
 */
async function admissionOver(
  { config, logger, telemetry, opened }: Build,
  database: Database | null,
  moderation: AppDeps['moderation'],
  now: () => Date,
): Promise<AppDeps['admission']> {
  const budget = opened.own('budget store', await createBudgetStoreFromConfig(config, database ? { database } : {}), (b) => b.close());
  // Closed before the store: the refunds still waiting are written while it is open.
  const admission = createAdmission({ budget, moderation, config, logger, now, metrics: telemetry.metrics, refundWindowMs: config.budget.refundWindowMs });
  return opened.own('budget refunds', admission, (a) => a.close());
}

/** Long-term memory for signed-in turns (the pipeline skips it for anonymous ones); it needs a model for extraction. */
function turnMemoryOver({ config, given }: Build, parts: TurnMemoryParts): TurnMemory {
  if (typeof given.turnMemory === 'function') return given.turnMemory(parts);
  if (given.turnMemory) return given.turnMemory;
  if (!parts.gateway) return noTurnMemory;
  return createTurnMemory({
    store: parts.memory,
    embedder: createEmbedderFromConfig(config),
    gateway: parts.gateway,
    background: parts.background,
    jobs: parts.jobs,
    logger: parts.logger,
    extractionModel: config.gateway.extractionModel,
    leaks: parts.leaks,
    reserve: parts.admission.reserveCall,
  });
}

/**
 * The work that runs after a turn starts: the queue takes jobs. Called once the turn memory is built
 * (that registered the extraction handler), so no job is taken before it can be handled. Owned
 * last, so they close first, before anything a job or a task uses: the queue stops taking jobs and
 * finishes or releases what it holds (Postgres: released jobs are retried by another replica), after
 * which background tasks are refused and those running are waited for. What was given is its owner's.
 */
async function startWork(
  { given, opened, logger }: Build,
  work: Pick<AppDeps, 'jobs' | 'background'>,
): Promise<void> {
  if (!given.background) opened.own('background tasks', work.background, (tasks, deadline) => drainBackground(tasks, deadline, logger));
  if (given.jobs) return;
  await work.jobs.start();
  opened.own('job queue', work.jobs, (queue, deadline) => queue.stop(Math.max(0, deadline - Date.now())));
}

/**
 * Resumable runs: their log on Postgres when there is a database (every replica reads it), else in this
 * process. Owned after the work, so on SIGTERM the runs finish (or end at the deadline) first, while
 * the job queue still takes their memory extraction and the database is still open.
 */
async function runLog({ config, logger, telemetry, opened }: Build, database: Database | null): Promise<Runs> {
  // Postgres is the log and the replicas' liveness; memory is the log of one process, which needs none.
  const shared = database
    ? new PostgresRunStore(database, config.runs.retentionSeconds, (err) => logger.warn('listening for run notices failed; readers poll', { err }))
    : null;
  const parts = shared ? { store: shared, liveness: shared } : { store: new MemoryRunStore(config.runs.retentionSeconds) };
  const runs = new Runs({ ...parts, graceMs: config.runs.detachedGraceMs, logger, metrics: telemetry.metrics, sharedSecret: config.sharedSecret });
  opened.own('runs', runs, (r, deadline) => r.close(deadline));
  // The replica's row before its first run, so a run of a replica killed in its first second is found `interrupted` elsewhere (a failure is logged and retried each second).
  await runs.ready;
  return runs;
}

/** Refuses new background tasks and waits for those running, until the deadline. */
async function drainBackground(tasks: BackgroundTasks, deadline: number, logger: Logger): Promise<void> {
  tasks.close();
  const drained = await tasks.drain(Math.max(0, deadline - Date.now()));
  if (!drained) logger.warn('shutdown deadline reached with background tasks pending', { pending: tasks.pending });
}
