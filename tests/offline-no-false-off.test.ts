/**
 * Issue 78, item 2: the offline model says tools are turned off only when the request turned off a group
 * the question needs. The zero-config service (offline model, sandbox tools over MCP) is asked a few
 * hundred varied questions with nothing disabled, at a weekday noon and at 1:20 AM on a Sunday: the
 * paraphrase suite's phrasings and questions built here from everyday things students want to do, some
 * of which the plan binds no matching group for. No answer says "turned off". With a group disabled, a
 * question that needs it says so, naming the group.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARAPHRASE_SUITE } from './fixtures/offline-paraphrases.js';
import { startOfflineService, WEDNESDAY_LUNCH, type OfflineService } from './support/offline-service.js';

/** Sunday 2026-11-22, 1:20 AM in Pittsburgh. */
const SUNDAY_NIGHT = new Date('2026-11-22T06:20:00Z');

const DOINGS = ['study', 'get coffee', 'eat something', 'print my essay', 'work out', 'take a nap', 'charge my laptop', 'meet my project group', 'get a snack', 'read quietly', 'see a doctor', 'do laundry', 'find a bathroom', 'buy a notebook', 'catch a bus downtown'];
const FRAMES = ['where can I {} right now?', 'is there somewhere to {} tonight', 'best place to {} on campus?', 'I want to {}', 'any spot to {} near Gates?', 'can I {} anywhere at this hour'];
const BUILT = DOINGS.flatMap((d) => FRAMES.map((f) => f.replace('{}', d)));
const PHRASINGS = PARAPHRASE_SUITE.flatMap((intent) => intent.phrasings.map((p) => ({ ...p, facts: p.facts ?? intent.facts ?? [] })));
const QUESTIONS = [...BUILT.map((q) => ({ q })), ...PHRASINGS];

describe.each([
  ['a weekday noon', WEDNESDAY_LUNCH],
  ['1:20 AM on a Sunday', SUNDAY_NIGHT],
] as const)('nothing disabled, %s', (_when, now) => {
  let offline: OfflineService;
  beforeAll(async () => {
    offline = await startOfflineService(now);
  });
  afterAll(() => offline?.close());

  it(`no answer of ${QUESTIONS.length} says tools are turned off`, async () => {
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(250);
    const falseOff: string[] = [];
    for (const question of QUESTIONS) {
      const answer = await offline.ask('json', question);
      if (/turned off|switched off/i.test(answer.text)) falseOff.push(`${question.q} => ${answer.text.slice(0, 120)}`);
    }
    expect(falseOff).toEqual([]);
  }, 120_000);
});

describe('a group the user turned off', () => {
  let offline: OfflineService;
  beforeAll(async () => {
    offline = await startOfflineService(WEDNESDAY_LUNCH);
  });
  afterAll(() => offline?.close());

  it('is named when the question needs it, on both chat routes', async () => {
    for (const route of ['/agent/respond', '/agent/respond/stream'] as const) {
      const res = await fetch(`${offline.base}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'What can I eat right now?', disabled_tools: ['CMUEats'] }),
      });
      const text = await res.text();
      expect(text).toContain('CMUEats is turned off for this conversation');
      expect(text).toContain('Settings');
    }
  });
});
