/**
 * The complete response object of CONTRACT.md, built once from the verified answer and the tool
 * outcomes of the turn. Every key is always present.
 */
import type { CmuMaps } from '../campus/cmu-maps.js';
import type { AnswerNotes } from '../guards/answer-notes.js';
import type { GroundingCounts } from '../guards/grounding/index.js';
import { computeThought, type Thought } from './thought.js';
import type { ToolOutcome } from './toolbox.js';

/** The complete response object (CONTRACT.md): every key always present. */
export interface CompleteResponse {
  thought: Thought;
  action: 'retrieve' | 'respond';
  /** Historical field the front end expects; always an empty array (tools run server-side). */
  tool_calls: never[];
  services_used: string[];
  response_text: string;
  cmu_maps: CmuMaps;
  metadata: Record<string, unknown>;
}

/** Campus tools really called, first-use order, no duplicates; never the map or memory tools. */
export function servicesUsed(outcomes: readonly ToolOutcome[]): string[] {
  return [...new Set(outcomes.filter((o) => o.kind === 'campus').map((o) => o.name))];
}

export function buildCompleteResponse(input: {
  text: string;
  map: CmuMaps;
  outcomes: readonly ToolOutcome[];
  notes: AnswerNotes;
  /** What grounding checked of the answer (`metadata.grounding`, CONTRACT.md). */
  grounding: GroundingCounts;
}): CompleteResponse {
  const services = servicesUsed(input.outcomes);
  return {
    thought: computeThought(input.outcomes, input.notes),
    action: services.length > 0 ? 'retrieve' : 'respond',
    tool_calls: [],
    services_used: services,
    response_text: input.text,
    cmu_maps: { ...input.map },
    metadata: { grounding: { checked: input.grounding.checked, unverified: input.grounding.unverified } },
  };
}
