/**
 * Issue 59, the day binding: a time the answer states is true for the day its sentence is about, not
 * only somewhere in the evidence. Days are read from the answer and the evidence by one reader
 * (src/guards/grounding/days.ts); a time bound to a day a tool gave hours for is held only by that
 * day's facts (or by the moment the student asked about for no day), and is counted `misbound` when
 * it is true for another day. Unbound times keep the earlier rule.
 */
import { describe, expect, it } from 'vitest';
import { bindTimes, readDays } from '../src/guards/grounding/days.js';
import { readClaims } from '../src/guards/grounding/claims.js';
import { createEvidence, createTurnGrounding } from '../src/guards/grounding/index.js';
import { CATALOG } from './support/verify.js';
import { groundAnswer } from './support/grounding.js';
import { diningDetail } from './fixtures/grounding-corpus.js';
import { fact } from '../src/guards/grounding/facts.js';

const MONDAY = 1;

/** Each time of `text` with the days it binds to (Wednesday is today). */
function bound(text: string): Array<[string, number[] | null]> {
  const times = readClaims(text, { catalog: CATALOG, mode: 'answer' }).filter((c) => c.cls === 'time');
  return bindTimes(text, times, 3).map((days, i) => [text.slice(times[i]!.start, times[i]!.end), days]);
}

describe('days: what a time is about', () => {
  it('reads names, ranges, short ranges, lists, words for several days, today and exceptions', () => {
    expect(readDays('Monday - Friday', null).map((d) => d.days)).toEqual([[1, 2, 3, 4, 5]]);
    expect(readDays('Mon–Thu and Sat', null).map((d) => d.days)).toEqual([[1, 2, 3, 4, 6]]);
    expect(readDays('M–Th, then F', null).map((d) => d.days)).toEqual([[1, 2, 3, 4]]);
    expect(readDays('Fri through Mon', null).map((d) => d.days)).toEqual([[5, 6, 0, 1]]);
    expect(readDays('on weekdays, and weekends', null).map((d) => d.days)).toEqual([[1, 2, 3, 4, 5, 0, 6]]);
    expect(readDays('open daily', null).map((d) => d.days)).toEqual([[0, 1, 2, 3, 4, 5, 6]]);
    expect(readDays('until 11 tonight', 2).map((d) => d.days)).toEqual([[2]]);
    expect(readDays('tomorrow', 6).map((d) => d.days)).toEqual([[0]]);
    expect(readDays('tonight', null)).toEqual([]);
    // The excepted day leaves the days before it, and frames what follows it ("except Friday, when …").
    expect(readDays('every weekday except Friday', null).map((d) => d.days)).toEqual([[1, 2, 3, 4], [5]]);
    // Words that only look like days.
    expect(readDays('I sat down in the sun on a wed afternoon', null)).toEqual([]);
  });

  it('binds each time to the days of its clause, before or after it, as models write hours', () => {
    expect(bound('Monday through Saturday from 5:00 PM to 10:00 PM')).toEqual([['5:00 PM', [1, 2, 3, 4, 5, 6]], ['10:00 PM', [1, 2, 3, 4, 5, 6]]]);
    expect(bound('10:30 am to 8:30 pm on weekdays, until 9:00 pm on weekends')).toEqual([
      ['10:30 am', [1, 2, 3, 4, 5]],
      ['8:30 pm', [1, 2, 3, 4, 5]],
      ['9:00 pm', [0, 6]],
    ]);
    expect(bound('from 6:30pm until 10pm on Tuesdays')).toEqual([['6:30pm', [2]], ['10pm', [2]]]);
    expect(bound('Monday it opens at 9 AM, Tuesday at 10 AM')).toEqual([['9 AM', [1]], ['10 AM', [2]]]);
    expect(bound('Kiltie Café: Mon–Thu 08:00–21:00, Fri 08:00–19:30')).toEqual([['08:00', [1, 2, 3, 4]], ['21:00', [1, 2, 3, 4]], ['08:00', [5]], ['19:30', [5]]]);
    expect(bound('La Prima is open weekdays until 2 PM and 11 AM–8 PM on weekends.')).toEqual([['2 PM', [1, 2, 3, 4, 5]], ['11 AM', [0, 6]], ['8 PM', [0, 6]]]);
    expect(bound('open every day from 5 PM to 10 PM')).toEqual([['5 PM', [0, 1, 2, 3, 4, 5, 6]], ['10 PM', [0, 1, 2, 3, 4, 5, 6]]]);
    expect(bound('Yes, until 11 PM tonight.')).toEqual([['11 PM', [3]]]);
    // A day after a clause break is another clause's; with no day in the text nothing is bound.
    expect(bound("| Tazza | 8am–9pm (Fri 8am–5pm) |")).toEqual([['8am', null], ['9pm', null], ['8am', [5]], ['5pm', [5]]]);
    expect(bound('Nourish closes at 7 PM.')).toEqual([['7 PM', null]]);
  });
});

