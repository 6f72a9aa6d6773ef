/**
 * `GET /` serves the playground outside production only: one self-contained page (no external
 * assets) whose inline script and style are the only ones its Content-Security-Policy allows.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createPlaygroundRoutes } from '../src/sandbox/playground/playground-routes.js';
import { createTestDeps, testConfig } from './support/deps.js';

describe('playground route', () => {
  it('serves the page with a nonce-based CSP that matches its inline script and style', async () => {
    const app = createApp(await createTestDeps({ playground: createPlaygroundRoutes() }));
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    const html = await res.text();
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toContain(`<style nonce="${nonce}">`);
    // No external assets: no src/href to another origin, no module imports.
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b/i);
    // Fresh nonce per response.
    const again = await app.request('/');
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
  });

  it('is public even when the service has a shared secret, and holds no secret', async () => {
    const secret = 's3cret-value-of-sufficient-length-0123456789';
    const app = createApp(await createTestDeps({ config: testConfig({ AGENT_SHARED_SECRET: secret }), playground: createPlaygroundRoutes() }));
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain(secret);
  });

  // server.ts mounts it only from the sandbox, which production never loads (tests/production-entry.test.ts).
  it('does not exist without the sandbox: 404 envelope', async () => {
    const config = testConfig({
      AGENT_ENV: 'production',
      DATABASE_URL: 'postgres://u:p@db.example:5432/x',
      AGENT_SHARED_SECRET: 'x'.repeat(40),
      LLM_GATEWAY_API_KEY: 'sk-test-key',
      MCP_SERVER_URL: 'https://tools.example/mcp',
    });
    const app = createApp(await createTestDeps({ config }));
    const res = await app.request('/');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not found', detail: expect.any(String) });
  });
});
