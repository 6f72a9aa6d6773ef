/**
 * Issue 62 in the browser: the playground page in headless Chromium (Debian's `chromium`, as in
 * playground-browser.test.ts) resumes a run by itself after a network drop. The page asks; once its
 * answer has started, the page goes offline and the server cuts every open connection (the stream's
 * socket with it); a second later the network is back. The answer completes once, with no repeated
 * text, from one model call. The service is in this process (the fake gateway paces the answer).
 *
 * Without /usr/bin/chromium the test is skipped, unless CI is set (there a missing browser fails).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createPlaygroundRoutes } from '../src/sandbox/playground/playground-routes.js';
import { readMarkdownScript } from '../src/sandbox/start-sandbox.js';
import { createTestDeps, testConfig } from './support/deps.js';
import { gatewayClient, startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { listen, type Listening } from './support/listen.js';

const CHROMIUM = '/usr/bin/chromium';
const skip = !process.env.CI && !existsSync(CHROMIUM);
const WORDS = Array.from({ length: 30 }, (_, i) => `word${i} `);

describe.skipIf(skip)('the playground resumes a dropped stream', () => {
  let gw: FakeGateway;
  let server: Listening;
  let browser: Browser;

  beforeAll(async () => {
    gw = await startFakeGateway();
    const deps = await createTestDeps({
      config: testConfig({ ANSWER_BATCH_MS: '0' }),
      gateway: gatewayClient(gw),
      playground: createPlaygroundRoutes({ markdownScript: await readMarkdownScript() }),
    });
    server = await listen(createApp(deps).fetch);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await gw?.close();
  });

  it('cut mid-answer, restored a second later: the answer completes once, no text repeated, one model call', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.base}/`);
    gw.enqueue({ text: WORDS, chunkDelayMs: 80 });
    await page.fill('#q', 'Tell me a long story');
    await page.press('#q', 'Enter');
    await page.waitForFunction(() => (document.querySelector('[data-role=answer] .text')?.textContent ?? '').includes('word3'));
    await context.setOffline(true);
    server.server.closeAllConnections();
    await page.waitForFunction(() => document.querySelector('.status')?.textContent === 'Reconnecting...');
    await new Promise((r) => setTimeout(r, 1_000));
    await context.setOffline(false);
    await page.waitForFunction(() => document.querySelector('.services') !== null || !document.querySelector('.status'), undefined, { timeout: 30_000 });
    const shown = await page.textContent('[data-role=answer] .text');
    expect(shown?.trim()).toBe(WORDS.join('').trim());
    expect(await page.$('[data-role=answer].error')).toBeNull();
    expect(gw.chatRequests()).toHaveLength(1);
    await context.close();
  }, 60_000);
});
