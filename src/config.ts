/**
 * Configuration: the only reader of process.env. `parseConfig(env)` is pure so tests can feed it any
 * environment; `server.ts` passes `process.env` once at start. Every variable is a zod field of
 * `envSchema` in one idiom (config/fields.ts), its default written in the field (the README's table is
 * checked against them, tests/docs-config-table.test.ts); rules across variables are the schema's
 * `superRefine`. The terminal client and the standalone sandbox tool server read their own small schema
 * (`parseLocalToolsConfig`).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { int, oneOf, optionalText, optionalUrl, port, textOr, urlOr, numberIn } from './config/fields.js';
import { allowedModels, DEFAULT_MODEL, DEFAULT_VISION_MODELS, modelConfig, modelPrices, modelProblems, optionalUsd, type ModelConfig } from './config/models.js';
import { otelFields, telemetryConfig, type TelemetryConfig } from './config/telemetry.js';

export { BUILTIN_PRICES, MODEL_ID_PATTERN, type ModelPrice } from './config/models.js';
export { OTEL_SAMPLERS, type TelemetryConfig } from './config/telemetry.js';

/** Minimum length of AGENT_SHARED_SECRET in production (CONTRACT.md "Configuration"). */
export const MIN_SHARED_SECRET_LENGTH = 32;

/**
 * The characters a bearer token may hold (RFC 6750 b64token), which Hono's bearer-auth enforces: a
 * secret outside them could never be presented, so config refuses it (`openssl rand -hex 32` fits).
 */
export const BEARER_TOKEN_PATTERN = /^[A-Za-z0-9._~+/-]+=*$/;

/** CONTRACT.md "Stream": clients and proxies get a keep-alive comment at least every 15 s. */
export const MAX_SSE_KEEPALIVE_MS = 15_000;

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Whether Intl knows `zone` (an IANA name such as America/New_York). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Variables the service and the local tools (the terminal client, the standalone sandbox) both read. */
const sharedFields = {
  PORT: port(5055),
  AGENT_SHARED_SECRET: optionalText.refine(
    (s) => s === null || BEARER_TOKEN_PATTERN.test(s),
    'may hold only letters, digits and . _ ~ + / - (then = padding): a bearer token cannot carry other characters',
  ),
  LOG_LEVEL: oneOf(LOG_LEVELS, 'info'),
};

