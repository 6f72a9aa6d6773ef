/**
 * Deliver stage, the last one: passes client events on, holds the map until the answer is final, has
 * the answer reviewed (moderation may replace it, then without a map), and ends the turn with `done`
 * (the complete response object) or, on failure, one `error` event with a generic envelope. A turn the
 * service ended (deadline, shutdown) ends with that reason's `error` event; a turn the client abandoned
 * ends silently, since nobody is left to read it.
 */
import type { Admission } from '../../admission/admission.js';
import { NO_MAP, type CmuMaps } from '../../campus/cmu-maps.js';
import type { AnswerNotes } from '../../guards/answer-notes.js';
import { toClientError } from '../../http/errors.js';
import type { LeakPolicy } from '../../security/leak-policy.js';
import type { Logger } from '../../logger.js';
import { buildCompleteResponse } from '../complete-response.js';
import type { ClientEvent } from '../events.js';
import type { ToolOutcome } from '../toolbox.js';
import type { Stage } from '../stage.js';
import { serviceEndReason } from '../turn-errors.js';

export interface DeliverOptions {
  admission: Pick<Admission, 'reviewAnswer'>;
  logger: Logger;
  /** The leak policy, for the `error` event's envelope. */
  leaks: LeakPolicy;
  /** Set for canned turns (moderation or injection refusals). */
  refused?: AnswerNotes['refused'];
}


export function createDeliverStage(options: DeliverOptions): Stage {
  const { admission, logger } = options;
  const errorEvent = (err: unknown): ClientEvent => {
    const { status, envelope } = toClientError(err, options.leaks);
    return { type: 'error', envelope, status };
  };
  return async function* deliver(events, ctx) {
    const outcomes: ToolOutcome[] = [];
    let heldMap: CmuMaps | null = null;
    /** After an abort: the service's reason as an `error` event, or nothing when the client left. */
    const ended = () => {
      const reason = serviceEndReason(ctx.signal);
      if (reason) logger.warn('turn ended by the service', { request_id: ctx.requestId, reason: reason.error });
      return reason ? [errorEvent(reason)] : [];
    };
    try {
      for await (const e of events) {
        if (e.type === 'status' || e.type === 'delta' || e.type === 'memory') yield e;
        else if (e.type === 'map') heldMap = e.map;
        else if (e.type === 'tool') outcomes.push(e.outcome);
        else if (e.type === 'error' || e.type === 'done') yield e;
        else if (e.type === 'answer') {
          // Verify guarantees a non-empty answer (its empty-answer text when the model said nothing).
          const notes: AnswerNotes = { ...e.notes, ...(options.refused && { refused: options.refused }) };
          let text = e.text;
          let map = e.map.url ? e.map : (heldMap ?? NO_MAP);
          if (!options.refused) {
            const replacement = await admission.reviewAnswer(text, ctx.signal);
            if (replacement !== null) {
              text = replacement.text;
              map = NO_MAP;
              // The self-harm support answer is not a refusal: `thought` must say what was answered.
              notes.refused = replacement.reason;
            }
          }
          if (ctx.signal.aborted) return yield* ended();
          // Counts only: a claim is model text and never logged.
          if (e.grounding.unverified > 0) logger.info('answer details not confirmed', { request_id: ctx.requestId, checked: e.grounding.checked, unverified: e.grounding.unverified });
          if (map.url) yield { type: 'map', map };
          yield { type: 'done', response: buildCompleteResponse({ text, map, outcomes, notes, grounding: e.grounding }) };
          return;
        }
        // Other internal events (usage, pass, text, map_request) end here.
      }
      if (ctx.signal.aborted) return yield* ended();
      throw new Error('the turn ended without an answer');
    } catch (err) {
      if (ctx.signal.aborted) return yield* ended();
      logger.error('turn failed', { request_id: ctx.requestId, err });
      yield errorEvent(err);
    }
  };
}