/** The Kiltie Café detail: 24-hour per-day lines, Friday and Saturday shorter, Sunday closed. */
const KILTIE = diningDetail;

/** The answer through the grounding stream over the Kiltie detail (and the student's `question`), today Monday. */
const ground = (answer: string, question = 'kiltie hours?') => groundAnswer(answer, { results: [KILTIE], today: MONDAY, question });

describe('grounding binds times to their days', () => {
  it('keeps honest answers whole: per-day lists, ranges of days, 24-hour echoes, today', () => {
    for (const honest of [
      'Kiltie Café is open Monday to Thursday from 8 AM to 9 PM, Friday until 7:30 PM, and Saturday 11 AM to 7:30 PM. It is closed on Sunday.',
      '- Monday–Thursday: 8:00 AM – 9:00 PM\n- Friday: 8:00 AM – 7:30 PM\n- Saturday: 11 a.m. to 7:30 p.m.\n- Sunday: closed\n',
      'Kiltie: Mon–Thu 08:00–21:00, Fri 08:00–19:30, Sat 11:00–19:30.',
      'Today it closes at 9 PM.',
      'On weekdays it closes at 9 PM, except Friday, when it closes at 7:30 PM.',
    ]) {
      const r = ground(honest);
      expect(r.text, honest).toBe(honest);
      expect(r.unverified, honest).toBe(0);
      expect(r.checked, honest).toBeGreaterThan(0);
    }
  });

  it('marks the right time told for the wrong day, counted misbound, naming the day', () => {
    const friday = ground('On Friday it closes at 9 PM.');
    expect(friday.text).toBe("On Friday it closes at (Friday's time not confirmed).");
    expect(friday.misbound).toBe(1);
    // One range for the whole week, when Sunday is closed and Friday and Saturday differ.
    const daily = ground('Kiltie is open every day from 8 AM to 9 PM.');
    expect(daily.text).toBe('Kiltie is open every day from (hours not confirmed).');
    expect(daily.misbound).toBe(2);
    const sunday = ground('- Sunday: 11:00 AM – 7:30 PM\n');
    expect(sunday.text).toBe("- Sunday: (Sunday's hours not confirmed)\n");
    // An invented time is still unverified, not misbound.
    const invented = ground('On Friday it closes at 10:45 PM.');
    expect(invented.unverified).toBe(1);
    expect(invented.misbound).toBe(0);
  });

  it("lets the tools outrank the student's words for the day they are about", () => {
    // The student says 11 tonight; the tool says Monday closes at 21:00.
    const yes = ground('Yes, it is open until 11 PM tonight.', 'Is Kiltie open until 11 tonight?');
    expect(yes.text).toBe('Yes, it is open until (time not confirmed) tonight.');
    const yes24 = ground('Yes, it is open until 11 PM tonight.', 'Is Kiltie open until 11 PM tonight?');
    expect(yes24.text).toBe('Yes, it is open until (time not confirmed) tonight.');
    expect(yes24.unverified).toBe(1);
    // A question that names no day binds nothing, but hours its words state no longer hold an answer's
    // echo where the tools gave times (issue 59, "tools outrank words"; this was a limit before).
    expect(ground('Yes, until 11 PM.', 'Is Kiltie open until 11 PM?').unverified).toBe(1);
    // The answer names no day: it is about the day the student asked about.
    const echo = ground('Yes, until 11 PM.', 'Is Kiltie open until 11 tonight?');
    expect(echo.unverified).toBe(1);
    // The moment a student asked about for no day may be echoed ("before 8am").
    expect(ground('Nothing is open on Monday before 7 AM; Kiltie opens at 8 AM.', "what's open before 7am?").unverified).toBe(0);
    expect(ground('Nothing is open on Monday before 7 AM; Kiltie opens at 8 AM.', 'what is open?').unverified).toBe(1);
    expect(ground('Nothing is open on Friday after 11:00 PM.', 'is anything open after 11 pm on friday').unverified).toBe(0);
  });

  it('keeps the unbound rule where the text names no day or no tool gave that day', () => {
    expect(ground('Kiltie closes at 7:30 PM.').unverified).toBe(0);
    const evidence = createEvidence(CATALOG, () => MONDAY);
    evidence.addText('Tazza is open until 9 PM.');
    const g = createTurnGrounding({ catalog: CATALOG, evidence, today: MONDAY });
    expect(g.push('On Friday Tazza is open until 9 PM.') + g.flush()).toBe('On Friday Tazza is open until 9 PM.');
  });
});

