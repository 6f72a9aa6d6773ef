/**
 * The sentence filter and the answer stream, held to what they produced before the filter's linear
 * rewrite (issue 12): `tests/fixtures/sentence-filter-pins.json` was recorded from the previous
 * implementation over the corpus in tests/support/sentence-filter-corpus.ts, at chunk sizes 1, 2, 3, 5,
 * 7, 64 and whole, with and without the opening-words test. Every push's output is compared, not only
 * the total: what was dropped, repaired, released early or held back is unchanged.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCampusMap } from '../src/campus/map-link.js';
import { loadCatalog } from '../src/campus/catalog.js';
import { createAnswerStream } from '../src/guards/answer-stream.js';
import { isFailureClaim, mayBeFailureClaim } from '../src/guards/failure-claims.js';
import { createSentenceFilter } from '../src/guards/sentence-filter.js';
import { baseLeakPolicy } from '../src/security/leak-policy.js';
import { SENTENCE_CORPUS } from './support/sentence-filter-corpus.js';

interface Pins {
  pins: { text: string; mayDrop: boolean; size: number; outputs: string[]; removed: number }[];
  answers: { text: string; size: number; outputs: string[]; final: { delta: string; text: string } }[];
}
const fixture = JSON.parse(readFileSync(new URL('./fixtures/sentence-filter-pins.json', import.meta.url), 'utf8')) as Pins;
const drop = (s: string) => isFailureClaim(s, { otherToolFailed: false });

describe('sentence filter pins', () => {
  it('covers the whole corpus', () => {
    expect(new Set(fixture.pins.map((p) => p.text))).toEqual(new Set(SENTENCE_CORPUS));
  });

  it.each(fixture.pins.map((p) => [JSON.stringify(p.text).slice(0, 50), p.size, p.mayDrop, p] as const))(
    '%s at chunk size %i (opening-words test: %s)',
    (_label, size, mayDrop, pin) => {
      const f = createSentenceFilter(drop, mayDrop ? mayBeFailureClaim : undefined);
      const outputs: string[] = [];
      for (let i = 0; i < pin.text.length; i += size) outputs.push(f.push(pin.text.slice(i, i + size)));
      outputs.push(f.flush());
      expect(outputs).toEqual(pin.outputs);
      expect(f.removed).toBe(pin.removed);
    },
  );
});

describe('answer stream pins (map attached)', () => {
  const map = buildCampusMap('https://maps.example/', loadCatalog(null).get('WEH')!);
  it.each(fixture.answers.map((a) => [JSON.stringify(a.text).slice(0, 50), a.size, a] as const))('%s at chunk size %i', (_label, size, pin) => {
    const answer = createAnswerStream({ scanner: baseLeakPolicy.stream('You are the campus assistant of a university.') });
    const outputs = [answer.newPass({ map, otherToolFailed: false })];
    for (let i = 0; i < pin.text.length; i += size) outputs.push(answer.push(pin.text.slice(i, i + size)));
    const final = answer.finish({ map, toolsUsed: ['maps_show_map'], otherToolFailed: false, query: 'Where is Wean?' });
    expect(outputs).toEqual(pin.outputs);
    expect({ delta: final.delta, text: final.text }).toEqual(pin.final);
  });
});
