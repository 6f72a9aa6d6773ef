/**
 * Recall for the prompt: the user's facts that matter for the message (relevant-facts.ts: all of them
 * up to k, else the k nearest with no similarity floor), as a clearly marked block of untrusted user
 * data; the newest when the user asks what the assistant knows about them. The block is bounded: k facts
 * of at most MAX_FACT_LENGTH characters. Never throws: a failure means no memory this turn.
 */
import type { Logger } from '../logger.js';
import type { Embedder } from './embeddings.js';
import { relevantFacts } from './relevant-facts.js';
import type { Fact, MemoryStore } from './store.js';

/** How many facts reach the prompt; enough to personalise, small enough to keep the prompt cheap. */
export const RECALL_K = 8;

/** "What do you know about me" wants everything recent, not what resembles the question's words. */
const ABOUT_ME = /\bwhat (do|did|have) you\b.{0,30}\b(know|remember|recall|saved|stored|learned|learnt)\b.{0,20}\babout me\b/i;

export interface RecallOptions {
  store: MemoryStore;
  /** Null: recency recall only (no EMBEDDINGS_API_KEY). */
  embedder: Embedder | null;
  logger: Logger;
  k?: number;
}

/**
 * The facts shown to the model, a line each; the system prompt frames them once (its `# Memory` section,
 * between the user-memory markers). Angle brackets inside facts are replaced so a stored fact cannot
 * close the block and pose as instructions.
 */
export function formatRecallBlock(facts: readonly Pick<Fact, 'kind' | 'text'>[]): string | null {
  if (facts.length === 0) return null;
  return facts.map((f) => `- ${f.text.replace(/</g, '‹').replace(/>/g, '›')}${f.kind === 'remembered' ? REMEMBERED : ''}`).join('\n');
}

const REMEMBERED = ' (asked to remember)';

/** The facts' texts of a block `formatRecallBlock` wrote (for the offline model, which reads its prompt by rule). */
export function readRecallBlock(block: string): string[] {
  return block.split('\n').flatMap((line) => (line.startsWith('- ') ? [line.slice(2).replace(REMEMBERED, '')] : []));
}

export function createRecall(options: RecallOptions) {
  const k = options.k ?? RECALL_K;
  const { logger } = options;

  /** The prompt block for this user and message, or null. */
  return async function recall(userId: string, query: string, signal: AbortSignal): Promise<string | null> {
    try {
      return formatRecallBlock(await relevantFacts(options, userId, query, { k, signal, newest: ABOUT_ME.test(query) }));
    } catch (err) {
      if (!signal.aborted) logger.warn('recall failed; answering without memory', { err });
      return null;
    }
  };
}
