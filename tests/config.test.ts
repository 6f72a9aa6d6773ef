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
