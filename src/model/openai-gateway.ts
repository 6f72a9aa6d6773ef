/**
 * The model gateway over an OpenAI-compatible API with the `openai` package. One streamed pass
 * assembles text and tool calls from the chunks and reports usage exactly once; a deadline bounds each
 * call; a 429/5xx before any text was streamed is retried once after a backoff (the client's own
 * retries are off so there is exactly one policy); the caller's AbortSignal cancels the upstream HTTP
 * request, and so does a reader that stops mid-pass; a response longer than its byte limit fails the call
 * (response-limit.ts); answer text goes on in batches (text-batches.ts).
 */
import OpenAI, { APIError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Usage } from './usage.js';
import { estimateUsage, reportedUsage } from './estimate-usage.js';
import { ModelTimeoutError, ModelUnavailableError } from './gateway-errors.js';
import { removeInvisibleTags } from '../security/invisible-tags.js';
import { textBatches, type TextBatches } from './text-batches.js';
import { limitResponseBytes, responseByteLimit, responseCounter, type ResponseBounds } from './response-limit.js';
import { completionChunks } from './completion-chunks.js';
import { createOutboundFetch } from '../transport/outbound-fetch.js';
import type { CompleteAnswer, CompleteRequest, ModelGateway, ModelMessage, PassEvent, PassRequest, ToolCallRequest, ToolDefinition } from './gateway.js';

export interface OpenAIGatewayOptions {
  baseUrl: string;
  apiKey: string;
  /** The seam for tests and the offline model: passed to the openai client (under the byte limit). */
  fetch?: typeof globalThis.fetch;
  /** Bytes one response and one of its lines may carry (response-limit.ts); default: the bounds for 1,500-token passes. */
  responseBounds?: ResponseBounds;
  /**
   * What every message text and tool description passes through before it is sent: the leak policy's
   * `redact`, so no configured secret reaches the model provider, whoever wrote it (a user who pasted
   * one, a tool result that quoted one). Absent: sent as they are (tests of the gateway itself).
   */
  outbound?: (text: string) => string;
  /** Deadline of one model call, first byte to last chunk. */
  callTimeoutMs?: number;
  /**
   * ANSWER_BATCH_MS: answer text that arrives within this many ms of the last piece passed on is passed
   * on with the pieces after it, as one (text-batches.ts); 0 passes every chunk's text on alone.
   */
  textBatchMs?: number;
  /** The clock of the batching window (tests). */
  now?: () => number;
  /**
   * PROMPT_CACHE_KEY: sent as `prompt_cache_key` with every call, so a provider that routes its prefix
   * cache by key (OpenAI) keeps this service's requests, which share their tools and system prompt,
   * together; null sends none (for a gateway that refuses unknown parameters).
   */
  promptCacheKey?: string | null;
  /** Wait before the single retry; a `Retry-After` of up to `maxRetryAfterMs` is honoured instead. */
  retryBackoffMs?: number;
  maxRetryAfterMs?: number;
  /** Timers, injected so tests need not wait for deadlines. */
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

/** Marks an abort caused by our own deadline (as opposed to the client going away). */
const DEADLINE = Symbol('deadline');
/** Marks an abort because the pass's reader stopped reading (the answer cap, a client gone). */
const LEFT = Symbol('left');

function isRetryable(err: unknown): boolean {
  return err instanceof APIError && typeof err.status === 'number' && (err.status === 429 || err.status >= 500);
}

/**
 * The outbound filter over what a call sends. The same texts are sent again and again (each turn's
 * system prompt is built anew but reads the same, a conversation resends its history, a turn its earlier
 * messages on every pass), so filtered texts are kept by content: a bounded LRU.
 */
function createOutbound(filter: ((text: string) => string) | undefined, cacheSize = 256) {
  const cache = new Map<string, string>();
  const text = (raw: string): string => {
    // Invisible tag characters never reach the model, whatever else is configured.
    if (!filter) return removeInvisibleTags(raw);
    let out = cache.get(raw);
    if (out === undefined) {
      out = filter(removeInvisibleTags(raw));
      if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
    } else cache.delete(raw);
    cache.set(raw, out);
    return out;
  };
  return {
    // A message of parts (the student's words with images) has its text parts filtered; images go as they are.
    messages: (messages: ModelMessage[]): ModelMessage[] =>
      messages.map((m): ModelMessage => {
        if (typeof m.content === 'string') return { ...m, content: text(m.content) } as ModelMessage;
        if (!Array.isArray(m.content)) return m;
        return { ...m, content: m.content.map((p) => (p.type === 'text' ? { ...p, text: text(p.text) } : p)) } as ModelMessage;
      }),
    tools: (tools: ToolDefinition[] | undefined): ChatCompletionTool[] | undefined =>
      tools?.length
        ? tools.map((t) => ({ type: 'function', function: { name: t.name, description: text(t.description), parameters: t.parameters } }))
        : undefined,
  };
}

/** Builds the gateway. Nothing is sent until the first pass. */
export function createOpenAIGateway(options: OpenAIGatewayOptions): ModelGateway {
  const bounds = options.responseBounds ?? responseByteLimit(1_500);
  const client = new OpenAI({
    baseURL: options.baseUrl,
    apiKey: options.apiKey,
    maxRetries: 0,
    fetch: options.fetch ? limitResponseBytes(options.fetch, bounds) : createOutboundFetch({ onChunk: responseCounter(bounds) }),
  });
  const outbound = createOutbound(options.outbound);
  const callTimeoutMs = options.callTimeoutMs ?? 60_000;
  const backoffMs = options.retryBackoffMs ?? 500;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 4_000;
  const setTimer = options.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = options.clearTimeout ?? ((h) => clearTimeout(h as NodeJS.Timeout));
  const batching = { windowMs: options.textBatchMs ?? 0, now: options.now ?? performance.now.bind(performance), setTimer, clearTimer };

  /** A signal aborted by the caller's signal or by the deadline; `dispose` clears the timer. */
  function callSignal(parent: AbortSignal | undefined) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(parent?.reason);
    parent?.addEventListener('abort', onAbort, { once: true });
    if (parent?.aborted) onAbort();
    const timer = setTimer(() => controller.abort(DEADLINE), callTimeoutMs);
    return {
      signal: controller.signal,
      /** Ends the upstream request (its reader left before the end). */
      abort: () => controller.abort(LEFT),
      timedOut: () => controller.signal.reason === DEADLINE,
      dispose: () => {
        clearTimer(timer);
        parent?.removeEventListener('abort', onAbort);
      },
    };
  }

