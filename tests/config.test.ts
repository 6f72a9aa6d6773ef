import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.js';

describe('parseConfig', () => {
  it('runs on local defaults with no configuration at all', () => {
    const config = parseConfig({});
    expect(config.env).toBe('development');
    expect(config.port).toBe(5055);
    expect(config.sharedSecret).toBeNull();
    expect(config.databaseUrl).toBeNull();
    expect(config.mcpServerUrl).toBeNull();
    expect(config.gateway.apiKey).toBeNull();
    expect(config.embeddings.model).toBe('text-embedding-3-small');
    expect(config.campus.mapBaseUrl).toBe('https://maps.scottylabs.org');
    expect(config.budget.store).toBe('sqlite');
    expect(config.budget.dailyTokenLimit).toBe(1_000_000);
    expect(config.defaultsInForce.join(' ')).toMatch(/in-memory/);
    expect(config.defaultsInForce.join(' ')).toMatch(/LLM_GATEWAY_API_KEY/);
  });

  it('refuses production without its requirements, naming every missing item in one message', () => {
    let error: unknown;
    try {
      parseConfig({ AGENT_ENV: 'production' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of ['DATABASE_URL', 'AGENT_SHARED_SECRET', 'LLM_GATEWAY_API_KEY', 'MCP_SERVER_URL']) {
      expect(message).toContain(name);
    }
  });

  it('names only what is missing, and rejects a short shared secret in production', () => {
    expect(() =>
      parseConfig({
        AGENT_ENV: 'production',
        DATABASE_URL: 'postgres://u:p@db.internal:5432/agent',
        AGENT_SHARED_SECRET: 'too-short',
        LLM_GATEWAY_API_KEY: 'sk-test-key',
        MCP_SERVER_URL: 'https://tools.example.edu/mcp',
      }),
    ).toThrow(/AGENT_SHARED_SECRET must be at least 32 characters/);
    // A secret a bearer token cannot carry could never authenticate: refused at start, never echoed.
    let refused = '';
    try {
      parseConfig({ AGENT_SHARED_SECRET: 'has spaces and ! marks 0123456789abcdef' });
    } catch (err) {
      refused = (err as Error).message;
    }
    // Empty if nothing was thrown: the match below then fails.
    expect(refused).toMatch(/AGENT_SHARED_SECRET/);
    expect(refused).not.toContain('spaces and');
    // Asserted on the error it must throw (a parse that succeeded would fail here, not pass silently).
    const partial = () => parseConfig({ AGENT_ENV: 'production', DATABASE_URL: 'postgres://u:p@db/agent', MCP_SERVER_URL: 'http://t/mcp' });
    expect(partial).toThrow(ConfigError);
    const message = (() => {
      try {
        partial();
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    expect(message).toContain('LLM_GATEWAY_API_KEY');
    expect(message).not.toContain('DATABASE_URL');
    expect(message).not.toContain('MCP_SERVER_URL');
  });

  it('starts in production when everything is there', () => {
    const config = parseConfig({
      AGENT_ENV: 'production',
      DATABASE_URL: 'postgres://u:p@db.internal:5432/agent',
      AGENT_SHARED_SECRET: 'x'.repeat(32),
      LLM_GATEWAY_API_KEY: 'sk-test-key',
      MCP_SERVER_URL: 'https://tools.example.edu/mcp',
      ALLOWED_ORIGINS: 'https://chat.example.edu, https://beta.example.edu/',
      PORT: '8080',
    });
    expect(config.env).toBe('production');
    expect(config.port).toBe(8080);
    expect(config.allowedOrigins).toEqual(['https://chat.example.edu', 'https://beta.example.edu']);
  });

  it('serves the API docs page outside production and not in production, unless API_DOCS says otherwise', () => {
    const production = { AGENT_ENV: 'production', DATABASE_URL: 'postgres://u:p@db:5432/a', AGENT_SHARED_SECRET: 'x'.repeat(32), LLM_GATEWAY_API_KEY: 'k', MCP_SERVER_URL: 'https://t/mcp' };
    expect(parseConfig({}).apiDocs).toBe(true);
    expect(parseConfig({ API_DOCS: 'off' }).apiDocs).toBe(false);
    expect(parseConfig(production).apiDocs).toBe(false);
    expect(parseConfig({ ...production, API_DOCS: ' ON ' }).apiDocs).toBe(true);
    expect(() => parseConfig({ API_DOCS: 'yes' })).toThrow(/API_DOCS: must be on or off/);
  });

  it('rejects invalid values with the variable named', () => {
    expect(() => parseConfig({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => parseConfig({ DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
    expect(() => parseConfig({ AGENT_ENV: 'staging' })).toThrow(/AGENT_ENV/);
    expect(() => parseConfig({ TOKEN_BUDGET_STORE: 'postgres' })).toThrow(/DATABASE_URL/);
  });

  it('keeps the stream keep-alive within the contract 15 s bound', () => {
    expect(parseConfig({}).sseKeepAliveMs).toBe(15_000);
    expect(parseConfig({ SSE_KEEPALIVE_MS: '5000' }).sseKeepAliveMs).toBe(5_000);
    expect(() => parseConfig({ SSE_KEEPALIVE_MS: '20000' })).toThrow(/SSE_KEEPALIVE_MS/);
  });
});

describe('parseConfig: OpenTelemetry (OTEL_*)', () => {
  it('is off without an endpoint, and with OTEL_SDK_DISABLED=true', () => {
    expect(parseConfig({}).telemetry).toBeNull();
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).telemetry).toBeNull();
  });

  it('derives the signal endpoints from the base one, honours the signal-specific ones and the standard variables', () => {
    const t = parseConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://metrics:9000/ingest',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%20def,team=campus',
      OTEL_SERVICE_NAME: 'campus-prod',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '2000',
      OTEL_METRIC_EXPORT_INTERVAL: '30000',
    }).telemetry!;
    expect(t).toMatchObject({
      serviceName: 'campus-prod',
      resourceAttributes: { 'deployment.environment': 'prod' },
      protocol: 'http/json',
      tracesEndpoint: 'http://collector:4318/v1/traces',
      metricsEndpoint: 'http://metrics:9000/ingest',
      tracesHeaders: { 'x-api-key': 'abc def', team: 'campus' },
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      batchDelayMs: 2000,
      metricIntervalMs: 30000,
    });
    expect(parseConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4318/v1/traces' }).telemetry).toMatchObject({
      protocol: 'http/protobuf',
      tracesEndpoint: 'http://t:4318/v1/traces',
      metricsEndpoint: null,
      sampler: 'parentbased_always_on',
    });
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).telemetry).toMatchObject({
      tracesEndpoint: null,
      metricsEndpoint: 'http://c:4318/v1/metrics',
    });
  });

  it('refuses grpc, an unknown sampler, a bad ratio and a malformed header without quoting it', () => {
    let error: unknown;
    try {
      parseConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_TRACES_SAMPLER: 'sometimes',
        OTEL_EXPORTER_OTLP_HEADERS: 'Bearer-secret-token-value',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(problems).toMatch(/OTEL_TRACES_SAMPLER/);
    expect(problems).toMatch(/OTEL_EXPORTER_OTLP_HEADERS: every entry must be key=value/);
    expect(problems).not.toContain('secret-token');
    expect(() => parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
  });
});

describe('OTLP exporter headers are secrets', () => {
  it('the leak policy knows a header value and the key after its scheme', async () => {
    const { collectSecrets } = await import('../src/security/secrets.js');
    const config = parseConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20otlp-9f8e7d6c5b4a,x-team=campus-observability',
    });
    const { random } = collectSecrets(config);
    expect(random).toEqual(expect.arrayContaining(['Bearer otlp-9f8e7d6c5b4a', 'otlp-9f8e7d6c5b4a', 'campus-observability']));
  });
});
