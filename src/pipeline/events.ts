/**
 * The closed union of events a turn's stages pass along. Client events are what CONTRACT.md "Stream"
 * names; they are framed at the edge (SSE) or drained into JSON. Internal events never leave the
 * pipeline. Types owned elsewhere (the map, usage, memory changes, answer notes) are imported.
 */
import type { CmuMaps, MapRequestEvent } from '../campus/cmu-maps.js';
import type { AnswerNotes } from '../guards/answer-notes.js';
import type { GroundingCounts } from '../guards/grounding/index.js';
import type { Envelope } from '../http/errors.js';
import type { MemoryEvent } from '../memory/memory-event.js';
import type { Usage } from '../model/usage.js';
import type { CompleteResponse } from './complete-response.js';
import type { ToolOutcome } from './toolbox.js';

/** What the client sees (CONTRACT.md "Stream"). */
export type ClientEvent =
  | { type: 'status'; text: string }
  | { type: 'delta'; text: string }
  | { type: 'map'; map: CmuMaps }
  | MemoryEvent
  | { type: 'done'; response: CompleteResponse }
  /** `status` is the HTTP status the JSON route answers with; the stream carries only the envelope. */
  | { type: 'error'; envelope: Envelope; status?: number };

/** Events that stay inside the pipeline. */
export type InternalEvent =
  /** Raw model text, not yet verified: only the verify stage turns it into `delta`. */
  | { type: 'text'; text: string }
  /** The model started a new pass after tool calls; text already held may be flushed first. */
  | { type: 'pass'; index: number }
  /**
   * The answer stopped early: at its length limit (the read cap, or the last pass's max_tokens), or, `by:
   * 'spend'`, because a spending limit left it no room at its model's observed price. It ends with the note that says which.
   */
  | { type: 'cut'; by?: 'spend' }
  /** A tool ran; `result` is what it returned, raw and whole (the grounding check's evidence). */
  | { type: 'tool'; outcome: ToolOutcome; result?: string }
  /** A valid `maps_show_map` call; the last one of the turn becomes the map. */
  | MapRequestEvent
  | { type: 'usage'; usage: Usage }
  /** The verified answer, emitted once by verify at the end; deliver builds `done` from it. */
  | { type: 'answer'; text: string; map: CmuMaps; notes: AnswerNotes; grounding: GroundingCounts };

export type TurnEvent = ClientEvent | InternalEvent;

/** Narrows an event to the client-visible ones. */
export function isClientEvent(e: TurnEvent): e is ClientEvent {
  return (
    e.type === 'status' ||
    e.type === 'delta' ||
    e.type === 'map' ||
    e.type === 'memory' ||
    e.type === 'done' ||
    e.type === 'error'
  );
}

/** The `data` of a client event as CONTRACT.md "Stream" shapes it: the one mapping of the union to the wire. */
export function clientEventData(e: ClientEvent): unknown {
  switch (e.type) {
    case 'status':
    case 'delta':
      return { text: e.text };
    case 'map':
      return e.map;
    case 'memory':
      return e.data;
    case 'done':
      return e.response;
    case 'error':
      return e.envelope;
  }
}
