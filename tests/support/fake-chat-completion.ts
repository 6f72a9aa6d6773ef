/**
 * What the fake gateway answers to one chat completion request: the `chat.completion` JSON, or the
 * `chat.completion.chunk` SSE frames of a stream (role delta, text chunks, tool calls with id and name
 * first and arguments split over several interleaved chunks, finish chunk, usage-only chunk, [DONE]).
 */
import { estimateTokens } from './fake-http.js';

export interface FakeToolCall {
  name: string;
  /** Object arguments are JSON-encoded; a string is sent as is (it may be invalid JSON on purpose). */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** What the call cost, as OpenRouter reports it (sent only when set). */
  cost?: number;
  /** Prompt tokens served from the provider's cache: sent as `prompt_tokens_details.cached_tokens`. */
  cached_tokens?: number;
}

export interface FakeReply {
  text?: string | string[];
  toolCalls?: FakeToolCall[];
  /** Null: the gateway reports no usage. Absent: derived from the request and reply sizes. */
  usage?: FakeUsage | null;
  /** An HTTP error status (429, 500, ...) answered with an OpenAI-style error body. */
  status?: number;
  errorMessage?: string;
  /** Extra response headers (e.g. `retry-after`). */
  headers?: Record<string, string>;
  /** Wait before sending anything (headers included). */
  delayMs?: number;
  /** Wait between streamed frames. */
  chunkDelayMs?: number;
  /** Send headers and the text chunks, then stall until the client disconnects. */
  hang?: boolean;
  finishReason?: string;
  /**
   * A broken gateway: stream the whole text whatever `max_tokens` says. Otherwise the fake honours the
   * request's `max_completion_tokens` / `max_tokens` as a real one does: the text stops at that many
   * tokens (four characters each, as the fake counts), `finish_reason` is `length`, and the reported
   * completion tokens never exceed it.
   */
  ignoreMaxTokens?: boolean;
}

/** The request's output cap, when it set one. */
function maxTokensOf(body: any): number | null {
  const cap = body?.max_completion_tokens ?? body?.max_tokens;
  return typeof cap === 'number' && cap > 0 ? cap : null;
}

/** Cuts `texts` to `chars` characters in all. */
function cutTexts(texts: string[], chars: number): string[] {
  const out: string[] = [];
  let left = chars;
  for (const t of texts) {
    if (left <= 0) break;
    out.push(t.slice(0, left));
    left -= t.length;
  }
  return out;
}

/** Splits a string into `parts` roughly equal pieces (at least one character each). */
function splitInto(s: string, parts: number): string[] {
  if (s.length <= 1) return [s];
  const size = Math.ceil(s.length / Math.min(parts, s.length));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

export interface Completion {
  /** The non-streamed `chat.completion` body. */
  json: unknown;
  /** The streamed frames, `data: ...\n\n` each; for a hanging reply only the frames sent before the stall. */
  frames: string[];
}

/** Builds both answers for `reply` to request `body`; `seq` numbers ids. */
export function buildCompletion(reply: FakeReply, body: any, seq: () => number): Completion {
  let texts = reply.text === undefined ? [] : Array.isArray(reply.text) ? reply.text : [reply.text];
  const cap = reply.ignoreMaxTokens ? null : maxTokensOf(body);
  const capped = cap !== null && texts.reduce((n, t) => n + t.length, 0) > cap * 4;
  if (capped) texts = cutTexts(texts, cap * 4);
  const calls = (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${seq()}_${i}`,
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
  const model = typeof body?.model === 'string' ? body.model : 'fake/model';
  const id = `chatcmpl-fake-${seq()}`;
  const created = Math.floor(Date.now() / 1000);
  const finish = reply.finishReason ?? (capped ? 'length' : calls.length ? 'tool_calls' : 'stop');
  const fullText = texts.join('');
  const scripted =
    reply.usage === null
      ? null
      : (reply.usage ?? {
          prompt_tokens: estimateTokens(body?.messages),
          completion_tokens: estimateTokens(fullText + calls.map((c) => c.arguments).join('')),
        });
  const usage = scripted && cap !== null ? { ...scripted, completion_tokens: Math.min(cap, scripted.completion_tokens) } : scripted;
  const usageBody = usage && (({ cached_tokens, ...u }) => ({
    ...u,
    total_tokens: u.prompt_tokens + u.completion_tokens,
    ...(cached_tokens !== undefined && { prompt_tokens_details: { cached_tokens } }),
  }))(usage);

  const json = {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: calls.length && !fullText ? null : fullText,
          refusal: null,
          ...(calls.length && {
            tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
          }),
        },
        finish_reason: finish,
        logprobs: null,
      },
    ],
    ...(usageBody && { usage: usageBody }),
  };

  const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  const delta = (d: Record<string, unknown>, finishReason: string | null = null) =>
    frame([{ index: 0, delta: d, finish_reason: finishReason, logprobs: null }]);

  const frames: string[] = [delta({ role: 'assistant', content: '' })];
  for (const t of texts) frames.push(delta({ content: t }));
  if (reply.hang) return { json, frames };
  // First delta of each call carries id and name; arguments follow in several pieces, interleaved.
  calls.forEach((c, i) =>
    frames.push(delta({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] })),
  );
  const argParts = calls.map((c) => splitInto(c.arguments, 3));
  const rounds = Math.max(0, ...argParts.map((p) => p.length));
  for (let r = 0; r < rounds; r++) {
    argParts.forEach((parts, i) => {
      if (parts[r] !== undefined) frames.push(delta({ tool_calls: [{ index: i, function: { arguments: parts[r] } }] }));
    });
  }
  frames.push(delta({}, finish));
  if (usageBody && body?.stream_options?.include_usage) frames.push(frame([], { usage: usageBody }));
  frames.push('data: [DONE]\n\n');
  return { json, frames };
}
