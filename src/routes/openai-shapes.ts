/**
 * The OpenAI chat-completions shapes of a turn (what an OpenAI SDK, LibreChat, Open WebUI or the front
 * end's custom-model setting read): the `chat.completion` object, the `chat.completion.chunk` frames of
 * a stream, and the Markdown tail that shows a plain chat UI the turn's map and memory events. The
 * error body is http/openai-errors.ts's.
 */
import type { CmuMaps } from '../campus/cmu-maps.js';
import type { TurnOutcome } from '../pipeline/stage.js';

/** What the Markdown tail is made of: the map (if any) and the memory events' texts. */
export interface TurnExtras {
  map: CmuMaps | null;
  memory: string[];
}

/**
 * The content that ends a streamed answer a failure interrupted, before the error frame: an OpenAI client
 * keeps the content it streamed (the front end stores it as the assistant's message), so the kept text
 * says it is incomplete and why, instead of reading as a whole answer.
 */
export function interruptedNote(detail: string): string {
  return `\n\n*(This answer was interrupted: ${detail.replace(/[.\s]+$/, '')}.)*`;
}

/** Markdown that follows the answer: a map link line, a line per memory change. Empty without extras. */
export function markdownTail(extras: TurnExtras): string {
  const lines: string[] = [];
  const map = extras.map;
  if (map?.url) {
    const label = map.mode === 'directions' ? `${map.src_label ?? map.src} → ${map.dest_label ?? map.dest}` : (map.target_label ?? map.target);
    lines.push(`[Open map: ${label}](${map.url})`);
  }
  for (const text of extras.memory) lines.push(`_${text}_`);
  return lines.length ? `\n\n${lines.join('\n\n')}` : '';
}

export type FinishReason = 'stop' | 'length';

const usageOf = (o: TurnOutcome) => ({
  prompt_tokens: o.promptTokens,
  completion_tokens: o.completionTokens,
  total_tokens: o.promptTokens + o.completionTokens,
});

/** The frame of one chunk's identity: the same id, time and model on every chunk of a completion. */
export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

/** The non-streamed answer. */
export function completionObject(who: CompletionIdentity, content: string, finish: FinishReason, outcome: TurnOutcome) {
  return {
    ...who,
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: finish }],
    usage: usageOf(outcome),
  };
}

/** One `chat.completion.chunk`: a content delta (or the role), or the finish. */
export function completionChunk(who: CompletionIdentity, delta: { role?: 'assistant'; content?: string }, finish: FinishReason | null = null) {
  return { ...who, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
}

/** The usage-only chunk `stream_options.include_usage` asks for, after the finish. */
export function usageChunk(who: CompletionIdentity, outcome: TurnOutcome) {
  return { ...who, object: 'chat.completion.chunk', choices: [], usage: usageOf(outcome) };
}
