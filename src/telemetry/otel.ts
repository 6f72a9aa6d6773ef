/**
 * The OpenTelemetry implementation of `Telemetry` (telemetry.ts): traces and metrics exported over
 * OTLP/HTTP (protobuf or JSON) with the official SDK packages. Imported by server.ts only when an OTLP
 * endpoint is configured, so a service without one loads none of this.
 *
 * The smallest set that does the job: `@opentelemetry/api` (the types and the no-op globals the SDK
 * expects), `sdk-trace` (tracer provider, batch processor, samplers), `sdk-metrics` (meter provider,
 * periodic reader), `resources`, `core` (the W3C trace-context propagator) and the four OTLP/HTTP
 * exporters. Not `sdk-node`: it brings auto-instrumentation and environment detection this service
 * does not use, and it registers globals. Nothing here registers a global provider or context manager:
 * spans are parented explicitly, and the active span for log correlation is this module's own
 * AsyncLocalStorage, entered once per request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHmac, randomBytes } from 'node:crypto';
import {
  ROOT_CONTEXT,
  SpanKind as OtelSpanKind,
  SpanStatusCode,
  diag,
  DiagLogLevel,
  trace,
  type Attributes,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { TelemetryConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { ServiceMetrics, SpanAttributes, SpanKind, Telemetry, TraceSpan } from './telemetry.js';

/** The semantic conventions' advised buckets for `gen_ai.client.token.usage`. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** The semantic conventions' advised buckets for `gen_ai.client.operation.duration` (seconds); also the turn's. */
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

const KINDS: Record<SpanKind, OtelSpanKind> = {
  server: OtelSpanKind.SERVER,
  client: OtelSpanKind.CLIENT,
  internal: OtelSpanKind.INTERNAL,
};

function attributes(input: SpanAttributes | undefined): Attributes {
  const out: Attributes = {};
  if (!input) return out;
  for (const [k, v] of Object.entries(input)) if (v !== undefined) out[k] = v as Attributes[string];
  return out;
}

function sampler(config: TelemetryConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.samplerRatio);
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

async function exporters(config: TelemetryConfig): Promise<{ spans: SpanExporter | null; metrics: PushMetricExporter | null }> {
  const json = config.protocol === 'http/json';
  const timeoutMillis = config.exportTimeoutMs;
  let spans: SpanExporter | null = null;
  let metrics: PushMetricExporter | null = null;
  if (config.tracesEndpoint) {
    const { OTLPTraceExporter } = json
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
    spans = new OTLPTraceExporter({ url: config.tracesEndpoint, headers: config.tracesHeaders, timeoutMillis });
  }
  if (config.metricsEndpoint) {
    const { OTLPMetricExporter } = json
      ? await import('@opentelemetry/exporter-metrics-otlp-http')
      : await import('@opentelemetry/exporter-metrics-otlp-proto');
    metrics = new OTLPMetricExporter({ url: config.metricsEndpoint, headers: config.metricsHeaders, timeoutMillis });
  }
  return { spans, metrics };
}

const headerGetter: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

export interface OtelTelemetryOptions {
  /** Key of the user-id hash (the shared secret when set; otherwise a random key of this process). */
  userHashKey: string | null;
  logger: Logger;
}

