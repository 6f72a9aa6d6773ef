/**
 * The offline model through the service's real model gateway (the `openai` package over the offline
 * fetch), with the real sandbox tool server behind the real MCP tools client and the real
 * `maps_show_map` tool: each pass asks for the tools its rules pick, and the answer is written from
 * the results the tools actually returned.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/campus/catalog.js';
import { startSandboxToolServer, type SandboxToolServer } from '../src/sandbox/campus/tool-server.js';
import { createShowMapTool } from '../src/campus/show-map-tool.js';
import { silentLogger } from '../src/logger.js';
import { createForgetTool } from '../src/memory/forget-tool.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import { createRememberTool } from '../src/memory/remember-tool.js';
import type { LocalTool } from '../src/tools/local-tool.js';
import type { ModelGateway, ModelMessage, PassEvent, ToolCallRequest, ToolDefinition } from '../src/model/gateway.js';
import { buildSystemPrompt } from '../src/prompt/system-prompt.js';
import { NOT_LOOKED_UP, OFFLINE_INTRO, OFF_TOPIC_ANSWERS, toolsOff } from '../src/sandbox/offline-model/answers.js';
import { OFFLINE_BASE_URL, createOfflineModelFetch } from '../src/sandbox/offline-model/offline-fetch.js';
import { createOpenAIGateway } from '../src/model/openai-gateway.js';
import type { CampusTools } from '../src/tools/campus-tools.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import { toolFailureGuidance, wrapUntrustedResult } from '../src/tools/untrusted-result.js';
import type { TurnRequest } from '../src/request/chat-request.js';
import { collectSseEvents } from './support/sse.js';
import { baseLeakPolicy } from '../src/security/leak-policy.js';

const WEDNESDAY_NOON = new Date('2026-11-18T17:30:00Z');
let sandbox: SandboxToolServer;
let tools: CampusTools;
let gateway: ModelGateway;
let campusDefs: ToolDefinition[];
const showMap = createShowMapTool({ catalog: loadCatalog(null), mapBaseUrl: 'https://maps.example' });
const def = (t: LocalTool): ToolDefinition => ({ name: t.name, description: t.description, parameters: t.parameters });
const showMapDef = def(showMap);

beforeAll(async () => {
  sandbox = await startSandboxToolServer({ port: 0, host: '127.0.0.1', now: () => WEDNESDAY_NOON });
  tools = createMcpCampusTools({ url: sandbox.url, logger: silentLogger });
  campusDefs = (await tools.list()).map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));
  gateway = createOpenAIGateway({ baseUrl: OFFLINE_BASE_URL, apiKey: 'offline', fetch: createOfflineModelFetch() });
});

afterAll(async () => {
  await tools?.close();
  await sandbox?.close();
});

async function pass(messages: ModelMessage[], offered: ToolDefinition[]) {
  const events: PassEvent[] = [];
  for await (const e of gateway.streamPass({ model: 'any/model', messages, tools: offered, signal: new AbortController().signal })) events.push(e);
  return events;
}

/** Runs passes like the pipeline does: tool calls run for real, results go back wrapped as untrusted data. */
async function turn(question: string, offered: ToolDefinition[], local: LocalTool<{ type: string }>[] = [showMap], failing = false, system = 'You are the campus assistant.') {
  const messages: ModelMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: question },
  ];
  const called: Array<{ name: string; args: Record<string, unknown> }> = [];
  let maps = 0;
  for (let i = 0; i < 5; i++) {
    const events = await pass(messages, offered);
    expect(events.filter((e) => e.type === 'usage')).toHaveLength(1);
    const calls = events.find((e): e is { type: 'tool_calls'; calls: ToolCallRequest[] } => e.type === 'tool_calls')?.calls;
    const text = events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
    if (!calls) return { text: text.join(''), pieces: text.length, called, maps };
    messages.push({ role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
    for (const c of calls) {
      const args = JSON.parse(c.arguments) as Record<string, unknown>;
      called.push({ name: c.name, args });
      let content: string;
      const localTool = local.find((t) => t.name === c.name);
      if (localTool) {
        const r = await localTool.run(args, { signal: new AbortController().signal });
        maps += r.events?.filter((e) => e.type === 'map_request').length ?? 0;
        content = r.content;
      } else {
        // A failing tool server: what the pipeline hands the model instead of a result (src/pipeline/toolbox.ts).
        content = failing ? toolFailureGuidance(c.name) : (await tools.call(c.name, args, new AbortController().signal)).text;
      }
      messages.push({ role: 'tool', tool_call_id: c.id, content: wrapUntrustedResult(c.name, content) });
    }
  }
  throw new Error('the offline model never stopped calling tools');
}

describe('offline model over the real gateway and sandbox tools', () => {
  it('says a lookup failed, never guesses and never says "not covered", when every campus tool fails', async () => {
    const cases: Array<[string, RegExp]> = [
      // The map tool is the service's own, over its catalog: it still knows Gates, and says so.
      ['Where is Gates?', /^That is \*\*Gates & Hillman Centers \(GHC\)\*\*\. It is marked on the campus map/],
      ['Where is Zebra Hall?', /^I couldn't check the campus map data just now/],
      ['What can I eat right now?', /^I couldn't check the dining data just now/],
      ['tell me about 15-122', /^I couldn't look up course 15-122 just now/],
      ['any courses about databases?', /^I couldn't search the course catalog just now/],
      ['How does housing work for first-years?', /^I couldn't search the student guide just now/],
      ['I need a quiet place to read', /^I couldn't search the campus data just now/],
    ];
    for (const [question, says] of cases) {
      const r = await turn(question, [...campusDefs, showMapDef], [showMap], true);
      expect(r.called.length, question).toBeGreaterThan(0);
      expect(r.text, question).toMatch(says);
    }
  });

  it('answers "Where is Gates?" by searching the buildings, then showing GHC on the map', async () => {
    const r = await turn('Where is Gates?', [...campusDefs, showMapDef]);
    expect(r.called).toEqual([
      { name: 'maps_search_buildings', args: { query: 'Gates' } },
      { name: 'maps_show_map', args: { destination: 'GHC' } },
    ]);
    expect(r.maps).toBe(1);
    // What the map data knows: what the building holds and its nearest neighbours, in the tool's order.
    expect(r.text).toBe(
      '**Gates & Hillman Centers** (GHC): the School of Computer Science (the CS building), Gates Café. Next to it: Newell-Simon Hall (NSH, 87 m), Cyert Hall (CYH, 112 m) and Ansys Hall (AN, 116 m). It is marked on the campus map that comes with this answer.',
    );
    expect(r.pieces).toBeGreaterThan(3); // streamed in pieces, not one blob
  });

  it('asks for directions with an origin', async () => {
    const r = await turn('How do I get from Wean Hall to the UC?', [...campusDefs, showMapDef]);
    // Both ends searched at once ("the UC" as said: the map search knows what buildings are called), then the map, path and distance between the codes.
    expect(r.called).toEqual([
      { name: 'maps_search_buildings', args: { query: 'Wean Hall' } },
      { name: 'maps_search_buildings', args: { query: 'UC' } },
      { name: 'maps_show_map', args: { destination: 'CUC', origin: 'WEH' } },
      { name: 'maps_get_path', args: { start_id: 'WEH', end_id: 'CUC' } },
      { name: 'maps_distance_between', args: { start_id: 'WEH', end_id: 'CUC' } },
    ]);
    expect(r.maps).toBe(1);
    expect(r.text).toMatch(/^### Walking from Wean Hall to Cohon University Center\n\nAbout \*\*\d+ m\*\*, roughly a \*\*\d+-minute walk\*\*\.\n\n1\. Start at \*\*Wean Hall\*\* \(WEH\)\.\n2\. Walk about \d+ m toward Cohon University Center\.\n3\. Arrive at \*\*Cohon University Center\*\* \(CUC\)\./);
  });

  it('finds a nickname through the map tool when the search does not know it, then walks between the codes the map used', async () => {
    const noSearch = campusDefs.filter((t) => t.name !== 'maps_search_buildings');
    const r = await turn('How far is the UC from Wean Hall?', [...noSearch, showMapDef]);
    expect(r.called.map((c) => c.name)).toEqual(['maps_show_map', 'maps_get_path', 'maps_distance_between']);
    expect(r.called[1]!.args).toEqual({ start_id: 'WEH', end_id: expect.any(String) });
    expect(r.text).toMatch(/is about \*\*\d+ m\*\* from \*\*Wean Hall\*\* \(WEH\)/);
  });

  it('lists what is open right now from the eats tool', async () => {
    const r = await turn('What can I eat right now?', campusDefs);
    expect(r.called).toEqual([{ name: 'eats_get_locations_open_now', args: {} }]);
    expect(r.text).toContain('### Open on campus right now');
    expect(r.text).toContain('- **Schatz Dining Room**: Cohon University Center, 2nd floor. Monday - Friday: 7:30 AM - 8:00 PM; Saturday - Sunday: 10:30 AM - 7:00 PM');
  });

  it('answers a room with its floor and building', async () => {
    const r = await turn('Where is GHC 4401?', [...campusDefs, showMapDef]);
    expect(r.text).toMatch(/^\*\*GHC 4401\*\* is a lecture room on floor 4 of \*\*Gates & Hillman Centers\*\* \(GHC\)\./);
  });

  it('gives one place\'s weekly hours, and what is open at a named day and time', async () => {
    const hours = await turn('Is Nourish open on Saturday?', campusDefs);
    expect(hours.called).toEqual([{ name: 'eats_get_location_hours', args: { location_name: 'Nourish' } }]);
    expect(hours.text).toContain('On Saturday, **Nourish** is open **11:00 AM - 3:00 PM**.');
    expect(hours.text).toContain('**Nourish** (Cohon University Center, 1st floor) is open right now. Weekly hours:');
    expect(hours.text).toContain('- Saturday: 11:00 AM - 3:00 PM');
    const unknown = await turn('When does Zeke\'s Diner open?', campusDefs);
    expect(unknown.text).toBe('I couldn\'t find a dining location or a building called "Zeke\'s Diner". Try "What\'s open right now?" to see every dining location.');
    // Not a dining place, but a building by that name: said so, with nothing made up.
    const building = await turn('When does Moe\'s open?', campusDefs);
    expect(building.text).toMatch(/^I couldn't find a dining location called "Moe's"\. The campus map matches it to the building \*\*Morewood E-Tower\*\* \(MOE\), and building opening hours aren't in the campus data\.$/);
    const at = await turn('What is open on Sunday at 7 pm?', campusDefs);
    expect(at.called).toEqual([{ name: 'eats_get_locations_open_at_time', args: { day: 0, hour: 19, minute: 0 } }]);
    expect(at.text).toMatch(/^### Open Sunday at 7:00 PM\n\n- \*\*/);
    expect(at.text).not.toContain('Gates Café');
  });

  it('looks up a course number with the aspects asked for, and admits an unknown course', async () => {
    const r = await turn('What are the prereqs for 15213 and who teaches it?', campusDefs);
    expect(r.called.map((c) => c.name)).toEqual(['courses_fetch_course_by_id', 'courses_fetch_course_requisites', 'courses_fetch_course_instructors']);
    expect(r.called[0]!.args).toEqual({ course_id: '15-213' });
    expect(r.text).toContain('### 15-213 Introduction to Computer Systems');
    expect(r.text).toContain('- **Prerequisites:** 15-122');
    expect(r.text).toContain('- **Taught by:** Brian Railing, David Varodayan');
    const unknown = await turn('Tell me about 99-999', campusDefs);
    expect(unknown.text).toBe("I couldn't find course 99-999 in the course catalog. Check the number (for example 15-122).");
  });

  it('remembers and forgets through the real memory tools, with a third-person fact', async () => {
    const store = createInMemoryStore({ embeddingModel: null });
    await store.init();
    const deps = { store, embedder: null, logger: silentLogger, leaks: baseLeakPolicy };
    const memoryTools = [createRememberTool('u1', deps), createForgetTool('u1', deps)];
    const offered = [...campusDefs, ...memoryTools.map(def)];
    const saved = await turn('Please remember that I am vegetarian', offered, memoryTools);
    expect(saved.called).toEqual([{ name: 'memory_remember', args: { fact: 'Is vegetarian' } }]);
    expect(saved.text).toBe('Got it, I\'ll remember that: "Is vegetarian".');
    expect((await store.list('u1', {})).items.map((f) => f.text)).toEqual(['Is vegetarian']);
    const forgot = await turn("Forget that I'm vegetarian", offered, memoryTools);
    expect(forgot.called).toEqual([{ name: 'memory_forget', args: { query: 'Is vegetarian' } }]);
    expect(forgot.text).toMatch(/^Done: forgot this fact:\n- /);
    expect((await store.list('u1', {})).total).toBe(0);
    const none = await turn('Forget that I live in Mudge', offered, memoryTools);
    expect(none.text).toBe("I didn't find a saved fact matching that, so nothing was removed.");
    const off = await turn('Please remember that I am vegetarian', campusDefs, memoryTools);
    expect(off.called).toEqual([]);
    expect(off.text).toMatch(/^Memory is off for this conversation/);
  });

  it('searches the guide', async () => {
    const r = await turn('How does DineXtra work with my meal plan?', campusDefs);
    expect(r.called.map((c) => c.name)).toEqual(['guide_search_guide', 'guide_get_section']);
    // The section about DineXtra ranks first (its heading names it); the page's intro is related.
    expect(r.text).toMatch(/^### Meal Plans › DineXtra\n\nDineXtra is a declining balance/);
    expect(r.text).toContain('Source: [Meal Plans › DineXtra](https://guide.sandbox.example/meal-plans#dinextra)');
    expect(r.text).toMatch(/\*\*Related in the guide:\*\*\n- Meal Plans/);
  });

  it('says it is the offline model when no rule applies, and that tools are off when their group is disabled', async () => {
    expect((await turn('Tell me a joke', campusDefs)).text).toBe(OFF_TOPIC_ANSWERS.creative);
    expect((await turn('Sing the alma mater backwards', campusDefs)).text).toBe(OFFLINE_INTRO);
    expect((await turn('thanks!', campusDefs)).text).toBe("You're welcome! Ask me anything else about campus.");
    expect((await turn('hi', campusDefs)).text).toMatch(/^Hello! I'm the campus assistant running offline[\s\S]*\*\*Courses\*\*/);
    const noEats = campusDefs.filter((t) => !t.name.startsWith('eats_'));
    // Switched off by the user: the system prompt says so (prompt/system-prompt.ts), and the answer names it.
    const switchedOff = buildSystemPrompt({ assistantName: 'Campus Assistant', campusName: 'CMU', tools: [], disabledGroups: ['eats'], memoryTools: false, recall: null, now: null, timeZone: 'UTC' });
    const off = await turn('What can I eat right now?', noEats, [showMap], false, switchedOff);
    expect(off.called).toEqual([]);
    expect(off.text).toBe(toolsOff(['eats']));
    expect(off.text).toContain('CMUEats is turned off');
    // Not offered for another reason (the plan bound no dining tools): no false "turned off" (issue 78).
    const r = await turn('What can I eat right now?', noEats);
    expect(r.called).toEqual([]);
    expect(r.text).toBe(NOT_LOOKED_UP);
    expect(r.text).not.toMatch(/turned off/i);
  });
});

describe('offline model protocol', () => {
  it('gives non-streamed completions a short title, and JSON mode memory operations', async () => {
    const title = await gateway.complete({ model: 'x/y', messages: [{ role: 'user', content: 'Where is Gates?' }] });
    expect(title.text).toBe('Finding Gates');
    expect(title.usage.estimated).toBe(false);
    const json = await gateway.complete({ model: 'x/y', messages: [{ role: 'user', content: 'I like pizza' }], json: true });
    expect(JSON.parse(json.text)).toEqual({ operations: [] });
    // The remember tool's reconciliation: a new fact about the same thing updates the known one.
    const ask = (content: string) => gateway.complete({ model: 'x/y', messages: [{ role: 'user', content }], json: true });
    // The service sends the fact in its one wording: a move is "Lives in …" (fact-wording.ts).
    const moved = await ask('Known facts:\nf1: Is vegetarian\nf2: Lives in Mudge House\n\nNew fact to remember: Lives in Donner House');
    expect(JSON.parse(moved.text)).toEqual({ operations: [{ op: 'update', id: 'f2', text: 'Lives in Donner House' }] });
    const major = await ask('Known facts:\nf1: Studies physics\n\nNew fact to remember: Majors in computer science');
    expect(JSON.parse(major.text)).toEqual({ operations: [{ op: 'update', id: 'f1', text: 'Majors in computer science' }] });
    const unrelated = await ask('Known facts:\nf1: Lives in Mudge House\n\nNew fact to remember: Plays the cello');
    expect(JSON.parse(unrelated.text)).toEqual({ operations: [] });
  });

  it('streams OpenAI chunks with tool-call arguments split across chunks and a usage-only chunk', async () => {
    const client = new OpenAI({ baseURL: OFFLINE_BASE_URL, apiKey: 'k', fetch: createOfflineModelFetch({ now: () => WEDNESDAY_NOON }) });
    const stream = await client.chat.completions.create({
      model: 'x/y',
      messages: [{ role: 'user', content: 'Where is Wean?' }],
      tools: campusDefs.map((t) => ({ type: 'function' as const, function: { name: t.name, parameters: t.parameters } })),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const argPieces = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((t) => t.function?.arguments ?? '');
    expect(argPieces.filter(Boolean).length).toBeGreaterThan(1);
    expect(argPieces.join('')).toBe('{"query":"Wean"}');
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);
    expect(chunks[0]!.created).toBe(Math.floor(WEDNESDAY_NOON.getTime() / 1000));
  });

  it('paces streamed frames with the injected timer when asked to', async () => {
    const pauses: number[] = [];
    const paced = createOfflineModelFetch({ pieceDelayMs: 7, setTimeout: (fn, ms) => (pauses.push(ms), queueMicrotask(fn)) });
    const res = await paced(`${OFFLINE_BASE_URL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: 'hello' }] }),
    });
    // OpenAI's stream ends with `data: [DONE]`, not JSON: the frames' data are read as text.
    const frames = await collectSseEvents(res.body!, { parse: (data) => data });
    expect(frames.at(-1)).toEqual({ type: 'message', data: '[DONE]' });
    expect(pauses).toEqual(Array(frames.length - 1).fill(7)); // none before the first frame
    pauses.length = 0;
    const calls = await paced(`${OFFLINE_BASE_URL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: 'Where is GHC?' }], tools: [{ type: 'function', function: { name: 'maps_search_buildings', parameters: {} } }] }),
    });
    expect(await calls.text()).toContain('"name":"maps_search_buildings"');
    expect(pauses).toEqual([]); // tool-call passes are not paced
  });

  it('stops a stream when the caller aborts, and answers unknown routes with an OpenAI error body', async () => {
    const offline = createOfflineModelFetch();
    const controller = new AbortController();
    const res = await offline(`${OFFLINE_BASE_URL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: 'hello' }] }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow(/abort/i);
    const missing = await offline(`${OFFLINE_BASE_URL}/embeddings`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toMatch(/no route/);
    const bad = await offline(`${OFFLINE_BASE_URL}/chat/completions`, { method: 'POST', body: 'nope' });
    expect(bad.status).toBe(400);
  });
});