describe('parts of the day in words and compact schedules (held-out styles, 2026-11-28)', () => {
  it('reads "8 in the morning", "7:30 at night", "9 o\'clock in the evening" with their half of the day, "12 at night" as midnight', () => {
    const times = (text: string) => readClaims(text, { catalog: CATALOG, mode: 'answer' }).map((c) => [text.slice(c.start, c.end), c.keys]);
    expect(times('from 8 in the morning until 7:30 at night')).toEqual([['8 in the morning', [fact.time(480)]], ['7:30 at night', [fact.time(1170)]]]);
    expect(times("at 9 o'clock in the evening")).toEqual([["9 o'clock in the evening", [fact.time(1260)]]]);
    expect(times('open until 12 at night')).toEqual([['12 at night', [fact.time(0)]]]);
    expect(times('3 in the afternoon')).toEqual([['3 in the afternoon', [fact.time(900)]]]);
  });

  it('reads a lone capitalised day letter where a compact schedule puts one, and lower-case short ranges', () => {
    expect(readDays('Hours: M-Th 8-9, F 8-7:30, Sa 11-7:30, Su closed.', null).map((d) => d.days)).toEqual([[1, 2, 3, 4], [5], [6], [0]]);
    expect(readDays('- F: 8:00 - 19:30', null).map((d) => d.days)).toEqual([[5]]);
    expect(readDays('9-5 m-f', null).map((d) => d.days)).toEqual([[1, 2, 3, 4, 5]]);
    // Not a day: a letter inside a sentence, lower case, or not before hours.
    expect(readDays('Take the F line, then Su Casa at 5 PM.', null)).toEqual([]);
    expect(readDays('grade: f 8 points', null)).toEqual([]);
    expect(readDays('Section W, room 5', null)).toEqual([]);
  });

  // The answers in these styles, honest and wrong, streamed three ways: tests/grounding-lists.test.ts.
});

describe('when a result was fetched is a moment, not a day of hours', () => {
  // bus_get_next_bus between the last bus and the first (CAMPUS_TOOLS.md's shape, the sandbox's message).
  const nothingRunning = JSON.stringify({
    status: 'empty',
    selection: 'single_direction',
    results: [],
    message: 'No buses are predicted at these stops right now; service resumes around 5:00 AM.',
    retrieved_at: { utc: '2026-11-28T06:12:00Z', local: '2026-11-28T01:12:00-05:00', local_display: 'Saturday 1:12 AM', timezone: 'America/New_York', meaning: 'when these predictions were fetched' },
    coverage_note: 'Stops 4407 and 7117 only.',
  });
  const SATURDAY = 6;
  const answer = '**Forbes Ave & Morewood Ave** (predictions as of Saturday 1:12 AM): No buses are predicted at these stops right now; service resumes around 5:00 AM.';

  it('keeps an answer that names the fetch\'s weekday with the result\'s other times', () => {
    for (const chunk of [3, 11, undefined]) {
      const g = groundAnswer(answer, { results: [nothingRunning], today: SATURDAY, chunk });
      expect(g.text).toBe(answer);
      expect(g.unverified).toBe(0);
      expect(g.checked).toBe(2);
    }
  });

  it('still marks a time the result never gave', () => {
    const g = groundAnswer(answer.replace('5:00 AM', '6:00 AM'), { results: [nothingRunning], today: SATURDAY, chunk: 3 });
    expect(g.text).not.toContain('6:00 AM');
    expect(g.unverified).toBe(1);
  });
});
