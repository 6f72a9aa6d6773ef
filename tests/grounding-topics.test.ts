/**
 * Issue 59, "heading": a guide section's facts are its heading's. The guide's results name what each
 * passage is about (`heading_path`, a page's `##` sections); an answer that names one office and states
 * another's phone number or hours has that value marked as misbound, the rest kept. Written on
 * 2026-11-28 for this test, in the ways a model restates a guide: the office by its full name, by its
 * acronym, with both offices in one sentence, in a list, and around names no section is about (the
 * guide's "University Police", a building), which must never be marked.
 */
import { describe, expect, it } from 'vitest';
import { diningList, guideHealth, guideMeals, schedule15122 } from './fixtures/grounding-corpus.js';
import { groundAnswer } from './support/grounding.js';
import { CAMPUS, makeCtx, runVerify, toolEvent } from './support/verify.js';

const WEDNESDAY = 3;

/** A section read with `guide_get_section`: the emergency numbers (University Police has no section of its own). */
const guideEmergencies = JSON.stringify({
  heading_path: ['Health and Wellness', 'Emergencies'],
  url: 'https://example.edu/guide/health#emergencies',
  content: '## Emergencies\n\nIn an emergency call University Police at 412-268-2323 or 911. The Escort Service runs 7 p.m. to 3 a.m.',
});

/** A page read with `guide_get_page`: sections under `##` headings, one defining its office's acronym. */
const guidePage = JSON.stringify({
  path: 'src/pages/help.md',
  title: 'Getting help',
  content:
    '# Getting help\n\nWhere to go when something breaks.\n\n' +
    '## Computing Services Help Center\n\nThe Help Center answers at 412-268-4357, 8 a.m. to 8 p.m. on weekdays.\n\n' +
    '## Student Academic Success Center\n\nThe Student Academic Success Center (SASC) holds tutoring in Hunt Library; call 412-268-6878, open 9 a.m. to 5 p.m.',
});

/** A section of the academic calendar: the term's dates are the guide's, not the schedule's. */
const guideSemesters = JSON.stringify({
  heading_path: ['Academic Calendar', 'Semester dates'],
  url: 'https://example.edu/guide/calendar#semester-dates',
  content: '## Semester dates\n\nFall 2026 classes run August 24 to December 4. Spring 2027 classes begin January 19.',
});

interface Case {
  results: string[];
  answer: string;
  /** The answer as the student reads it when a value is wrong; absent: honest, left whole. */
  marked?: string;
}