const serviceFields = {
  ...sharedFields,
  AGENT_ENV: oneOf(['production', 'development', 'test'], 'development'),
  ALLOWED_ORIGINS: optionalText,
  LLM_GATEWAY_API_KEY: optionalText,
  LLM_GATEWAY_BASE_URL: urlOr('https://openrouter.ai/api/v1'),
  DEFAULT_MODEL: textOr(DEFAULT_MODEL),
  ALLOWED_MODELS: allowedModels,
  MODEL_PRICES: modelPrices,
  // Which models are given images (model/vision.ts): ids and prefixes (`…*`), `!` takes out, `none` for none.
  VISION_MODELS: textOr(DEFAULT_VISION_MODELS),
  DAILY_SPEND_LIMIT_USD: optionalUsd,
  SERVICE_DAILY_SPEND_LIMIT_USD: optionalUsd,
  TITLE_MODEL: optionalText,
  MEMORY_EXTRACTION_MODEL: optionalText,
  EMBEDDINGS_API_KEY: optionalText,
  EMBEDDINGS_BASE_URL: urlOr('https://api.openai.com/v1'),
  EMBEDDING_MODEL: textOr('text-embedding-3-small'),
  DATABASE_URL: optionalUrl,
  MCP_SERVER_URL: optionalUrl,
  TOKEN_USAGE_DB: optionalText,
  TOKEN_BUDGET_STORE: oneOf(['sqlite', 'postgres'], 'sqlite'),
  DAILY_TOKEN_LIMIT: int(1_000_000, { min: 1 }),
  // What turns give back within this window goes to the budget store in one write (admission/refund-window.ts); 0: each at once.
  BUDGET_REFUND_WINDOW_MS: int(1_000, { min: 0, max: 10_000 }),
  // `prompt_cache_key` sent with every model call; `off` sends none.
  PROMPT_CACHE_KEY: textOr('campus-agent'),
  // What a prompt token the provider served from its cache counts in the budget, 0-1.
  CACHED_TOKEN_WEIGHT: numberIn(0.5, 0, 1),
  MAX_OUTPUT_TOKENS: int(1_500, { min: 1 }),
  MAX_ANSWER_CHARS: int(20_000, { min: 2_000, max: 100_000 }),
  CAMPUS_BUILDINGS_FILE: optionalText,
  CAMPUS_MAP_BASE_URL: urlOr('https://maps.scottylabs.org'),
  ASSISTANT_NAME: textOr('Campus Assistant'),
  CAMPUS_NAME: textOr('Carnegie Mellon University'),
  // The campus's IANA time zone: the date and hour the model sees ("what's open tomorrow?" at 7 PM).
  CAMPUS_TIME_ZONE: textOr('America/New_York').refine(isTimeZone, 'must be an IANA time zone such as America/New_York'),
  // Public numbers: CMU Counseling and Psychological Services, CMU Police (non-emergency).
  CAMPUS_COUNSELING_PHONE: textOr('412-268-2922'),
  CAMPUS_POLICE_PHONE: textOr('412-268-2323'),
  SHUTDOWN_TIMEOUT_MS: int(15_000, { min: 1 }),
  MODEL_CALL_TIMEOUT_MS: int(60_000, { min: 1 }),
  // Answer text within this window of the last piece sent goes on with the next (model/text-batches.ts); 0: every chunk alone.
  ANSWER_BATCH_MS: int(100, { min: 0, max: 1_000 }),
  TURN_TIMEOUT_MS: int(120_000, { min: 1 }),
  MAX_TURNS_IN_FLIGHT: int(3, { min: 1 }),
  // The anonymous bucket is every signed-out student at once, not one person.
  MAX_ANONYMOUS_TURNS_IN_FLIGHT: int(100, { min: 1 }),
  TOOL_CALL_TIMEOUT_MS: int(10_000, { min: 1 }),
  // Graceful overload (lifecycle/overload.ts); 0 turns a check off.
  OVERLOAD_MAX_OPEN_TURNS: int(400, { min: 0 }),
  OVERLOAD_MAX_LOOP_DELAY_MS: int(250, { min: 0 }),
  OVERLOAD_MAX_HEAP_PERCENT: int(90, { min: 0, max: 100 }),
  // A job active this long is a dead worker's and is taken over; it must outlast an extraction (30 s).
  JOB_EXPIRE_SECONDS: int(40, { min: 2, max: 600 }),
  // Background jobs one process runs at once (each mostly awaits a model call); 10 per replica keeps up
  // with a campus peak on two replicas (BENCHMARKS.md, "Campus peak").
  JOB_CONCURRENCY: int(10, { min: 1, max: 100 }),
  // CONTRACT.md "Stream": a keep-alive comment at least every 15 s, so longer silences are refused.
  SSE_KEEPALIVE_MS: int(MAX_SSE_KEEPALIVE_MS, { min: 1, max: MAX_SSE_KEEPALIVE_MS, maxRule: 'must be at most 15000 (a keep-alive at least every 15 s)' }),
  // CONTRACT.md "Resuming a stream": a detached run waits this long for a reader (0: it ends at once).
  RUN_DETACHED_GRACE_MS: int(30_000, { min: 0, max: 600_000 }),
  RUN_RETENTION_SECONDS: int(600, { min: 1, max: 86_400 }),
  // The API docs page (`GET /docs`): on outside production, off in production unless turned on.
  API_DOCS: optionalText.transform((s) => s?.toLowerCase() ?? null).pipe(z.enum(['on', 'off'], { error: 'must be on or off' }).nullable()),
  ...otelFields,
};

