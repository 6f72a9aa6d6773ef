/**
 * Issue 59, held-out styles found on 2026-11-28 (answers written for this test, in the ways chat models
 * restate several subjects at once): subjects named together ("Both La Prima and Tazza open at 8 AM":
 * the time must hold for each), values paired with their subjects by order ("… at 7:30 AM and 8 AM",
 * "… respectively"), sections named by their letter alone in a list ("; B is Fridays 2–2:50 PM",
 * "B: Fri 2:00–2:50 PM"), a bus direction named by where its buses go ("the 67 to Monroeville"), a wait
 * with its unit left off ("the 61D in 4 minutes and the 67 in 12"), parts of the day in words ("8 in the
 * morning") and compact schedules ("F 8-7:30, Sa 11-7:30, Su closed"), a guide's hours for named days
 * told for others, a schedule's terms, and a numeric date's year stated by a term. Each honest answer leaves whole
 * however it is streamed; each wrong one has its value marked, the rest kept.
 */
import { describe, expect, it } from 'vitest';
import { busBothWays, course15213, diningDetail, diningList, guideCalendar, guideHealth, rooms, schedule15122, schedule15213 } from './fixtures/grounding-corpus.js';
import { groundAnswer } from './support/grounding.js';

const WEDNESDAY = 3;
const MONDAY = 1;

interface Case {
  result: string;
  /** More results of the same turn. */
  more?: string[];
  answer: string;
  /** The answer as the student reads it when it is wrong; absent: honest, left whole. */
  marked?: string;
  today?: number;
}

