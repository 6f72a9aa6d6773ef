/**
 * The model gateway seen by telemetry: every call gets a `chat {model}` client span (a child of the
 * span its request names) with the GenAI attributes of the semantic conventions, and is measured by
 * `gen_ai.client.operation.duration` and `gen_ai.client.token.usage`. server.ts wraps the gateway with
 * this only when telemetry is on, so with export off a pass's events take no extra hop.
 *
 * Recorded: operation, provider, request and response model, token counts, finish reasons, time to the
 * first chunk, error type. Never the messages, the answer or the tool arguments.
 */
import { errorType, providerOf, type ServiceMetrics, type TraceSpan } from '../telemetry/telemetry.js';
import type { CompleteAnswer, CompleteRequest, ModelGateway, PassEvent, PassRequest } from './gateway.js';
import type { Usage } from './usage.js';

/** The call's span under the span its request names; null when the request names none (nothing traced). */
function callSpan(request: { model: string; span?: TraceSpan | undefined; maxTokens?: number | undefined }): TraceSpan | null {
  if (!request.span) return null;
  return request.span.child(
    `chat ${request.model}`,
    {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': providerOf(request.model),
      'gen_ai.request.model': request.model,
      'gen_ai.request.max_tokens': request.maxTokens,
    },
    'client',
  );
}

function settle(
  metrics: ServiceMetrics,
  span: TraceSpan | null,
  request: { model: string },
  o: { startedAt: number; usage: Usage | null; model: string | null; errorType: string | null; finish?: string | null; firstChunkAt?: number | null },
): void {
  const durationS = (performance.now() - o.startedAt) / 1000;
  if (span) {
    span.set({
      'gen_ai.response.model': o.model ?? undefined,
      'gen_ai.usage.input_tokens': o.usage?.promptTokens,
      'gen_ai.usage.output_tokens': o.usage?.completionTokens,
      'gen_ai.usage.cache_read.input_tokens': o.usage?.cachedPromptTokens,
      'gen_ai.response.finish_reasons': o.finish ? [o.finish] : undefined,
      'campus.usage.estimated': o.usage?.estimated,
      'campus.time_to_first_chunk_ms': o.firstChunkAt != null ? Math.round(o.firstChunkAt - o.startedAt) : undefined,
    });
    if (o.errorType) span.fail(o.errorType);
    span.end();
  }
  metrics.modelOperation({
    operation: 'chat',
    provider: providerOf(request.model),
    requestModel: request.model,
    responseModel: o.model,
    inputTokens: o.usage?.promptTokens ?? null,
    outputTokens: o.usage?.completionTokens ?? null,
    cachedInputTokens: o.usage?.cachedPromptTokens ?? null,
    cost: o.usage?.cost ?? null,
    durationS,
    errorType: o.errorType,
  });
}

export function tracedGateway(gateway: ModelGateway, metrics: ServiceMetrics): ModelGateway {
  return {
    async *streamPass(request: PassRequest): AsyncGenerator<PassEvent> {
      const span = callSpan(request);
      const startedAt = performance.now();
      let firstChunkAt: number | null = null;
      let usage: Usage | null = null;
      let model: string | null = null;
      let finish: string | null = null;
      let failure: string | null = null;
      try {
        for await (const e of gateway.streamPass(request)) {
          firstChunkAt ??= performance.now();
          if (e.type === 'usage') usage = e.usage;
          else if (e.type === 'finish') ({ reason: finish, model } = e);
          yield e;
        }
      } catch (err) {
        failure = errorType(err);
        throw err;
      } finally {
        // A pass left early by its consumer (answer cap, client gone) is not an error of the call.
        settle(metrics, span, request, { startedAt, usage, model, errorType: failure, finish, firstChunkAt });
      }
    },
    async complete(request: CompleteRequest): Promise<CompleteAnswer> {
      const span = callSpan(request);
      const startedAt = performance.now();
      try {
        const answer = await gateway.complete(request);
        settle(metrics, span, request, { startedAt, usage: answer.usage, model: answer.model ?? null, errorType: null });
        return answer;
      } catch (err) {
        settle(metrics, span, request, { startedAt, usage: null, model: null, errorType: errorType(err) });
        throw err;
      }
    },
  };
}
