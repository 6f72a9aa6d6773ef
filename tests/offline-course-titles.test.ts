/**
 * Issue 78, item 3: course questions that name a title, a shortening or a nickname find the course by
 * searching the catalog's titles, answer what was asked of it, and say which course they took it to
 * be (naming the others when more than one fits as well). Through the zero-config service (offline
 * model, sandbox tools over MCP) on both chat routes, at a weekday noon; none of these questions names
 * a course number, and none of its answers is marked by grounding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfflineService, type OfflineService } from './support/offline-service.js';

/** The question, the course it must be taken to be, and what the answer must state (from the sandbox catalog). */
const CASES: Array<[question: string, course: string, states: RegExp]> = [
  ['which room is the intro databases course in?', '15-445 Database Systems', /GHC 4401/],
  ['who teaches intro to ML?', '10-301 Introduction to Machine Learning', /Matt Gormley/],
  ['what are the prereqs for the databases class?', '15-445 Database Systems', /Prerequisites:\*\* 15-213/],
  ['where is the intro psych lecture?', '85-102 Introduction to Psychology', /McConomy/],
  ['who teaches the distributed systems course?', '15-440 Distributed Systems', /Heather Miller/],
  ['what do I need before taking the functional programming course?', '15-150 Principles of Functional Programming', /15-112 and \(21-127 or 15-151\)/],
  ['is the machine learning course offered in spring?', '10-301 Introduction to Machine Learning', /only in Fall 2026, not in Spring/],
];

/** A nickname that fits two courses as well as each other: the answer names the one taken and the other. */
const AMBIGUOUS: Array<[question: string, taken: string, other: string]> = [
  ['when does the systems course meet?', '15-213 Introduction to Computer Systems', '18-213 Introduction to Computer Systems'],
];

describe('courses by their title (issue 78, item 3)', () => {
  let offline: OfflineService;
  beforeAll(async () => {
    offline = await startOfflineService();
  });
  afterAll(() => offline?.close());

  for (const route of ['json', 'stream'] as const) {
    it.each(CASES)(`${route}: %s`, async (q, course, states) => {
      const answer = await offline.ask(route, { q });
      expect(answer.text).toContain(`to be **${course}**`);
      expect(answer.text).toMatch(states);
      expect(answer.unverified).toBe(0);
    });

    it.each(AMBIGUOUS)(`${route}, more than one fits: %s`, async (q, taken, other) => {
      const answer = await offline.ask(route, { q });
      expect(answer.text).toContain(`to be **${taken}**`);
      expect(answer.text).toContain(`${other} fits too`);
    });
  }

  it('says so when no title matches, and does not guess', async () => {
    const answer = await offline.ask('json', { q: 'which room is the underwater basket weaving course in?' });
    expect(answer.text).toMatch(/didn't find a course called "underwater basket weaving"/);
    expect(answer.text).not.toMatch(/\d{2}-\d{3}/);
  });
});
