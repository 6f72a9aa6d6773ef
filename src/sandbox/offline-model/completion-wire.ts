/**
 * The OpenAI chat-completions wire format the offline model answers in: streamed `chat.completion.chunk`
 * SSE frames (role chunk, content or tool-call deltas with arguments split across chunks, a finish
 * chunk, a usage-only chunk when `stream_options.include_usage` is set, then `data: [DONE]`) and the
 * non-streamed `chat.completion` object. Mirrors what the `openai` package parses, nothing more.
 */
import type { PlannedCall } from './next-step.js';

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface CompletionMeta {
  id: string;
  model: string;
  created: number;
  /** Ids for the tool calls of this completion, one per call. */
  callIds: string[];
}

/** Splits text into small pieces (about three words each) so clients see it stream. */
export function textPieces(text: string): string[] {
  return text.match(/(?:\S+\s*){1,3}|\s+/g) ?? [];
}

/** The JSON payloads of the streamed frames, in order (without the final `[DONE]`). */
export function streamChunks(
  meta: CompletionMeta,
  reply: { text: string } | { calls: PlannedCall[] },
  usage: WireUsage | null,
): unknown[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if ('text' in reply) {
    for (const piece of textPieces(reply.text)) out.push(chunk({ content: piece }));
  } else {
    reply.calls.forEach((call, index) => {
      const args = JSON.stringify(call.arguments);
      const cut = Math.ceil(args.length / 2);
      out.push(chunk({ tool_calls: [{ index, id: meta.callIds[index], type: 'function', function: { name: call.name, arguments: '' } }] }));
      // Arguments arrive in pieces, as real gateways send them; clients must concatenate.
      for (const part of [args.slice(0, cut), args.slice(cut)]) {
        if (part) out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
      }
    });
  }
  out.push(chunk({}, 'text' in reply ? 'stop' : 'tool_calls'));
  if (usage) out.push({ id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [], usage });
  return out;
}

/** The non-streamed `chat.completion` object. */
export function completionObject(meta: CompletionMeta, reply: { text: string } | { calls: PlannedCall[] }, usage: WireUsage) {
  const message =
    'text' in reply
      ? { role: 'assistant', content: reply.text, refusal: null }
      : {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: reply.calls.map((c, i) => ({
            id: meta.callIds[i],
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.arguments) },
          })),
        };
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: 'text' in reply ? 'stop' : 'tool_calls' }],
    usage,
  };
}

/** One SSE frame as the OpenAI API writes it. */
export function sseFrame(payload: unknown | '[DONE]'): string {
  return `data: ${payload === '[DONE]' ? '[DONE]' : JSON.stringify(payload)}\n\n`;
}
