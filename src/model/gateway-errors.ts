/**
 * Errors of the model gateway as the client may see them: generic, never the upstream message (which can
 * carry hosts, keys or the prompt). The cause goes to the log only.
 */
import { AppError } from '../http/errors.js';

/**
 * The upstream failed (after the one retry) or answered nonsense. The logged cause keeps only the error
 * class and HTTP status: an upstream message can quote the prompt, i.e. the user's words.
 */
export class ModelUnavailableError extends AppError {
  constructor(options?: { cause?: unknown }) {
    super(503, 'model unavailable', 'the assistant could not reach its language model; please try again');
    const cause = options?.cause;
    if (cause !== undefined) {
      const status = (cause as { status?: unknown })?.status;
      const name = cause instanceof Error ? cause.name : typeof cause;
      this.cause = new Error(`upstream ${name}${typeof status === 'number' ? ` status ${status}` : ''}`);
    }
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
