/** Token usage of one model pass, as the gateway reported it or as estimated when it did not. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  estimated: boolean;
  /** What the call cost in the gateway's currency, when the gateway reports it (OpenRouter's `usage.cost`). */
  cost?: number;
}
