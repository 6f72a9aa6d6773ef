/**
 * Registry of work that outlives its request (memory extraction after an answer). Shutdown waits for
 * what is registered, within a bound, so SIGTERM does not lose a memory write that already started.
 */
import type { Logger } from '../logger.js';
import { settleWithin } from './settle-within.js';
import { noTelemetry, spanned, type Telemetry, type TraceSpan } from '../telemetry/telemetry.js';

export interface BackgroundTasks {
  /**
   * Runs `task` now; its failure is logged with `name`, never thrown to the caller. The task gets a span
   * of its own trace (`background <name>`), linked to `linkedTo` (the turn that scheduled it).
   */
  run(name: string, task: (span: TraceSpan) => Promise<unknown>, linkedTo?: TraceSpan | null): void;
  /** Number of tasks still running. */
  readonly pending: number;
  /** Resolves when every task registered so far has settled, or after `timeoutMs`; true if all settled. */
  drain(timeoutMs: number): Promise<boolean>;
  /** Refuses new tasks (they are logged and dropped): used once shutdown starts draining. */
  close(): void;
}

export function createBackgroundTasks(logger: Logger, telemetry: Telemetry = noTelemetry): BackgroundTasks {
  const running = new Set<Promise<unknown>>();
  let closed = false;
  return {
    run(name, task, linkedTo = null) {
      if (closed) {
        logger.warn('background task refused during shutdown', { task: name });
        return;
      }
      // The span starts now, while what it links to is still open; the task runs on the next tick.
      const span = telemetry.backgroundSpan(name, linkedTo);
      const p: Promise<unknown> = Promise.resolve()
        .then(() => spanned(span, task))
        .catch((err: unknown) => logger.error('background task failed', { task: name, err }))
        .finally(() => running.delete(p));
      running.add(p);
    },
    get pending() {
      return running.size;
    },
    async drain(timeoutMs) {
      // Tasks may register follow-ups while draining; loop until the set is empty.
      const all = (async () => {
        while (running.size > 0) await Promise.allSettled([...running]);
        return true;
      })();
      return settleWithin(all, timeoutMs, false);
    },
    close() {
      closed = true;
    },
  };
}
