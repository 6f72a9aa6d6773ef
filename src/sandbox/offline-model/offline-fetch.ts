/**
 * The offline model: a `fetch` that answers like an OpenAI-compatible gateway, for the `openai` client's
 * fetch seam. With no LLM_GATEWAY_API_KEY the service builds its ordinary gateway over this fetch, so
 * the same code path (streaming, tool calls, usage) runs without a network or a key. Deterministic:
 * the same request always gets the same answer.
 */
import { estimateTokens } from '../../model/estimate-usage.js';
import { completionObject, sseFrame, streamChunks, type WireUsage } from './completion-wire.js';
import { memoryOperations } from './memory-operations.js';
import { readConversation } from './conversation.js';
import { titleFor } from './titles.js';
import { nextStep, type NextStep } from './next-step.js';

/** The model id it reports, whatever the request named. */
export const OFFLINE_MODEL_ID = 'offline/sandbox-rules';

/** Base URL to give the gateway client: any URL works; this one says what it is in logs. */
export const OFFLINE_BASE_URL = 'http://offline-model.invalid/v1';

/**
 * Pause between streamed frames that the service uses, so a person watching the playground or the
 * terminal sees the answer arrive piece by piece as from a real model (about 60 pieces a second).
 */
export const OFFLINE_PIECE_DELAY_MS = 15;

export interface OfflineModelOptions {
  /** Clock for the `created` field. */
  now?: () => Date;
  /** Pause between the streamed frames of a text answer; 0 (the default) sends them as fast as the reader pulls. */
  pieceDelayMs?: number;
  /** Timer for the pause, injectable like every timer in the service. */
  setTimeout?: (fn: () => void, ms: number) => unknown;
}

function errorResponse(status: number, message: string, type = 'invalid_request_error'): Response {
  return new Response(JSON.stringify({ error: { message, type, param: null, code: null } }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

async function readBody(input: RequestInfo | URL, init: RequestInit | undefined): Promise<string> {
  if (init?.body !== undefined && init.body !== null) return typeof init.body === 'string' ? init.body : await new Response(init.body).text();
  return input instanceof Request ? await input.text() : '';
}

/** The reply to a non-streamed request: JSON mode (memory operations, memory-operations.ts); else a title. */
function nonStreamReply(body: Record<string, unknown>, step: NextStep): { text: string } | { calls: Array<{ name: string; arguments: Record<string, unknown> }> } {
  const format = (body.response_format as { type?: string } | undefined)?.type;
  if (format === 'json_object' || format === 'json_schema') return { text: memoryOperations(readConversation(body).question) };
  if (Array.isArray(body.tools) && body.tools.length > 0) return step.kind === 'text' ? { text: step.text } : { calls: step.calls };
  return { text: titleFor(readConversation(body).question) };
}

/** Builds the offline model's fetch. Routes: `POST …/chat/completions`, `GET …/models`. */
export function createOfflineModelFetch(options: OfflineModelOptions = {}): typeof fetch {
  const now = options.now ?? (() => new Date());
  const pieceDelayMs = options.pieceDelayMs ?? 0;
  const setTimer = options.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
  const pause = () => new Promise<void>((resolve) => void setTimer(resolve, pieceDelayMs));
  let sequence = 0;

  return async function offlineModelFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal?.aborted) throw abortError(signal);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();

    if (method === 'GET' && url.pathname.endsWith('/models')) {
      return Response.json({ object: 'list', data: [{ id: OFFLINE_MODEL_ID, object: 'model', created: 0, owned_by: 'sandbox' }] });
    }
    if (!url.pathname.endsWith('/chat/completions')) return errorResponse(404, `offline model: no route for ${method} ${url.pathname}`, 'not_found');
    if (method !== 'POST') return errorResponse(405, 'offline model: use POST');

    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(await readBody(input, init));
      if (!parsed || typeof parsed !== 'object' || !Array.isArray((parsed as { messages?: unknown }).messages)) throw new Error('no messages');
      body = parsed as Record<string, unknown>;
    } catch {
      return errorResponse(400, 'offline model: the body must be a JSON object with a messages array');
    }

    const n = ++sequence;
    const step = nextStep(body);
    const reply = body.stream === true ? (step.kind === 'text' ? { text: step.text } : { calls: step.calls }) : nonStreamReply(body, step);
    const callCount = 'calls' in reply ? reply.calls.length : 0;
    const meta = {
      id: `chatcmpl-offline-${n}`,
      model: OFFLINE_MODEL_ID,
      created: Math.floor(now().getTime() / 1000),
      callIds: Array.from({ length: callCount }, (_, i) => `call_offline_${n}_${i}`),
    };
    const prompt = estimateTokens(body.messages) + estimateTokens(body.tools ?? '');
    const completion = estimateTokens('text' in reply ? reply.text : reply.calls);
    const usage: WireUsage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };

    if (body.stream !== true) return Response.json(completionObject(meta, reply, usage));

    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const frames = [...streamChunks(meta, reply, includeUsage ? usage : null).map(sseFrame), sseFrame('[DONE]')];
    const total = frames.length;
    // Only answers are paced: a person watches text arrive, while tool-call passes would only add latency.
    const paced = pieceDelayMs > 0 && 'text' in reply;
    const encoder = new TextEncoder();
    let onAbort: (() => void) | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        onAbort = () => controller.error(abortError(signal!));
        signal?.addEventListener('abort', onAbort, { once: true });
      },
      async pull(controller) {
        if (paced && frames.length > 0 && frames.length < total) await pause();
        if (signal?.aborted) return;
        const frame = frames.shift();
        if (frame === undefined) {
          signal?.removeEventListener('abort', onAbort!);
          controller.close();
        } else controller.enqueue(encoder.encode(frame));
      },
      cancel() {
        signal?.removeEventListener('abort', onAbort!);
      },
    });
    return new Response(stream, {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
    });
  };
}
