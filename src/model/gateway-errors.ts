/**
 * Errors of the model gateway as the client may see them: generic, never the upstream message (which can
 * carry hosts, keys or the prompt). The cause goes to the log only.
 */
import { AppError } from '../http/errors.js';

/** The upstream failed (after the one retry) or answered nonsense. */
export class ModelUnavailableError extends AppError {
  constructor(options?: { cause?: unknown }) {
    super(503, 'model unavailable', 'the assistant could not reach its language model; please try again');
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** A model call passed its deadline (MODEL_CALL_TIMEOUT_MS). */
export class ModelTimeoutError extends AppError {
  constructor() {
    super(503, 'model timeout', 'the language model took too long to answer; please try again');
  }
}

/** No gateway configured (no LLM_GATEWAY_API_KEY and no offline model). */
export class ModelNotConfiguredError extends AppError {
  constructor() {
    super(503, 'model gateway not configured', 'this service has no language model configured');
  }
}
