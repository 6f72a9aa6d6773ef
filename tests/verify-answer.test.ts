/**
 * Verify stage, answer rules: the map of the turn (last valid call, once, before the answer, none when
 * maps are disabled), the false "lookup failed" repair on a dozen phrasings (and no change to honest
 * answers or without a map), tool disclosure, empty output, and pass-through. Arrays in, arrays out.
 */
import { describe, expect, it } from 'vitest';
import { noUserMemory } from '../src/memory/turn-memory.js';
import type { TurnContext } from '../src/pipeline/stage.js';
import { planTurn } from '../src/pipeline/stages/plan.js';
import { loadCatalog } from '../src/campus/catalog.js';
import { buildCampusMap } from '../src/campus/map-link.js';
import { EMPTY_ANSWER_APOLOGY } from '../src/guards/answer-stream.js';
import { createVerifyStage } from '../src/pipeline/stages/verify.js';
import { NO_MAP } from '../src/campus/cmu-maps.js';
import type { TurnEvent } from '../src/pipeline/events.js';
import { everyN, makeCtx, runVerify, toolEvent, verifyOptions } from './support/verify.js';
import { baseLeakPolicy } from '../src/security/leak-policy.js';

const catalog = loadCatalog(null);
const BASE = 'https://maps.scottylabs.org';
const weh = buildCampusMap(BASE, catalog.get('WEH')!);
const ghcToWeh = buildCampusMap(BASE, catalog.get('WEH')!, catalog.get('GHC')!);
const mapRequest = (map = ghcToWeh): TurnEvent[] => [toolEvent('maps_show_map', 'map'), { type: 'map_request', map }];
const ROUTE_POINTER = "Here's the route from Gates & Hillman Centers (GHC) to Wean Hall (WEH) on the attached campus map.";

/** A two-pass turn: preamble, the map call, then the final pass streamed in small chunks. */
function mapTurn(finalText: string, map = ghcToWeh): TurnEvent[] {
  return [
    { type: 'status', text: 'Checking campus tools...' },
    ...mapRequest(map),
    { type: 'pass', index: 1 },
    { type: 'status', text: 'Writing answer...' },
    ...everyN(finalText, 5),
    { type: 'usage', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, estimated: false } },
  ];
}

/** `ctx` with the plan the plan stage makes for its request. */
const withPlan = (ctx: TurnContext): TurnContext => ({ ...ctx, plan: planTurn(ctx.request, noUserMemory) });

describe('the map of the turn', () => {
  it('emits the last valid map once, after the deltas and before the answer', async () => {
    const run = await runVerify([...mapRequest(weh), ...mapRequest(ghcToWeh), { type: 'pass', index: 1 }, { type: 'text', text: 'Walk east.' }]);
    expect(run.maps).toEqual([ghcToWeh]);
    expect(run.answer!.map).toEqual(ghcToWeh);
    const types = run.out.map((e) => e.type);
    expect(types.slice(-2)).toEqual(['map', 'answer']);
    expect(types.indexOf('map')).toBeGreaterThan(types.lastIndexOf('delta'));
  });

  it.each([
    ['the plan does not show maps', makeCtx({ plan: { showMap: false } })],
    // The plan is where a disabled maps group takes the map out (verify reads only `plan.showMap`).
    ['the user disabled maps', withPlan(makeCtx({ disabled: ['maps'] }))],
  ])('gives no map when %s', async (_label, ctx) => {
    const run = await runVerify([...mapRequest(), { type: 'text', text: 'Walk east.' }], ctx);
    expect(run.maps).toEqual([]);
    expect(run.answer!.map).toEqual(NO_MAP);
  });

  it('gives no map without a map request', async () => {
    const run = await runVerify([{ type: 'text', text: 'Hello!' }]);
    expect(run.maps).toEqual([]);
    expect(run.answer!.map).toEqual(NO_MAP);
  });
});

const FAILURE_CLAIMS = [
  "I couldn't retrieve the route.",
  'Unfortunately, I was unable to get directions between those buildings.',
  "The routing tool isn't working right now.",
  'The map service appears to be down at the moment.',
  "I'm having trouble pulling up the map.",
  'There was an error retrieving the location.',
  "I wasn't able to look up the building.",
  'The building lookup failed.',
  'I cannot access the campus map right now.',
  'You can use Google Maps for turn-by-turn directions.',
  'For live navigation, try Apple Maps or a navigation app.',
  'I ran into an issue with the routing tool, sorry.',
  'It seems the tool returned an error, so I cannot show the path.',
];
const HONEST = 'Walk east along the Cut; Wean Hall is the tall concrete building past Doherty Hall.';

