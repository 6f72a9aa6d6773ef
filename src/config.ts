/**
 * Configuration: the only reader of process.env. `parseConfig(env)` is pure so tests can feed it any
 * environment; `server.ts` passes `process.env` once at start.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/** Minimum length of AGENT_SHARED_SECRET in production (CONTRACT.md "Configuration"). */
export const MIN_SHARED_SECRET_LENGTH = 32;

/**
 * The characters a bearer token may hold (RFC 6750 b64token), which Hono's bearer-auth enforces: a
 * secret outside them could never be presented, so config refuses it (`openssl rand -hex 32` fits).
 */
export const BEARER_TOKEN_PATTERN = /^[A-Za-z0-9._~+/-]+=*$/;

/** CONTRACT.md "Stream": clients and proxies get a keep-alive comment at least every 15 s. */
export const MAX_SSE_KEEPALIVE_MS = 15_000;

const optionalString = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s ? s : null));

const optionalUrl = optionalString.refine((s) => s === null || URL.canParse(s), 'must be a URL');

/** Whether Intl knows `zone` (an IANA name such as America/New_York). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const positiveInt = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((s) => (s && s.trim() ? Number(s) : fallback))
    .pipe(z.number().int().positive());

/** A `<vendor>/<model>` id: what a request's `model`, an ALLOWED_MODELS entry and a MODEL_PRICES key look like. */
export const MODEL_ID_PATTERN = /^[^\s/]+\/\S+$/;

/** One model's prices in US dollars per million tokens (MODEL_PRICES). */
export interface ModelPrice {
  input: number;
  /** Prompt tokens the provider served from its cache; the input price when not given. */
  cachedInput: number;
  output: number;
}

/**
 * The default model's prices (OpenAI's list price of gpt-4o-mini, the figures issue 47 gives, written
 * down 2026-11-25): an example to check against the gateway's price page, never a promise.
 * MODEL_PRICES entries are added over these (an entry of the same id replaces one).
 */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  'openai/gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
};

/** An optional amount of US dollars a day (a spend limit): unset is no limit. */
const optionalUsd = z
  .string()
  .optional()
  .transform((s) => (s && s.trim() ? Number(s) : null))
  .pipe(z.number().positive('must be a positive amount of US dollars').finite().nullable());

const price = z.number({ error: 'must be a number (US dollars per million tokens)' }).min(0, 'must not be negative').finite();

/** MODEL_PRICES: `{"<vendor>/<model>": {"input": 0.15, "cached_input": 0.075, "output": 0.6}}`, USD per million tokens. */
const modelPrices = z
  .string()
  .optional()
  .transform((s, ctx) => {
    if (!s || !s.trim()) return {};
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of model ids to prices' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(
      z.string().trim().regex(MODEL_ID_PATTERN, 'every key must be a <vendor>/<model> id'),
      z.strictObject({ input: price, cached_input: price.optional(), output: price }),
      { error: 'must be a JSON object of model ids to prices' },
    ),
  );

const nonNegativeInt = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((s) => (s && s.trim() ? Number(s) : fallback))
    .pipe(z.number().int().min(0));

