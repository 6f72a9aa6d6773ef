/**
 * Issue 64: the same question asked another way gets the same answer. Every phrasing of the paraphrase
 * suite (tests/fixtures/offline-paraphrases.ts) is asked of the zero-config service in process
 * (tests/support/offline-service.ts: the real app and pipeline, the offline model through the real
 * `openai` gateway, the sandbox tool server over MCP on a fixed clock, real memory) on both chat routes,
 * the JSON route and the stream route over a listening socket, at four campus clocks (issue 78: a
 * weekday noon and evening, 1:20 AM, a Sunday afternoon). Targets: at least 95% answered right overall,
 * no intent under 85%, and no unconfirmed claim in any answer, at every clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARAPHRASE_SUITE, paraphraseRates, runParaphraseSuite } from './fixtures/offline-paraphrases.js';
import { startOfflineService, SUITE_CLOCKS, type OfflineService } from './support/offline-service.js';

describe('the offline model understands intents, not phrasings', () => {
  const count = PARAPHRASE_SUITE.reduce((n, i) => n + i.phrasings.length, 0);

  it('has at least eight phrasings for every intent', () => {
    for (const intent of PARAPHRASE_SUITE) expect(intent.phrasings.length, intent.intent).toBeGreaterThanOrEqual(8);
    expect(count).toBeGreaterThanOrEqual(8 * PARAPHRASE_SUITE.length);
  });
});

// At every clock the suite runs at (issue 78): the sandbox follows the campus clock, and so do its answers.
describe.each(SUITE_CLOCKS)('at $label campus time', ({ now }) => {
  const count = PARAPHRASE_SUITE.reduce((n, i) => n + i.phrasings.length, 0);
  let service: OfflineService;
  beforeAll(async () => {
    service = await startOfflineService(now);
  });
  afterAll(async () => {
    await service?.close();
  });

  for (const route of ['json', 'stream'] as const) {
    it(`answers ${count} phrasings on the ${route} route: 95% right overall, every intent at 85% or more`, async () => {
      const results = await runParaphraseSuite(async (intent, p) => {
        const answer = await service.ask(route, { ...p, facts: p.facts ?? intent.facts });
        // The offline model writes only from tool data and saved facts: nothing goes unconfirmed.
        expect(answer.unverified, `${p.q}: ${answer.text}`).toBe(0);
        return answer;
      });
      const rates = paraphraseRates(results);
      const wrong = results.filter((r) => r.misses.length > 0).map((r) => `${r.intent}: "${r.q}": ${r.misses.join('; ')}`);
      expect(rates.right / rates.total, wrong.join('\n')).toBeGreaterThanOrEqual(0.95);
      for (const [intent, t] of rates.perIntent) expect(t.right / t.total, `${intent}\n${wrong.join('\n')}`).toBeGreaterThanOrEqual(0.85);
    }, 120_000);
  }
});
