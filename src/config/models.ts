/**
 * The models the service calls and what they cost: the ALLOWED_MODELS list, MODEL_PRICES over the
 * built-in prices, and the rules that tie them to DEFAULT_MODEL, TITLE_MODEL and MEMORY_EXTRACTION_MODEL.
 */
import { z } from 'zod';

/** A `<vendor>/<model>` id: what a request's `model`, an ALLOWED_MODELS entry and a MODEL_PRICES key look like. */
export const MODEL_ID_PATTERN = /^[^\s/]+\/\S+$/;

/** The chat model when a request names none, and the title and extraction models' default. */
export const DEFAULT_MODEL = 'openai/gpt-4o-mini';

/**
 * VISION_MODELS' default: the OpenAI families that see (gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1, o3, o4)
 * and the other vendors' vision models. A `!` entry takes ids out (o1-mini and o3-mini do not see);
 * `*` ends a prefix. gpt-3.5-turbo and unknown models do not see.
 */
export const DEFAULT_VISION_MODELS = [
  'openai/gpt-4o*', 'openai/gpt-4.1*', 'openai/gpt-4.5*', 'openai/gpt-5*', 'openai/o1*', 'openai/o3*', 'openai/o4*',
  '!openai/o1-mini*', '!openai/o3-mini*', '!openai/gpt-4o-audio*', '!openai/gpt-4o-search*',
  'anthropic/claude-3*', 'anthropic/claude-sonnet-4*', 'anthropic/claude-opus-4*', 'anthropic/claude-haiku-4*',
  'google/gemini-*', 'meta-llama/llama-3.2-11b-vision*', 'meta-llama/llama-3.2-90b-vision*', 'meta-llama/llama-4-*',
  'mistralai/pixtral-*', 'mistralai/mistral-small-3*', 'mistralai/mistral-medium-3*', 'qwen/qwen2.5-vl-*', 'qwen/qwen-vl-*', 'x-ai/grok-4*',
].join(',');

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
  [DEFAULT_MODEL]: { input: 0.15, cachedInput: 0.075, output: 0.6 },
};

/** An optional amount of US dollars a day (a spend limit): unset is no limit. */
export const optionalUsd = z
  .string()
  .optional()
  .transform((s) => (s && s.trim() ? Number(s) : null))
  .pipe(z.number().positive('must be a positive amount of US dollars').finite().nullable());

const price = z.number({ error: 'must be a number (US dollars per million tokens)' }).min(0, 'must not be negative').finite();

/** MODEL_PRICES: `{"<vendor>/<model>": {"input": 0.15, "cached_input": 0.075, "output": 0.6}}`, USD per million tokens. */
export const modelPrices = z
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

/** ALLOWED_MODELS: `*`, or comma-separated ids (deduplicated); unset is null (decided by AGENT_ENV). */
export const allowedModels = z
  .string()
  .optional()
  .transform((s) => {
    if (!s || !s.trim()) return null;
    if (s.trim() === '*') return '*' as const;
    return [...new Set(s.split(',').map((id) => id.trim()).filter(Boolean))];
  })
  .refine((v) => v === null || v === '*' || (v.length > 0 && v.every((id) => MODEL_ID_PATTERN.test(id))), 'must be * or comma-separated <vendor>/<model> ids');

/** What the model variables read as. */
export interface ModelVariables {
  AGENT_ENV: 'production' | 'development' | 'test';
  DEFAULT_MODEL: string;
  TITLE_MODEL: string | null;
  MEMORY_EXTRACTION_MODEL: string | null;
  ALLOWED_MODELS: string[] | '*' | null;
  MODEL_PRICES: Record<string, { input: number; cached_input?: number | undefined; output: number }>;
  VISION_MODELS: string;
}

export interface ModelConfig {
  defaultModel: string;
  titleModel: string;
  extractionModel: string;
  /** ALLOWED_MODELS: the ids a request may name, or `*` for any. Unset: any outside production, the default model alone in production. */
  allowedModels: string[] | '*';
  /** BUILTIN_PRICES with MODEL_PRICES over them (USD per million tokens). */
  prices: Record<string, ModelPrice>;
  /** VISION_MODELS: which models are given images (model/vision.ts reads it). */
  visionModels: string;
}

export function modelConfig(e: ModelVariables): ModelConfig {
  const defaultModel = e.DEFAULT_MODEL;
  const prices: Record<string, ModelPrice> = { ...BUILTIN_PRICES };
  for (const [id, p] of Object.entries(e.MODEL_PRICES)) prices[id] = { input: p.input, cachedInput: p.cached_input ?? p.input, output: p.output };
  return {
    defaultModel,
    titleModel: e.TITLE_MODEL ?? defaultModel,
    extractionModel: e.MEMORY_EXTRACTION_MODEL ?? defaultModel,
    allowedModels: e.ALLOWED_MODELS ?? (e.AGENT_ENV === 'production' ? [defaultModel] : '*'),
    prices,
    visionModels: e.VISION_MODELS,
  };
}

/**
 * The rules across the model variables: the default model must be allowed (a request naming none uses
 * it); in production every model the service calls (the allowed ones, the title and extraction models)
 * needs a price, so no call is ever priced by a guess.
 */
export function modelProblems(e: ModelVariables): Array<{ variable: string; message: string }> {
  const m = modelConfig(e);
  const problems: Array<{ variable: string; message: string }> = [];
  if (m.allowedModels !== '*' && !m.allowedModels.includes(m.defaultModel)) {
    problems.push({ variable: 'ALLOWED_MODELS', message: `must include the default model ${m.defaultModel} (DEFAULT_MODEL)` });
  }
  if (e.AGENT_ENV === 'production') {
    const called = new Set([...(m.allowedModels === '*' ? [m.defaultModel] : m.allowedModels), m.titleModel, m.extractionModel]);
    const unpriced = [...called].filter((id) => !Object.hasOwn(m.prices, id));
    if (unpriced.length > 0) problems.push({ variable: 'MODEL_PRICES', message: `no price for ${unpriced.join(', ')} (every model the service calls needs one in production)` });
  }
  return problems;
}