const CASES: Case[] = [
  // The office by its full name, by its acronym, and both in one answer.
  { results: [guideHealth], answer: 'Counseling and Psychological Services (CaPS) can be reached at 412-268-2922, day or night.' },
  { results: [guideHealth], answer: 'University Health Services: (412) 268-2157, open 8:30 a.m. to 5 p.m. on weekdays.' },
  { results: [guideHealth], answer: 'Call CaPS at 412-268-2922 or UHS at (412) 268-2157.' },
  { results: [guideHealth], answer: '- CaPS: 412-268-2922\n- UHS: 412-268-2157\n' },
  { results: [guideHealth], answer: 'You can reach UHS at 412-268-2922.', marked: 'You can reach UHS at (phone number not confirmed).' },
  {
    results: [guideHealth],
    answer: 'University Health Services can be reached at 412-268-2922 on weekdays.',
    marked: 'University Health Services can be reached at (phone number not confirmed) on weekdays.',
  },
  { results: [guideHealth], answer: 'Call CaPS at 412-268-2157 any time.', marked: 'Call CaPS at (phone number not confirmed) any time.' },
  { results: [guideHealth], answer: '- CaPS: 412-268-2157\n- UHS: 412-268-2922\n', marked: '- CaPS: (phone number not confirmed)\n- UHS: (phone number not confirmed)\n' },
  // A topic binds only a value of a kind its section states: UHS's section gives no floor, so CaPS's floor
  // told for it is left to the rule for no subject (a limit, verification.md), as is CaPS's for CaPS.
  { results: [guideHealth], answer: 'CaPS is on the 2nd floor of Morewood Gardens.' },
  { results: [guideHealth], answer: 'UHS is on the 2nd floor of Morewood Gardens.' },
  // An acronym written as a word is the word: "caps" is not CaPS.
  { results: [guideHealth], answer: 'Enrollment caps: call 412-268-2157 to ask about them.' },
  // Never carried: a later sentence or clause about something else keeps its value.
  { results: [guideHealth, guideEmergencies], answer: 'CaPS offers free counseling (412-268-2922). In an emergency, call 412-268-2323 or 911.' },
  { results: [guideHealth, guideEmergencies], answer: 'For stress, talk to CaPS at 412-268-2922, and in an emergency call 412-268-2323.' },
  // A name the guide has no section for, between the topic and the value, keeps it from binding.
  { results: [guideHealth, guideEmergencies], answer: 'Call CaPS or University Police at 412-268-2323.' },
  // A page's sections, and a name its text defines with its acronym.
  { results: [guidePage], answer: 'The Computing Services Help Center answers at 412-268-4357 on weekdays from 8 a.m. to 8 p.m.' },
  { results: [guidePage], answer: 'SASC: 412-268-6878, open 9 a.m. to 5 p.m.' },
  { results: [guidePage], answer: 'The Student Academic Success Center answers at 412-268-4357.', marked: 'The Student Academic Success Center answers at (phone number not confirmed).' },
  { results: [guidePage], answer: 'SASC is open 8 a.m. to 8 p.m.', marked: 'SASC is open (hours not confirmed).' },
  // A place's or a term's claim may still rest on the guide (a topic's facts hold a claim bound to no topic).
  { results: [diningList, guideMeals], answer: "Tazza D'Oro takes DineXtra at $5.50 a swipe." },
  { results: [schedule15122, guideSemesters], answer: 'In spring 2027, lectures are Mon/Wed 11:00 AM–12:20 PM, and classes begin January 19.' },
];

const FEEDS = [undefined, 'words', 3] as const;

describe("grounding: a guide section is its heading's topic (issue 59)", () => {
  for (const c of CASES) {
    for (const chunk of FEEDS) {
      it(`${c.marked ? 'marks' : 'keeps'} ${JSON.stringify(c.answer)} (${chunk ?? 'whole'})`, () => {
        const out = groundAnswer(c.answer, { results: c.results, today: WEDNESDAY, chunk });
        expect(out.text).toBe(c.marked ?? c.answer);
        if (c.marked) {
          expect(out.unverified).toBeGreaterThan(0);
          expect(out.misbound).toBe(out.unverified);
        } else expect(out.unverified).toBe(0);
      });
    }
  }
});

describe("grounding: the service's own phone numbers are no office's (issue 59)", () => {
  const PROMPT = 'You are the campus assistant.\n\n# Now\nToday is 2026-11-25 (Wednesday), 16:04 campus time (America/New_York).';
  const answerOf = async (text: string, results: string[]) => {
    const ctx = makeCtx({ query: 'who do I call?', systemPrompt: PROMPT, plan: { showMap: false } });
    const run = await runVerify([...results.map((r) => toolEvent('guide_search_guide', 'campus', true, r)), { type: 'pass', index: 1 }, { type: 'text', text }], ctx);
    return run.answer!;
  };

  it(`keeps the configured counseling number (${CAMPUS.counselingPhone}) where no office is named, or told for CaPS`, async () => {
    for (const [text, results] of [
      [`If you need to talk to someone tonight, call ${CAMPUS.counselingPhone}.`, []],
      [`Call CaPS at ${CAMPUS.counselingPhone}.`, [guideHealth]],
      [`Call CaPS at ${CAMPUS.counselingPhone}.`, []],
    ] as const) {
      const answer = await answerOf(text, [...results]);
      expect(answer.text).toBe(text);
      expect(answer.grounding.unverified).toBe(0);
    }
  });

  it('marks the configured counseling number told for another office the guide gave a number of', async () => {
    const answer = await answerOf(`University Health Services is at ${CAMPUS.counselingPhone}.`, [guideHealth]);
    expect(answer.text).toMatch(/^University Health Services is at \(phone number not confirmed\)\./);
    expect(answer.grounding.unverified).toBe(1);
  });
});
