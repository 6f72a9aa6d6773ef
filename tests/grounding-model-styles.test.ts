/**
 * Issue 59, item 5: hours as language models write them, over business records in the production
 * shapes, labelled by hand (tests/fixtures/grounding-model-styles.ts). Error-free answers leave whole;
 * an invented time and a right time for the wrong day never leave, the second counted misbound. Each
 * through the grounding stream at several chunk sizes, as the verify stage runs it (today Wednesday).
 */
import { describe, expect, it } from 'vitest';
import { RECORDS, STYLED_ANSWERS, type StyledAnswer } from './fixtures/grounding-model-styles.js';
import { groundAnswer } from './support/grounding.js';

const WEDNESDAY = 3;

const ground = (a: StyledAnswer, chunk: number) => groundAnswer(a.text, { results: [RECORDS[a.record]], today: WEDNESDAY, question: 'what are the hours?', chunk });

const byLabel = (label: StyledAnswer['label']) => STYLED_ANSWERS.filter((a) => a.label === label).map((a) => [a.text, a] as const);

describe('hours in the styles models write them (issue 59)', () => {
  it.each(byLabel('ok'))('error-free, kept whole: %s', (_text, a) => {
    for (const size of [1, 4, 64]) {
      const r = ground(a, size);
      expect(r.text).toBe(a.text);
      expect(r.unverified).toBe(0);
    }
  });

  it.each(byLabel('invented'))('invented, never leaves: %s', (_text, a) => {
    for (const size of [1, 4, 64]) expect(ground(a, size).text).not.toContain(a.span!);
  });

  it.each(byLabel('wrong-day'))('right time for the wrong day, never leaves and counted misbound: %s', (_text, a) => {
    for (const size of [1, 4, 64]) {
      const r = ground(a, size);
      expect(r.text).not.toContain(a.span!);
      expect(r.misbound).toBeGreaterThanOrEqual(1);
    }
  });
});
