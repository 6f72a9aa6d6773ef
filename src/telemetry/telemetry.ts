/**
 * Telemetry as the rest of the service sees it: spans passed explicitly from parent to child, and the
 * service's metrics. Nothing here loads OpenTelemetry: with export off (no OTLP endpoint configured)
 * every call below is a no-op on a shared object, so a turn pays for nothing it does not export. The
 * OpenTelemetry implementation (telemetry/otel.ts) is imported by server.ts only when an endpoint is set.
 *
 * What may be put on a span or a metric: names, counts, durations, model ids, tool names, error types,
 * outcomes. Never message text, answers, facts, tool arguments or results, secrets, or a user id in
 * clear (`userHash` gives the keyed hash that may be used instead).
 */
import type { Logger } from '../logger.js';

export type SpanAttributes = Record<string, string | number | boolean | readonly string[] | undefined>;

export type SpanKind = 'server' | 'client' | 'internal';

export interface TraceSpan {
  /** False for the no-op span: callers may skip computing attributes nobody records. */
  readonly recording: boolean;
  /** A child span of this one (explicit parent: the turn's stages are generators, not call frames). */
  child(name: string, attributes?: SpanAttributes, kind?: SpanKind): TraceSpan;
  set(attributes: SpanAttributes): void;
  rename(name: string): void;
  /** Marks the span failed: status ERROR and `error.type` (a class name or code, never a message). */
  fail(errorType: string): void;
  end(): void;
  /** The span as a W3C `traceparent` value, to link to it from another process; null when not recording. */
  traceparent(): string | null;
}

/**
 * The request's trace as a route sees it: its HTTP server span, and `hold()` for a route whose answer
 * outlives its handler (a stream): the server span ends when the handler returned and every hold was
 * released, so it covers the whole stream.
 */
export interface RequestTrace {
  readonly span: TraceSpan;
  hold(): () => void;
}

/** What one turn's work carries for its logs and traces: a logger bound to the request id, and its span. */
export interface TurnScope {
  logger: Logger;
  span: TraceSpan;
}


/** A model call as the GenAI semantic conventions measure it (`gen_ai.client.*`). */
export interface ModelOperation {
  operation: 'chat';
  provider: string;
  requestModel: string;
  responseModel: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Input tokens the provider served from its cache (part of inputTokens), when reported. */
  cachedInputTokens: number | null;
  /** The call's cost when the gateway reported one. */
  cost: number | null;
  durationS: number;
  errorType: string | null;
}

export type TurnOutcomeLabel = 'completed' | 'refused' | 'failed' | 'aborted';
export type RefusalReason = 'budget' | 'service_cap' | 'moderation' | 'overload' | 'turns_in_flight';
/** What happened to a resumable run (issue 62): its reader went away, one came back, how it ended while none was there. */
export type RunEventLabel = 'detached' | 'resumed' | 'completed_detached' | 'abandoned' | 'interrupted';

/** The service's metrics (DEPLOY.md "Telemetry" says what each one means). */
export interface ServiceMetrics {
  modelOperation(o: ModelOperation): void;
  /** A chat turn started (open streams + 1). */
  turnStarted(): void;
  /** A chat turn ended (open streams - 1): its outcome, duration and time to its first text delta. */
  turnEnded(o: { outcome: TurnOutcomeLabel; durationS: number; firstDeltaS: number | null }): void;
  toolCall(o: { tool: string; durationS: number; errorType: string | null }): void;
  refusal(reason: RefusalReason): void;
  memoryStoreError(operation: string): void;
  /**
   * The answer's claims checked by grounding (issue 45), by claim class: how many were checked and how
   * many could not be confirmed. Counts only: a claim is model text and never recorded.
   */
  groundingClaims(counts: ReadonlyMap<string, { checked: number; unverified: number; misbound?: number; ambiguous?: number }>): void;
  /** What a model call cost as the budget settled it (US dollars), by model and purpose (issue 47). */
  spend(o: { model: string; purpose: 'chat' | 'title' | 'extraction'; usd: number }): void;
  /** The service's spend today against its cap (SERVICE_DAILY_SPEND_LIMIT_USD), as a reservation left it. */
  serviceSpend(o: { usd: number; limitUsd: number }): void;
  /** A model's reported cost against its MODEL_PRICES price, once it ran above it (issue 61); reservations hold this multiple. */
  priceRatio(o: { model: string; ratio: number }): void;
  /** A resumable run's event (issue 62); `lagFrames` on `resumed`: the frames the reader was behind when it came back. */
  runEvent(event: RunEventLabel, lagFrames?: number): void;
}

