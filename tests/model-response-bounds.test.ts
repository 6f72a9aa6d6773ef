/**
 * Issue 37, item 3: the gateway response bounds end what must end and nothing an honest model sends.
 * Through the real openai client and the fake gateway over HTTP:
 * - an answer of 6,000 characters (what 1,500 tokens hold as the fake counts) streamed one character a
 *   chunk, with usage on every chunk's worth of bytes (about 1.3 MB of frames): answered whole; the old
 *   bound of 256 bytes a token ended it at about 4,900 characters as "could not reach its language model";
 * - one 3 MB line: ended at the line bound, a gateway failure (the 12 MB case in the compiled process is
 *   answer-cap.test.ts);
 * - an endless stream of empty deltas that never reaches the answer cap: ended at the response bound.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, responseByteLimit } from '../src/model/response-limit.js';
import { startAdmissionApp, type AdmissionApp } from './support/admission-harness.js';

let h: AdmissionApp;
afterEach(async () => {
  await h?.close();
});

describe('gateway response bounds', () => {
  it('answers 6,000 characters streamed one character a chunk, within max_tokens', async () => {
    h = await startAdmissionApp({ env: { MAX_OUTPUT_TOKENS: '1500' } });
    const sentence = 'Gates has quiet rooms on the fourth floor. ';
    const answer = sentence.repeat(Math.ceil(6_000 / sentence.length)).slice(0, 6_000);
    h.gw.enqueue({ text: [...answer] });
    const res = await h.post('/agent/respond', { query: 'tell me about Gates' });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.response_text).toBe(answer.trim());
  });

  it('ends a response whose one line passes the line bound: a gateway failure, not an answer', async () => {
    h = await startAdmissionApp();
    h.gw.enqueue({ text: ['x'.repeat(3 * MAX_LINE_BYTES)], ignoreMaxTokens: true });
    const res = await h.post('/agent/respond', { query: 'tell me everything' });
    expect(res.status).toBe(503);
    expect((await res.json()).detail).toMatch(/language model/);
  });

  it('ends an endless stream of empty deltas at the response bound', async () => {
    h = await startAdmissionApp({ env: { MAX_OUTPUT_TOKENS: '100' } });
    const { maxBytes } = responseByteLimit(100);
    // Each empty-delta frame is over 100 bytes: this is several times the bound.
    h.gw.enqueue({ text: Array.from({ length: Math.ceil((maxBytes / 100) * 2) }, () => ''), ignoreMaxTokens: true });
    const res = await h.post('/agent/respond', { query: 'say nothing forever' });
    expect(res.status).toBe(503);
    expect((await res.json()).detail).toMatch(/language model/);
  });
});
