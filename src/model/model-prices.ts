/**
 * What a model call costs: tokens × the configured price of the model (MODEL_PRICES, US dollars per
 * million tokens), or the gateway's own figure when it reports one (OpenRouter's `usage.cost`). Money is
 * counted in whole nano-dollars (1e-9 USD), rounded up, so budgets add integers exactly in SQLite and
 * Postgres: a token at $0.075 per million is 75 nano-dollars.
 *
 * A model with no price (outside production, or under `ALLOWED_MODELS=*`) is priced at the highest
 * price of each kind in the table: a budget in money is never left unmetered by a missing entry.
 */
import type { ModelPrice } from '../config.js';
import type { Usage } from './usage.js';

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** Tokens a call may spend or has spent, split the way prices are. */
export interface TokenSplit {
  /** Prompt tokens (all of them, cached included). */
  input: number;
  output: number;
}

/** Nano-dollars in one US dollar. */
export const NANO_PER_USD = 1e9;

/** US dollars as whole nano-dollars, rounded up (a limit or a reported cost). */
export function toNanoUsd(usd: number): number {
  return Number.isFinite(usd) && usd > 0 ? Math.ceil(usd * NANO_PER_USD - 1e-6) : 0;
}

/** Nano-dollars as US dollars (telemetry, logs, messages). */
export function toUsd(nano: number): number {
  return nano / NANO_PER_USD;
}

/** Prices a model's calls; built once from the configuration. */
export class ModelPrices {
  private readonly fallback: ModelPrice;

  constructor(private readonly table: PriceTable) {
    const all = Object.values(table);
    this.fallback = {
      input: Math.max(0, ...all.map((p) => p.input)),
      cachedInput: Math.max(0, ...all.map((p) => p.cachedInput)),
      output: Math.max(0, ...all.map((p) => p.output)),
    };
  }

  /** Whether `model` has a price of its own (production refuses to start with an allowed model that has none). */
  has(model: string): boolean {
    return Object.hasOwn(this.table, model);
  }

  /** The price of `model`, or the highest of each kind for a model with none. */
  of(model: string): ModelPrice {
    return Object.hasOwn(this.table, model) ? this.table[model]! : this.fallback;
  }

  /** The most a call of `model` may cost: every input token fresh, every output token written. */
  worstCase(model: string, tokens: TokenSplit): number {
    const p = this.of(model);
    return Math.ceil(Math.max(0, tokens.input) * p.input * 1000 + Math.max(0, tokens.output) * p.output * 1000);
  }

  /** What a finished call cost: the gateway's reported cost when present, else its usage at the model's price. */
  cost(model: string, usage: Usage): number {
    const reported = reportedCost(usage);
    return reported ?? this.atPrice(model, usage);
  }

  /** What a finished call costs at the model's configured price, whatever the gateway reported. */
  atPrice(model: string, usage: Usage): number {
    const p = this.of(model);
    const prompt = Math.max(0, usage.promptTokens);
    const cached = Math.min(prompt, Math.max(0, usage.cachedPromptTokens ?? 0));
    const output = Math.max(0, usage.completionTokens, usage.totalTokens - prompt);
    const nano = (prompt - cached) * p.input * 1000 + cached * p.cachedInput * 1000 + output * p.output * 1000;
    return Number.isFinite(nano) ? Math.ceil(nano) : 0;
  }
}

/** The gateway's own figure for a call (OpenRouter's `usage.cost`) in nano-dollars, or null when it reported none. */
export function reportedCost(usage: Usage): number | null {
  return usage.cost !== undefined && Number.isFinite(usage.cost) && usage.cost >= 0 ? toNanoUsd(usage.cost) : null;
}
