/**
 * Which of a user's facts matter for a text: the one selection behind recall (the prompt's memory
 * block), extraction and the remember tool (the stored facts a new statement may supersede).
 *
 * No similarity floor: embedding scales differ between models (text-embedding-3 puts two short related
 * sentences anywhere from 0.1 to 0.6), so an absolute threshold hides true facts. Instead:
 * - a user with at most `k` facts gets all of them, and no embedding call is made;
 * - above `k`, the `k` nearest by cosine distance; at equal relevance (the same similarity to two
 *   decimals) a remembered fact (the user asked) ranks above a learned one, then the more recently
 *   updated; facts without a vector (saved while embeddings failed) fill what search leaves, newest first;
 * - without embeddings, or when the embedding call fails, the `k` newest.
 */
import type { Logger } from '../logger.js';
import type { Embedder } from './embeddings.js';
import type { Fact, MemoryStore, ScoredFact } from './store.js';

export interface RelevantFactsDeps {
  store: MemoryStore;
  /** Null: newest facts only (no EMBEDDINGS_API_KEY). */
  embedder: Embedder | null;
  logger: Logger;
}

export interface RelevantFactsOptions {
  k: number;
  signal?: AbortSignal;
  /** Newest `k` regardless of the text ("what do you know about me"). */
  newest?: boolean;
}

/** Candidates read from the store per fact kept: enough for the kind and recency tie-breaks to act. */
const CANDIDATES_PER_FACT = 2;

/** Similarities equal to two decimals are the same relevance: ties go to remembered, then recent facts. */
const relevance = (f: ScoredFact) => Math.round(f.similarity * 100);

export function rankByRelevance(candidates: readonly ScoredFact[]): ScoredFact[] {
  return [...candidates].sort(
    (a, b) =>
      relevance(b) - relevance(a) ||
      Number(b.kind === 'remembered') - Number(a.kind === 'remembered') ||
      b.updatedAt.getTime() - a.updatedAt.getTime(),
  );
}

/** The user's facts that matter for `text`, at most `k`; throws only when the store fails. */
export async function relevantFacts(deps: RelevantFactsDeps, userId: string, text: string, options: RelevantFactsOptions): Promise<Fact[]> {
  const { k } = options;
  if (k <= 0) return [];
  const newest = await deps.store.list(userId, { limit: k });
  if (newest.total <= k || !deps.embedder || options.newest) return newest.items;
  let vector: number[] | undefined;
  try {
    [vector] = await deps.embedder.embed([text], options.signal);
  } catch (err) {
    if (options.signal?.aborted) throw err;
    deps.logger.warn('memory: embedding failed; using the newest facts', { err });
    return newest.items;
  }
  const nearest = rankByRelevance(await deps.store.search(userId, vector!, k * CANDIDATES_PER_FACT)).slice(0, k);
  if (nearest.length === k) return nearest;
  const chosen = new Set(nearest.map((f) => f.id));
  return [...nearest, ...newest.items.filter((f) => !chosen.has(f.id))].slice(0, k);
}
