/**
 * Issue 59, item 3: tools outrank words. Hours a person's words state (the student's "open until 11
 * tonight?", an earlier answer's "until 11 PM") no longer hold an answer's claim where this turn's tools
 * gave times; a course's units or a room the student asserts no longer hold where the tools gave that
 * course's. What stays held: a moment the student asked about ("open at 4 PM?"), a time of the student's
 * own ("my class ends at 4:30"), and any of it when no tool gave a value of the kind.
 */
import { describe, expect, it } from 'vitest';
import { createEvidence, createTurnGrounding } from '../src/guards/grounding/index.js';
import { CATALOG } from './support/verify.js';

const MONDAY = 1;
const TAZZA_NOW = ['# Dining Locations Open Now', '', "### 🟢 Tazza D'Oro", '**Location:** Gates Hillman Center, 3rd floor', '**Open now:** closes at 5:00 PM'].join('\n');
const COURSE = JSON.stringify({ courseID: '15-213', name: 'Introduction to Computer Systems', units: '12.0', prereqs: ['15-122'] });

function ground(answer: string, options: { question: string; tools?: string[]; history?: string[] }) {
  const evidence = createEvidence(CATALOG, () => MONDAY);
  evidence.addQuestion(options.question);
  for (const h of options.history ?? []) evidence.addWords(h);
  for (const t of options.tools ?? []) evidence.addToolResult(t);
  const g = createTurnGrounding({ catalog: CATALOG, evidence, today: MONDAY, question: options.question });
  const text = g.push(answer) + g.flush();
  return { text, unverified: g.unverified, checked: g.checked };
}

describe('tools outrank words', () => {
  it("the student's stated hours do not hold an answer the tool contradicts; the tool's do", () => {
    const q = { question: 'Is Tazza open until 11 tonight?', tools: [TAZZA_NOW] };
    const wrong = ground("Yes, Tazza D'Oro is open until 11 PM.", q);
    expect(wrong.unverified).toBe(1);
    expect(wrong.text).not.toContain('11 PM');
    expect(ground("No, Tazza D'Oro closes at 5 PM today.", q).unverified).toBe(0);
    // Without a day or a place named in the answer, the same.
    expect(ground('Yes, until 11 PM.', { question: 'Is Tazza open until 11 PM?', tools: [TAZZA_NOW] }).unverified).toBe(1);
  });

  it('an earlier answer in the history does not hold hours the tool contradicts', () => {
    const history = ["Tazza D'Oro is open until 11 PM."];
    expect(ground("Tazza D'Oro is open until 11 PM.", { question: 'and tazza?', history, tools: [TAZZA_NOW] }).unverified).toBe(1);
  });

  it('keeps what words may still hold: an asked moment, a time of the student\'s own, and anything where no tool spoke', () => {
    expect(ground("Yes, at 4 PM Tazza D'Oro is open; it closes at 5 PM.", { question: 'Is Tazza open at 4 PM?', tools: [TAZZA_NOW] }).unverified).toBe(0);
    expect(ground("After your class ends at 4:30 PM, Tazza D'Oro is open until 5 PM.", { question: 'My class ends at 4:30 pm, where can I get coffee after?', tools: [TAZZA_NOW] }).unverified).toBe(0);
    expect(ground('You said it is open until 11 PM; I could not check.', { question: 'Is Tazza open until 11 PM?' }).unverified).toBe(0);
  });

  it("a course's units the student asserts do not hold where the tool gave that course's", () => {
    const q = { question: 'Is 15-213 9 units?', tools: [COURSE] };
    expect(ground('Yes, 15-213 is 9 units.', q).unverified).toBe(1);
    expect(ground('No, 15-213 is 12 units.', q).unverified).toBe(0);
    expect(ground('Yes, 15-213 is 9 units.', { question: 'Is 15-213 9 units?' }).unverified).toBe(0);
  });
});
