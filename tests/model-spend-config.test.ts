/**
 * Issue 47, the pure parts: ALLOWED_MODELS, MODEL_PRICES and the spend limits as configuration reads
 * them (production's rules included), the allowlist's exact comparison, and what a call costs in
 * nano-dollars (worst case before, real cost after, the gateway's own figure first).
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_PRICES, ConfigError, parseConfig } from '../src/config.js';
import { ModelAllowlist } from '../src/model/model-allowlist.js';
import { ModelPrices, toNanoUsd, toUsd } from '../src/model/model-prices.js';

const PRODUCTION = {
  AGENT_ENV: 'production',
  DATABASE_URL: 'postgres://u:p@db.internal:5432/agent',
  AGENT_SHARED_SECRET: 'x'.repeat(32),
  LLM_GATEWAY_API_KEY: 'sk-test-key',
  MCP_SERVER_URL: 'https://tools.example.edu/mcp',
};

/** The message of the ConfigError `env` raises ('' when it parses). */
function problem(env: Record<string, string>): string {
  try {
    parseConfig(env);
    return '';
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
}

describe('configuration: models, prices, spend limits', () => {
  it('allows any model outside production and the default model alone in production when ALLOWED_MODELS is unset', () => {
    expect(parseConfig({}).gateway.allowedModels).toBe('*');
    expect(parseConfig(PRODUCTION).gateway.allowedModels).toEqual(['openai/gpt-4o-mini']);
    expect(parseConfig({ ...PRODUCTION, ALLOWED_MODELS: '*' }).gateway.allowedModels).toBe('*');
  });

  it('reads a list, trimmed and without repeats, and refuses malformed ids or a list without the default model', () => {
    const config = parseConfig({ ALLOWED_MODELS: ' openai/gpt-4o-mini , anthropic/claude-3.5-haiku,,openai/gpt-4o-mini ' });
    expect(config.gateway.allowedModels).toEqual(['openai/gpt-4o-mini', 'anthropic/claude-3.5-haiku']);
    expect(problem({ ALLOWED_MODELS: 'gpt-4o-mini' })).toMatch(/ALLOWED_MODELS: must be \* or comma-separated <vendor>\/<model> ids/);
    expect(problem({ ALLOWED_MODELS: 'anthropic/claude-3.5-haiku' })).toMatch(/must include the default model openai\/gpt-4o-mini/);
    expect(problem({ ALLOWED_MODELS: 'anthropic/claude-3.5-haiku', DEFAULT_MODEL: 'anthropic/claude-3.5-haiku' })).toBe('');
  });

  it('adds MODEL_PRICES over the built-in price of the default model; cached input defaults to the input price', () => {
    const config = parseConfig({ MODEL_PRICES: '{"anthropic/claude-3.5-haiku": {"input": 0.8, "output": 4}, "openai/gpt-4o-mini": {"input": 0.2, "cached_input": 0.1, "output": 0.8}}' });
    expect(config.gateway.prices).toEqual({
      'openai/gpt-4o-mini': { input: 0.2, cachedInput: 0.1, output: 0.8 },
      'anthropic/claude-3.5-haiku': { input: 0.8, cachedInput: 0.8, output: 4 },
    });
    expect(parseConfig({}).gateway.prices).toEqual(BUILTIN_PRICES);
  });

  it('refuses MODEL_PRICES that is not JSON, not an object of prices, negative, or has unknown fields', () => {
    for (const bad of ['{', '[1]', '{"openai/x": {"input": -1, "output": 1}}', '{"openai/x": {"input": 1}}', '{"openai/x": {"input": 1, "output": 1, "extra": 2}}', '{"no-vendor": {"input": 1, "output": 1}}']) {
      expect(problem({ MODEL_PRICES: bad }), bad).toMatch(/MODEL_PRICES/);
    }
  });

  it('refuses production when a model the service calls has no price, naming each one', () => {
    const message = problem({ ...PRODUCTION, ALLOWED_MODELS: 'openai/gpt-4o-mini,anthropic/claude-3.5-haiku', TITLE_MODEL: 'google/gemini-flash-1.5' });
    expect(message).toContain('MODEL_PRICES: no price for anthropic/claude-3.5-haiku, google/gemini-flash-1.5');
    expect(
      problem({
        ...PRODUCTION,
        ALLOWED_MODELS: 'openai/gpt-4o-mini,anthropic/claude-3.5-haiku',
        TITLE_MODEL: 'google/gemini-flash-1.5',
        MODEL_PRICES: '{"anthropic/claude-3.5-haiku": {"input": 0.8, "output": 4}, "google/gemini-flash-1.5": {"input": 0.075, "output": 0.3}}',
      }),
    ).toBe('');
    // Outside production an unpriced model runs (priced at the table's highest prices).
    expect(problem({ ALLOWED_MODELS: 'openai/gpt-4o-mini,anthropic/claude-3.5-haiku' })).toBe('');
  });

  it('reads the spend limits as positive dollar amounts; unset is no limit', () => {
    expect(parseConfig({}).budget).toMatchObject({ dailySpendLimitUsd: null, serviceDailySpendLimitUsd: null });
    expect(parseConfig({ DAILY_SPEND_LIMIT_USD: '0.25', SERVICE_DAILY_SPEND_LIMIT_USD: ' 40 ' }).budget).toMatchObject({ dailySpendLimitUsd: 0.25, serviceDailySpendLimitUsd: 40 });
    for (const bad of ['0', '-1', 'ten', 'Infinity']) {
      expect(problem({ DAILY_SPEND_LIMIT_USD: bad }), bad).toMatch(/DAILY_SPEND_LIMIT_USD/);
      expect(problem({ SERVICE_DAILY_SPEND_LIMIT_USD: bad }), bad).toMatch(/SERVICE_DAILY_SPEND_LIMIT_USD/);
    }
  });
});

describe('ModelAllowlist', () => {
  const list = new ModelAllowlist({ allowedModels: ['openai/gpt-4o-mini', 'anthropic/claude-3.5-haiku'], defaultModel: 'openai/gpt-4o-mini' });

  it('allows exactly the listed ids, never a near-miss', () => {
    expect(list.allows('openai/gpt-4o-mini')).toBe(true);
    expect(list.allows('anthropic/claude-3.5-haiku')).toBe(true);
    for (const near of ['OpenAI/gpt-4o-mini', 'openai/gpt-4o-mini:free', 'openai/gpt-4o', 'openai/gpt-4о-mini', 'openai//gpt-4o-mini', 'openai/gpt-4o-mini/../gpt-4o']) {
      expect(list.allows(near), near).toBe(false);
    }
    expect(list.ids).toEqual(['openai/gpt-4o-mini', 'anthropic/claude-3.5-haiku']);
    expect(list.describe()).toBe('openai/gpt-4o-mini, anthropic/claude-3.5-haiku');
  });

  it('under * allows any id and lists the default model alone', () => {
    const any = new ModelAllowlist({ allowedModels: '*', defaultModel: 'openai/gpt-4o-mini' });
    expect(any.allows('openai/gpt-5')).toBe(true);
    expect(any.ids).toEqual(['openai/gpt-4o-mini']);
    expect(any.describe()).toBe('any model');
  });
});

describe('ModelPrices', () => {
  const prices = new ModelPrices({
    'openai/gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
    'anthropic/claude-3.5-haiku': { input: 0.8, cachedInput: 0.08, output: 4 },
  });

  it('counts whole nano-dollars: a million input tokens at $0.15 is 150,000,000', () => {
    expect(prices.worstCase('openai/gpt-4o-mini', { input: 1_000_000, output: 0 })).toBe(150_000_000);
    expect(prices.worstCase('openai/gpt-4o-mini', { input: 1000, output: 500 })).toBe(1000 * 150 + 500 * 600);
    expect(toNanoUsd(0.1)).toBe(100_000_000);
    expect(toNanoUsd(0.000_000_000_4)).toBe(1);
    expect(toUsd(150_000_000)).toBe(0.15);
  });

  it('prices a finished call by its usage, cached prompt tokens at the cached price', () => {
    const usage = { promptTokens: 1000, completionTokens: 200, totalTokens: 1200, estimated: false, cachedPromptTokens: 600 };
    expect(prices.cost('openai/gpt-4o-mini', usage)).toBe(400 * 150 + 600 * 75 + 200 * 600);
    expect(prices.cost('anthropic/claude-3.5-haiku', usage)).toBe(400 * 800 + 600 * 80 + 200 * 4000);
  });

  it("settles the gateway's reported cost when there is one", () => {
    const usage = { promptTokens: 1000, completionTokens: 200, totalTokens: 1200, estimated: false, cost: 0.0042 };
    expect(prices.cost('openai/gpt-4o-mini', usage)).toBe(4_200_000);
  });

  it('prices a model with no entry at the highest price of each kind', () => {
    expect(prices.has('openai/gpt-5')).toBe(false);
    expect(prices.worstCase('openai/gpt-5', { input: 10, output: 10 })).toBe(10 * 800 + 10 * 4000);
  });
});
