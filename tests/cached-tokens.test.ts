/**
 * Issue 36: `usage.prompt_tokens_details.cached_tokens` is read wherever usage is read. A gateway that
 * reports 800 of a pass's 1,000 prompt tokens as served from its cache: the budget charges them at
 * CACHED_TOKEN_WEIGHT (0.25 here: 1,000 + 100 − 800 × 0.75 = 500), on the JSON and the stream route; a
 * gateway reporting no cached tokens is charged in full. Telemetry (tests/telemetry-export.test.ts) and
 * the eval's cost column (tests/eval.test.ts) show them too.
 */
import { describe, expect, it } from 'vitest';
import { utcDay } from '../src/admission/budget-store.js';
import { startAdmissionApp } from './support/admission-harness.js';
import { closeAfterEach } from './support/cleanup.js';
import { testConfig } from './support/deps.js';
import { startFakeGateway, gatewayClient } from './support/fake-gateway.js';

const defer = closeAfterEach();

describe('cached prompt tokens', () => {
  it('are charged at CACHED_TOKEN_WEIGHT; tokens without a cache report at full weight', async () => {
    const app = await startAdmissionApp({ env: { CACHED_TOKEN_WEIGHT: '0.25' } });
    defer(() => app.close());
    app.gw.enqueue({ text: 'Gates is north of the Mall.', usage: { prompt_tokens: 1_000, completion_tokens: 100, cached_tokens: 800 } });
    const res = await app.post('/agent/respond', { query: 'Thanks!', user_id: 'cached-user' });
    expect(res.status).toBe(200);
    await app.waitForCharges(1);
    expect(app.charges[0]).toMatchObject({ promptTokens: 1_000, completionTokens: 100, cachedPromptTokens: 800 });
    expect(await app.budget.used('cached-user', utcDay(new Date()))).toBe(500);

    app.gw.enqueue({ text: 'Gates is north of the Mall.', usage: { prompt_tokens: 1_000, completion_tokens: 100 } });
    const full = await app.post('/agent/respond', { query: 'Thanks!', user_id: 'uncached-user' });
    expect(full.status).toBe(200);
    await app.waitForCharges(2);
    expect(await app.budget.used('uncached-user', utcDay(new Date()))).toBe(1_100);
  });

  it('defaults to half weight, and refuses a weight outside 0-1 at start', async () => {
    const app = await startAdmissionApp();
    defer(() => app.close());
    app.gw.enqueue({ text: 'ok', usage: { prompt_tokens: 2_000, completion_tokens: 10, cached_tokens: 2_000 } });
    await app.post('/agent/respond', { query: 'Thanks!', user_id: 'default-weight' });
    await app.waitForCharges(1);
    expect(await app.budget.used('default-weight', utcDay(new Date()))).toBe(1_010);
    await expect(startAdmissionApp({ env: { CACHED_TOKEN_WEIGHT: '1.5' } })).rejects.toThrow(/CACHED_TOKEN_WEIGHT/);
  });
});

describe('prompt_cache_key', () => {
  it('is sent with every call as configured (default campus-agent), and not at all when off', async () => {
    const gw = await startFakeGateway();
    try {
      for (const [env, expected] of [[{}, 'campus-agent'], [{ PROMPT_CACHE_KEY: 'campus-prod' }, 'campus-prod'], [{ PROMPT_CACHE_KEY: 'off' }, undefined]] as const) {
        const config = testConfig(env);
        const gateway = gatewayClient(gw, { apiKey: 'sk-cache-key', promptCacheKey: config.budget.promptCacheKey });
        for await (const _ of gateway.streamPass({ model: 'test/model', messages: [{ role: 'user', content: 'hi' }], maxTokens: 10, signal: new AbortController().signal })) void _;
        await gateway.complete({ model: 'test/model', messages: [{ role: 'user', content: 'hi' }], maxTokens: 10 });
        const [pass, completion] = gw.chatRequests().slice(-2);
        expect(pass.prompt_cache_key).toBe(expected);
        expect(completion.prompt_cache_key).toBe(expected);
      }
    } finally {
      await gw.close();
    }
  });
});
