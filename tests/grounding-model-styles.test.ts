/**
 * Issue 59, item 5: hours as language models write them, over business records in the production
 * shapes, labelled by hand (tests/fixtures/grounding-model-styles.ts). Error-free answers leave whole;
 * an invented time and a right time for the wrong day never leave, the second counted misbound. Each
 * through the grounding stream at several chunk sizes, as the verify stage runs it (today Wednesday).
 */
import { describe, expect, it } from 'vitest';
import { createEvidence, createGroundingStream, readDays } from '../src/guards/grounding/index.js';
import { RECORDS, STYLED_ANSWERS, type StyledAnswer } from './fixtures/grounding-model-styles.js';
import { CATALOG } from './support/verify.js';

const WEDNESDAY = 3;

function ground(a: StyledAnswer, size: number) {
  const evidence = createEvidence(CATALOG, () => WEDNESDAY);
  const question = 'what are the hours?';
  evidence.addQuestion(question);
  evidence.addToolResult(RECORDS[a.record]);
  const asked = readDays(question, WEDNESDAY).flatMap((d) => d.days);
  const g = createGroundingStream({ catalog: CATALOG, evidence, today: WEDNESDAY, askedDays: asked.length > 0 ? asked : null });
  let text = '';
  for (let i = 0; i < a.text.length; i += size) text += g.push(a.text.slice(i, i + size));
  text += g.flush();
  const misbound = [...g.byClass.values()].reduce((n, c) => n + c.misbound, 0);
  return { text, unverified: g.unverified, misbound };
}

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