export async function createOtelTelemetry(config: TelemetryConfig, options: OtelTelemetryOptions): Promise<Telemetry> {
  // Export failures are the SDK's diagnostics: one warning line each (redacted like every line).
  diag.setLogger(
    {
      error: (message) => options.logger.warn('telemetry export problem', { detail: String(message).slice(0, 200) }),
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    DiagLogLevel.ERROR,
  );
  const resource = resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName });
  const { spans, metrics: metricExporter } = await exporters(config);
  const tracerProvider = new TracerProvider({
    resource,
    sampler: sampler(config),
    spanProcessors: spans ? [new BatchSpanProcessor({ exporter: spans, scheduledDelayMillis: config.batchDelayMs, exportTimeoutMillis: config.exportTimeoutMs })] : [],
  });
  const tracer = tracerProvider.getTracer('campus-agent');
  const meterProvider = new MeterProvider({
    resource,
    readers: metricExporter
      ? [
          new PeriodicExportingMetricReader({
            exporter: metricExporter,
            exportIntervalMillis: config.metricIntervalMs,
            exportTimeoutMillis: Math.min(config.exportTimeoutMs, config.metricIntervalMs),
          }),
        ]
      : [],
  });
  const meter = meterProvider.getMeter('campus-agent');
  const propagator = new W3CTraceContextPropagator();
  const active = new AsyncLocalStorage<Span>();
  const hashKey = options.userHashKey ?? randomBytes(32).toString('hex');

  const underlying = new WeakMap<TraceSpan, Span>();
  const wrap = (span: Span): TraceSpan => {
    const handle: TraceSpan = {
      recording: span.isRecording(),
      child: (name, attrs, kind = 'internal') =>
        wrap(tracer.startSpan(name, { kind: KINDS[kind], attributes: attributes(attrs) }, trace.setSpan(ROOT_CONTEXT, span))),
      set: (attrs) => {
        span.setAttributes(attributes(attrs));
      },
      rename: (name) => {
        span.updateName(name);
      },
      fail: (type) => {
        span.setAttribute('error.type', type);
        span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      },
      end: () => span.end(),
      traceparent: () => {
        if (!span.isRecording()) return null;
        const { traceId, spanId, traceFlags } = span.spanContext();
        return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
      },
    };
    underlying.set(handle, span);
    return handle;
  };

  /** A histogram of seconds with the GenAI conventions' duration buckets. */
  const seconds = (name: string, description: string) =>
    meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
  const tokenUsage = meter.createHistogram('gen_ai.client.token.usage', {
    unit: '{token}',
    description: 'Tokens used per model call, by gen_ai.token.type (input or output)',
    advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
  });
  const cachedTokens = meter.createCounter('campus.model.cached_input_tokens', {
    unit: '{token}',
    description: 'Input tokens the provider served from its prompt cache (part of the input tokens)',
  });
  const operationDuration = seconds('gen_ai.client.operation.duration', 'Duration of a model call');
  const turns = meter.createCounter('campus.turns', { unit: '{turn}', description: 'Chat turns ended, by campus.turn.outcome' });
  const turnDuration = seconds('campus.turn.duration', 'Duration of a chat turn, admission to its last event');
  const firstDelta = seconds('campus.turn.time_to_first_delta', 'Time from a turn admitted to its first answer text');
  const open = meter.createUpDownCounter('campus.turns.open', { unit: '{turn}', description: 'Chat turns running now (open streams)' });
  const toolDuration = seconds('campus.tool.duration', 'Duration of a tool call, by gen_ai.tool.name');
  const toolErrors = meter.createCounter('campus.tool.errors', { unit: '{call}', description: 'Tool calls that failed, by gen_ai.tool.name and error.type' });
  const refusals = meter.createCounter('campus.admission.refusals', {
    unit: '{turn}',
    description: 'Turns refused before they started, by campus.refusal.reason (budget, moderation, overload, turns_in_flight)',
  });
  const claims = meter.createCounter('campus.answer.claims', {
    unit: '{claim}',
    description: 'Claims of answers checked by grounding, by campus.claim.class and campus.claim.outcome (verified; ambiguous: kept, its days not understood and its value true on some day; unverified: no evidence holds it; misbound: true elsewhere, not for its day)',
  });
  const spend = meter.createCounter('campus.model.spend', {
    unit: 'USD',
    description: 'What model calls cost as the budget settled them (MODEL_PRICES, or the gateway\'s reported cost), by gen_ai.request.model and campus.spend.purpose',
  });
  const serviceSpend = meter.createGauge('campus.budget.service_spend', { unit: 'USD', description: "The service's spend today (UTC), all replicas, as the last reservation left it" });
  const serviceSpendLimit = meter.createGauge('campus.budget.service_spend_limit', { unit: 'USD', description: 'SERVICE_DAILY_SPEND_LIMIT_USD' });
  const priceRatio = meter.createGauge('campus.model.price_ratio', {
    unit: '1',
    description: "A model's cost as the gateway reports it over its cost at MODEL_PRICES, by gen_ai.request.model, once above 1: reservations hold this multiple",
  });
  const runEvents = meter.createCounter('campus.runs.events', {
    unit: '{run}',
    description: 'Resumable runs by campus.run.event: detached (the reader went away), resumed, completed_detached, abandoned (no reader within the grace), interrupted (its replica died)',
  });
  const resumeLag = meter.createHistogram('campus.runs.resume_lag', {
    unit: '{frame}',
    description: 'Frames a resumed reader was behind when it came back (replayed before it was live)',
    advice: { explicitBucketBoundaries: [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] },
  });
  const storeErrors = meter.createCounter('campus.memory.store_errors', { unit: '{error}', description: 'Failed memory store operations' });

  const metrics: ServiceMetrics = {
    modelOperation(o) {
      const base: Attributes = {
        'gen_ai.operation.name': o.operation,
        'gen_ai.provider.name': o.provider,
        'gen_ai.request.model': o.requestModel,
        ...(o.responseModel && { 'gen_ai.response.model': o.responseModel }),
      };
      operationDuration.record(o.durationS, { ...base, ...(o.errorType && { 'error.type': o.errorType }) });
      if (o.inputTokens !== null) tokenUsage.record(o.inputTokens, { ...base, 'gen_ai.token.type': 'input' });
      if (o.outputTokens !== null) tokenUsage.record(o.outputTokens, { ...base, 'gen_ai.token.type': 'output' });
      // Cached input is part of input: its own series, so a dashboard can show the share the cache served.
      if (o.cachedInputTokens) cachedTokens.add(o.cachedInputTokens, base);
    },
    turnStarted: () => open.add(1),
    turnEnded(o) {
      open.add(-1);
      turns.add(1, { 'campus.turn.outcome': o.outcome });
      turnDuration.record(o.durationS, { 'campus.turn.outcome': o.outcome });
      if (o.firstDeltaS !== null) firstDelta.record(o.firstDeltaS);
    },
    toolCall(o) {
      toolDuration.record(o.durationS, { 'gen_ai.tool.name': o.tool, ...(o.errorType && { 'error.type': o.errorType }) });
      if (o.errorType) toolErrors.add(1, { 'gen_ai.tool.name': o.tool, 'error.type': o.errorType });
    },
    refusal: (reason) => refusals.add(1, { 'campus.refusal.reason': reason }),
    memoryStoreError: (operation) => storeErrors.add(1, { 'campus.memory.operation': operation }),
    spend(o) {
      if (o.usd > 0) spend.add(o.usd, { 'gen_ai.request.model': o.model, 'campus.spend.purpose': o.purpose });
    },
    serviceSpend(o) {
      serviceSpend.record(o.usd);
      serviceSpendLimit.record(o.limitUsd);
    },
    priceRatio: (o) => priceRatio.record(o.ratio, { 'gen_ai.request.model': o.model }),
    runEvent(event, lagFrames) {
      runEvents.add(1, { 'campus.run.event': event });
      if (lagFrames !== undefined) resumeLag.record(lagFrames);
    },
    groundingClaims(counts) {
      for (const [cls, c] of counts) {
        // Verified splits into values held for their days and values kept though their days were not understood (issue 73).
        const ambiguous = c.ambiguous ?? 0;
        if (c.checked - c.unverified > ambiguous) claims.add(c.checked - c.unverified - ambiguous, { 'campus.claim.class': cls, 'campus.claim.outcome': 'verified' });
        if (ambiguous > 0) claims.add(ambiguous, { 'campus.claim.class': cls, 'campus.claim.outcome': 'ambiguous' });
        // Unverified splits into values no evidence holds and values true elsewhere but not for their day (issue 59).
        const misbound = c.misbound ?? 0;
        if (c.unverified > misbound) claims.add(c.unverified - misbound, { 'campus.claim.class': cls, 'campus.claim.outcome': 'unverified' });
        if (misbound > 0) claims.add(misbound, { 'campus.claim.class': cls, 'campus.claim.outcome': 'misbound' });
      }
    },
  };

  return {
    enabled: true,
    serverSpan({ method, headers }) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, headerGetter);
      // Named `METHOD` until the route is known (the middleware renames it to `METHOD /route`).
      const span = tracer.startSpan(method, { kind: OtelSpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
      return wrap(span);
    },
    backgroundSpan(name, linkedTo, attrs) {
      const from =
        typeof linkedTo === 'string'
          ? trace.getSpanContext(propagator.extract(ROOT_CONTEXT, new Headers({ traceparent: linkedTo }), headerGetter))
          : linkedTo
            ? underlying.get(linkedTo)?.spanContext()
            : undefined;
      const links = from ? [{ context: from }] : [];
      return wrap(tracer.startSpan(name, { kind: OtelSpanKind.INTERNAL, attributes: attributes(attrs), links, root: true }, ROOT_CONTEXT));
    },
    activate(span, fn) {
      const s = underlying.get(span);
      return s ? active.run(s, fn) : fn();
    },
    logFields() {
      const s = active.getStore();
      if (!s) return undefined;
      const { traceId, spanId } = s.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    userHash: (userId) => createHmac('sha256', hashKey).update(`campus-telemetry-user:${userId}`).digest('hex').slice(0, 16),
    metrics,
    async shutdown() {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
