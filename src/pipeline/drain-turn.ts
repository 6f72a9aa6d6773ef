/**
 * The JSON route's consumer of the turn: drains the same event stream the SSE route encodes and returns
 * the complete response object carried by `done`; an `error` event becomes the thrown AppError.
 */
import { AppError } from '../http/errors.js';
import type { ClientEvent } from './events.js';
import type { CompleteResponse } from './complete-response.js';

const STATUSES = [400, 401, 404, 405, 413, 429, 500, 503] as const;

/** The AppError a drained turn answers with: its `error` event's, or a 500 when it ended without `done` (null). */
export function turnError(e: Extract<ClientEvent, { type: 'error' }> | null): AppError {
  if (!e) return new AppError(500, 'internal error', 'the turn ended without an answer');
  const status = STATUSES.find((s) => s === e.status) ?? 500;
  return new AppError(status, e.envelope.error, e.envelope.detail);
}

/** Resolves with `done`'s response; throws an AppError carrying the `error` event's envelope. */
export async function drainTurn(events: AsyncIterable<ClientEvent>): Promise<CompleteResponse> {
  for await (const e of events) {
    if (e.type === 'done') return e.response;
    if (e.type === 'error') throw turnError(e);
  }
  throw turnError(null);
}