/** Problems across variables, each a whole sentence naming its variables. */
function crossFieldProblems(e: z.output<z.ZodObject<typeof serviceFields>>): string[] {
  const problems: string[] = [];
  if (e.AGENT_ENV === 'production') {
    if (!e.DATABASE_URL) problems.push('DATABASE_URL is required in production');
    if (!e.AGENT_SHARED_SECRET) problems.push('AGENT_SHARED_SECRET is required in production');
    else if (e.AGENT_SHARED_SECRET.length < MIN_SHARED_SECRET_LENGTH)
      problems.push(`AGENT_SHARED_SECRET must be at least ${MIN_SHARED_SECRET_LENGTH} characters in production`);
    if (!e.LLM_GATEWAY_API_KEY) problems.push('LLM_GATEWAY_API_KEY is required in production');
    if (!e.MCP_SERVER_URL) problems.push('MCP_SERVER_URL is required in production');
  }
  for (const p of modelProblems(e)) problems.push(`${p.variable}: ${p.message}`);
  if (e.TOKEN_BUDGET_STORE === 'postgres' && !e.DATABASE_URL) problems.push('TOKEN_BUDGET_STORE=postgres requires DATABASE_URL');
  return problems;
}

/** Every variable the service reads, with its default; the rules across them in `superRefine`. */
export const envSchema = z.object(serviceFields).superRefine((e, ctx) => {
  for (const message of crossFieldProblems(e)) ctx.addIssue({ code: 'custom', message });
});

/** The terminal client (`npm run chat`) and the standalone sandbox tool server (`npm run sandbox:tools`). */
export const localToolsSchema = z.object({
  ...sharedFields,
  // The service `npm run chat` talks to; unset: this machine at PORT.
  AGENT_URL: optionalUrl,
  SANDBOX_TOOLS_PORT: port(5050),
});

/** Every variable read here, with what unset means (parsed from an empty environment): what the README's table is checked against. */
export function variableDefaults(): Record<string, unknown> {
  return { ...envSchema.parse({}), ...localToolsSchema.parse({}) };
}

/** The problems of a failed parse, each `VARIABLE: message` (a rule across variables is its own sentence). */
function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message));
}

