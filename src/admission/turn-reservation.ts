/**
 * How much a chat turn holds from the daily budget, and when: the one policy admission and the execute
 * stage share, so what admission let in is what the turn can finish with.
 *
 * A pass costs at most its input as sent plus its `max_tokens` (MAX_OUTPUT_TOKENS). A pass that offers
 * tools may be followed by one that reads their results, so before it starts the turn must hold both:
 * the tool pass, and an answer pass whose input is the tool pass's input grown by the results
 * (TOOL_RESULTS_HELD_TOKENS) and the model's tool call, which is paid from what the tool pass held for
 * its own output and did not write (a tool call is a few dozen tokens). Admission holds exactly that for the
 * first pass before any stream starts (a turn that does not fit gets 429), so an admitted turn always
 * has its answer pass covered: when a later pass cannot top up, it answers with what the tools gave
 * (results beyond what is held are trimmed to fit), instead of being refused halfway.
 */
import { reservationTokens } from '../model/estimate-usage.js';
import type { TokenSplit } from '../model/model-prices.js';
import type { TurnRequest } from '../request/chat-request.js';
import { userContent } from '../request/user-content.js';

/**
 * Tool results the answer pass is held for beyond its input so far: about 6,000 characters, more than
 * the campus tools return for a typical question (a dining list, a course card, a guide section).
 */
export const TOOL_RESULTS_HELD_TOKENS = 2_000;

/**
 * What admission counts for the system prompt and tool definitions before this process has prepared a
 * turn (then it counts the largest it has seen): the sandbox's prompt with all 23 campus tools and a
 * full memory block measures 4,080 tokens by `reservationTokens` (1,653 the prompt, 2,427 the tool
 * definitions), plus the map and memory tools.
 */
export const PROMPT_SIZE_FLOOR_TOKENS = 4_500;

/** Held before the answer pass that follows a tool pass of `input` tokens. */
export function answerAfterTools(input: number, maxOutput: number): TokenSplit {
  return { input: input + TOOL_RESULTS_HELD_TOKENS, output: maxOutput };
}

/**
 * Held before a pass of `input` tokens that offers tools: the pass and the answer after it, as input and
 * output apart (money holds each at its own price).
 */
export function toolPassHold(input: number, maxOutput: number): TokenSplit {
  const answer = answerAfterTools(input, maxOutput);
  return { input: input + answer.input, output: maxOutput + answer.output };
}

/** The user's part of the first pass as it will be sent: the fitted history and the message (its files and images too). */
export function requestTokens(request: Pick<TurnRequest, 'query' | 'seen'> & { history: readonly { role: string; content: string }[] }): number {
  return reservationTokens([...request.history, { role: 'user', content: userContent(request) }]);
}