const envSchema = z.object({
  AGENT_ENV: z
    .string()
    .optional()
    .transform((s) => (s ?? 'development').trim().toLowerCase())
    .pipe(z.enum(['production', 'development', 'test'])),
  PORT: z
    .string()
    .optional()
    .transform((s) => (s && s.trim() ? Number(s) : 5055))
    .pipe(z.number().int().min(0).max(65535)),
  AGENT_SHARED_SECRET: optionalString.refine(
    (s) => s === null || BEARER_TOKEN_PATTERN.test(s),
    'may hold only letters, digits and . _ ~ + / - (then = padding): a bearer token cannot carry other characters',
  ),
  ALLOWED_ORIGINS: optionalString,
  LLM_GATEWAY_API_KEY: optionalString,
  LLM_GATEWAY_BASE_URL: optionalUrl,
  DEFAULT_MODEL: optionalString,
  // Comma-separated `<vendor>/<model>` ids a request may name, or `*` for any.
  ALLOWED_MODELS: optionalString,
  MODEL_PRICES: modelPrices,
  DAILY_SPEND_LIMIT_USD: optionalUsd,
  SERVICE_DAILY_SPEND_LIMIT_USD: optionalUsd,
  TITLE_MODEL: optionalString,
  MEMORY_EXTRACTION_MODEL: optionalString,
  EMBEDDINGS_API_KEY: optionalString,
  EMBEDDINGS_BASE_URL: optionalUrl,
  EMBEDDING_MODEL: optionalString,
  DATABASE_URL: optionalUrl,
  MCP_SERVER_URL: optionalUrl,
  TOKEN_USAGE_DB: optionalString,
  TOKEN_BUDGET_STORE: z
    .string()
    .optional()
    .transform((s) => (s ?? 'sqlite').trim().toLowerCase() || 'sqlite')
    .pipe(z.enum(['sqlite', 'postgres'])),
  DAILY_TOKEN_LIMIT: positiveInt(1_000_000),
  // `prompt_cache_key` sent with every model call; `off` sends none.
  PROMPT_CACHE_KEY: optionalString,
  // What a prompt token the provider served from its cache counts in the budget, 0-1.
  CACHED_TOKEN_WEIGHT: z
    .string()
    .optional()
    .transform((s) => (s && s.trim() ? Number(s) : 0.5))
    .pipe(z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1')),
  MAX_OUTPUT_TOKENS: positiveInt(1_500),
  MAX_ANSWER_CHARS: positiveInt(20_000).pipe(z.number().max(100_000, 'must be at most 100000')),
  CAMPUS_BUILDINGS_FILE: optionalString,
  CAMPUS_MAP_BASE_URL: optionalUrl,
  ASSISTANT_NAME: optionalString,
  CAMPUS_NAME: optionalString,
  // The campus's IANA time zone: the date and hour the model sees ("what's open tomorrow?" at 7 PM).
  CAMPUS_TIME_ZONE: optionalString.refine((s) => s === null || isTimeZone(s), 'must be an IANA time zone such as America/New_York'),
  CAMPUS_COUNSELING_PHONE: optionalString,
  CAMPUS_POLICE_PHONE: optionalString,
  SHUTDOWN_TIMEOUT_MS: positiveInt(15_000),
  MODEL_CALL_TIMEOUT_MS: positiveInt(60_000),
  TURN_TIMEOUT_MS: positiveInt(120_000),
  MAX_TURNS_IN_FLIGHT: positiveInt(3),
  // The anonymous bucket is every signed-out student at once, not one person.
  MAX_ANONYMOUS_TURNS_IN_FLIGHT: positiveInt(100),
  TOOL_CALL_TIMEOUT_MS: positiveInt(10_000),
  // A job active this long is a dead worker's and is taken over; it must outlast an extraction (30 s).
  // Graceful overload (lifecycle/overload.ts); 0 turns a check off.
  OVERLOAD_MAX_OPEN_TURNS: nonNegativeInt(400),
  OVERLOAD_MAX_LOOP_DELAY_MS: nonNegativeInt(250),
  OVERLOAD_MAX_HEAP_PERCENT: nonNegativeInt(90).pipe(z.number().max(100, 'must be at most 100')),
  JOB_EXPIRE_SECONDS: positiveInt(40).pipe(z.number().min(2, 'must be at least 2').max(600, 'must be at most 600')),
  // Background jobs one process runs at once (each mostly awaits a model call); 10 per replica keeps up
  // with a campus peak on two replicas (BENCHMARKS.md, "Campus peak").
  JOB_CONCURRENCY: positiveInt(10).pipe(z.number().max(100, 'must be at most 100')),
  // CONTRACT.md "Stream": a keep-alive comment at least every 15 s, so longer silences are refused.
  SSE_KEEPALIVE_MS: positiveInt(MAX_SSE_KEEPALIVE_MS).pipe(z.number().max(MAX_SSE_KEEPALIVE_MS, 'must be at most 15000 (a keep-alive at least every 15 s)')),
  AGENT_URL: optionalUrl,
  // The API docs page (`GET /docs`): on outside production, off in production unless turned on.
  API_DOCS: z
    .string()
    .optional()
    .transform((s) => (s ?? '').trim().toLowerCase())
    .pipe(z.enum(['', 'on', 'off'], { error: 'must be on or off' })),
  SANDBOX_TOOLS_PORT: z
    .string()
    .optional()
    .transform((s) => (s && s.trim() ? Number(s) : 5050))
    .pipe(z.number().int().min(0).max(65535)),
  LOG_LEVEL: z
    .string()
    .optional()
    .transform((s) => (s ?? 'info').trim().toLowerCase() || 'info')
    .pipe(z.enum(['debug', 'info', 'warn', 'error', 'silent'])),
});

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export const OTEL_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/**
 * OpenTelemetry export (the standard OTEL_* variables), present only when an OTLP endpoint is set and
 * OTEL_SDK_DISABLED is not true. Without it nothing of OpenTelemetry is loaded.
 */
export interface TelemetryConfig {
  /** OTEL_SERVICE_NAME, default `campus-agent`. */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES (`key=value,...`). */
  resourceAttributes: Record<string, string>;
  /** OTEL_EXPORTER_OTLP_PROTOCOL: `http/protobuf` (the default) or `http/json`. */
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or the base endpoint + `/v1/traces`; null: traces off. */
  tracesEndpoint: string | null;
  /** OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, or the base endpoint + `/v1/metrics`; null: metrics off. */
  metricsEndpoint: string | null;
  /** OTEL_EXPORTER_OTLP_HEADERS (`key=value,...`, values URL-encoded); treated as secrets. */
  tracesHeaders: Record<string, string>;
  metricsHeaders: Record<string, string>;
  /** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (the ratio of the `traceidratio` samplers). */
  sampler: (typeof OTEL_SAMPLERS)[number];
  samplerRatio: number;
  /** OTEL_BSP_SCHEDULE_DELAY: milliseconds between span batch exports. */
  batchDelayMs: number;
  /** OTEL_METRIC_EXPORT_INTERVAL: milliseconds between metric exports. */
  metricIntervalMs: number;
  /** OTEL_EXPORTER_OTLP_TIMEOUT: deadline of one export request. */
  exportTimeoutMs: number;
}

/** `key=value,key2=value2` (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES); values URL-decoded. */
function parseKeyValues(name: string, raw: string | undefined, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (raw ?? '').split(',')) {
    if (!part.trim()) continue;
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq).trim() : '';
    if (!key) {
      // The entry may be a secret: its position is named, never its text.
      problems.push(`${name}: every entry must be key=value`);
      continue;
    }
    try {
      out[key] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      problems.push(`${name}: the value of ${key} is not URL-encoded correctly`);
    }
  }
  return out;
}