export interface Config {
  env: 'production' | 'development' | 'test';
  port: number;
  /** Bearer token the front end sends; null turns auth off (never in production). */
  sharedSecret: string | null;
  /** Exact origins allowed by CORS; empty means no cross-origin access. */
  allowedOrigins: string[];
  gateway: ModelConfig & {
    /** Null selects the offline sandbox model (never in production). */
    apiKey: string | null;
    baseUrl: string;
  };
  embeddings: {
    /** Null turns off moderation and semantic recall. */
    apiKey: string | null;
    baseUrl: string;
    model: string;
  };
  /** Null selects the in-memory store (never in production). */
  databaseUrl: string | null;
  /** Null starts the sandbox campus tool server in-process (never in production). */
  mcpServerUrl: string | null;
  budget: {
    store: 'sqlite' | 'postgres';
    sqlitePath: string;
    dailyTokenLimit: number;
    /**
     * BUDGET_REFUND_WINDOW_MS (default 1000; 0: each at once): what finished turns give back within it
     * is written to the store together (admission/refund-window.ts).
     */
    refundWindowMs: number;
    /**
     * MAX_OUTPUT_TOKENS: the `max_tokens` every chat pass is sent with, so the most a pass can write;
     * reserved with the pass's input estimate before it is sent.
     */
    maxOutputTokens: number;
    /** PROMPT_CACHE_KEY (default `campus-agent`; `off`: none): the `prompt_cache_key` of every model call. */
    promptCacheKey: string | null;
    /**
     * CACHED_TOKEN_WEIGHT: what a prompt token served from the provider's cache counts in the budget
     * (default 0.5: OpenAI bills cached input at half price or less).
     */
    cachedTokenWeight: number;
    /** DAILY_SPEND_LIMIT_USD: what one user (or the `anonymous` bucket) may spend a UTC day; null: no limit. */
    dailySpendLimitUsd: number | null;
    /** SERVICE_DAILY_SPEND_LIMIT_USD: what the whole service may spend a UTC day (chat, titles, extraction); null: no cap. */
    serviceDailySpendLimitUsd: number | null;
  };
  campus: {
    buildingsFile: string | null;
    mapBaseUrl: string;
    assistantName: string;
    campusName: string;
    /** CAMPUS_TIME_ZONE (IANA), default America/New_York: the campus's date and time in the prompt. */
    timeZone: string;
    counselingPhone: string;
    policePhone: string;
  };
  shutdownTimeoutMs: number;
  /** Deadline of a whole chat turn (CONTRACT.md `TURN_TIMEOUT_MS`): past it the turn ends with an `error` event. */
  turnTimeoutMs: number;
  /**
   * MAX_ANSWER_CHARS: the most an answer holds, marks and notes included; the model is read no further
   * once its text reaches it or what leaves fills it, and the answer ends with a short note.
   */
  maxAnswerChars: number;
  /** Chat turns one user (or the `anonymous` bucket) may have running at once; more answer 429. */
  maxTurnsInFlight: number;
  /** Chat turns of signed-out students (the shared `anonymous` bucket) running at once in this process. */
  maxAnonymousTurnsInFlight: number;
  /** Deadline of one model call (a streamed pass or a completion). */
  modelCallTimeoutMs: number;
  /** ANSWER_BATCH_MS: the window in which answer text is sent together. */
  answerBatchMs: number;
  /** Deadline of one campus tool call (also bounds tool discovery). */
  toolCallTimeoutMs: number;
  /**
   * JOB_EXPIRE_SECONDS: a background job (memory extraction) still active after this long is taken
   * over by another replica (Postgres queue); its handler is ended 2 s before.
   */
  jobExpireSeconds: number;
  /** JOB_CONCURRENCY: background jobs this process runs at once (either queue); more wait their turn. */
  jobConcurrency: number;
  /**
   * When new chat turns are refused with 503 + Retry-After (open streams are never cut): turns running,
   * event-loop delay p99 over the last second, heap used as a percentage of its limit; 0 turns one off.
   */
  overload: { maxOpenTurns: number; maxLoopDelayMs: number; maxHeapPercent: number };
  /** Silence on a chat stream before a `: keep-alive` comment (CONTRACT.md: at least every 15 s). */
  sseKeepAliveMs: number;
  /**
   * Resumable runs (CONTRACT.md "Resuming a stream"): RUN_DETACHED_GRACE_MS, how long a run whose reader
   * went away goes on waiting for one; RUN_RETENTION_SECONDS, how long an ended run can be replayed.
   */
  runs: { detachedGraceMs: number; retentionSeconds: number };
  /**
   * API_DOCS: whether `GET /docs` (Swagger UI over `/openapi.json`) is served; default on outside
   * production, off in production (where the document itself is behind the bearer token).
   */
  apiDocs: boolean;
  logLevel: LogLevel;
  /** OpenTelemetry export; null (the default) loads nothing of OpenTelemetry. */
  telemetry: TelemetryConfig | null;
  /** Human-readable list of the local defaults in force (no secret values), logged once at start. */
  defaultsInForce: string[];
}

