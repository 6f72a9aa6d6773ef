/**
 * The moderation client against the fake gateway's real `/v1/moderations` endpoint: request shape,
 * per-category thresholds with self-harm judged first, fail-open on provider errors and timeouts with
 * a warning that carries neither the text nor the key, and no client at all without a key.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createModeration, judgeModeration, moderationFromConfig, MODERATION_MODEL } from '../src/admission/moderation.js';
import { noModeration } from '../src/admission/admission.js';
import { createLogger } from '../src/logger.js';
import { useFakeGateway } from './support/cleanup.js';
import { testConfig } from './support/deps.js';
import { createLeakPolicy } from '../src/security/leak-policy.js';

const KEY = 'sk-moderation-test-key-0123456789';

describe('judgeModeration', () => {
  it('judges self-harm before every other category', () => {
    const verdict = judgeModeration({ violence: 0.99, 'violence/graphic': 0.95, 'self-harm/intent': 0.4 });
    expect(verdict).toEqual({ flagged: true, category: 'self-harm/intent', selfHarm: true });
  });

  it('applies per-category thresholds to scores, not the provider verdict', () => {
    // 0.5 is below the broad `violence` threshold but above the `sexual/minors` one.
    expect(judgeModeration({ violence: 0.5 }, { violence: true })).toEqual({ flagged: false });
    expect(judgeModeration({ 'sexual/minors': 0.5 })).toEqual({ flagged: true, category: 'sexual/minors', selfHarm: false });
    expect(judgeModeration({ harassment: 0.2, hate: 0.65 })).toEqual({ flagged: true, category: 'hate', selfHarm: false });
    expect(judgeModeration({ violence: 0.5 }, {}, { violence: 0.4, default: 0.9 })).toMatchObject({ flagged: true });
  });

  it('uses the default threshold for unknown categories and the provider flag when no score is sent', () => {
    expect(judgeModeration({ 'new-category': 0.75 })).toMatchObject({ flagged: true, category: 'new-category' });
    expect(judgeModeration({ 'new-category': 0.6 })).toEqual({ flagged: false });
    expect(judgeModeration({}, { 'self-harm': true })).toMatchObject({ flagged: true, selfHarm: true });
  });
});

describe('createModeration over the fake gateway', () => {
  const gw = useFakeGateway('all');
  let lines: string[];
  const logger = () => createLogger({ level: 'debug', sink: (l) => lines.push(l), leaks: createLeakPolicy({ random: [KEY], names: [] }) });
  beforeEach(() => {
    lines = [];
    gw.moderationFailure = null;
  });

  it('sends the text to omni-moderation-latest with the key and flags a scripted category', async () => {
    const text = 'a message the provider scores as harassing';
    gw.setModeration(text, { flagged: true, categories: { harassment: true }, category_scores: { harassment: 0.93 } });
    const moderation = createModeration({ apiKey: KEY, baseUrl: gw.baseUrl, logger: logger() });
    expect(await moderation.check(text)).toEqual({ flagged: true, category: 'harassment', selfHarm: false });
    const sent = gw.requests.filter((r) => r.path === '/v1/moderations').at(-1);
    expect(sent?.body).toMatchObject({ model: MODERATION_MODEL, input: text });
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(await moderation.check('Where can I get coffee near Gates?')).toEqual({ flagged: false });
  });

  it('answers self-harm first when several categories are over their thresholds', async () => {
    const text = 'scripted mixed self-harm and violence message';
    gw.setModeration(text, {
      flagged: true,
      categories: { violence: true, 'self-harm': true },
      category_scores: { violence: 0.97, 'self-harm': 0.81 },
    });
    const moderation = createModeration({ apiKey: KEY, baseUrl: gw.baseUrl, logger: logger() });
    expect(await moderation.check(text)).toEqual({ flagged: true, category: 'self-harm', selfHarm: true });
  });

  it('fails open on a provider error and logs a warning without the text or the key', async () => {
    const text = 'private words of the user that must stay out of logs';
    gw.setModeration(text, { flagged: true, categories: { violence: true } });
    gw.moderationFailure = { status: 503 };
    const moderation = createModeration({ apiKey: KEY, baseUrl: gw.baseUrl, logger: logger() });
    const before = gw.requests.length;
    expect(await moderation.check(text)).toEqual({ flagged: false });
    // No retry: one request, then fail open.
    expect(gw.requests.length - before).toBe(1);
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ component: 'moderation', reason: 'http_error', status: 503 });
    expect(lines.join('\n')).not.toContain('private words');
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('fails open when the provider does not answer within the timeout', async () => {
    gw.moderationFailure = { delayMs: 30_000 };
    const moderation = createModeration({ apiKey: KEY, baseUrl: gw.baseUrl, logger: logger(), timeoutMs: 150 });
    const started = performance.now();
    expect(await moderation.check('is the library open late tonight?')).toEqual({ flagged: false });
    expect(performance.now() - started).toBeLessThan(10_000);
    const warning = lines.map((l) => JSON.parse(l)).find((l) => l.level === 'warn');
    expect(warning).toMatchObject({ reason: 'timeout' });
  });

  it('fails open when the provider is unreachable', async () => {
    const moderation = createModeration({ apiKey: KEY, baseUrl: 'http://127.0.0.1:1/v1', logger: logger() });
    expect(await moderation.check('hello')).toEqual({ flagged: false });
    expect(lines.map((l) => JSON.parse(l)).find((l) => l.level === 'warn')).toMatchObject({ reason: 'unreachable' });
  });

  it('stays quiet when the caller aborts (client gone)', async () => {
    gw.moderationFailure = { delayMs: 30_000 };
    const moderation = createModeration({ apiKey: KEY, baseUrl: gw.baseUrl, logger: logger() });
    const controller = new AbortController();
    const pending = moderation.check('hello there', controller.signal);
    await gw.waitForRequests(gw.requests.length + 1);
    controller.abort();
    expect(await pending).toEqual({ flagged: false });
    expect(lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn')).toHaveLength(0);
  });

  it('is off without EMBEDDINGS_API_KEY and on with it', async () => {
    expect(moderationFromConfig(testConfig(), logger())).toBe(noModeration);
    const config = testConfig({ EMBEDDINGS_API_KEY: KEY, EMBEDDINGS_BASE_URL: gw.baseUrl });
    const moderation = moderationFromConfig(config, logger());
    const before = gw.requests.length;
    await moderation.check('hi');
    expect(gw.requests.slice(before).map((r) => r.path)).toEqual(['/v1/moderations']);
  });
});