function otlpEndpoint(base: string | null, specific: string | null, path: string): string | null {
  if (specific) return specific;
  if (!base) return null;
  return `${base.replace(/\/+$/, '')}${path}`;
}

/** The OTEL_* part of the configuration; null when no endpoint is set or the SDK is disabled. */
function parseTelemetryConfig(env: Record<string, string | undefined>, problems: string[]): TelemetryConfig | null {
  const text = (name: string) => {
    const v = env[name]?.trim();
    return v ? v : null;
  };
  if (text('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const url = (name: string) => {
    const v = text(name);
    if (v !== null && !URL.canParse(v)) {
      problems.push(`${name}: must be a URL`);
      return null;
    }
    return v;
  };
  const base = url('OTEL_EXPORTER_OTLP_ENDPOINT');
  const exporterOff = (name: string) => text(name)?.toLowerCase() === 'none';
  const tracesEndpoint = exporterOff('OTEL_TRACES_EXPORTER') ? null : otlpEndpoint(base, url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'), '/v1/traces');
  const metricsEndpoint = exporterOff('OTEL_METRICS_EXPORTER') ? null : otlpEndpoint(base, url('OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'), '/v1/metrics');
  if (!tracesEndpoint && !metricsEndpoint) return null;

  const protocol = text('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    problems.push('OTEL_EXPORTER_OTLP_PROTOCOL: must be http/protobuf or http/json (grpc is not supported)');
  }
  const sampler = (text('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase();
  if (!(OTEL_SAMPLERS as readonly string[]).includes(sampler)) {
    problems.push(`OTEL_TRACES_SAMPLER: must be one of ${OTEL_SAMPLERS.join(', ')}`);
  }
  const number = (name: string, fallback: number, valid: (n: number) => boolean, rule: string) => {
    const v = text(name);
    if (v === null) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || !valid(n)) {
      problems.push(`${name}: ${rule}`);
      return fallback;
    }
    return n;
  };
  const ratioSampler = sampler.endsWith('traceidratio');
  const samplerRatio = ratioSampler
    ? number('OTEL_TRACES_SAMPLER_ARG', 1, (n) => n >= 0 && n <= 1, 'must be a number from 0 to 1')
    : 1;
  const positive = (n: number) => Number.isInteger(n) && n > 0;
  const headers = parseKeyValues('OTEL_EXPORTER_OTLP_HEADERS', env.OTEL_EXPORTER_OTLP_HEADERS, problems);
  return {
    serviceName: text('OTEL_SERVICE_NAME') ?? 'campus-agent',
    resourceAttributes: parseKeyValues('OTEL_RESOURCE_ATTRIBUTES', env.OTEL_RESOURCE_ATTRIBUTES, problems),
    protocol: protocol === 'http/json' ? 'http/json' : 'http/protobuf',
    tracesEndpoint,
    metricsEndpoint,
    tracesHeaders: { ...headers, ...parseKeyValues('OTEL_EXPORTER_OTLP_TRACES_HEADERS', env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, problems) },
    metricsHeaders: { ...headers, ...parseKeyValues('OTEL_EXPORTER_OTLP_METRICS_HEADERS', env.OTEL_EXPORTER_OTLP_METRICS_HEADERS, problems) },
    sampler: sampler as TelemetryConfig['sampler'],
    samplerRatio,
    batchDelayMs: number('OTEL_BSP_SCHEDULE_DELAY', 5_000, positive, 'must be a positive integer (milliseconds)'),
    metricIntervalMs: number('OTEL_METRIC_EXPORT_INTERVAL', 60_000, positive, 'must be a positive integer (milliseconds)'),
    exportTimeoutMs: number('OTEL_EXPORTER_OTLP_TIMEOUT', 10_000, positive, 'must be a positive integer (milliseconds)'),
  };
}

export interface Config {
  env: 'production' | 'development' | 'test';
  port: number;
  /** Bearer token the front end sends; null turns auth off (never in production). */
  sharedSecret: string | null;
  /** Exact origins allowed by CORS; empty means no cross-origin access. */
  allowedOrigins: string[];
  gateway: {
    /** Null selects the offline sandbox model (never in production). */
    apiKey: string | null;
    baseUrl: string;
    defaultModel: string;
    titleModel: string;
    extractionModel: string;
    /**
     * ALLOWED_MODELS: the ids a request may name, or `*` for any. Unset: any outside production, the
     * default model alone in production.
     */
    allowedModels: string[] | '*';
    /** BUILTIN_PRICES with MODEL_PRICES over them (USD per million tokens). */
    prices: Record<string, ModelPrice>;
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
  /** MAX_ANSWER_CHARS: an answer longer than this stops reading the model and ends with a short note. */
  maxAnswerChars: number;
  /** Chat turns one user (or the `anonymous` bucket) may have running at once; more answer 429. */
  maxTurnsInFlight: number;
  /** Chat turns of signed-out students (the shared `anonymous` bucket) running at once in this process. */
  maxAnonymousTurnsInFlight: number;
  /** Deadline of one model call (a streamed pass or a completion). */
  modelCallTimeoutMs: number;
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
   * API_DOCS: whether `GET /docs` (Swagger UI over `/openapi.json`) is served; default on outside
   * production, off in production (where the document itself is behind the bearer token).
   */
  apiDocs: boolean;
  /** Port of the standalone sandbox campus tool server (`npm run sandbox:tools`), default 5050. */
  sandboxToolsPort: number;
  /** Service base URL `npm run chat` talks to (AGENT_URL); default http://127.0.0.1:PORT. */
  agentUrl: string;
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

export const DEFAULTS = {
  gatewayBaseUrl: 'https://openrouter.ai/api/v1',
  embeddingsBaseUrl: 'https://api.openai.com/v1',
  model: 'openai/gpt-4o-mini',
  embeddingModel: 'text-embedding-3-small',
  mapBaseUrl: 'https://maps.scottylabs.org',
  assistantName: 'Campus Assistant',
  campusName: 'Carnegie Mellon University',
  timeZone: 'America/New_York',
  // Public numbers: CMU Counseling and Psychological Services, CMU Police (non-emergency).
  counselingPhone: '412-268-2922',
  policePhone: '412-268-2323',
} as const;

type ModelConfig = Pick<Config['gateway'], 'defaultModel' | 'titleModel' | 'extractionModel' | 'allowedModels' | 'prices'>;

/**
 * The models and their prices. A listed id must look like `<vendor>/<model>`; the default model must be
 * allowed (a request naming none uses it); in production every model the service calls (the allowed
 * ones, the title and extraction models) needs a price, so no call is ever priced by a guess.
 */
function modelConfig(e: z.output<typeof envSchema>, problems: string[]): ModelConfig {
  const defaultModel = e.DEFAULT_MODEL ?? DEFAULTS.model;
  const titleModel = e.TITLE_MODEL ?? defaultModel;
  const extractionModel = e.MEMORY_EXTRACTION_MODEL ?? defaultModel;
  const prices: Record<string, ModelPrice> = { ...BUILTIN_PRICES };
  for (const [id, p] of Object.entries(e.MODEL_PRICES)) prices[id] = { input: p.input, cachedInput: p.cached_input ?? p.input, output: p.output };
  let allowedModels: string[] | '*';
  if (e.ALLOWED_MODELS === '*') allowedModels = '*';
  else if (e.ALLOWED_MODELS === null) allowedModels = e.AGENT_ENV === 'production' ? [defaultModel] : '*';
  else {
    allowedModels = [...new Set(e.ALLOWED_MODELS.split(',').map((id) => id.trim()).filter(Boolean))];
    const malformed = allowedModels.filter((id) => !MODEL_ID_PATTERN.test(id));
    if (malformed.length > 0 || allowedModels.length === 0) problems.push('ALLOWED_MODELS: must be * or comma-separated <vendor>/<model> ids');
    else if (!allowedModels.includes(defaultModel)) problems.push(`ALLOWED_MODELS: must include the default model ${defaultModel} (DEFAULT_MODEL)`);
  }
  if (e.AGENT_ENV === 'production') {
    const called = new Set([...(allowedModels === '*' ? [defaultModel] : allowedModels), titleModel, extractionModel]);
    const unpriced = [...called].filter((id) => !Object.hasOwn(prices, id));
    if (unpriced.length > 0) problems.push(`MODEL_PRICES: no price for ${unpriced.join(', ')} (every model the service calls needs one in production)`);
  }
  return { defaultModel, titleModel, extractionModel, allowedModels, prices };
}

/** Builds the configuration from an environment. Pure: no I/O, no process access. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`),
    );
  }
  const e = parsed.data;
  const problems: string[] = [];
  if (e.AGENT_ENV === 'production') {
    if (!e.DATABASE_URL) problems.push('DATABASE_URL is required in production');
    if (!e.AGENT_SHARED_SECRET) problems.push('AGENT_SHARED_SECRET is required in production');
    else if (e.AGENT_SHARED_SECRET.length < MIN_SHARED_SECRET_LENGTH)
      problems.push(`AGENT_SHARED_SECRET must be at least ${MIN_SHARED_SECRET_LENGTH} characters in production`);
    if (!e.LLM_GATEWAY_API_KEY) problems.push('LLM_GATEWAY_API_KEY is required in production');
    if (!e.MCP_SERVER_URL) problems.push('MCP_SERVER_URL is required in production');
  }
  const gateway = modelConfig(e, problems);
  if (e.TOKEN_BUDGET_STORE === 'postgres' && !e.DATABASE_URL)
    problems.push('TOKEN_BUDGET_STORE=postgres requires DATABASE_URL');
  const telemetry = parseTelemetryConfig(env, problems);
  if (problems.length > 0) throw new ConfigError(problems);

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
    gateway: {
      apiKey: e.LLM_GATEWAY_API_KEY,
      baseUrl: e.LLM_GATEWAY_BASE_URL ?? DEFAULTS.gatewayBaseUrl,
      ...gateway,
    },
    embeddings: {
      apiKey: e.EMBEDDINGS_API_KEY,
      baseUrl: e.EMBEDDINGS_BASE_URL ?? DEFAULTS.embeddingsBaseUrl,
      model: e.EMBEDDING_MODEL ?? DEFAULTS.embeddingModel,
    },
    databaseUrl: e.DATABASE_URL,
    mcpServerUrl: e.MCP_SERVER_URL,
    budget: {
      store: e.TOKEN_BUDGET_STORE,
      sqlitePath: e.TOKEN_USAGE_DB ?? join(tmpdir(), 'campus-agent-token-usage.sqlite'),
      dailyTokenLimit: e.DAILY_TOKEN_LIMIT,
      maxOutputTokens: e.MAX_OUTPUT_TOKENS,
      cachedTokenWeight: e.CACHED_TOKEN_WEIGHT,
      dailySpendLimitUsd: e.DAILY_SPEND_LIMIT_USD,
      serviceDailySpendLimitUsd: e.SERVICE_DAILY_SPEND_LIMIT_USD,
      promptCacheKey: e.PROMPT_CACHE_KEY === null ? 'campus-agent' : e.PROMPT_CACHE_KEY.toLowerCase() === 'off' ? null : e.PROMPT_CACHE_KEY,
    },
    campus: {
      buildingsFile: e.CAMPUS_BUILDINGS_FILE,
      mapBaseUrl: (e.CAMPUS_MAP_BASE_URL ?? DEFAULTS.mapBaseUrl).replace(/\/+$/, ''),
      assistantName: e.ASSISTANT_NAME ?? DEFAULTS.assistantName,
      campusName: e.CAMPUS_NAME ?? DEFAULTS.campusName,
      timeZone: e.CAMPUS_TIME_ZONE ?? DEFAULTS.timeZone,
      counselingPhone: e.CAMPUS_COUNSELING_PHONE ?? DEFAULTS.counselingPhone,
      policePhone: e.CAMPUS_POLICE_PHONE ?? DEFAULTS.policePhone,
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    turnTimeoutMs: e.TURN_TIMEOUT_MS,
    maxAnswerChars: e.MAX_ANSWER_CHARS,
    maxTurnsInFlight: e.MAX_TURNS_IN_FLIGHT,
    maxAnonymousTurnsInFlight: e.MAX_ANONYMOUS_TURNS_IN_FLIGHT,
    modelCallTimeoutMs: e.MODEL_CALL_TIMEOUT_MS,
    toolCallTimeoutMs: e.TOOL_CALL_TIMEOUT_MS,
    jobExpireSeconds: e.JOB_EXPIRE_SECONDS,
    jobConcurrency: e.JOB_CONCURRENCY,
    overload: {
      maxOpenTurns: e.OVERLOAD_MAX_OPEN_TURNS,
      maxLoopDelayMs: e.OVERLOAD_MAX_LOOP_DELAY_MS,
      maxHeapPercent: e.OVERLOAD_MAX_HEAP_PERCENT,
    },
    sseKeepAliveMs: e.SSE_KEEPALIVE_MS,
    apiDocs: e.API_DOCS === '' ? e.AGENT_ENV !== 'production' : e.API_DOCS === 'on',
    sandboxToolsPort: e.SANDBOX_TOOLS_PORT,
    agentUrl: (e.AGENT_URL ?? `http://127.0.0.1:${e.PORT || 5055}`).replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    telemetry,
    defaultsInForce,
  };
}
