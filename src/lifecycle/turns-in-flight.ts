/**
 * The chat turns running in this process, by budget bucket (a user id or `anonymous`). Two uses:
 * a per-bucket cap (MAX_TURNS_IN_FLIGHT: a user who opens many turns at once is answered 429 with a
 * short Retry-After instead of spending the budget in parallel), and shutdown, which ends every turn
 * still running at its deadline with the reason the client is told (an `error` event).
 *
 * The count is per process: with several replicas each enforces its own cap (the token budget is
 * what replicas share).
 */
import { AppError } from '../http/errors.js';
import { isSignedOut } from '../security/principal.js';

/** A user already has the allowed number of turns running. */
export class TooManyTurnsError extends AppError {
  override readonly refusal = 'turns_in_flight';

  constructor(max: number, retryAfterSeconds: number) {
    super(429, 'too many turns in flight', `at most ${max} answers can be in progress at once; wait for one to finish`, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

/** Seconds a client is asked to wait before starting another turn: a turn usually ends within this. */
export const TURNS_IN_FLIGHT_RETRY_AFTER_S = 2;

export interface TurnsInFlight {
  /** Registers a turn of `bucket`; throws TooManyTurnsError at the cap. Call the returned function once when it ends. */
  start(bucket: string, controller: AbortController): () => void;
  /** Aborts every running turn with `reason`; resolves to how many there were. */
  abortAll(reason: unknown): number;
  /** Turns running now. */
  readonly size: number;
}


/**
 * `maxPerBucket` is one user's cap (MAX_TURNS_IN_FLIGHT); `maxAnonymous` the cap of the `anonymous` bucket
 * (MAX_ANONYMOUS_TURNS_IN_FLIGHT), which every signed-out student shares: with one user's cap, the fourth
 * signed-out student at a peak would be refused (measured by the peak bench: 12 of 94 turns at 8 turns/s).
 */
export function createTurnsInFlight(maxPerBucket: number, maxAnonymous: number = maxPerBucket): TurnsInFlight {
  const byBucket = new Map<string, Set<AbortController>>();
  let size = 0;
  return {
    start(bucket, controller) {
      const running = byBucket.get(bucket) ?? new Set<AbortController>();
      const cap = isSignedOut(bucket) ? maxAnonymous : maxPerBucket;
      if (running.size >= cap) throw new TooManyTurnsError(cap, TURNS_IN_FLIGHT_RETRY_AFTER_S);
      running.add(controller);
      byBucket.set(bucket, running);
      size++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        running.delete(controller);
        size--;
        if (running.size === 0) byBucket.delete(bucket);
      };
    },
    abortAll(reason) {
      let n = 0;
      for (const running of byBucket.values()) {
        for (const c of running) {
          c.abort(reason);
          n++;
        }
      }
      return n;
    },
    get size() {
      return size;
    },
  };
}