  function backoff(err: unknown, signal: AbortSignal | undefined): Promise<void> {
    const header = err instanceof APIError ? err.headers?.get('retry-after') : null;
    const retryAfter = header ? Number(header) * 1000 : NaN;
    const wait = Number.isFinite(retryAfter) && retryAfter <= maxRetryAfterMs ? retryAfter : backoffMs;
    return new Promise((resolve, reject) => {
      const timer = setTimer(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, wait);
      const onAbort = () => {
        clearTimer(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Maps a failure to the service's errors; the caller's own abort passes through unchanged. */
  function fail(err: unknown, call: { timedOut: () => boolean }, parent: AbortSignal | undefined): never {
    if (parent?.aborted) throw parent.reason ?? err;
    if (call.timedOut()) throw new ModelTimeoutError();
    throw new ModelUnavailableError({ cause: err });
  }

  async function* streamPass(request: PassRequest): AsyncGenerator<PassEvent> {
    const body = {
      model: request.model,
      messages: outbound.messages(request.messages),
      tools: outbound.tools(request.tools),
      max_tokens: request.maxTokens,
      stream: true as const,
      stream_options: { include_usage: true },
      ...(options.promptCacheKey && { prompt_cache_key: options.promptCacheKey }),
    };
    for (let attempt = 0; ; attempt++) {
      let retryCause: unknown;
      const call = callSignal(request.signal);
      let text = '';
      let usage: Usage | null = null;
      let streamed = false;
      const calls = new Map<number, ToolCallRequest>();
      let finish: string | null = null;
      let answeredBy: string | null = null;
      let ended = false;
      let batches: TextBatches<ChatCompletionChunk> | null = null;
      try {
        const response = await client.chat.completions.create(body, { signal: call.signal }).asResponse();
        batches = textBatches(completionChunks(response), batching);
        for (let step = await batches.next(); !step.done; step = await batches.next()) {
          if (typeof step.value === 'string') {
            yield { type: 'text', text: step.value };
            continue;
          }
          const chunk = step.value;
          if (chunk.usage) usage = reportedUsage(chunk.usage);
          if (answeredBy === null && chunk.model) answeredBy = chunk.model;
          const choice = chunk.choices[0];
          if (!choice) continue;
          const piece = choice.delta?.content;
          if (piece) {
            streamed = true;
            text += piece;
            batches.hold(piece);
          }
          for (const tc of choice.delta?.tool_calls ?? []) {
            streamed = true;
            const entry = calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
            if (tc.id) entry.id = tc.id;
            if (tc.function?.name) entry.name += tc.function.name;
            if (tc.function?.arguments) entry.arguments += tc.function.arguments;
            calls.set(tc.index, entry);
          }
          if (choice.finish_reason) finish = choice.finish_reason;
        }
        ended = true;
        // An aborted pass must not look complete, however its body ended.
        if (call.signal.aborted) throw call.signal.reason;
        const assembled = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c).filter((c) => c.name);
        if (assembled.length) yield { type: 'tool_calls', calls: assembled };
        yield { type: 'usage', usage: usage ?? estimateUsage(body.messages, text) };
        yield { type: 'finish', reason: finish, model: answeredBy };
        return;
      } catch (err) {
        ended = true;
        const retry = attempt === 0 && !streamed && isRetryable(err) && !request.signal.aborted;
        if (!retry) {
          // Exactly one usage per pass: a pass cut short still reports (an estimate of) what it cost.
          if (streamed || request.signal.aborted) yield { type: 'usage', usage: usage ?? estimateUsage(body.messages, text) };
          fail(err, call, request.signal);
        }
        retryCause = err;
      } finally {
        batches?.close();
        // The reader left mid-pass (the answer cap, a client gone): the upstream request ends now, not
        // when the next chunk would have come.
        if (!ended) call.abort();
        call.dispose();
      }
      await backoff(retryCause, request.signal);
    }
  }

  async function complete(request: CompleteRequest): Promise<CompleteAnswer> {
    const body = {
      model: request.model,
      messages: outbound.messages(request.messages),
      max_tokens: request.maxTokens,
      temperature: request.temperature,
      ...(request.json && { response_format: { type: 'json_object' as const } }),
      ...(options.promptCacheKey && { prompt_cache_key: options.promptCacheKey }),
    };
    for (let attempt = 0; ; attempt++) {
      const call = callSignal(request.signal);
      try {
        const res = await client.chat.completions.create(body, { signal: call.signal });
        const text = res.choices[0]?.message?.content ?? '';
        return { text, usage: res.usage ? reportedUsage(res.usage) : estimateUsage(body.messages, text), model: res.model || null };
      } catch (err) {
        if (!(attempt === 0 && isRetryable(err) && !request.signal?.aborted)) fail(err, call, request.signal);
        await backoff(err, request.signal);
      } finally {
        call.dispose();
      }
    }
  }

  return { streamPass, complete };
}
