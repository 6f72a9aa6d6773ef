/**
 * Why the service itself ended a turn. Each is the abort reason of the turn's signal, so every stage
 * sees the same cause, and deliver turns it into the turn's `error` event (the JSON route's envelope).
 */
import { AppError } from '../http/errors.js';

/** The turn ran past TURN_TIMEOUT_MS. */
export class TurnTimeoutError extends AppError {
  constructor() {
    super(503, 'turn timed out', 'the answer took too long to put together; please try again');
  }
}

/** The service is shutting down and could not finish the turn within its drain bound. */
export class ShuttingDownError extends AppError {
  constructor() {
    super(503, 'service restarting', 'the service is restarting; please send your message again');
  }
}

/** The AppError a turn was ended with by the service, or null when the client went away. */
export function serviceEndReason(signal: AbortSignal): AppError | null {
  return signal.aborted && signal.reason instanceof AppError ? signal.reason : null;
}

/** The run was cancelled (`POST /agent/runs/{run_id}/cancel`, CONTRACT.md "Resuming a stream"). */
export class RunCancelledError extends AppError {
  constructor() {
    super(503, 'cancelled', 'the answer was cancelled');
  }
}

/** The run's reader went away and none came back within RUN_DETACHED_GRACE_MS. */
export class RunAbandonedError extends AppError {
  constructor(graceMs: number) {
    super(503, 'abandoned', `no reader came back within ${Math.round(graceMs / 1000)} s; please ask again`);
  }
}
