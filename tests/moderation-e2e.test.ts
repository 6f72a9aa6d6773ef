/**
 * Moderation end to end through the real app, real admission control and the fake gateway (chat and
 * `/v1/moderations` over real HTTP): a flagged message is a 200 turn with a kind refusal and no chat
 * model request on both routes, self-harm gets crisis resources from configuration, a flagged answer is
 * replaced, a provider outage fails open with a warning, the title route moderates its input, and
 * without a key nothing is moderated.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { NO_MAP } from '../src/campus/cmu-maps.js';
import { startAdmissionApp, type AdmissionApp } from './support/admission-harness.js';
import { collectSseEvents } from './support/sse.js';

const PHONES = { CAMPUS_COUNSELING_PHONE: '555-0142', CAMPUS_POLICE_PHONE: '555-0911' };
let h: AdmissionApp;
afterEach(() => h.close());

describe('moderation through the app', () => {
  it('answers a flagged message with a kind refusal, no tools, no map, and no chat model request', async () => {
    h = await startAdmissionApp({ moderation: true, env: PHONES });
    const text = 'scripted harassing message';
    h.gw.setModeration(text, { flagged: true, categories: { harassment: true }, category_scores: { harassment: 0.96 } });
    const res = await h.post('/agent/respond', { query: text, user_id: 'mod-user' });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.response_text).toMatch(/sorry/i);
    expect(body.response_text).toMatch(/campus|building|dining|courses/i);
    expect(body.response_text).not.toContain(text);
    expect(body).toMatchObject({ action: 'respond', services_used: [], tool_calls: [], cmu_maps: NO_MAP });
    expect(h.chatCalls()).toBe(0);
    expect(h.moderationCalls()).toBe(1);

    const stream = await h.post('/agent/respond/stream', { query: text, user_id: 'mod-user' });
    expect(stream.status).toBe(200);
    const events = await collectSseEvents(stream.body!);
    expect(events.map((e) => e.type)).not.toContain('map');
    expect(events.filter((e) => e.type === 'delta').map((e) => e.data.text).join('')).toBe(body.response_text);
    expect(events.at(-1)).toMatchObject({ type: 'done', data: { response_text: body.response_text } });
    expect(h.chatCalls()).toBe(0);
  });

  it('answers self-harm with support, the 988 Lifeline and the configured campus numbers, without a model call', async () => {
    h = await startAdmissionApp({ moderation: true, env: PHONES });
    const text = 'scripted self-harm message';
    h.gw.setModeration(text, { flagged: true, categories: { 'self-harm/intent': true }, category_scores: { 'self-harm/intent': 0.88 } });
    const body = await (await h.post('/agent/respond', { query: text })).json();
    expect(body.response_text).toContain('988');
    expect(body.response_text).toContain('Suicide & Crisis Lifeline');
    expect(body.response_text).toContain('555-0142');
    expect(body.response_text).toContain('555-0911');
    expect(body.cmu_maps).toEqual(NO_MAP);
    expect(body.services_used).toEqual([]);
    expect(h.chatCalls()).toBe(0);
  });

  it('replaces a flagged answer with a short notice', async () => {
    h = await startAdmissionApp({ moderation: true });
    const answer = 'Here is a scripted answer the moderation flags.';
    h.gw.enqueue({ text: answer, usage: { prompt_tokens: 30, completion_tokens: 9 } });
    h.gw.setModeration(answer, { flagged: true, categories: { violence: true }, category_scores: { violence: 0.9 } });
    const body = await (await h.post('/agent/respond', { query: 'an innocent question' })).json();
    expect(h.chatCalls()).toBe(1);
    expect(body.response_text).not.toContain(answer);
    expect(body.response_text).toMatch(/can't share that answer/);
    expect(body.cmu_maps).toEqual(NO_MAP);
    // The message and the answer were both moderated.
    const inputs = h.gw.requests.filter((r) => r.path === '/v1/moderations').map((r) => r.body.input);
    expect(inputs).toEqual(['an innocent question', answer]);
    expect(body.thought.reasoning).toMatch(/short refusal/);
  });

  it('replaces an answer flagged for self-harm with the support answer, and thought says so', async () => {
    h = await startAdmissionApp({ moderation: true, env: PHONES });
    const answer = 'Here is a scripted answer the moderation flags for self-harm.';
    h.gw.enqueue({ text: answer, usage: { prompt_tokens: 30, completion_tokens: 12 } });
    h.gw.setModeration(answer, { flagged: true, categories: { 'self-harm': true }, category_scores: { 'self-harm': 0.8 } });
    const body = await (await h.post('/agent/respond', { query: 'an innocent question' })).json();
    expect(body.response_text).not.toContain(answer);
    expect(body.response_text).toContain('988');
    expect(body.response_text).toContain('555-0142');
    expect(body.thought).toEqual({ reasoning: 'Answered with support and crisis resources.', confidence: 0.9 });
    expect(body.thought.reasoning).not.toMatch(/refusal/);
    expect(body.cmu_maps).toEqual(NO_MAP);
  });

  it('fails open when the moderation provider is down: the turn runs and a warning is logged', async () => {
    const lines: string[] = [];
    h = await startAdmissionApp({ moderation: true, logger: createLogger({ level: 'info', sink: (l) => lines.push(l) }) });
    h.gw.moderationFailure = { status: 502 };
    h.gw.enqueue({ text: 'The library opens at 8 AM.', usage: { prompt_tokens: 30, completion_tokens: 9 } });
    const res = await h.post('/agent/respond', { query: 'does the library open at 8 AM?' });
    expect(res.status).toBe(200);
    expect((await res.json()).response_text).toBe('The library opens at 8 AM.');
    expect(h.chatCalls()).toBe(1);
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn' && l.component === 'moderation');
    expect(warnings.length).toBe(2);
    expect(lines.join('\n')).not.toContain('when does the library open');
  });

  it('moderates the title input: flagged gives "New chat" without a model call', async () => {
    h = await startAdmissionApp({ moderation: true });
    const text = 'scripted hateful title input';
    h.gw.setModeration(text, { flagged: true, categories: { hate: true }, category_scores: { hate: 0.9 } });
    const res = await h.post('/agent/title', { query: text });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ title: 'New chat' });
    expect(h.chatCalls()).toBe(0);
  });

  it('moderates nothing without EMBEDDINGS_API_KEY', async () => {
    h = await startAdmissionApp();
    const text = 'scripted message that would be flagged';
    h.gw.setModeration(text, { flagged: true, categories: { hate: true }, category_scores: { hate: 0.9 } });
    const res = await h.post('/agent/respond', { query: text });
    expect(res.status).toBe(200);
    await res.json();
    expect(h.chatCalls()).toBe(1);
    expect(h.moderationCalls()).toBe(0);
  });
});
