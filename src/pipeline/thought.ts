/**
 * `thought` of the complete response, computed by rules from what happened this turn (never taken from
 * the model): refusals, an empty answer, tool data used, tools that returned little or failed, or
 * general knowledge.
 */
import type { AnswerNotes } from '../guards/answer-notes.js';
import type { ToolOutcome } from './toolbox.js';

export interface Thought {
  reasoning: string;
  confidence: number;
}

const REFUSALS: Record<NonNullable<AnswerNotes['refused']>, Thought> = {
  injection: { reasoning: 'Declined a request to override or reveal the assistant\'s instructions.', confidence: 0.95 },
  prompt_leak: { reasoning: 'Declined to reveal internal instructions.', confidence: 0.95 },
  moderation: { reasoning: 'The message or answer was stopped by moderation; replied with a short refusal.', confidence: 0.9 },
  self_harm: { reasoning: 'Answered with support and crisis resources.', confidence: 0.9 },
};

function list(names: string[]): string {
  return [...new Set(names)].join(', ');
}

/** The rule-based thought for an answer. */
export function computeThought(outcomes: readonly ToolOutcome[], notes: AnswerNotes): Thought {
  if (notes.refused) return REFUSALS[notes.refused];
  if (notes.emptyModelOutput) return { reasoning: 'The model produced no answer; replied with a fallback message.', confidence: 0.1 };

  const campus = outcomes.filter((o) => o.kind === 'campus');
  const useful = campus.filter((o) => o.ok && !o.empty);
  const failed = campus.filter((o) => !o.ok);
  const empty = campus.filter((o) => o.ok && o.empty);
  let thought: Thought;
  if (useful.length > 0) {
    thought = { reasoning: `Answered using tool data from: ${list(useful.map((o) => o.name))}.`, confidence: 0.9 };
    if (failed.length > 0) thought = { reasoning: `${thought.reasoning} Some lookups failed (${list(failed.map((o) => o.name))}).`, confidence: 0.75 };
  } else if (empty.length > 0) {
    thought = { reasoning: `Tools returned little data (${list(empty.map((o) => o.name))}); the answer says what was not found.`, confidence: 0.5 };
  } else if (failed.length > 0) {
    thought = { reasoning: `Campus tools were unavailable (${list(failed.map((o) => o.name))}); the answer carries a caveat.`, confidence: 0.4 };
  } else {
    thought = { reasoning: 'Answered from general knowledge and the conversation, without campus tools.', confidence: 0.6 };
  }
  if (notes.repairedFailureClaim) thought = { ...thought, reasoning: `${thought.reasoning} A claim that data was unavailable was corrected.` };
  if (notes.unconfirmedDetails) thought = { ...thought, reasoning: `${thought.reasoning} Details the campus data did not confirm were marked.` };
  if (notes.redacted) thought = { ...thought, reasoning: `${thought.reasoning} Sensitive text was removed from the answer.` };
  return thought;
}
