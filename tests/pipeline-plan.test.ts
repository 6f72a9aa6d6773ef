/**
 * The deterministic planner and request normalisation: hint words per group, conversational messages,
 * follow-ups keeping the conversation's groups, disabled groups, the map tool and the memory hooks.
 */
import { ModelAllowlist } from '../src/model/model-allowlist.js';
import { describe, expect, it } from 'vitest';
import { noUserMemory, type UserMemory } from '../src/memory/turn-memory.js';
import { planTurn } from '../src/pipeline/stages/plan.js';
import { chatRequestSchema, toTurnRequest } from '../src/request/chat-request.js';
import type { HistoryTurn, TurnRequest } from '../src/request/chat-request.js';
import type { ToolGroup } from '../src/tools/tool-groups.js';
import { normalizeDisabledTools } from '../src/tools/tool-groups.js';

const req = (query: string, extra: Partial<TurnRequest> = {}): TurnRequest => ({
  query,
  userId: null,
  history: [],
  model: 'v/m',
  disabledGroups: [],
  ...extra,
});

describe('planTurn', () => {
  it.each<[string, ToolGroup[]]>([
    ['Where can I get vegan food for dinner?', ['maps', 'eats']],
    ['What are the prerequisites for 15-122?', ['courses']],
    ['Is 15122 taught in the spring?', ['courses']],
    ['How do I get to Gates from Wean?', ['maps']],
    // Meal plans are the guide's policy and the dining locations' payment (issue 36: bind what may be needed).
    ['When does the shuttle run and how do meal plans work?', ['eats', 'guide', 'bus']],
    ['Which dining halls are open now?', ['eats']],
    // Words outside ASCII are whole words too (JavaScript's \b would never end one after "é").
    ['Tepper Café hours?', ['eats']],
    ['Is there a café in the library?', ['eats', 'guide']],
    // Issue 27: what students ask next.
    ['pizza close to wean', ['maps', 'eats']],
    ['deadline to drop a class?', ['courses', 'guide']],
    ['i lost my student id', ['guide']],
    ['when are finals', ['guide']],
    // Issue 48: buses, routes and the places the Forbes & Morewood stops serve.
    ["when's the next 61C?", ['bus']],
    ['how do I get to Squirrel Hill?', ['maps', 'bus']],
    ['is the 28X running to the airport', ['bus']],
    ['can I ride the PRT for free with my ID?', ['bus']],
    // A bare number is a route only as one: "the 69" is, "room 69" is not.
    ['when does the 69 come', ['bus']],
    ['where is room 69 in wean', ['maps']],
  ])('binds the groups a message asks about: %s', (query, groups) => {
    const plan = planTurn(req(query), noUserMemory);
    expect(plan.groups).toEqual(groups);
    expect(plan.conversational).toBe(false);
    // A narrowed turn sends no tool of a group the service does not know.
    expect(plan.ungroupedTools).toBe(false);
  });

  it.each(['thanks!', 'Thank you so much!', 'ok', 'reply in one sentence', 'Can you make it shorter?'])(
    'binds no tools for a conversational message, not even the map: %s',
    (query) => {
      const plan = planTurn(req(query), noUserMemory);
      expect(plan).toMatchObject({ groups: [], conversational: true, ungroupedTools: false, showMap: false });
    },
  );

  it('keeps the groups of the conversation on a follow-up', () => {
    const history: HistoryTurn[] = [
      { role: 'user', content: 'Is there coffee in Gates?' },
      { role: 'assistant', content: 'Yes, La Prima.' },
    ];
    // "Wean Hall" names a place (maps); the conversation was about coffee (eats).
    expect(planTurn(req('what about Wean Hall?', { history }), noUserMemory).groups).toEqual(['maps', 'eats']);
    // A follow-up that names a new subject adds it to the conversation's groups.
    expect(planTurn(req('and what about the course 15-213?', { history }), noUserMemory).groups).toEqual(['courses', 'eats']);
  });

  it('binds every enabled group, and tools of unknown groups, when a first message gives no hint', () => {
    const plan = planTurn(req('Tell me about Sorrells', { disabledGroups: ['guide'] }), noUserMemory);
    expect(plan.groups).toEqual(['maps', 'courses', 'eats', 'bus']);
    expect(plan.ungroupedTools).toBe(true);
  });

  it('plans a photo or a file sent without words as a question about it (issue 77), not as small talk', () => {
    const file = { name: 'syllabus.txt', text: 'Lectures in GHC 4401', bytes: 20 };
    const plan = planTurn(req('', { seen: { images: [], files: [file], unread: [] } }), noUserMemory);
    expect(plan).toMatchObject({ conversational: false, ungroupedTools: true, showMap: true });
    expect(plan.groups).toEqual(['maps', 'courses', 'eats', 'guide', 'bus']);
    // Words and nothing else stay as they were: an empty message is not a question.
    expect(planTurn(req(''), noUserMemory).conversational).toBe(true);
  });

  it('keeps the bus for a follow-up of a bus conversation', () => {
    const history: HistoryTurn[] = [
      { role: 'user', content: "When's the next 61C?" },
      { role: 'assistant', content: 'The next 61C leaves Forbes Ave & Morewood Ave in 4 minutes.' },
    ];
    expect(planTurn(req('and the one after that?', { history }), noUserMemory).groups).toEqual(['bus']);
    expect(planTurn(req('what about toward downtown?', { history }), noUserMemory).groups).toEqual(['bus']);
  });

  it('never binds disabled groups, and drops the map tool when maps are disabled', () => {
    const plan = planTurn(req('Where can I eat near Gates?', { disabledGroups: ['eats', 'maps'] }), noUserMemory);
    expect(plan.groups).toEqual([]);
    expect(plan.showMap).toBe(false);
  });

  it("takes the memory hooks from the turn's bound memory; no memory plans none", () => {
    const memory: Pick<UserMemory, 'plan'> = { plan: () => ({ recall: true, tools: true }) };
    expect(planTurn(req('remember I am vegan', { userId: 'u1' }), memory)).toMatchObject({ recallMemory: true, memoryTools: true });
    expect(planTurn(req('remember I am vegan'), noUserMemory)).toMatchObject({ recallMemory: false, memoryTools: false });
  });
});

