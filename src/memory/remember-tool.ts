/**
 * `memory_remember` (args `{fact}`): stores one durable fact the user asked to keep, as `remembered`.
 * A duplicate (same normalised text or similarity ≥ 0.92) updates the stored fact, promoting a learned
 * one. Emits a `memory` add event the front end shows as "Saved to memory: …".
 */
import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { MemoryEvent } from './memory-event.js';
import type { LocalTool } from '../tools/local-tool.js';
import { embedOrNull, type Embedder } from './embeddings.js';
import { admitFact } from './fact-guard.js';
import type { LeakPolicy } from '../security/leak-policy.js';
import { MAX_FACT_LENGTH, type MemoryStore } from './store.js';

export const REMEMBER_TOOL_NAME = 'memory_remember';

const Args = z.object({ fact: z.string().trim().min(1).max(MAX_FACT_LENGTH) });

export interface MemoryToolDeps {
  /** Reads hand back redacted facts (fact-guard.ts `redactingStore`). */
  store: MemoryStore;
  embedder: Embedder | null;
  logger: Logger;
  /** Facts carrying a secret are refused (fact-guard.ts). */
  leaks: LeakPolicy;
}

/** The remember tool bound to one user: the model never chooses whose memory it writes. */
export function createRememberTool(userId: string, deps: MemoryToolDeps): LocalTool<MemoryEvent> {
  return {
    name: REMEMBER_TOOL_NAME,
    kind: 'memory',
    description:
      'Save one durable fact about the user that they asked you to remember (a preference, their major, ' +
      'a dietary need). Write it as a short third-person statement without their name, e.g. "Is vegetarian". ' +
      'One fact per call. Never save secrets, passwords or other people\'s details.',
    parameters: {
      type: 'object',
      properties: { fact: { type: 'string', description: 'The fact, one short sentence.', maxLength: MAX_FACT_LENGTH } },
      required: ['fact'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      const parsed = Args.safeParse(args);
      if (!parsed.success) {
        return { content: `Not saved: pass {"fact": "<one short sentence, at most ${MAX_FACT_LENGTH} characters>"}.` };
      }
      const admitted = admitFact(parsed.data.fact, deps.leaks);
      if (!admitted.ok) {
        deps.logger.warn('memory_remember: fact refused', { reason: admitted.reason });
        return {
          content:
            admitted.reason === 'secret'
              ? 'Not saved: the fact contains a key, password or other secret, which memory never keeps. Tell the user so.'
              : 'Not saved: the fact was empty.',
        };
      }
      const text = admitted.text;
      try {
        const [embedding] = await embedOrNull(
          deps.embedder,
          [text],
          (err) => deps.logger.warn('memory_remember: embedding failed; saving without one', { err }),
          ctx.signal,
        );
        const { fact, status } = await deps.store.add({ userId, kind: 'remembered', text, embedding: embedding ?? null });
        return {
          content: status === 'created' ? `Saved to memory: "${fact.text}".` : `Already in memory; updated: "${fact.text}".`,
          events: [
            {
              type: 'memory',
              data: { op: 'add', text: `Saved to memory: ${fact.text}`, id: fact.id, kind: fact.kind, fact: fact.text },
            },
          ],
        };
      } catch (err) {
        deps.logger.error('memory_remember failed', { err });
        return { content: 'Memory is unavailable right now; the fact was not saved. Tell the user so.' };
      }
    },
  };
}
