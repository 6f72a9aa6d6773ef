/**
 * The complete response object of CONTRACT.md, built once from the verified answer and the tool
 * outcomes of the turn. Every key is always present.
 */
import { computeThought } from './thought.js';
import type { AnswerNotes, CmuMaps, CompleteResponse, ToolOutcome } from './types.js';

/** Campus tools really called, first-use order, no duplicates; never the map or memory tools. */
export function servicesUsed(outcomes: readonly ToolOutcome[]): string[] {
  return [...new Set(outcomes.filter((o) => o.kind === 'campus').map((o) => o.name))];
}

export function buildCompleteResponse(input: {
  text: string;
  map: CmuMaps;
  outcomes: readonly ToolOutcome[];
  notes: AnswerNotes;
}): CompleteResponse {
  const services = servicesUsed(input.outcomes);
  return {
    thought: computeThought(input.outcomes, input.notes),
    action: services.length > 0 ? 'retrieve' : 'respond',
    tool_calls: [],
    services_used: services,
    response_text: input.text,
    cmu_maps: { ...input.map },
    metadata: {},
  };
}