describe('false "lookup failed" repair with a map attached', () => {
  it.each(FAILURE_CLAIMS)('%j is removed, the answer leads with the map, deltas equal the answer', async (claim) => {
    const run = await runVerify(mapTurn(`${claim} ${HONEST}`));
    expect(run.answer!.text).toBe(`${ROUTE_POINTER}\n\n${HONEST}`);
    expect(run.deltas).toBe(run.answer!.text);
    expect(run.answer!.notes.repairedFailureClaim).toBe(true);
    expect(run.maps).toEqual([ghcToWeh]);
  });

  it('keeps list markers and headings, drops a claim in the middle, and points at a location map', async () => {
    const text = `## Getting there\n\n- Head east on Forbes.\n- I couldn't retrieve the route, sorry.\n- Wean is past Doherty.\n\nYou can also check Google Maps.`;
    const run = await runVerify(mapTurn(text, weh));
    expect(run.answer!.text).toBe(
      `Here's Wean Hall (WEH) on the attached campus map.\n\n## Getting there\n\n- Head east on Forbes.\n- Wean is past Doherty.`,
    );
    // A claim after text had left: the answer is rewritten (pointer first), but no claim was streamed.
    expect(run.deltas).not.toMatch(/couldn't|Google/);
  });

  it('repairs a claim made before the map call in the final answer (the stream already had it)', async () => {
    const run = await runVerify([{ type: 'text', text: "I couldn't retrieve the route. " }, ...mapRequest(), { type: 'pass', index: 1 }, { type: 'text', text: HONEST }]);
    expect(run.answer!.text).toBe(`${ROUTE_POINTER}\n\n${HONEST}`);
  });

  it.each(FAILURE_CLAIMS)('leaves %j alone without a map', async (claim) => {
    const text = `${claim} ${HONEST}`;
    const run = await runVerify([{ type: 'pass', index: 1 }, ...everyN(text, 5)]);
    expect(run.answer!.text).toBe(text);
    expect(run.deltas).toBe(text);
    expect(run.answer!.notes.repairedFailureClaim).toBeUndefined();
  });

  it('leaves an honest map answer unchanged', async () => {
    const run = await runVerify(mapTurn(HONEST));
    expect(run.answer!.text).toBe(HONEST);
    expect(run.deltas).toBe(HONEST);
  });

  it('keeps a true failure claim about another tool that really failed', async () => {
    const text = "The dining tool isn't responding, so I can't list open places. Wean Hall is east of Gates.";
    const run = await runVerify([toolEvent('eats_get_locations_open_now', 'campus', false), ...mapTurn(text)]);
    expect(run.answer!.text).toBe(text);
  });
});

describe('tool disclosure', () => {
  it('removes a "no tools used" claim when tools ran', async () => {
    const run = await runVerify([
      toolEvent('eats_get_locations_open_now', 'campus', true, '### 🟢 Tepper Café\n**Hours:** Monday - Friday: 8:00 AM - 8:00 PM'),
      { type: 'pass', index: 1 },
      ...everyN('Tepper Café is open until 8 PM. I did not use any tools for this; it is based on my general knowledge.', 4),
    ]);
    expect(run.answer!.text).toBe('Tepper Café is open until 8 PM.');
  });

  it('keeps the claim when no tools ran', async () => {
    const text = "Hi! I didn't use any tools for this greeting.";
    const run = await runVerify([{ type: 'text', text }], makeCtx({ query: 'hi' }));
    expect(run.answer!.text).toBe(text);
  });

  it('names the tools used when the user asks, as a final delta', async () => {
    const run = await runVerify(
      [toolEvent('eats_get_locations_open_now'), toolEvent('courses_fetch_course_by_id'), toolEvent('eats_get_locations_open_now'), { type: 'text', text: 'I checked the campus data.' }],
      makeCtx({ query: 'What tools did you use?' }),
    );
    expect(run.answer!.text).toBe(
      'I checked the campus data.\n\nI used these tools for this answer: `eats_get_locations_open_now`, `courses_fetch_course_by_id`.',
    );
    expect(run.deltas).toBe(run.answer!.text);
  });

  it('adds nothing when the user asks about tools and none ran', async () => {
    const text = 'I answered that from what I know about campus.';
    const run = await runVerify([{ type: 'text', text }], makeCtx({ query: 'which tools did you use?' }));
    expect(run.answer!.text).toBe(text);
  });

  it('turns an answer that was only the false claim into the true statement', async () => {
    const run = await runVerify([toolEvent('guide_search_guide'), { type: 'text', text: 'No tools were used.' }]);
    expect(run.answer!.text).toBe('I used this tool for this answer: `guide_search_guide`.');
  });

  it('passes tool events through for services_used', async () => {
    const run = await runVerify([toolEvent('eats_get_locations_open_now'), { type: 'text', text: 'Open.' }]);
    expect(run.out.filter((e) => e.type === 'tool')).toHaveLength(1);
  });
});

describe('answer wording and pass-through', () => {
  it.each([[''], ['   \n '], ['<think>only thinking</think>']])('empty model output %j becomes an apology', async (text) => {
    const run = await runVerify(text ? [{ type: 'text', text }] : []);
    expect(run.answer!.text).toBe(EMPTY_ANSWER_APOLOGY);
    expect(run.deltas).toBe(EMPTY_ANSWER_APOLOGY);
    expect(run.answer!.notes.emptyModelOutput).toBe(true);
  });

  it('points at the map instead of apologising when the model wrote nothing after a map call', async () => {
    const run = await runVerify([...mapRequest(weh), { type: 'pass', index: 1 }]);
    expect(run.answer!.text).toBe("Here's Wean Hall (WEH) on the attached campus map.");
    expect(run.deltas).toBe(run.answer!.text);
    expect(run.maps).toEqual([weh]);
  });

  it('separates passes by one blank line and trims the answer', async () => {
    const run = await runVerify([
      { type: 'text', text: '\n\nLet me check. ' },
      { type: 'pass', index: 1 },
      { type: 'text', text: '\n\nWean Hall is open.\n\n' },
    ]);
    expect(run.answer!.text).toBe('Let me check.\n\nWean Hall is open.');
    expect(run.deltas).toBe(run.answer!.text);
  });

  it('passes status, usage and memory events through in order', async () => {
    const memory: TurnEvent = { type: 'memory', data: { op: 'remove', text: 'Forgot: x' } };
    const run = await runVerify([{ type: 'status', text: 'Checking campus tools...' }, memory, { type: 'text', text: 'Done.' }]);
    expect(run.out.map((e) => e.type)).toEqual(['status', 'memory', 'delta', 'answer']);
  });

  it('ends upstream when the consumer stops early (a client that went away)', async () => {
    const pulled: string[] = [];
    let upstreamClosed = false;
    async function* upstream(): AsyncGenerator<TurnEvent> {
      try {
        for (const text of ['First sentence. ', 'Second sentence. ', 'Third sentence.']) {
          pulled.push(text);
          yield { type: 'text', text };
        }
      } finally {
        upstreamClosed = true;
      }
    }
    const seen: string[] = [];
    for await (const e of createVerifyStage(verifyOptions({ leaks: baseLeakPolicy }))(upstream(), makeCtx())) {
      seen.push(e.type);
      if (e.type === 'delta') break;
    }
    // Leaving the loop returns the stage, and the stage returns its upstream before the loop ends.
    expect(upstreamClosed).toBe(true);
    expect(seen).toEqual(['delta']);
    expect(pulled.length).toBeLessThan(3);
  });

  it('emits no answer after an upstream error', async () => {
    const run = await runVerify([{ type: 'text', text: 'Partial' }, { type: 'error', envelope: { error: 'internal error', detail: 'x' } }]);
    expect(run.out.at(-1)?.type).toBe('error');
    expect(run.out.some((e) => e.type === 'answer')).toBe(false);
  });
});

describe('dates of the coming week (issue 73, item 5)', () => {
  // 2026-11-28 is a Saturday; the tool gives the career fair's date, December 10.
  const prompt = 'You are the campus assistant.\n\n# Now\nToday is 2026-11-28 (Saturday), 10:00 campus time (America/New_York).';
  const fair = JSON.stringify({ results: [{ title: 'Fall Career Fair', date: '2026-12-10', location: 'Cohon Center' }] });
  const answer = async (text: string) => {
    const ctx = makeCtx({ query: 'when is the career fair?', systemPrompt: prompt });
    const run = await runVerify([toolEvent('guide_search', 'campus', true, fair), ...everyN(text, 4)], ctx);
    return { deltas: run.deltas, final: run.answer!.text, unverified: run.answer!.grounding.unverified };
  };

  it('marks an event date in the coming week that no tool gave, numeric or named, over the stream and in the final text', async () => {
    for (const text of ['The Fall Career Fair is on 12/3 in the Cohon Center.', 'The Fall Career Fair is on December 3 in the Cohon Center.']) {
      const got = await answer(text);
      expect(got.unverified, text).toBe(1);
      expect(got.deltas, text).not.toMatch(/12\/3|December 3/);
      expect(got.final, text).not.toMatch(/12\/3|December 3/);
    }
  });

  it('keeps the tool\'s date and a date of the week written beside its own weekday', async () => {
    for (const text of [
      'The Fall Career Fair is on 12/10 in the Cohon Center.',
      'Tomorrow (11/29) the Cohon Center opens late; the fair itself is on December 10.',
      'It is not this Friday, December 4: the fair is on 12/10.',
    ]) {
      const got = await answer(text);
      expect(got.unverified, text).toBe(0);
      expect(got.final, text).toBe(text);
    }
  });

  it('marks a week date written beside another weekday', async () => {
    const got = await answer('The fair is not on Friday, 12/5: it is on 12/10.');
    expect(got.unverified).toBe(1);
    expect(got.final).not.toContain('12/5');
  });
});
