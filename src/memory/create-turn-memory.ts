/**
 * createTurnMemory: the TurnMemory the pipeline uses (src/memory/turn-memory.ts), assembled from the
 * planner, recall, the remember/forget tools and background extraction over one store. Anonymous turns
 * never get here: the pipeline binds `noUserMemory` for them.
 */
import type { BackgroundTasks } from '../lifecycle/background-tasks.js';
import type { Logger } from '../logger.js';
import type { LeakPolicy } from '../security/leak-policy.js';
import type { ModelGateway } from '../model/gateway.js';
import type { ReserveCall } from '../model/metered-call.js';
import type { Embedder } from './embeddings.js';
import { createExtractor } from './extraction.js';
import { redactingStore } from './fact-guard.js';
import { createForgetTool } from './forget-tool.js';
import { planMemory } from './memory-plan.js';
import { createRateLimiter } from './rate-limit.js';
import { createRecall } from './recall.js';
import { createRememberTool } from './remember-tool.js';
import type { MemoryStore } from './store.js';
import type { TurnMemory } from './turn-memory.js';

export interface TurnMemoryOptions {
  store: MemoryStore;
  /** Null without EMBEDDINGS_API_KEY: recall by recency, dedupe by normalised text only. */
  embedder: Embedder | null;
  gateway: ModelGateway;
  background: BackgroundTasks;
  logger: Logger;
  /** config.gateway.extractionModel (MEMORY_EXTRACTION_MODEL). */
  extractionModel: string;
  /** Spacing of extractions per user; 0 turns the limit off (tests). */
  extractionIntervalMs?: number;
  /** The clock of the rate limit, in milliseconds. */
  now?: () => number;
  /** The leak policy: facts with secrets are never stored, facts read back are redacted. */
  leaks: LeakPolicy;
  /** Reserves an extraction's (or a reconciliation's) model call from the user's daily budget. */
  reserve?: ReserveCall;
}

export function createTurnMemory(options: TurnMemoryOptions): TurnMemory {
  const logger = options.logger.child({ component: 'memory' });
  // The extraction model, as extraction and the remember tool's reconciliation call it.
  const reconcile = { gateway: options.gateway, model: options.extractionModel, ...(options.reserve && { reserve: options.reserve }) };
  const store = redactingStore(options.store, options.leaks);
  const limiter = createRateLimiter({
    intervalMs: options.extractionIntervalMs,
    ...(options.now && { now: options.now }),
  });

  return {
    forUser: (userId, turn) => {
      // The turn's logger (bound to its request id) for every line this memory writes during the turn.
      const deps = { store, embedder: options.embedder, logger: turn ? turn.logger.child({ component: 'memory' }) : logger, leaks: options.leaks };
      const recall = createRecall(deps);
      const extract = createExtractor({ ...deps, ...reconcile });
      return {
        plan: (query, history) => planMemory(query, history),
        recall: (query, signal) => recall(userId, query, signal),
        tools: () => [createRememberTool(userId, { ...deps, reconcile }), createForgetTool(userId, deps)],
        afterTurn(done) {
          try {
            if (!done.answer.trim()) return;
            if (!limiter.tryAcquire(userId)) {
              deps.logger.debug('memory extraction skipped: rate limited');
              return;
            }
            // Registered with the background registry: SIGTERM waits for it; a failure is logged there.
            // Its trace is its own, linked to the turn's.
            options.background.run('memory extraction', (span) => extract({ ...done, userId, span }), turn?.span ?? null);
          } catch (err) {
            deps.logger.error('memory extraction could not be scheduled', { err });
          }
        },
      };
    },
  };
}
