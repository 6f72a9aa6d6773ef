/**
 * The sentence filter and the answer stream, held to what they produced before the filter's linear
 * rewrite (issue 12): `tests/fixtures/sentence-filter-pins.json` was recorded from the previous
 * implementation over the corpus in tests/support/sentence-filter-corpus.ts, at chunk sizes 1, 2, 3, 5,
 * 7, 64 and whole, with and without the opening-words test. Every push's output is compared, not only
 * the total: what was dropped, repaired, released early or held back is unchanged. The outputs are
 * computed by tests/support/sentence-filter-pins.ts, which `npm run pins:record` uses to re-record.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SENTENCE_CORPUS } from './support/sentence-filter-corpus.js';
import { answerPin, filterPin, type Pins } from './support/sentence-filter-pins.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/sentence-filter-pins.json', import.meta.url), 'utf8')) as Pins;

describe('sentence filter pins', () => {
  it('covers the whole corpus', () => {
    expect(new Set(fixture.pins.map((p) => p.text))).toEqual(new Set(SENTENCE_CORPUS));
  });

  it.each(fixture.pins.map((p) => [JSON.stringify(p.text).slice(0, 50), p.size, p.mayDrop, p] as const))(
    '%s at chunk size %i (opening-words test: %s)',
    (_label, size, mayDrop, pin) => {
      expect(filterPin(pin.text, size, mayDrop)).toEqual(pin);
    },
  );
});

describe('answer stream pins (map attached)', () => {
  it.each(fixture.answers.map((a) => [JSON.stringify(a.text).slice(0, 50), a.size, a] as const))('%s at chunk size %i', (_label, size, pin) => {
    expect(answerPin(pin.text, size)).toEqual(pin);
  });
});
