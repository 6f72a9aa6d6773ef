/**
 * Issue 59, item 4: ways of writing a value the grounding check did not read, each read as a claim of
 * its class (a wrong one marked, a right one kept), and each guarded by honest text that must not be
 * marked: compact times ("7a", "10:30p"), bare ranges in a text about hours ("Mon–Fri 9–5", "noon to
 * 4"), numeric dates without a year ("10/15"), campus extensions ("x8-2922"), letter-first routes ("P3"),
 * lettered rooms ("HH A104", "BH 136A", "DH2315", "room 2315 in Doherty Hall"), and numbers in words
 * ("twelve units", "fifth floor", and times: "until nine", "seven thirty in the morning", "eleven to eight").
 */
import { describe, expect, it } from 'vitest';
import { readClaims } from '../src/guards/grounding/claims.js';
import { createEvidence, createTurnGrounding } from '../src/guards/grounding/index.js';
import { course15213, diningList, guideCalendar, guideHealth } from './fixtures/grounding-corpus.js';
import { CATALOG } from './support/verify.js';
import { groundAnswer } from './support/grounding.js';
import { fact } from '../src/guards/grounding/facts.js';

const WEDNESDAY = 3;
/** A bus result with a letter-first route (the sandbox's shape of `bus_search_bus_predictions`). */
const P3 = JSON.stringify({
  status: 'ok',
  query: 'P3',
  matches: [{ stop_id: '4407', stop_name: 'Forbes Ave & Morewood Ave (near Tepper Quad)', direction: 'inbound', route: 'P3', destination: 'Downtown', bus_id: '7001', seconds: 480, minutes: 8, capacity: 'MANY_SEATS' }],
});

/** Rooms in the shape of a course schedule's meetings: a lettered room, a room with a letter after it, a plain one. */
const ROOMS = JSON.stringify([
  { building: 'HH', room: 'A104' },
  { building: 'BH', room: '136A' },
  { building: 'DH', room: '2315' },
  { building: 'GHC', room: '4401' },
]);

/** The answer through the grounding stream over `result`, in 3-character pieces as a model streams (today Wednesday). */
const ground = (answer: string, result: string) =>
  groundAnswer(answer, { results: [result], today: WEDNESDAY, prompt: 'Today is 2026-11-25 (Wednesday), 16:04 campus time', chunk: 3 });

/** [format, tool result, honest answer, the honest atom, a wrong one in its place]. */
const CASES: Array<[string, string, string, string, string]> = [
  ['compact times', diningList, "Tazza D'Oro: Mon–Thu 8a–9p, Fri 8a–5p.", '8a–9p', '8a–10p'],
  ['compact times with minutes', diningList, 'La Prima Espresso opens at 7:30a on weekdays.', '7:30a', '6:30a'],
  ['a bare range about hours', diningList, 'La Prima Espresso is open Mon–Fri 7:30–2 and weekends 11–8.', '11–8', '11–6'],
  ['a bare range from noon', diningList, 'Schatz Dining Room is open weekdays 10:30 to 2 for lunch.', '10:30 to 2', '10:30 to 3'],
  ['a numeric date without a year', guideCalendar, 'Fall break is 10/15 and 10/16.', '10/15', '10/22'],
  ['a campus extension', guideHealth, 'You can reach CaPS at x8-2922, day or night.', 'x8-2922', 'x8-2929'],
  ['a letter-first route', P3, 'The P3 bus leaves the Tepper Quad stop in 8 minutes.', 'P3', 'P7'],
  ['units in words', course15213, '15-213 is twelve units.', 'twelve units', 'nine units'],
  ['a lettered room', ROOMS, 'The lab is HH A104, and the seminar room is BH 136A.', 'HH A104', 'HH A108'],
  ['a room with a letter after it', ROOMS, 'The lab is HH A104, and the seminar room is BH 136A.', 'BH 136A', 'BH 136B'],
  ['a room glued to its building', ROOMS, 'Office hours are in DH2315.', 'DH2315', 'DH2317'],
  ['a room in a building named after it', ROOMS, 'Office hours are in room 2315 in Doherty Hall.', 'room 2315 in Doherty Hall', 'room 4401 in Doherty Hall'],
  ['a floor in words', diningList, 'From 7:30 AM on weekdays, La Prima Espresso serves on the fifth floor of Wean Hall.', 'fifth floor', 'sixth floor'],
];

/**
 * Numbers in words with no digit before them in the sentence: the number waits for the next word, which
 * makes it a claim. Streamed a word a piece, as a model's tokens come (a number cut inside its first three
 * letters leaves before it can be held, as a month's name does: tokens seldom cut a word).
 */