describe('chat request normalisation', () => {
  it('normalises disabled_tools ids and labels, ignoring unknown entries', () => {
    expect(normalizeDisabledTools(['CMUMaps', 'cmu_maps', 'CMU Guide', 'courses', 'CMUEats', 'bus', 'x'])).toEqual(['maps', 'guide', 'courses', 'eats', 'bus']);
    expect(normalizeDisabledTools(['CMU Bus'])).toEqual(['bus']);
  });

  it('trims the query, strips unknown fields, drops system turns and keeps the last 40', () => {
    const history = Array.from({ length: 45 }, (_, i) => ({ role: i === 44 ? 'system' : 'user', content: `m${i}` }));
    const body = chatRequestSchema.parse({ query: '  hi  ', message_history: history, disabled_tools: ['CMUEats', 3], legacy: true });
    expect(body).not.toHaveProperty('legacy');
    const request = toTurnRequest(body, new ModelAllowlist({ allowedModels: '*', defaultModel: 'default/model' }));
    expect(request.query).toBe('hi');
    expect(request.model).toBe('default/model');
    expect(request.userId).toBeNull();
    expect(request.history).toHaveLength(39);
    expect(request.history[0]!.content).toBe('m5');
    expect(request.disabledGroups).toEqual(['eats']);
  });

  it.each([
    { query: 'x', model: 'no-vendor' },
    { query: 'x', user_id: 'a'.repeat(129) },
    { query: 'x'.repeat(8_001) },
    { query: 7 },
  ])('rejects %j', (body) => {
    expect(chatRequestSchema.safeParse(body).success).toBe(false);
  });

  it('accepts the user_id alphabet', () => {
    expect(chatRequestSchema.safeParse({ query: 'x', user_id: 'Ab0@:+=~-' }).success).toBe(true);
  });
});