const CASES: Case[] = [
  // Named together: the value must hold for each of them.
  { result: diningList, answer: "Both La Prima and Tazza D'Oro open at 8 AM on weekdays.", marked: "Both La Prima and Tazza D'Oro open at (time not confirmed) on weekdays." },
  { result: diningList, answer: "Tazza D'Oro and La Prima are open until 9 PM tonight.", marked: "Tazza D'Oro and La Prima are open until (Wednesday's time not confirmed) tonight." },
  { result: diningList, answer: 'Both La Prima and Tazza are on campus; Tazza closes at 9 PM.' },
  { result: diningList, answer: 'Between La Prima and Tazza, Tazza is open later, until 9 PM.' },
  { result: diningList, answer: 'La Prima, Tazza and Schatz are all open Monday; Schatz closes at 8:30 PM.' },
  // Paired by order.
  { result: diningList, answer: 'La Prima and Tazza open at 7:30 AM and 8 AM on weekdays.' },
  { result: diningList, answer: "La Prima and Tazza D'Oro are open until 2 PM and 9 PM respectively." },
  { result: diningList, answer: 'La Prima and Tazza both open on weekdays; La Prima at 7:30 AM and Tazza at 8 AM.' },
  { result: diningList, answer: 'La Prima and Tazza open at 8 AM and 7:30 AM on weekdays.', marked: 'La Prima and Tazza open at (time not confirmed) and (time not confirmed) on weekdays.' },
  // Sections by their letter.
  {
    result: schedule15213,
    answer: 'Recitation A meets Fridays 1:00–1:50 PM in WEH 5403; B is Fridays 2–2:50 PM in GHC 4102; C is Wednesdays 10–10:50 AM in DH 2105.',
  },
  { result: schedule15213, answer: 'Recitation A: Fri 1:00–1:50 PM, WEH 5403\nB: Fri 2:00–2:50 PM, GHC 4102\nC: Wed 10:00–10:50 AM, DH 2105\n' },
  { result: schedule15213, answer: 'Recitation A: Fri 1:00–1:50 PM, WEH 5403\nB: Fri 1:00–1:50 PM, GHC 4102\n', marked: "Recitation A: Fri 1:00–1:50 PM, WEH 5403\nB: Fri (Friday's hours not confirmed), GHC 4102\n" },
  {
    result: schedule15213,
    answer: 'Recitation A meets Fridays 1:00–1:50 PM in WEH 5403; B is Fridays 1–1:50 PM in GHC 4102.',
    marked: "Recitation A meets Fridays 1:00–1:50 PM in WEH 5403; B is Fridays (Friday's hours not confirmed) in GHC 4102.",
  },
  // A letter that is not a section: no day or time after it.
  { result: schedule15213, answer: 'Recitation A is in WEH 5403. C is the language the labs use; the lecture is in DH 2315.' },
  // A direction by its buses' destination; a wait without its unit.
  { result: busBothWays, answer: 'The 67 to Monroeville arrives in 12 minutes.', marked: 'The 67 to Monroeville arrives in (wait time not confirmed).' },
  { result: busBothWays, answer: 'The 67 to Monroeville arrives in 7 minutes.' },
  { result: busBothWays, answer: 'Buses to Downtown: the 61D in 4 minutes and the 67 in 12.' },
  { result: busBothWays, answer: 'Buses to Downtown: the 61D in 4 minutes and the 67 in 7.', marked: 'Buses to Downtown: the 61D in 4 minutes and the 67 in (wait time not confirmed).' },
  { result: busBothWays, answer: 'The next inbound 61D toward Downtown comes in 4 minutes; outbound to Waterfront in 17.' },
  // Parts of the day in words, compact schedules (Kiltie: Monday to Thursday 8-21, Friday 8-19:30, Saturday 11-19:30).
  { result: diningDetail, today: MONDAY, answer: 'Kiltie Café opens at 8 in the morning and closes at 9 at night Monday through Thursday.' },
  { result: diningDetail, today: MONDAY, answer: 'On Fridays Kiltie wraps up at 7:30 in the evening.' },
  { result: diningDetail, today: MONDAY, answer: 'Hours: M-Th 8-9, F 8-7:30, Sa 11-7:30, Su closed.' },
  { result: diningDetail, today: MONDAY, answer: 'Saturday hours are 11–7:30.' },
  { result: diningDetail, today: MONDAY, answer: 'Hours: M-Th 8-9, F 8-9, Sa 11-7:30, Su closed.', marked: "Hours: M-Th 8-9, F (Friday's hours not confirmed), Sa 11-7:30, Su closed." },
  {
    result: diningDetail,
    today: MONDAY,
    answer: 'Kiltie is open from 8 in the morning until 7:30 at night on Thursdays.',
    marked: "Kiltie is open from (Thursday's hours not confirmed) on Thursdays.",
  },
  // A guide's hours for named days only: told for other days, not held (no place is named to bind them).
  {
    result: guideHealth,
    answer: 'University Health Services is open 8:30 a.m. to 5 p.m. on weekends.',
    marked: 'University Health Services is open (hours not confirmed) on weekends.',
  },
  { result: guideHealth, answer: 'University Health Services is open 8:30 a.m. to 5 p.m. today.' },
  { result: guideHealth, answer: 'CaPS: 412.268.2922 (24/7). Health Services: 412-268-2157, weekdays 8:30–5.' },
  // A misbound value in a sentence that did not name its place: the mark names the place as the answer wrote it.
  {
    result: diningList,
    answer: "Tazza D'Oro is on the 3rd floor of Gates. It closes at 2 PM on Fridays.",
    marked: "Tazza D'Oro is on the 3rd floor of Gates. It closes at (Tazza D'Oro's Friday time not confirmed) on Fridays.",
  },
  {
    result: diningList,
    answer: "### Tazza D'Oro\n- Monday – Thursday: 8 AM – 9 PM\n- Friday: 8 AM – 2 PM\n",
    marked: "### Tazza D'Oro\n- Monday – Thursday: 8 AM – 9 PM\n- Friday: (Tazza D'Oro's Friday hours not confirmed)\n",
  },
  // Named in its own sentence, or invented (true nowhere): the mark is as before.
  { result: diningList, answer: "Tazza D'Oro closes at 2 PM on Fridays.", marked: "Tazza D'Oro closes at (Friday's time not confirmed) on Fridays." },
  { result: diningList, answer: "Tazza D'Oro is on the 3rd floor of Gates. It closes at 11 PM on Fridays.", marked: "Tazza D'Oro is on the 3rd floor of Gates. It closes at (time not confirmed) on Fridays." },
  // A schedule's terms: spring's lecture is not fall's.
  { result: schedule15122, answer: 'In spring 2027, lectures are Mon/Wed 11:00 AM–12:20 PM in DH 2315, taught by Anne Kohlbrenner.' },
  // A term named without its year, where a word says it is a term.
  { result: schedule15122, answer: 'In the spring semester, lectures are Mon/Wed 11:00 AM–12:20 PM in DH 2315.' },
  { result: schedule15122, answer: 'Fall term lectures are Tue/Thu 2:00–3:20 PM in GHC 4401.' },
  {
    result: schedule15122,
    answer: 'In the spring semester, lectures are Tue/Thu 2:00–3:20 PM in GHC 4401.',
    marked: 'In the spring semester, lectures are Tue/Thu (hours not confirmed) in GHC (room not confirmed).',
  },
  {
    result: schedule15122,
    answer: 'In spring 2027, lectures are Tue/Thu 2:00–3:20 PM in GHC 4401.',
    marked: 'In spring 2027, lectures are Tue/Thu (hours not confirmed) in GHC (room not confirmed).',
  },
  // The course from one tool, its terms from another: the terms' meetings still hold a claim bound to the course.
  { result: schedule15213, more: [course15213], answer: '15-213 (Introduction to Computer Systems) meets Tuesdays and Thursdays 3:30–4:50 PM in DH 2315.' },
  // A room's floor is its own (GHC 4401 is on floor 4, GHC 6115 on 6).
  { result: rooms, answer: 'GHC 6115 is on the 4th floor.', marked: 'GHC 6115 is on the (floor not confirmed).' },
  { result: rooms, answer: 'GHC 4401 is the Rashid Auditorium, on the 4th floor of Gates; GHC 6115 is a conference room on the 6th floor.' },
  { result: rooms, answer: 'The talk is in GHC 4401 (4th floor) at 4 PM, and the reception in GHC 6115 (6th floor).', more: ['The talk starts at 4 PM.'] },
  // Days in parentheses after hours; a table's header days; a bare hour ending its phrase.
  { result: diningList, answer: 'La Prima Espresso: 7:30 AM to 2 PM (Mon-Fri), 11 AM to 8 PM (Sat-Sun).' },
  { result: diningList, answer: 'La Prima Espresso: 7:30 AM to 2 PM (Sat-Sun).', marked: 'La Prima Espresso: (hours not confirmed) (Sat-Sun).' },
  {
    result: diningList,
    answer: "| Location | Mon–Fri | Sat–Sun |\n|---|---|---|\n| La Prima | 7:30 AM–2 PM | 11 AM–8 PM |\n| Tazza D'Oro | 8 AM–9 PM (Fri until 5) | Closed |\n",
  },
  {
    result: diningList,
    answer: '| Location | Mon–Fri | Sat–Sun |\n|---|---|---|\n| La Prima | 11 AM–8 PM | 7:30 AM–2 PM |\n',
    marked: '| Location | Mon–Fri | Sat–Sun |\n|---|---|---|\n| La Prima | (hours not confirmed) | (hours not confirmed) |\n',
  },
  { result: diningList, answer: 'La Prima is open till 2 on weekdays and opens at 11 on weekends.' },
  { result: diningList, answer: 'La Prima is open till 3 on weekdays.', marked: 'La Prima is open till (time not confirmed) on weekdays.' },
  { result: diningDetail, today: MONDAY, answer: 'On Saturdays Kiltie opens later, at 11, and closes at 7:30.' },
  {
    result: diningDetail,
    today: MONDAY,
    answer: 'On Saturdays Kiltie opens later, at 10, and closes at 7:30.',
    marked: 'On Saturdays Kiltie opens later, at (time not confirmed), and closes at 7:30.',
  },
  // "Spring 2027" states its year.
  { result: guideCalendar, answer: 'Spring classes start 1/19/2027.' },
];

describe('grounding over lists of subjects and compact styles', () => {
  for (const c of CASES) {
    it(`${c.marked ? 'marks' : 'keeps'}: ${c.answer.replace(/\n/g, ' / ')}`, () => {
      for (const chunk of [undefined, 'words' as const, 3]) {
        const g = groundAnswer(c.answer, { results: [c.result, ...(c.more ?? [])], today: c.today ?? WEDNESDAY, question: 'what are the details?', chunk });
        expect(g.text, `streamed in ${chunk ?? 'one piece'}`).toBe(c.marked ?? c.answer);
        expect(g.checked).toBeGreaterThan(0);
        if (c.marked) expect(g.unverified).toBeGreaterThan(0);
        else expect(g.unverified).toBe(0);
      }
    });
  }
});
