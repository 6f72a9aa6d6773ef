/**
 * `GET /` serves the playground outside production only: a page with no asset from another origin
 * (markdown-it and the favicon come from this service) whose scripts and style carry the nonce its
 * Content-Security-Policy allows.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createPlaygroundRoutes } from '../src/sandbox/playground/playground-routes.js';
import { readMarkdownScript } from '../src/sandbox/start-sandbox.js';
import { createTestDeps, testConfig } from './support/deps.js';

describe('playground route', () => {
  it('serves the page with a nonce-based CSP that matches its inline script and style', async () => {
    const app = createApp(await createTestDeps({ playground: createPlaygroundRoutes({ markdownScript: await readMarkdownScript() }) }));
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
    expect(html).toContain(`<script nonce="${nonce}" src="/playground/markdown-it.js"></script>`);
    expect(html).toContain(`<style nonce="${nonce}">`);
    expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    // No asset from another origin: no src/href to another host, no module imports.
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//i);
    // Fresh nonce per response.
    const again = await app.request('/');
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
  });

  it('serves markdown-it from the project\'s dependencies and a favicon', async () => {
    const app = createApp(await createTestDeps({ playground: createPlaygroundRoutes({ markdownScript: await readMarkdownScript() }) }));
    const script = await app.request('/playground/markdown-it.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toMatch(/markdownit/);
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      const icon = await app.request(path);
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toBe('image/svg+xml');
      expect(await icon.text()).toMatch(/^<svg /);
    }
  });

  it('is public even when the service has a shared secret, and holds no secret', async () => {
    const secret = 's3cret-value-of-sufficient-length-0123456789';
    const app = createApp(await createTestDeps({ config: testConfig({ AGENT_SHARED_SECRET: secret }), playground: createPlaygroundRoutes({ markdownScript: await readMarkdownScript() }) }));
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
