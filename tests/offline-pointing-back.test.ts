/**
 * Issue 78, item 4: follow-ups that point at the previous answer's items ("the first of those", "the
 * second one", "the last course", "all of those") resolve against the courses or places that answer listed, in its
 * order, leaving out the subject the question before it asked about; "does that count?" after such a
 * reference asks whether what the student has is enough for that subject. Through the zero-config
 * service (offline model, sandbox tools over MCP) on both chat routes, with the chat's history as the
 * front end sends it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfflineService, type OfflineService } from './support/offline-service.js';

describe('follow-ups that point back at the last answer (issue 78, item 4)', () => {
  let offline: OfflineService;
  beforeAll(async () => {
    offline = await startOfflineService();
  });
  afterAll(() => offline?.close());

  /** Asks each question in turn with the conversation so far; the answers. */
  const converse = async (route: 'json' | 'stream', questions: string[]) => {
    const history: string[] = [];
    const answers: string[] = [];
    for (const q of questions) {
      const a = await offline.ask(route, { q, history });
      expect(a.unverified, a.text).toBe(0);
      answers.push(a.text);
      history.push(q, a.text);
    }
    return answers;
  };

  for (const route of ['json', 'stream'] as const) {
    it(`${route}: "I only took the first of those, does that count?" after a list of prerequisites`, async () => {
      const [, counts, second] = await converse(route, ['what are the prereqs for 15-150?', 'I only took the first of those, does that count?', 'and the second one?']);
      // 15-150 needs 15-112 and one of 21-127 or 15-151: the first alone is not enough.
      expect(counts).toMatch(/^\*\*No\*\*, not yet: \*\*15-150 Principles of Functional Programming\*\* also needs one of 21-127 or 15-151/);
      expect(counts).toContain('you named **15-112**');
      expect(second).toMatch(/^### 21-127 Concepts of Mathematics/);
    });

    it(`${route}: "I took all of those, can I take it?" names every prerequisite listed, not the courses it leads to`, async () => {
      const [, counts] = await converse(route, ['what are the prereqs for 15-150?', 'I took all of those, can I take it?']);
      expect(counts).toMatch(/^\*\*Yes\*\*/);
      expect(counts).toContain('15-150 Principles of Functional Programming');
      expect(counts).not.toMatch(/you named[^)]*15-210/);
    });

    it(`${route}: "who teaches the first one?" is the first course listed, not the one asked about or its cross-listed twin`, async () => {
      const [, who] = await converse(route, ['what are the prereqs for 15-213?', 'who teaches the first one?']);
      expect(who).toMatch(/^### 15-122 Principles of Imperative Computation/);
      expect(who).toContain('**Taught by:** Iliano Cervesato');
    });

    it(`${route}: "when does the first one close?" after a list of places is the first place listed`, async () => {
      const [list, hours] = (await converse(route, ['where can I get coffee?', 'when does the first one close?'])) as [string, string];
      const first = /^- \*\*([^*]+)\*\*/m.exec(list)![1]!;
      expect(hours.startsWith(`**${first}**`)).toBe(true);
    });
  }
});
