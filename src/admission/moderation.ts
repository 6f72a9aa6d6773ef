/**
 * Moderation through an OpenAI-compatible `/moderations` endpoint (`omni-moderation-latest`). The
 * verdict comes from our own per-category score thresholds, not the provider's `flagged`, so
 * borderline campus questions ("kill a process", "shooting range") can be tuned without a provider
 * change. Self-harm is judged first: a message that is also violent still gets the supportive answer.
 * The provider is advisory: on failure or after 4 s the turn proceeds (fail open) with a warning.
 */
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { noModeration, type Moderation, type ModerationVerdict } from './admission.js';
import { providerFetch } from '../transport/outbound-fetch.js';

export const MODERATION_MODEL = 'omni-moderation-latest';

/** The provider deadline: moderation must not hold a turn longer than this. */
export const MODERATION_TIMEOUT_MS = 4_000;

/** Self-harm categories, in the order they are judged (before every other category). */
export const SELF_HARM_CATEGORIES = ['self-harm/intent', 'self-harm/instructions', 'self-harm'] as const;

/**
 * Score at or above which a category flags. Lower for the gravest categories; higher for broad ones
 * whose low scores are common in ordinary campus questions. Categories not listed use `default`.
 */
export const DEFAULT_THRESHOLDS: Readonly<Record<string, number>> = Object.freeze({
  'self-harm/intent': 0.3,
  'self-harm/instructions': 0.3,
  'self-harm': 0.5,
  'sexual/minors': 0.2,
  'hate/threatening': 0.4,
  'harassment/threatening': 0.5,
  'illicit/violent': 0.5,
  'violence/graphic': 0.6,
  hate: 0.6,
  harassment: 0.7,
  sexual: 0.7,
  violence: 0.7,
  illicit: 0.7,
  default: 0.7,
});

type Scores = Record<string, number | undefined>;
type Flags = Record<string, boolean | undefined>;

/**
 * Pure verdict from one moderation result. A category flags when its score reaches its threshold; a
 * category the provider flagged but sent no score for counts as flagged (nothing to tune against).
 */
export function judgeModeration(
  scores: Scores,
  flags: Flags = {},
  thresholds: Readonly<Record<string, number>> = DEFAULT_THRESHOLDS,
): ModerationVerdict {
  const over = (category: string): boolean => {
    const score = scores[category];
    if (typeof score !== 'number' || !Number.isFinite(score)) return flags[category] === true;
    return score >= (thresholds[category] ?? thresholds.default ?? DEFAULT_THRESHOLDS.default!);
  };
  for (const category of SELF_HARM_CATEGORIES) {
    if (over(category)) return { flagged: true, category, selfHarm: true };
  }
  const rest = [...new Set([...Object.keys(scores), ...Object.keys(flags)])]
    .filter((c) => !c.startsWith('self-harm'))
    // The most certain category names the verdict (logs and metadata), independent of key order.
    .sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0));
  for (const category of rest) {
    if (over(category)) return { flagged: true, category, selfHarm: false };
  }
  return { flagged: false };
}

export interface ModerationOptions {
  apiKey: string;
  baseUrl: string;
  logger: Logger;
  /** Injected transport (tests use the fake gateway; the default is the provider transport, transport/outbound-fetch.ts). */
  fetch?: typeof fetch;
  timeoutMs?: number;
  thresholds?: Readonly<Record<string, number>>;
  model?: string;
}

/** A moderation client that never throws: failures and timeouts answer `{flagged: false}`. */
export function createModeration(options: ModerationOptions): Moderation {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseUrl,
    // Failing open quickly beats retrying: a retry would spend the turn's 4 s on an outage.
    maxRetries: 0,
    timeout: options.timeoutMs ?? MODERATION_TIMEOUT_MS,
    fetch: options.fetch ?? providerFetch,
  });
  const thresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds };
  const model = options.model ?? MODERATION_MODEL;
  const log = options.logger.child({ component: 'moderation' });

  return {
    async check(text: string, signal?: AbortSignal, images: readonly string[] = []): Promise<ModerationVerdict> {
      if (!text.trim() && images.length === 0) return { flagged: false };
      // Images go with the text as parts (omni-moderation reads both); a text alone is sent as it was.
      const input =
        images.length === 0
          ? text
          : [...(text.trim() ? [{ type: 'text' as const, text }] : []), ...images.map((url) => ({ type: 'image_url' as const, image_url: { url } }))];
      try {
        const response = await client.moderations.create({ model, input }, signal ? { signal } : {});
        const results = response.results ?? [];
        if (results.length === 0) {
          log.warn('moderation answered without a result; proceeding unmoderated', { reason: 'bad_response' });
          return { flagged: false };
        }
        // One result for the input as a whole; should a provider answer one per part, each is judged and
        // the gravest verdict stands (self-harm's supportive answer first).
        const verdicts = results.map((r) => judgeModeration(r.category_scores as unknown as Scores, r.categories as unknown as Flags, thresholds));
        return verdicts.find((v) => v.flagged && v.selfHarm) ?? verdicts.find((v) => v.flagged) ?? { flagged: false };
      } catch (err) {
        if (err instanceof APIUserAbortError || signal?.aborted) {
          // The client went away; nothing will be shown, so there is nothing to warn about.
          log.debug('moderation aborted by the caller');
          return { flagged: false };
        }
        // Only the kind of failure is logged: provider messages may quote the moderated text.
        const reason =
          err instanceof APIConnectionTimeoutError ? 'timeout' : err instanceof APIError && err.status ? 'http_error' : 'unreachable';
        log.warn('moderation provider failed; proceeding unmoderated (fail open)', {
          reason,
          ...(err instanceof APIError && err.status ? { status: err.status } : {}),
        });
        return { flagged: false };
      }
    },
  };
}

/** The moderation the configuration asks for: none without EMBEDDINGS_API_KEY (CONTRACT.md defaults). */
export function moderationFromConfig(config: Config, logger: Logger, fetchImpl?: typeof fetch): Moderation {
  if (!config.embeddings.apiKey) return noModeration;
  return createModeration({
    apiKey: config.embeddings.apiKey,
    baseUrl: config.embeddings.baseUrl,
    logger,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}
