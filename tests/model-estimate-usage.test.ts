/**
 * The reservation estimate never under-counts what a real tokenizer charges: English and JSON at three
 * characters a token (real tokenizers average about four), CJK at one token a character (the GPT
 * tokenizers give about one, so three characters a token under-reserved them about 3×), and a call's
 * reservation is its input as sent plus its max_tokens.
 */
import { describe, expect, it } from 'vitest';
import { callReservation, reservationTokens } from '../src/model/estimate-usage.js';

describe('reservation estimate', () => {
  it('counts ASCII at three characters a token', () => {
    expect(reservationTokens('a'.repeat(300))).toBe(100);
  });

  it('counts each CJK character (and each non-ASCII UTF-16 unit) as a token of its own', () => {
    expect(reservationTokens('图书馆开放时间'.repeat(100))).toBe(700);
    expect(reservationTokens('食堂在一楼 and the library')).toBe(5 + Math.ceil(' and the library'.length / 3));
  });

  it('reserves a call as its messages and tools as sent plus its max_tokens', () => {
    const messages = [{ role: 'user', content: '你好' }];
    const tools = [{ name: 'x', description: 'y', parameters: { type: 'object', properties: {} } }];
    expect(callReservation({ messages, tools, maxTokens: 100 })).toEqual({ input: reservationTokens(messages) + reservationTokens(tools), output: 100 });
    expect(callReservation({ messages, maxTokens: 24 })).toEqual({ input: reservationTokens(messages), output: 24 });
  });
});
