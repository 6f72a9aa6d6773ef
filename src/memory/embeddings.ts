/**
 * Embeddings client for semantic recall and dedupe: the `openai` package's `embeddings.create` against
 * EMBEDDINGS_BASE_URL with EMBEDDINGS_API_KEY. Every vector is checked against the one dimension
 * constant, so a model that answers with another size fails loudly instead of corrupting the store.
 */
import OpenAI from 'openai';
import { EMBEDDING_DIMENSIONS } from '../db/embedding-dimensions.js';
import { providerFetch } from '../transport/outbound-fetch.js';

export interface Embedder {
  readonly model: string;
  /** One vector per text, in order; throws on a provider failure, timeout or a vector of the wrong size. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

export interface EmbedderOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** The seam for tests: passed to the openai client. */
  fetch?: typeof globalThis.fetch;
  /** Deadline of one call; recall must not hold a turn for long. */
  timeoutMs?: number;
}

/** Thrown when the provider's vectors do not have EMBEDDING_DIMENSIONS entries. */
export class EmbeddingSizeError extends Error {
  constructor(model: string, got: number) {
    super(`embedding model "${model}" returned ${got} dimensions; the store holds ${EMBEDDING_DIMENSIONS}`);
    this.name = 'EmbeddingSizeError';
  }
}

export function createEmbedder(options: EmbedderOptions): Embedder {
  const client = new OpenAI({
    baseURL: options.baseUrl,
    apiKey: options.apiKey,
    // One retry for a transient 429/5xx; recall falls back to recency if that fails too.
    maxRetries: 1,
    timeout: options.timeoutMs ?? 5_000,
    fetch: options.fetch ?? providerFetch,
  });
  return {
    model: options.model,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const response = await client.embeddings.create(
        { model: options.model, input: [...texts], encoding_format: 'float' },
        signal ? { signal } : undefined,
      );
      const vectors = [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
      if (vectors.length !== texts.length) throw new Error(`embeddings: asked for ${texts.length} vectors, got ${vectors.length}`);
      for (const v of vectors) if (v.length !== EMBEDDING_DIMENSIONS) throw new EmbeddingSizeError(options.model, v.length);
      return vectors;
    },
  };
}

/**
 * Embeds for a write that must not fail because embeddings did: null vectors (the fact is then found
 * by text only) when there is no embedder or the call fails; the failure is logged without the text.
 */
export async function embedOrNull(
  embedder: Embedder | null,
  texts: readonly string[],
  onError: (err: unknown) => void,
  signal?: AbortSignal,
): Promise<(number[] | null)[]> {
  if (!embedder || texts.length === 0) return texts.map(() => null);
  try {
    return await embedder.embed(texts, signal);
  } catch (err) {
    onError(err);
    return texts.map(() => null);
  }
}