/** Thrown when the environment cannot make a valid configuration; the message names every problem. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Builds the configuration from an environment. Pure: no I/O, no process access. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(problemsOf(parsed.error));
  const e = parsed.data;
  const defaultsInForce: string[] = [];
  if (!e.DATABASE_URL) defaultsInForce.push('memory: in-memory store (DATABASE_URL unset)');
  if (!e.LLM_GATEWAY_API_KEY)
    defaultsInForce.push('model: offline sandbox model (a real gateway needs LLM_GATEWAY_API_KEY)');
  if (!e.MCP_SERVER_URL) defaultsInForce.push('tools: in-process sandbox campus tool server (MCP_SERVER_URL unset)');
  if (!e.EMBEDDINGS_API_KEY) defaultsInForce.push('recall: by recency, moderation: off (EMBEDDINGS_API_KEY unset)');
  if (!e.AGENT_SHARED_SECRET) defaultsInForce.push('auth: off (AGENT_SHARED_SECRET unset)');
  if (!e.CAMPUS_BUILDINGS_FILE) defaultsInForce.push('campus: built-in building catalog');

  return {
    env: e.AGENT_ENV,
    port: e.PORT,
    sharedSecret: e.AGENT_SHARED_SECRET,
    allowedOrigins: (e.ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter(Boolean),
    gateway: { apiKey: e.LLM_GATEWAY_API_KEY, baseUrl: e.LLM_GATEWAY_BASE_URL, ...modelConfig(e) },
    embeddings: { apiKey: e.EMBEDDINGS_API_KEY, baseUrl: e.EMBEDDINGS_BASE_URL, model: e.EMBEDDING_MODEL },
    databaseUrl: e.DATABASE_URL,
    mcpServerUrl: e.MCP_SERVER_URL,
    budget: {
      store: e.TOKEN_BUDGET_STORE,
      sqlitePath: e.TOKEN_USAGE_DB ?? join(tmpdir(), 'campus-agent-token-usage.sqlite'),
      dailyTokenLimit: e.DAILY_TOKEN_LIMIT,
      refundWindowMs: e.BUDGET_REFUND_WINDOW_MS,
      maxOutputTokens: e.MAX_OUTPUT_TOKENS,
      cachedTokenWeight: e.CACHED_TOKEN_WEIGHT,
      dailySpendLimitUsd: e.DAILY_SPEND_LIMIT_USD,
      serviceDailySpendLimitUsd: e.SERVICE_DAILY_SPEND_LIMIT_USD,
      promptCacheKey: e.PROMPT_CACHE_KEY.toLowerCase() === 'off' ? null : e.PROMPT_CACHE_KEY,
    },
    campus: {
      buildingsFile: e.CAMPUS_BUILDINGS_FILE,
      mapBaseUrl: e.CAMPUS_MAP_BASE_URL.replace(/\/+$/, ''),
      assistantName: e.ASSISTANT_NAME,
      campusName: e.CAMPUS_NAME,
      timeZone: e.CAMPUS_TIME_ZONE,
      counselingPhone: e.CAMPUS_COUNSELING_PHONE,
      policePhone: e.CAMPUS_POLICE_PHONE,
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    turnTimeoutMs: e.TURN_TIMEOUT_MS,
    maxAnswerChars: e.MAX_ANSWER_CHARS,
    maxTurnsInFlight: e.MAX_TURNS_IN_FLIGHT,
    maxAnonymousTurnsInFlight: e.MAX_ANONYMOUS_TURNS_IN_FLIGHT,
    modelCallTimeoutMs: e.MODEL_CALL_TIMEOUT_MS,
    answerBatchMs: e.ANSWER_BATCH_MS,
    toolCallTimeoutMs: e.TOOL_CALL_TIMEOUT_MS,
    jobExpireSeconds: e.JOB_EXPIRE_SECONDS,
    jobConcurrency: e.JOB_CONCURRENCY,
    overload: {
      maxOpenTurns: e.OVERLOAD_MAX_OPEN_TURNS,
      maxLoopDelayMs: e.OVERLOAD_MAX_LOOP_DELAY_MS,
      maxHeapPercent: e.OVERLOAD_MAX_HEAP_PERCENT,
    },
    sseKeepAliveMs: e.SSE_KEEPALIVE_MS,
    runs: { detachedGraceMs: e.RUN_DETACHED_GRACE_MS, retentionSeconds: e.RUN_RETENTION_SECONDS },
    apiDocs: e.API_DOCS === null ? e.AGENT_ENV !== 'production' : e.API_DOCS === 'on',
    logLevel: e.LOG_LEVEL,
    telemetry: telemetryConfig(e),
    defaultsInForce,
  };
}

/** What the terminal client and the standalone sandbox tool server read. */
export interface LocalToolsConfig {
  /** AGENT_URL, default http://127.0.0.1:PORT: the service `npm run chat` talks to. */
  agentUrl: string;
  sharedSecret: string | null;
  /** SANDBOX_TOOLS_PORT, default 5050: the port of `npm run sandbox:tools`. */
  sandboxToolsPort: number;
  logLevel: LogLevel;
}

/** The local tools' configuration from an environment. Pure, like parseConfig. */
export function parseLocalToolsConfig(env: Record<string, string | undefined>): LocalToolsConfig {
  const parsed = localToolsSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(problemsOf(parsed.error));
  const e = parsed.data;
  return {
    agentUrl: (e.AGENT_URL ?? `http://127.0.0.1:${e.PORT || 5055}`).replace(/\/+$/, ''),
    sharedSecret: e.AGENT_SHARED_SECRET,
    sandboxToolsPort: e.SANDBOX_TOOLS_PORT,
    logLevel: e.LOG_LEVEL,
  };
}
