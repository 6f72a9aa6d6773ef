/**
 * Deliver stage, the last one: passes client events on, holds the map until the answer is final, has
 * the answer reviewed (moderation may replace it, then without a map), and ends the turn with `done`
 * (the complete response object) or, on failure, one `error` event with a generic envelope. A turn the
 * client abandoned ends silently.
 */
import type { Admission } from '../../admission/admission.js';
import { toClientError } from '../../http/errors.js';
import type { Logger } from '../../logger.js';
import { buildCompleteResponse } from '../complete-response.js';
import type { Stage } from '../stage.js';
import { NO_MAP, type AnswerNotes, type CmuMaps, type ToolOutcome } from '../types.js';

/** Said when the model produced nothing at all (it happens with some models after tool calls). */
export const EMPTY_ANSWER_TEXT = "Sorry, I couldn't put an answer together just now. Please try asking again.";

export interface DeliverOptions {
  admission: Pick<Admission, 'reviewAnswer'>;
  logger: Logger;
  /** Set for canned turns (moderation or injection refusals). */
  refused?: AnswerNotes['refused'];
}

export function createDeliverStage(options: DeliverOptions): Stage {
  const { admission, logger } = options;
  return async function* deliver(events, ctx) {
    const outcomes: ToolOutcome[] = [];
    let heldMap: CmuMaps | null = null;
    try {
      for await (const e of events) {
        if (e.type === 'status' || e.type === 'delta' || e.type === 'memory') yield e;
        else if (e.type === 'map') heldMap = e.map;
        else if (e.type === 'tool') outcomes.push(e.outcome);
        else if (e.type === 'error' || e.type === 'done') yield e;
        else if (e.type === 'answer') {
          const notes: AnswerNotes = { ...e.notes, ...(options.refused && { refused: options.refused }) };
          let text = e.text;
          let map = e.map.url ? e.map : (heldMap ?? NO_MAP);
          if (!text.trim()) {
            text = EMPTY_ANSWER_TEXT;
            notes.emptyModelOutput = true;
            yield { type: 'delta', text };
          }
          if (!options.refused) {
            const replacement = await admission.reviewAnswer(text, ctx.signal);
            if (replacement !== null) {
              text = replacement.text;
              map = NO_MAP;
              // The self-harm support answer is not a refusal: `thought` must say what was answered.
              notes.refused = replacement.reason;
            }
          }
          if (ctx.signal.aborted) return;
          if (map.url) yield { type: 'map', map };
          yield { type: 'done', response: buildCompleteResponse({ text, map, outcomes, notes }) };
          return;
        }
        // Other internal events (usage, pass, text, map_request) end here.
      }
      if (!ctx.signal.aborted) throw new Error('the turn ended without an answer');
    } catch (err) {
      if (ctx.signal.aborted) return;
      logger.error('turn failed', { request_id: ctx.requestId, err });
      const { status, envelope } = toClientError(err);
      yield { type: 'error', envelope, status };
    }
  };
}
