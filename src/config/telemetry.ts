/**
 * OpenTelemetry export, read from the standard OTEL_* variables with the same field idiom as every
 * other variable (fields.ts); `telemetryConfig` turns them into the exporter settings, or null when no
 * endpoint is set or OTEL_SDK_DISABLED is true (then nothing of OpenTelemetry is loaded).
 */
import { flag, int, keyValues, numberIn, oneOf, optionalText, optionalUrl, textOr } from './fields.js';

export const OTEL_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

const positiveMs = (fallback: number) => int(fallback, { min: 1, maxRule: 'must be a positive integer (milliseconds)' });

/** The OTEL_* variables the service reads. */
export const otelFields = {
  OTEL_SDK_DISABLED: flag(false),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: optionalUrl,
  OTEL_TRACES_EXPORTER: optionalText,
  OTEL_METRICS_EXPORTER: optionalText,
  OTEL_EXPORTER_OTLP_PROTOCOL: oneOf(['http/protobuf', 'http/json'], 'http/protobuf', 'must be http/protobuf or http/json (grpc is not supported)'),
  OTEL_EXPORTER_OTLP_HEADERS: keyValues,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValues,
  OTEL_EXPORTER_OTLP_METRICS_HEADERS: keyValues,
  OTEL_SERVICE_NAME: textOr('campus-agent'),
  OTEL_RESOURCE_ATTRIBUTES: keyValues,
  OTEL_TRACES_SAMPLER: oneOf(OTEL_SAMPLERS, 'parentbased_always_on', `must be one of ${OTEL_SAMPLERS.join(', ')}`),
  OTEL_TRACES_SAMPLER_ARG: numberIn(1, 0, 1),
  OTEL_BSP_SCHEDULE_DELAY: positiveMs(5_000),
  OTEL_METRIC_EXPORT_INTERVAL: positiveMs(60_000),
  OTEL_EXPORTER_OTLP_TIMEOUT: positiveMs(10_000),
};

/** What the OTEL_* variables read as. */
export type OtelVariables = { [K in keyof typeof otelFields]: import('zod').output<(typeof otelFields)[K]> };

/** OpenTelemetry export settings; present only when an OTLP endpoint is set and OTEL_SDK_DISABLED is not true. */
export interface TelemetryConfig {
  /** OTEL_SERVICE_NAME, default `campus-agent`. */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES (`key=value,...`). */
  resourceAttributes: Record<string, string>;
  /** OTEL_EXPORTER_OTLP_PROTOCOL: `http/protobuf` (the default) or `http/json`. */
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or the base endpoint + `/v1/traces`; null: traces off. */
  tracesEndpoint: string | null;
  /** OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, or the base endpoint + `/v1/metrics`; null: metrics off. */
  metricsEndpoint: string | null;
  /** OTEL_EXPORTER_OTLP_HEADERS (`key=value,...`, values URL-encoded); treated as secrets. */
  tracesHeaders: Record<string, string>;
  metricsHeaders: Record<string, string>;
  /** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (the ratio of the `traceidratio` samplers). */
  sampler: (typeof OTEL_SAMPLERS)[number];
  samplerRatio: number;
  /** OTEL_BSP_SCHEDULE_DELAY: milliseconds between span batch exports. */
  batchDelayMs: number;
  /** OTEL_METRIC_EXPORT_INTERVAL: milliseconds between metric exports. */
  metricIntervalMs: number;
  /** OTEL_EXPORTER_OTLP_TIMEOUT: deadline of one export request. */
  exportTimeoutMs: number;
}

function otlpEndpoint(base: string | null, specific: string | null, path: string): string | null {
  if (specific) return specific;
  if (!base) return null;
  return `${base.replace(/\/+$/, '')}${path}`;
}

/** The export settings, or null when telemetry is off. */
export function telemetryConfig(e: OtelVariables): TelemetryConfig | null {
  if (e.OTEL_SDK_DISABLED) return null;
  const off = (exporter: string | null) => exporter?.toLowerCase() === 'none';
  const tracesEndpoint = off(e.OTEL_TRACES_EXPORTER) ? null : otlpEndpoint(e.OTEL_EXPORTER_OTLP_ENDPOINT, e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, '/v1/traces');
  const metricsEndpoint = off(e.OTEL_METRICS_EXPORTER) ? null : otlpEndpoint(e.OTEL_EXPORTER_OTLP_ENDPOINT, e.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, '/v1/metrics');
  if (!tracesEndpoint && !metricsEndpoint) return null;
  return {
    serviceName: e.OTEL_SERVICE_NAME,
    resourceAttributes: e.OTEL_RESOURCE_ATTRIBUTES,
    protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL,
    tracesEndpoint,
    metricsEndpoint,
    tracesHeaders: { ...e.OTEL_EXPORTER_OTLP_HEADERS, ...e.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    metricsHeaders: { ...e.OTEL_EXPORTER_OTLP_HEADERS, ...e.OTEL_EXPORTER_OTLP_METRICS_HEADERS },
    sampler: e.OTEL_TRACES_SAMPLER,
    // The ratio belongs to the ratio samplers; the others sample everything their parent lets through.
    samplerRatio: e.OTEL_TRACES_SAMPLER.endsWith('traceidratio') ? e.OTEL_TRACES_SAMPLER_ARG : 1,
    batchDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
    metricIntervalMs: e.OTEL_METRIC_EXPORT_INTERVAL,
    exportTimeoutMs: e.OTEL_EXPORTER_OTLP_TIMEOUT,
  };
}
