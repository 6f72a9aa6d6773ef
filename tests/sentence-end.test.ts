/**
 * Issue 60: one sentence-end rule (src/guards/sentence-end.ts) for the sentence filter and the grounding
 * stream. The cases they disagreed on before: a time written "9 p.m." and a month "Oct." in the middle of
 * a sentence end nothing; a single capital ("S. Craig") and "e.g." end nothing; an ellipsis ends one.
 */
import { describe, expect, it } from 'vitest';
import { createSentenceFilter } from '../src/guards/sentence-filter.js';
import { endsWithAbbreviation } from '../src/guards/sentence-end.js';

/** The sentences the filter sees, in 3-character pieces as a stream brings them. */
function sentences(text: string): string[] {
  const seen: string[] = [];
  const f = createSentenceFilter((s) => {
    seen.push(s.trim());
    return false;
  });
  for (let i = 0; i < text.length; i += 3) f.push(text.slice(i, i + 3));
  f.flush();
  return seen;
}

describe('the one sentence-end rule', () => {
  it('knows the abbreviations both guards read', () => {
    for (const t of ['at 9 p.m.', 'at 9 a.m.', 'on Oct.', 'e.g.', 'S.', 'Dr.', 'approx.']) expect(endsWithAbbreviation(t), t).toBe(true);
    for (const t of ['at 9 PM.', 'It is open.', 'October.']) expect(endsWithAbbreviation(t), t).toBe(false);
  });

  it('the sentence filter cuts where the grounding stream does', () => {
    expect(sentences('It closes at 9 p.m. on Fridays. The bus is late.')).toEqual(['It closes at 9 p.m. on Fridays.', 'The bus is late.']);
    expect(sentences('Classes end Oct. 15 this term. Then exams.')).toEqual(['Classes end Oct. 15 this term.', 'Then exams.']);
    expect(sentences('Walk down S. Craig St. to the corner. Turn left.')).toEqual(['Walk down S. Craig St. to the corner.', 'Turn left.']);
    expect(sentences('It might be closed… Check the hours.')).toEqual(['It might be closed…', 'Check the hours.']);
  });
});
