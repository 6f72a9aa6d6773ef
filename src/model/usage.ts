/** Token usage of one model pass, as the gateway reported it or as estimated when it did not. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  estimated: boolean;
  /** What the call cost in the gateway's currency, when the gateway reports it (OpenRouter's `usage.cost`). */
  cost?: number;
  /**
   * Prompt tokens the provider served from its prefix cache (`usage.prompt_tokens_details.cached_tokens`),
   * part of `promptTokens`; absent when the gateway reports none. The budget counts them at
   * CACHED_TOKEN_WEIGHT (admission), telemetry reports them as `gen_ai.usage.cache_read.input_tokens`.
   */
  cachedPromptTokens?: number;
}
