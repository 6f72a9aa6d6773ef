/**
 * Grounding by subject (issue 45): a sentence that names its dining place, course or bus route is
 * checked against that subject's own facts, so a value true elsewhere in the evidence (another place's
 * closing time, another course's prerequisite, another route's wait) does not pass for it. A sentence
 * that names no subject is checked against all the evidence, as before.
 */
import { describe, expect, it } from 'vitest';
import { readClaims } from '../src/guards/grounding/claims.js';
import { createEvidence } from '../src/guards/grounding/evidence.js';
import { CATALOG } from './support/verify.js';

const DINING = [
  '# Dining Locations Open Now',
  '',
  '## Coffee (2)',
  '',
  '### 🟢 La Prima Espresso',
  '**Location:** Wean Hall, 5th floor',
  '**Hours:** Monday - Friday: 7:30 AM - 2:00 PM | Saturday - Sunday: 11:00 AM - 8:00 PM',
  '',
  "### 🟢 Tazza D'Oro",
  '**Location:** Gates Hillman Center, 3rd floor',
  '**Hours:** Monday - Thursday: 8:00 AM - 9:00 PM | Friday: 8:00 AM - 5:00 PM',
].join('\n');

/** Each claim of `answer` held or not, with the subjects its text names. */
function check(answer: string, ...results: string[]): boolean[] {
  const e = createEvidence(CATALOG);
  e.addText('Today is 2026-11-25 (Wednesday), 16:04 campus time');
  for (const r of results) e.addToolResult(r);
  const claims = readClaims(answer, { catalog: CATALOG, mode: 'answer', busTurn: e.hasWaits() });
  const mentions = e.mentionsOf(answer, claims);
  return claims.map((c) => e.holds(c, [...new Set(mentions.map((m) => m.subject))]));
}

describe('grounding by subject: dining places', () => {
  it("a place's own hours hold; another place's hour does not pass for it", () => {
    expect(check("Tazza D'Oro closes at 9 PM today.", DINING)).toEqual([true]);
    expect(check('La Prima Espresso closes at 9 PM today.', DINING)).toEqual([false]);
    // By a distinctive first word too.
    expect(check('Tazza closes at 5 PM on Friday.', DINING)).toEqual([true]);
    expect(check('Tazza closes at 8 PM on weekends.', DINING)).toEqual([false]);
  });

  it('a sentence naming two places may state either one\'s hours', () => {
    expect(check("La Prima closes at 2 PM and Tazza D'Oro at 9 PM.", DINING)).toEqual([true, true]);
  });

  it('a sentence naming no place is checked against all the evidence', () => {
    expect(check('It closes at 9 PM.', DINING)).toEqual([true]);
  });

  it("what no subject owns (the prompt's time) holds in any sentence", () => {
    expect(check("It's 4:04 PM, so La Prima Espresso is open.", DINING)).toEqual([true]);
  });

  it("a place's floor is its own", () => {
    expect(check("Tazza D'Oro is on the 3rd floor.", DINING)).toEqual([true]);
    expect(check("Tazza D'Oro is on the 5th floor.", DINING)).toEqual([false]);
  });
});

describe('grounding by subject: courses and routes', () => {
  const courses = JSON.stringify([
    { courseID: '15-213', name: 'Introduction to Computer Systems', units: '12.0', prereqs: ['15-122'] },
    { courseID: '15-150', name: 'Principles of Functional Programming', units: '10.0', prereqs: ['15-112', '21-127'] },
  ]);

  it("a course's prerequisites and units are its own", () => {
    expect(check('15-213 requires 15-122.', courses)).toEqual([true, true]);
    expect(check('15-213 requires 15-112.', courses)).toEqual([true, false]);
    expect(check('Introduction to Computer Systems is 10 units.', courses)).toEqual([false]);
    expect(check('15-150 is 10 units.', courses)).toEqual([true, true]);
  });

  const buses = JSON.stringify({
    status: 'ok',
    matches: [
      { stop_id: '4407', route: '61C', destination: 'Downtown', seconds: 245, minutes: 5 },
      { stop_id: '4407', route: '61C', destination: 'Downtown', seconds: 1330, minutes: 23 },
      { stop_id: '4407', route: '28X', destination: 'Airport', seconds: 900, minutes: 15 },
    ],
  });

  it("a route's waits are its own", () => {
    expect(check('The 28X comes in 15 minutes.', buses)).toEqual([true, true]);
    expect(check('The 28X comes in 23 minutes.', buses)).toEqual([true, false]);
    expect(check('The 61C comes in 5 minutes, then 23.', buses)).toEqual([true, true]);
  });

  it('in a turn with bus waits, a wait needs no bus word in its sentence, unless it is a walk', () => {
    expect(check("It's 15 minutes away.", buses)).toEqual([true]);
    expect(check("It's 16 minutes away.", buses)).toEqual([false]);
    expect(check('Walk 16 minutes to the stop.', buses)).toEqual([]);
  });
});