const WORD_CASES: Array<[string, string, string, string, string]> = [
  ['units in words, the first claim of its sentence', course15213, 'Introduction to Computer Systems is twelve units.', 'twelve units', 'nine units'],
  ['a floor in words, the only claim of its sentence', diningList, 'La Prima Espresso serves on the fifth floor of Wean Hall.', 'fifth floor', 'sixth floor'],
  ['a hyphenated number of units', course15213, 'Introduction to Computer Systems is a twelve-unit course.', 'twelve-unit', 'nine-unit'],
  // Times in words (found on 2026-11-28 and listed as a limit until then): an hour after "until", "at",
  // "from" in a text about hours, with its minutes, its half of the day or "o'clock", and a range.
  ['an hour in words after "until"', diningList, "Tazza D'Oro is open until nine Monday through Thursday.", 'until nine', 'until ten'],
  ['an hour in words after "at"', diningList, "Tazza D'Oro opens at eight on weekdays.", 'at eight', 'at seven'],
  ['an hour and minutes in words, in the morning', diningList, 'La Prima Espresso opens at seven thirty in the morning on weekdays.', 'seven thirty', 'eight thirty'],
  ['an hour in words with its meridiem', diningList, 'On weekends La Prima Espresso closes at eight p.m.', 'eight p.m.', 'seven p.m.'],
  ["an hour in words and o'clock", diningList, "On Fridays Tazza D'Oro closes at five o'clock.", "five o'clock", "four o'clock"],
  ['a range of hours in words', diningList, 'La Prima Espresso is open eleven to eight on weekends.', 'eleven to eight', 'eleven to six'],
  ['a range of hours in words after its days', diningList, 'La Prima Espresso: weekends, eleven to eight.', 'eleven to eight', 'eleven to six'],
  ['half past an hour', diningList, 'La Prima Espresso opens at half past seven on weekdays.', 'half past seven', 'quarter to eight'],
  ['half past an hour in digits, with its meridiem', diningList, 'La Prima Espresso opens at half past 7 AM on weekdays.', 'half past 7 AM', 'half past 7 PM'],
];

describe('grounding reads the formats models write', () => {
  it.each(CASES)('%s: the right value kept whole, a wrong one marked', (_format, result, honest, from, to) => {
    const kept = ground(honest, result);
    expect(kept.text).toBe(honest);
    expect(kept.unverified).toBe(0);
    expect(kept.checked).toBeGreaterThan(0);
    const wrong = ground(honest.replace(from, to), result);
    expect(wrong.text).not.toContain(to);
    expect(wrong.text).toContain('not confirmed)');
    expect(wrong.unverified).toBeGreaterThanOrEqual(1);
  });

  it.each(WORD_CASES)('%s: the right value kept whole, a wrong one marked', (_format, result, honest, from, to) => {
    for (const chunk of ['words', 3] as const) {
      const kept = groundAnswer(honest, { results: [result], today: WEDNESDAY, chunk });
      expect(kept.text).toBe(honest);
      expect(kept.unverified).toBe(0);
    }
    const kept = groundAnswer(honest, { results: [result], today: WEDNESDAY, chunk: 'words' });
    expect(kept.checked).toBeGreaterThan(0);
    const wrong = groundAnswer(honest.replace(from, to), { results: [result], today: WEDNESDAY, chunk: 'words' });
    expect(wrong.text).not.toContain(to);
    expect(wrong.text).toContain('not confirmed)');
    expect(wrong.unverified).toBeGreaterThanOrEqual(1);
  });

  it('releases numbers in words that are not units or a floor, and holds one only until the next word', () => {
    const honest = 'One of the quietest spots is the third table by the window, and two friends fit there.';
    for (const chunk of [1, 3, 7]) {
      const g = groundAnswer(honest, { results: [diningList], today: WEDNESDAY, chunk });
      expect(g.text, `chunk ${chunk}`).toBe(honest);
      expect(g.checked, `chunk ${chunk}`).toBe(0);
    }
    // A number word at the end of what arrived waits for one more piece, then leaves.
    const g = createTurnGrounding({ catalog: CATALOG, evidence: createEvidence(CATALOG), today: null });
    expect(g.push('It seats twelve')).toBe('It seats ');
    expect(g.push(' people.')).toBe('twelve people.');
  });

  it('does not read counts, pages, scores or fractions as hours or dates', () => {
    for (const text of [
      'Study rooms fit 3-4 people and are open daily.',
      'Read pages 9-12 before Monday.',
      'We won 21-14 on Saturday.',
      'Use 1/2 of your swipes by Friday; 3/4 of students do.',
      'The walk takes 5-10 minutes on weekdays.',
      'Study rooms fit two to four people and are open daily.',
      'At one point the café was open daily; one of the two opens first.',
      'Tables seat up to twelve, open every day.',
      'Open seven days a week, with two entrances; choose from one of three plans.',
      'Hours vary: the cafe opens one hour later on weekends.',
      'A quarter of the seats are open daily; half of them after five people leave.',
      // Numbers in words joined are counts unless a word of hours leads them ("open eleven to eight").
      'Sections one to three meet on Fridays, and sections 1-3 of the lab on Mondays.',
      'It is open daily; tables seat two to six, and levels one to three are open on weekends.',
    ]) {
      const times = readClaims(text, { catalog: CATALOG, mode: 'answer' }).filter((c) => c.cls === 'time' || c.cls === 'date');
      expect(times, text).toEqual([]);
    }
  });

  it('reads a compact or bare time with the half of the day it can be', () => {
    const keys = (text: string) => readClaims(text, { catalog: CATALOG, mode: 'answer' }).filter((c) => c.cls === 'time').map((c) => c.keys);
    expect(keys('open 7a to 4p daily')).toEqual([[fact.time(420)], [fact.time(960)]]);
    expect(keys('Mon–Fri 9–5')).toEqual([[fact.time(540), fact.time(1260)], [fact.time(300), fact.time(1020)]]);
    expect(keys('open noon to 4 on Sundays')).toEqual([[fact.time(720)], [fact.time(960)]]);
    // Without a word of hours, a bare range is no time.
    expect(keys('chapters 9–5')).toEqual([]);
  });
});
