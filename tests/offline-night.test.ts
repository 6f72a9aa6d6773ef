/**
 * Issue 78, item 1: useful at any hour. Through the zero-config service (offline model, sandbox tools
 * over MCP, the campus clock fixed) on both chat routes: at night an "open now" question that finds
 * nothing says what opens next, where and when, and the nearest such place to a place the question
 * names; a bus question with no prediction names the routes that
 * go where the student asked and each one's first trip by the timetable, said as scheduled, not
 * predicted. Every time such an answer states comes from the tools: grounding marks nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfflineService, type OfflineService } from './support/offline-service.js';

/** Sunday 2026-11-22, 1:20 AM in Pittsburgh (the clock): Scotty's Market is still open until 2. */
const SUNDAY_1_20 = new Date('2026-11-22T06:20:00Z');
/** Monday 2026-11-23, 3:30 AM: nothing on campus is open. */
const MONDAY_3_30 = new Date('2026-11-23T08:30:00Z');

const ROUTES = ['json', 'stream'] as const;

describe('at 1:20 AM on a Sunday', () => {
  let offline: OfflineService;
  beforeAll(async () => {
    offline = await startOfflineService(SUNDAY_1_20);
  });
  afterAll(() => offline?.close());

  for (const route of ROUTES) {
    it(`${route}: coffee right now: none is open, so the ones that open next, where and when`, async () => {
      const a = await offline.ask(route, { q: 'can I grab a coffee somewhere right now?' });
      expect(a.text).toContain('open right now (1:20 AM campus time)');
      expect(a.text).toMatch(/Next to open: \*\*[^*]+\*\* at \d{1,2}:\d{2} AM today \(Sunday\), in [A-Z]/);
      expect(a.unverified).toBe(0);
    });

    it(`${route}: a cuisine right now names the place of that cuisine that opens next`, async () => {
      const a = await offline.ask(route, { q: 'is there pizza open now?' });
      expect(a.text).toMatch(/Next to open: \*\*Tartan Pizza Co\.\*\* at 12:00 PM today \(Sunday\)/);
      expect(a.unverified).toBe(0);
    });

    it(`${route}: buses to Squirrel Hill: the routes that go there and their first trips, scheduled`, async () => {
      const a = await offline.ask(route, { q: 'which buses go to Squirrel Hill from campus?' });
      expect(a.text).toContain('scheduled times, not live predictions');
      expect(a.text).toMatch(/61C to McKeesport via Squirrel Hill, first bus 5:02 AM/);
      expect(a.text).toMatch(/69 to Squirrel Hill, first bus \d:\d{2} AM/);
      expect(a.text).not.toContain('Downtown');
      expect(a.unverified).toBe(0);
    });

    it(`${route}: "when does the first one leave?" after that list is its first route (issue 78, item 4)`, async () => {
      const list = await offline.ask(route, { q: 'which buses go to Squirrel Hill from campus?' });
      const first = /service resumes with: (\w+) to /.exec(list.text)![1]!;
      const a = await offline.ask(route, { q: 'when does the first one leave?', history: ['which buses go to Squirrel Hill from campus?', list.text] });
      expect(a.text).toContain(`${first} to McKeesport via Squirrel Hill, first bus 5:02 AM`);
      expect(a.text).not.toMatch(/\b61[ABD]\b|\b69\b/);
      expect(a.unverified).toBe(0);
    });

    it(`${route}: "how do I get downtown tonight?" is a bus question, answered with the routes downtown`, async () => {
      const a = await offline.ask(route, { q: 'how do I get downtown tonight?' });
      expect(a.text).toMatch(/61A to Downtown via Oakland, first bus 5:03 AM \(inbound, near Tepper Quad\)/);
      expect(a.text).not.toContain('McKeesport');
      expect(a.unverified).toBe(0);
    });
  }

  it('where to study: the guide, not a claim that tools are off', async () => {
    const a = await offline.ask('json', { q: 'where can I study right now?' });
    expect(a.text).not.toMatch(/turned off|switched off/i);
    expect(a.text).toMatch(/Library/);
  });
});

describe('at 3:30 AM on a Monday, with nothing open', () => {
  let offline: OfflineService;
  beforeAll(async () => {
    offline = await startOfflineService(MONDAY_3_30);
  });
  afterAll(() => offline?.close());

  for (const route of ROUTES) {
    it(`${route}: "what's open right now?" says nothing is, and the three places that open first today`, async () => {
      const a = await offline.ask(route, { q: "what's open right now?" });
      expect(a.text).toContain('Nothing on campus is open right now (3:30 AM campus time).');
      const next = /Next to open: (.+)\.$/m.exec(a.text)?.[1] ?? '';
      expect(next.split('; ')).toHaveLength(3);
      expect(next).toMatch(/^\*\*[^*]+\*\* at 7:00 AM today \(Monday\)/);
      expect(a.unverified).toBe(0);
    });

    it(`${route}: near a place, the nearest that opens next, by the walk`, async () => {
      const coffee = await offline.ask(route, { q: 'coffee near Gates right now?' });
      expect(coffee.text).toContain('Nearest to Gates & Hillman Centers: **Gates Café** (a 1-minute walk), at 8:00 AM today (Monday).');
      const food = await offline.ask(route, { q: 'anything open near Wean Hall now?' });
      expect(food.text).toContain('Nearest to Wean Hall: **Wean Coffee Bar** (a 1-minute walk), at 7:00 AM today (Monday).');
      expect(coffee.unverified + food.unverified).toBe(0);
    });
  }
});
