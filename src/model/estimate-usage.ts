/**
 * Token estimates for a pass the gateway did not report (cut short by a disconnect, a deadline, or a
 * gateway that sends no usage chunk): about four characters per token, the usual rule of thumb for
 * English with GPT-style tokenisers. Budgets must still be charged, so a rough figure beats none.
 */
import type { Usage } from './usage.js';

const CHARS_PER_TOKEN = 4;

/** Rough token count of any JSON-serialisable value (strings counted by their length). */
export function estimateTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * A pessimistic token count for budget reservations: three characters per token, because tool
 * definitions and JSON tokenise denser than prose. A reservation that covers the real usage is what
 * keeps concurrent turns within the daily limit.
 */
export function reservationTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return Math.ceil(text.length / 3);
}

/** An estimated `Usage` for a pass from what was sent and what came back. */
export function estimateUsage(sent: unknown, received: string): Usage {
  const promptTokens = estimateTokens(sent);
  const completionTokens = estimateTokens(received);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}

/** A reported usage in the service's shape. */
export function reportedUsage(u: { prompt_tokens: number; completion_tokens: number; total_tokens?: number }): Usage {
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    totalTokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
    estimated: false,
  };
}
