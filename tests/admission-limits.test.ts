/**
 * The limits a chat request meets before any stream starts, through the real app with the real
 * admission control: body size (413), query length and emptiness, history length, fields (400), the
 * daily budget (429 with Retry-After) and a failing budget store (503), on both chat routes, each as a
 * plain JSON envelope with no model call; and the order of the checks (CONTRACT.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_ITEM_MAX_CHARS, HISTORY_MAX_CHARS, TRUNCATED_MARKER } from '../src/request/chat-request.js';
import { MAX_CHAT_BODY_BYTES } from '../src/http/body-limit.js';
import { startAdmissionApp, type AdmissionApp } from './support/admission-harness.js';

const ROUTES = ['/agent/respond', '/agent/respond/stream'] as const;
const NOON = new Date('2026-11-21T12:00:00.000Z');

let h: AdmissionApp;
afterEach(() => h.close());

/** Asserts a plain JSON envelope answer (not a stream) and returns it. */
async function envelope(res: Response, status: number): Promise<{ error: string; detail: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await res.json();
  expect(Object.keys(body).sort()).toEqual(['detail', 'error']);
  expect(typeof body.error).toBe('string');
  expect(typeof body.detail).toBe('string');
  return body;
}

describe.each(ROUTES)('limits on %s', (route) => {
  it('answers 413 for a body over the chat routes\' 4 MiB', async () => {
    h = await startAdmissionApp();
    const res = await h.post(route, { query: 'hi', padding: 'x'.repeat(MAX_CHAT_BODY_BYTES) });
    await envelope(res, 413);
    expect(h.chatCalls()).toBe(0);
  });

  it('answers 400 for an empty query, a query over 8,000 characters, and a bad user_id', async () => {
    h = await startAdmissionApp();
    await envelope(await h.post(route, { query: '   \n ' }), 400);
    await envelope(await h.post(route, { query: 'a'.repeat(8_001) }), 400);
    await envelope(await h.post(route, {}), 400);
    await envelope(await h.post(route, { query: 'hi', user_id: 'has spaces' }), 400);
    await envelope(await h.post(route, { query: 'hi', message_history: 'not an array' }), 400);
    expect(h.chatCalls()).toBe(0);
  });

  it('accepts 8,000 characters after trimming', async () => {
    h = await startAdmissionApp();
    const res = await h.post(route, { query: `  ${'a'.repeat(8_000)}  ` });
    expect(res.status).toBe(200);
    await res.text();
    expect(h.chatCalls()).toBe(1);
  });

  it('answers 400 for more than 200 history items and sends only the last 40 of 200 to the model', async () => {
    h = await startAdmissionApp();
    const turn = (i: number) => ({ role: i % 2 ? 'assistant' : 'user', content: `history turn ${i}` });
    const tooMany = Array.from({ length: 201 }, (_, i) => turn(i));
    await envelope(await h.post(route, { query: 'hi', message_history: tooMany }), 400);
    expect(h.chatCalls()).toBe(0);

    const res = await h.post(route, { query: 'hi', message_history: tooMany.slice(0, 200) });
    expect(res.status).toBe(200);
    await res.text();
    const sent = JSON.stringify(h.gw.chatRequests()[0].messages);
    expect(sent).toContain('history turn 160');
    expect(sent).toContain('history turn 199');
    expect(sent).not.toContain('history turn 159"');
  });

  it('fits history to its context budget: a 250,000-character item reaches the model truncated with a marker', async () => {
    h = await startAdmissionApp();
    const pasted = 'A pasted document line. '.repeat(10_417); // 250,008 characters
    const res = await h.post(route, { query: 'summarise it', message_history: [{ role: 'user', content: pasted }, { role: 'assistant', content: 'Sure.' }] });
    expect(res.status).toBe(200);
    await res.text();
    const [sent] = h.gw.chatRequests();
    const item = sent.messages[1] as { content: string };
    expect(item.content).toHaveLength(HISTORY_ITEM_MAX_CHARS);
    expect(item.content.endsWith(TRUNCATED_MARKER)).toBe(true);
    expect(sent.messages[2]).toEqual({ role: 'assistant', content: 'Sure.' });
    // No request to the gateway carries more than the budget: the history's, the message's and the prompt's.
    for (const body of h.gw.chatRequests()) expect(JSON.stringify(body.messages).length).toBeLessThan(HISTORY_MAX_CHARS + 8_000 + 12_000);
  });

  it('fits history to its context budget: the oldest items are dropped first', async () => {
    h = await startAdmissionApp();
    const history = [
      { role: 'user', content: 'the oldest question' },
      ...Array.from({ length: 8 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} `.repeat(500).slice(0, 3_500) })),
    ];
    const res = await h.post(route, { query: 'hi', message_history: history });
    expect(res.status).toBe(200);
    await res.text();
    const sent = h.gw.chatRequests()[0].messages.slice(1, -1) as Array<{ role: string; content: string }>;
    // 8 × 3,500 > 24,000: the newest six fit, the two before them and the oldest question do not.
    expect(sent).toEqual(history.slice(3));
    expect(sent.reduce((n, m) => n + m.content.length, 0)).toBeLessThanOrEqual(HISTORY_MAX_CHARS);
  });

  it('answers 429 with Retry-After to 00:00 UTC once the day is spent, without calling the model', async () => {
    h = await startAdmissionApp({ env: { DAILY_TOKEN_LIMIT: '50000' }, now: () => NOON });
    await h.budget.charge('spent-user', '2026-11-21', 50_000);
    const res = await h.post(route, { query: 'hi', user_id: 'spent-user' });
    const body = await envelope(res, 429);
    expect(body.error).toBe('daily token budget exhausted');
    expect(res.headers.get('retry-after')).toBe(String(12 * 3600));
    expect(h.chatCalls()).toBe(0);
    // Nor is a turn admitted whose hold would not fit: 45,000 used leaves less than a tool pass and its answer.
    await h.budget.charge('nearly-spent-user', '2026-11-21', 45_000);
    await envelope(await h.post(route, { query: 'hi', user_id: 'nearly-spent-user' }), 429);
    expect(h.chatCalls()).toBe(0);
    // Another user, and yesterday's spending, do not count.
    await h.budget.charge('other-user', '2026-11-20', 50_000);
    const ok = await h.post(route, { query: 'hi', user_id: 'other-user' });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it('answers 503 when the budget store fails, rather than running unmetered', async () => {
    h = await startAdmissionApp();
    await h.budget.close();
    const body = await envelope(await h.post(route, { query: 'hi', user_id: 'u-503' }), 503);
    expect(body.error).toBe('token budget unavailable');
    expect(h.chatCalls()).toBe(0);
  });
});

describe('order of checks', () => {
  it('judges fields before the budget, and the budget before moderation', async () => {
    h = await startAdmissionApp({ moderation: true, env: { DAILY_TOKEN_LIMIT: '10' }, now: () => NOON });
    await h.budget.charge('anonymous', '2026-11-21', 10);
    await envelope(await h.post('/agent/respond', { query: '' }), 400);
    await envelope(await h.post('/agent/respond', { query: 'hello' }), 429);
    expect(h.moderationCalls()).toBe(0);
    expect(h.chatCalls()).toBe(0);
  });
});
