/**
 * createTurnMemory: the TurnMemory the pipeline uses (src/memory/turn-memory.ts), assembled from the
 * planner, recall, the remember/forget tools and background extraction over one store. Anonymous turns
 * never get here: the pipeline binds `noUserMemory` for them.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { BackgroundTasks } from '../lifecycle/background-tasks.js';
import { createInProcessQueue, DEFAULT_JOB_EXPIRE_SECONDS, type JobQueue } from '../lifecycle/job-queue.js';
import type { Logger } from '../logger.js';
import type { LeakPolicy } from '../security/leak-policy.js';
import type { ModelGateway } from '../model/gateway.js';
import { CallNotAdmittedError, type ReserveCall } from '../model/metered-call.js';
import type { Embedder } from './embeddings.js';
import { createExtractor } from './extraction.js';
import { redactingStore } from './fact-guard.js';
import { createForgetTool } from './forget-tool.js';
import { carriesSelfStatement, planMemory } from './memory-plan.js';
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
  /** Where extraction runs after the answer when no `jobs` queue is given: in process. */
  background: BackgroundTasks;
  /** The job queue extraction goes through (the Postgres one with DATABASE_URL); default in process over `background`. */
  jobs?: JobQueue;
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

/** What an extraction job carries: the turn, as extraction reads it. */
const extractionPayload = z.object({
  userId: z.string(),
  query: z.string(),
  history: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })),
  answer: z.string(),
});
type ExtractionPayload = z.infer<typeof extractionPayload>;

export function createTurnMemory(options: TurnMemoryOptions): TurnMemory {
  const logger = options.logger.child({ component: 'memory' });
  // The extraction model, as extraction and the remember tool's reconciliation call it.
  const reconcile = { gateway: options.gateway, model: options.extractionModel, ...(options.reserve && { reserve: options.reserve }) };
  const store = redactingStore(options.store, options.leaks);
  const limiter = createRateLimiter({
    intervalMs: options.extractionIntervalMs,
    ...(options.now && { now: options.now }),
  });
  // The extraction job, on whichever replica takes it: its payload is what the turn enqueued.
  const extractJob = createExtractor({ store, embedder: options.embedder, logger, leaks: options.leaks, ...reconcile });
  const jobs = options.jobs ?? createInProcessQueue({ background: options.background, logger, expireSeconds: DEFAULT_JOB_EXPIRE_SECONDS });
  jobs.handle('memory-extraction', async (payload, job) => {
    const turn = extractionPayload.parse(payload);
    try {
      await extractJob({ ...turn, span: job.span, signal: job.signal });
    } catch (err) {
      // The service-wide spending cap is reached: the extraction waits for the reset instead of failing.
      if (!(err instanceof CallNotAdmittedError) || err.refusal.refused !== 'service') throw err;
      logger.info('memory extraction deferred until the spending cap resets', { resumes_at: err.refusal.resumesAt.toISOString() });
      jobs.enqueue('memory-extraction', payload, { key: `memory-extraction:${randomUUID()}`, startAfter: err.refusal.resumesAt });
    }
  });

  return {
    forUser: (userId, turn) => {
      // The turn's logger (bound to its request id) for every line this memory writes during the turn.
      const deps = { store, embedder: options.embedder, logger: turn ? turn.logger.child({ component: 'memory' }) : logger, leaks: options.leaks };
      const recall = createRecall(deps);
      return {
        plan: (query, history) => planMemory(query, history),
        recall: (query, signal) => recall(userId, query, signal),
        tools: () => [createRememberTool(userId, { ...deps, reconcile }), createForgetTool(userId, deps)],
        afterTurn(done) {
          try {
            if (!done.answer.trim()) return;
            // Nothing about the user in the message: nothing to extract, no call (memory-plan.ts).
            if (!carriesSelfStatement(done.query)) return;
            if (!limiter.tryAcquire(userId)) {
              deps.logger.debug('memory extraction skipped: rate limited');
              return;
            }
            // A job of its own (a trace of its own, linked to the turn's): in process it is registered with
            // the background registry (SIGTERM waits for it); on Postgres any replica runs it, once.
            const payload: ExtractionPayload = { userId, query: done.query, history: [...done.history], answer: done.answer };
            jobs.enqueue('memory-extraction', payload, { key: `memory-extraction:${randomUUID()}`, linkedTo: turn?.span ?? null });
          } catch (err) {
            deps.logger.error('memory extraction could not be scheduled', { err });
          }
        },
      };
    },
  };
}
