/**
 * Token estimates. Two kinds, for two jobs:
 *
 * - `estimateUsage` charges a pass the gateway did not report (cut short by a disconnect, a deadline, or
 *   a gateway that sends no usage chunk): about four characters per token, the usual rule of thumb for
 *   English with GPT-style tokenisers. Budgets must still be charged, so a rough figure beats none.
 * - `reservationTokens` / `callReservation` decide what a call reserves from the daily budget before it
 *   is sent, so they must not under-count: three ASCII characters a token (tool definitions and JSON
 *   tokenise denser than prose), and every non-ASCII UTF-16 unit a token of its own (CJK text runs about
 *   one token a character in the GPT tokenisers, so counting it at three a token under-reserved ~3×; an
 *   emoji is two units and usually two or more tokens).
 */
import type { ChatCompletionContentPartImage } from 'openai/resources/chat/completions';
import type { TokenSplit } from './model-prices.js';
import type { Usage } from './usage.js';
import { IMAGE_DETAIL } from './vision.js';

const CHARS_PER_TOKEN = 4;
const ASCII_CHARS_PER_RESERVED_TOKEN = 3;

/**
 * An image part's tokens, set by whoever built it (`pricedImagePart`): an image is counted by its
 * model's rule (model/vision.ts), never by the length of its base64. A part nobody priced counts
 * UNPRICED_IMAGE_TOKENS: more than any rule gives for an image the service sends.
 */
const imagePartTokens = new WeakMap<object, number>();
const UNPRICED_IMAGE_TOKENS = 30_000;

/** An `image_url` part for `url` that the estimates below count as `tokens`. */
export function pricedImagePart(url: string, tokens: number): ChatCompletionContentPartImage {
  const part: ChatCompletionContentPartImage = { type: 'image_url', image_url: { url, detail: IMAGE_DETAIL } };
  imagePartTokens.set(part, tokens);
  return part;
}

/**
 * The text a value is counted by, and the tokens of the image parts in it (each written as a bare
 * `{"type":"image_url"}`). A value without images is serialised once, as before images existed.
 */
function measure(value: unknown): { text: string; images: number } {
  if (typeof value === 'string') return { text: value, images: 0 };
  // Images ride only in messages whose content is a list of parts: anything else is serialised as it is.
  if (!hasContentParts(value)) return { text: JSON.stringify(value ?? ''), images: 0 };
  let images = 0;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && (v as { type?: unknown }).type === 'image_url') {
      images += imagePartTokens.get(v) ?? UNPRICED_IMAGE_TOKENS;
      return { type: 'image_url' };
    }
    return v;
  });
  return { text, images };
}

/** Whether `value` is a message, or a list of them, with content parts (where image parts ride). */
function hasContentParts(value: unknown): boolean {
  const isParts = (m: unknown) => m !== null && typeof m === 'object' && Array.isArray((m as { content?: unknown }).content);
  return Array.isArray(value) ? value.some(isParts) : isParts(value);
}

/** Rough token count of any JSON-serialisable value (strings counted by their length, images by their rule). */
export function estimateTokens(value: unknown): number {
  const { text, images } = measure(value);
  return Math.ceil(text.length / CHARS_PER_TOKEN) + images;
}

/** A pessimistic token count of what is sent, for reservations (see the module note). */
export function reservationTokens(value: unknown): number {
  const { text, images } = measure(value);
  let nonAscii = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) nonAscii++;
  return Math.ceil((text.length - nonAscii) / ASCII_CHARS_PER_RESERVED_TOKEN) + nonAscii + images;
}

/**
 * What one model call may cost at most, reserved before it is sent: its input as actually sent
 * (messages, which carry the system prompt, plus the tool definitions offered) and the `max_tokens` it is
 * sent with.
 */
export function callReservation(call: { messages: unknown; tools?: unknown; maxTokens: number }): TokenSplit {
  return { input: reservationTokens(call.messages) + (call.tools ? reservationTokens(call.tools) : 0), output: call.maxTokens };
}

/** An estimated `Usage` for a pass from what was sent and what came back. */
export function estimateUsage(sent: unknown, received: string): Usage {
  const promptTokens = estimateTokens(sent);
  const completionTokens = estimateTokens(received);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}

/** A reported usage in the service's shape. */
export function reportedUsage(u: {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}): Usage {
  const cost = (u as { cost?: unknown }).cost;
  // Never more than the prompt: a gateway's odd report must not make a call cost less than nothing.
  const cached = u.prompt_tokens_details?.cached_tokens;
  const cachedPromptTokens = typeof cached === 'number' && Number.isFinite(cached) && cached > 0 ? Math.min(cached, u.prompt_tokens) : 0;
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    totalTokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens,
    estimated: false,
    ...(typeof cost === 'number' && Number.isFinite(cost) && { cost }),
    ...(cachedPromptTokens > 0 && { cachedPromptTokens }),
  };
}
