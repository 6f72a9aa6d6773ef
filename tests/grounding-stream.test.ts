/**
 * The grounding check as the answer streams (issue 45): what is held and when it leaves. Text with no
 * claim leaves as it arrives; a segment with a claim is held from the claim (or the month or season
 * before it) to the segment's end and leaves judged; the next segment streams again.
 */
import { describe, expect, it } from 'vitest';
import { groundingOver } from './support/verify.js';

/** Each push's output for `pieces`, then the flush. */
function outputs(pieces: string[], ...evidence: string[]): string[] {
  const g = groundingOver(...evidence);
  const out = pieces.map((p) => g.push(p));
  out.push(g.flush());
  return out;
}

describe('grounding stream: what waits', () => {
  it('an answer with no claim leaves chunk by chunk, as it arrives (digits inside words are no claim)', () => {
    const pieces = ['Gates', ' is', ' on', ' the', ' main', ' campus', '.', ' Try', ' word0', ' w17', ' and', ' H1N1', ' mp3', ' files', '.'];
    expect(outputs(pieces)).toEqual([...pieces, '']);
  });

  it('a sentence with a claim is held from the claim to its end, then the next sentence streams', () => {
    const out = outputs(['Kiltie', ' closes', ' at', ' 9', ' PM', ' today', '.', ' See', ' you', ' there', '.'], 'open until 21:00');
    // The sentence is known to have ended when the space after its period arrives, with the next word.
    expect(out).toEqual(['Kiltie', ' closes', ' at', '', '', '', '', ' 9 PM today. See', ' you', ' there', '.', '']);
  });

  it('a month before a day waits one word, so the whole date is judged together', () => {
    const out = outputs(['Break', ' starts', ' October', ' 18', '.'], 'Fall break: October 15');
    expect(out.join('')).toBe('Break starts (date not confirmed).');
    expect(out.slice(0, 3)).toEqual(['Break', ' starts', ' ']);
  });

  it('a list item with a wrong hour loses the hour, not the item or the list', () => {
    const text = '- **Nourish**: 10:30 AM – 9 PM\n- **Schatz**: 7 AM – 8 PM\n';
    const out = outputs(text.match(/[\s\S]{1,3}/g)!, 'Nourish 10:30 AM - 7:00 PM; Schatz 7:00 AM - 8:00 PM');
    expect(out.join('')).toBe('- **Nourish**: (hours not confirmed)\n- **Schatz**: 7 AM – 8 PM\n');
  });

  it('a list number or a heading hash is structure, not a claim', () => {
    const g = groundingOver();
    const text = '1. Go north.\n2. Turn left.\n## Step 3\n';
    expect(g.push(text) + g.flush()).toBe(text);
    expect(g.checked).toBe(0);
  });

  it('an endless line with a number early is judged in bounded pieces, not held whole', () => {
    const g = groundingOver('15-122');
    let out = g.push('Take 15-122 first');
    for (let i = 0; i < 400; i++) out += g.push(' and then keep walking along the path');
    expect(out.length).toBeGreaterThan(10_000);
    expect(out.startsWith('Take 15-122 first and then')).toBe(true);
  });
});
