/**
 * Moderation inside admission control, over the fake gateway's moderation endpoint and a real SQLite
 * budget: a flagged message becomes a kind refusal, self-harm a supportive answer with crisis
 * resources from configuration, a flagged answer is replaced, an outage fails open, and the budget is
 * checked before moderation (a spent budget is a 429 without any moderation call).
 */
import { callOf, heldCall } from './support/budget-backends.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Admission } from '../src/admission/admission.js';
import { createAdmission } from '../src/admission/create-admission.js';
import { createModeration } from '../src/admission/moderation.js';
import { createSqliteBudgetStore } from '../src/admission/sqlite-budget-store.js';
import type { BudgetStore } from '../src/admission/budget-store.js';
import { AppError } from '../src/http/errors.js';
import { createLogger } from '../src/logger.js';
import type { TurnRequest } from '../src/request/chat-request.js';
import { useFakeGateway } from './support/cleanup.js';
import { testConfig } from './support/deps.js';

const config = testConfig({
  DAILY_TOKEN_LIMIT: '50000',
  CAMPUS_COUNSELING_PHONE: '555-0100',
  CAMPUS_POLICE_PHONE: '555-0199',
  CAMPUS_NAME: 'Test University',
});
const request = (query: string, userId: string | null = 'u-1'): TurnRequest => ({ query, userId, history: [], model: 'm', disabledGroups: [] });
const signal = new AbortController().signal;

describe('admission with moderation', () => {
  const gw = useFakeGateway('all');
  let budget: BudgetStore;
  let admission: Admission;
  let lines: string[];
  const moderationCalls = () => gw.requests.filter((r) => r.path === '/v1/moderations').length;

  beforeEach(() => {
    lines = [];
    gw.moderationFailure = null;
    budget = createSqliteBudgetStore({ path: ':memory:' });
    const logger = createLogger({ level: 'debug', sink: (l) => lines.push(l) });
    const moderation = createModeration({ apiKey: 'k', baseUrl: gw.baseUrl, logger, timeoutMs: 200 });
    admission = createAdmission({ budget, moderation, config, logger, now: () => new Date('2026-11-21T10:00:00Z') });
    return () => budget.close();
  });

  it('turns a flagged message into a short, kind refusal that offers campus help', async () => {
    const text = 'scripted hateful message';
    gw.setModeration(text, { flagged: true, categories: { hate: true }, category_scores: { hate: 0.91 } });
    const refusal = await (await admission.admit(request(text), signal)).refusal;
    expect(refusal?.reason).toBe('moderation');
    expect(refusal?.text).toMatch(/sorry/i);
    expect(refusal?.text).toContain('Test University');
    expect(refusal?.text.length).toBeLessThan(300);
    // The refusal never echoes the message, and the log names only the category.
    expect(refusal?.text).not.toContain(text);
    expect(lines.join('\n')).not.toContain(text);
    expect(lines.map((l) => JSON.parse(l))).toContainEqual(expect.objectContaining({ msg: 'message stopped by moderation', category: 'hate' }));
  });

  it('answers self-harm with support and crisis resources from configuration', async () => {
    const text = 'scripted self-harm message';
    gw.setModeration(text, { flagged: true, categories: { 'self-harm/intent': true, violence: true }, category_scores: { 'self-harm/intent': 0.7, violence: 0.95 } });
    const refusal = await (await admission.admit(request(text), signal)).refusal;
    expect(refusal?.reason).toBe('self_harm');
    expect(refusal?.text).toContain('988');
    expect(refusal?.text).toMatch(/Suicide & Crisis Lifeline/);
    expect(refusal?.text).toContain('555-0100');
    expect(refusal?.text).toContain('555-0199');
  });

  it('admits an ordinary message with no refusal', async () => {
    expect(await (await admission.admit(request('Which dining halls are open now?'), signal)).refusal).toBeNull();
  });

  it('replaces a flagged answer with a short notice and leaves a clean answer alone', async () => {
    const answer = 'scripted violent model answer';
    gw.setModeration(answer, { flagged: true, categories: { violence: true }, category_scores: { violence: 0.88 } });
    const notice = await admission.reviewAnswer(answer, signal);
    expect(notice?.reason).toBe('moderation');
    expect(notice!.text).not.toContain(answer);
    expect(notice!.text.length).toBeLessThan(200);
    expect(await admission.reviewAnswer('Gates Hillman Center is open until midnight.', signal)).toBeNull();
  });

  it('replaces an answer flagged for self-harm with the support answer, and says so', async () => {
    const answer = 'scripted self-harm model answer';
    gw.setModeration(answer, { flagged: true, categories: { 'self-harm': true }, category_scores: { 'self-harm': 0.8 } });
    const replacement = await admission.reviewAnswer(answer, signal);
    expect(replacement?.reason).toBe('self_harm');
    expect(replacement!.text).toContain('988');
    expect(replacement!.text).not.toContain(answer);
  });

  it('fails open when the moderation provider is down: the turn proceeds and a warning is logged', async () => {
    const text = 'scripted message during an outage';
    gw.setModeration(text, { flagged: true, categories: { hate: true } });
    gw.moderationFailure = { status: 500 };
    expect(await (await admission.admit(request(text), signal)).refusal).toBeNull();
    expect(await admission.reviewAnswer(text, signal)).toBeNull();
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(2);
    expect(lines.join('\n')).not.toContain(text);
  });

  it('fails open when the provider times out', async () => {
    gw.moderationFailure = { delayMs: 30_000 };
    expect(await (await admission.admit(request('Where is the CUC?'), signal)).refusal).toBeNull();
    expect(lines.map((l) => JSON.parse(l)).find((l) => l.level === 'warn')).toMatchObject({ reason: 'timeout' });
  });

  it('checks the budget before moderation: a spent budget is a 429 with no moderation call', async () => {
    const spent = heldCall(await admission.reserveCall(callOf('u-1', 1)));
    await spent.settle({ promptTokens: 40000, completionTokens: 10000, totalTokens: 50000, estimated: false });
    const before = moderationCalls();
    const err = await admission.admit(request('anything at all'), signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(429);
    expect(moderationCalls()).toBe(before);
  });
});