export interface Telemetry {
  readonly enabled: boolean;
  /** The HTTP server span of a request, continuing the W3C `traceparent` of its headers when present. */
  serverSpan(request: { method: string; path: string; headers: Headers }): TraceSpan;
  /**
   * A span in a trace of its own (work that outlives the request), linked to the span it came from:
   * that span itself in this process, or its `traceparent` when the work crossed to another replica.
   */
  backgroundSpan(name: string, linkedTo: TraceSpan | string | null, attributes?: SpanAttributes): TraceSpan;
  /** Runs `fn` with `span` active, so log lines written inside carry its trace and span ids. */
  activate<T>(span: TraceSpan, fn: () => T): T;
  /** `trace_id` and `span_id` of the active span, for a log line; undefined when none or export is off. */
  logFields(): { trace_id: string; span_id: string } | undefined;
  /** The keyed hash of a user id that telemetry may carry instead of the id. */
  userHash(userId: string): string;
  metrics: ServiceMetrics;
  /** Flushes what is buffered and stops exporting; the caller bounds the wait (shutdown's deadline). */
  shutdown(): Promise<void>;
}

export const noSpan: TraceSpan = {
  recording: false,
  child: () => noSpan,
  set: () => undefined,
  rename: () => undefined,
  fail: () => undefined,
  end: () => undefined,
  traceparent: () => null,
};

export const noRequestTrace: RequestTrace = { span: noSpan, hold: () => () => undefined };

const noMetrics: ServiceMetrics = {
  modelOperation: () => undefined,
  turnStarted: () => undefined,
  turnEnded: () => undefined,
  toolCall: () => undefined,
  refusal: () => undefined,
  memoryStoreError: () => undefined,
  groundingClaims: () => undefined,
  spend: () => undefined,
  serviceSpend: () => undefined,
  priceRatio: () => undefined,
  runEvent: () => undefined,
};

/** Export off: nothing is recorded, nothing is loaded. */
export const noTelemetry: Telemetry = {
  enabled: false,
  serverSpan: () => noSpan,
  backgroundSpan: () => noSpan,
  activate: (_span, fn) => fn(),
  logFields: () => undefined,
  userHash: () => '',
  metrics: noMetrics,
  shutdown: async () => undefined,
};

/** The error type telemetry records for a failure: the error's code or class name, never its message. */
export function errorType(err: unknown): string {
  if (err && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code)) return code;
    const name = (err as { name?: unknown }).name;
    if (typeof name === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(name)) return name;
  }
  return '_OTHER';
}

/**
 * Work under a span, the one way it is written: the span fails with the error's type when `work`
 * rejects and ends when it settles; `onValue` may set attributes from the result first. `work` may be
 * a function given the span (background work that records on it) or a promise already running.
 */
export async function spanned<T>(span: TraceSpan, work: Promise<T> | ((span: TraceSpan) => Promise<T>), onValue?: (value: T) => void): Promise<T> {
  try {
    const value = await (typeof work === 'function' ? work(span) : work);
    onValue?.(value);
    return value;
  } catch (err) {
    span.fail(errorType(err));
    throw err;
  } finally {
    span.end();
  }
}

/**
 * A stream of events under a span that ends with it (fails on a throw). Only when the span records: a
 * no-op span adds no generator hop to the stream.
 */
export function spannedEvents<E>(span: TraceSpan, events: AsyncGenerator<E>): AsyncGenerator<E> {
  if (!span.recording) return events;
  return (async function* () {
    try {
      yield* events;
    } catch (err) {
      span.fail(errorType(err));
      throw err;
    } finally {
      span.end();
    }
  })();
}

/** `gen_ai.provider.name` of a gateway model id: its vendor prefix (`openai/gpt-4o-mini` → `openai`). */
export function providerOf(model: string): string {
  const slash = model.indexOf('/');
  return slash > 0 ? model.slice(0, slash) : 'openai';
}
