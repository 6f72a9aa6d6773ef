/**
 * Issue 14's table: natural student questions, as students write them (lower case, typos, follow-ups
 * with history), asked of the zero-config service: the real app and pipeline, the offline model through
 * the real `openai` gateway, the sandbox tool server over MCP on a fixed clock (a Wednesday at 12:30
 * campus time), real memory. Every row must call the tool a good model would, carry the sandbox's data
 * in the text, and read well: no canned fallback, no coordinates, 12-hour times only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import { silentLogger } from '../src/logger.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import type { MemoryStore } from '../src/memory/store.js';
import { createOpenAIGateway } from '../src/model/openai-gateway.js';
import { startSandboxToolServer, type SandboxToolServer } from '../src/sandbox/campus/tool-server.js';
import { OFFLINE_INTRO } from '../src/sandbox/offline-model/answers.js';
import { OFFLINE_BASE_URL, createOfflineModelFetch } from '../src/sandbox/offline-model/offline-fetch.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import type { CampusTools } from '../src/tools/campus-tools.js';
import { createTestDeps, testTurnMemory } from './support/deps.js';

const WEDNESDAY_LUNCH = new Date('2026-11-18T17:30:00Z'); // 12:30 in Pittsburgh

interface Row {
  q: string;
  /** Earlier turns of the conversation, user and assistant alternating (the answers are not read). */
  history?: string[];
  /** Facts saved for the user before the question. */
  facts?: string[];
  /** Campus tools that must be among services_used. */
  tools: string[];
  /** Texts the answer must contain. */
  has: Array<string | RegExp>;
  /** Texts it must not contain. */
  not?: Array<string | RegExp>;
  /** The map target, when a map must come with the answer. */
  map?: string;
}

const MAPS: Row[] = [
  { q: 'Where is Gates?', tools: ['maps_search_buildings'], has: ['**Gates & Hillman Centers** (GHC)'], map: 'GHC' },
  { q: 'where is wean hall', tools: ['maps_search_buildings'], has: ['**Wean Hall** (WEH)'], map: 'WEH' },
  { q: "where's the library?", tools: ['maps_search_buildings'], has: ['**Hunt Library** (HL)'], map: 'HL' },
  { q: 'wher is doherty hall', tools: ['maps_search_buildings'], has: ['**Doherty Hall** (DH)'], map: 'DH' },
  { q: 'Where is bakr hall?', tools: ['maps_search_buildings'], has: ['**Baker Hall** (BH)'], map: 'BH' },
  { q: 'where is GHC 4401', tools: ['maps_search_buildings'], has: ['**GHC 4401**', 'floor 4', '**Gates & Hillman Centers** (GHC)'], map: 'GHC' },
  { q: 'Where is the UC?', tools: ['maps_search_buildings'], has: ['**Cohon University Center** (CUC)'], map: 'CUC' },
  { q: 'where is morewood gardens', tools: ['maps_search_buildings'], has: ['**Morewood Gardens** (MOR)'], map: 'MOR' },
  { q: 'How far is Baker Hall from Gates?', tools: ['maps_search_buildings', 'maps_distance_between', 'maps_get_path'], has: [/\*\*Baker Hall\*\* \(BH\) is about \*\*\d+ m\*\* from \*\*Gates & Hillman Centers\*\* \(GHC\)/, /\d+-minute walk/], map: 'BH' },
  { q: 'How do I get from Wean Hall to the UC?', tools: ['maps_get_path', 'maps_distance_between'], has: ['### Walking from Wean Hall to Cohon University Center', /About \*\*\d+ m\*\*/, '1. Start at **Wean Hall** (WEH).', 'Arrive at **Cohon University Center** (CUC).'], map: 'CUC' },
  { q: 'directions from hunt library to doherty hall', tools: ['maps_get_path'], has: ['### Walking from Hunt Library to Doherty Hall', 'Walk about'], map: 'DH' },
  { q: 'how far is it from tepper to posner hall', tools: ['maps_distance_between'], has: ['**Posner Hall** (POS) is about', '**Tepper Building** (TEP)'], map: 'POS' },
  { q: 'distance between morewood gardens and gates', tools: ['maps_distance_between'], has: ['**Gates & Hillman Centers** (GHC) is about', 'from **Morewood Gardens** (MOR)'], map: 'GHC' },
  { q: 'how do i walk to scaife hall from wean', tools: ['maps_get_path'], has: ['### Walking from Wean Hall to Scaife Hall'], map: 'SH' },
  { q: 'what about Wean Hall?', history: ['How far is Baker Hall from Gates?', 'Baker Hall is about 100 m from Gates.'], tools: ['maps_distance_between'], has: ['**Wean Hall** (WEH) is about', 'from **Gates & Hillman Centers** (GHC)'], map: 'WEH' },
  { q: 'and what about hunt library?', history: ['where is gates', 'Gates is here.'], tools: ['maps_search_buildings'], has: ['**Hunt Library** (HL)'], map: 'HL' },
  { q: 'how about to porter hall', history: ['directions from wean hall to the uc', 'Walk east.'], tools: ['maps_get_path'], has: ['### Walking from Wean Hall to Porter Hall'], map: 'PH' },
];

const EATS: Row[] = [
  { q: 'What can I eat right now?', tools: ['eats_get_locations_open_now'], has: ['### Open on campus right now', '**Schatz Dining Room**', '7:30 AM - 8:00 PM'] },
  { q: 'anything open rn', tools: ['eats_get_locations_open_now'], has: ['**Schatz Dining Room**'] },
  { q: "i'm hungry, where can i get food", tools: ['eats_get_locations_open_now'], has: ['**Nourish**'] },
  { q: 'What is open on Sunday at 7 pm?', tools: ['eats_get_locations_open_at_time'], has: ['### Open Sunday at 7:00 PM', '**Tartan Pizza Co.**'], not: ['Gates Café'] },
  { q: 'whats open saturday at 9am', tools: ['eats_get_locations_open_at_time'], has: ['### Open Saturday at 9:00 AM', "**Scotty’s Market**"] },
  { q: 'and on Sunday?', history: ['what is open saturday at 7 pm', 'Several places.'], tools: ['eats_get_locations_open_at_time'], has: ['### Open Sunday at 7:00 PM'] },
  { q: 'Where can I get pizza?', tools: ['eats_get_locations_by_cuisine'], has: ['### Pizza on campus', '**Tartan Pizza Co.**'] },
  { q: 'any good sushi on campus', tools: ['eats_get_locations_by_cuisine'], has: ['**Sushi Sama**'] },
  { q: 'i need coffee', tools: ['eats_get_locations_by_cuisine'], has: ['### Coffee on campus', '**Gates Café**', '**Wean Coffee Bar**'] },
  { q: 'indian food?', tools: ['eats_get_locations_by_cuisine'], has: ['**Taste of India**'] },
  { q: 'what about tacos', history: ['where can i get pizza', 'Tartan Pizza Co.'], tools: ['eats_get_locations_by_cuisine'], has: ['**El Gallo de Oro**'] },
  { q: 'Is Nourish open on Saturday?', tools: ['eats_get_location_hours'], has: ['On Saturday, **Nourish** is open **11:00 AM - 3:00 PM**.', '- Monday: 10:30 AM - 7:00 PM'] },
  { q: 'nourish hours', tools: ['eats_get_location_hours'], has: ['**Nourish** (Cohon University Center, 1st floor) is open right now', '- Sunday: Closed'] },
  { q: 'when does schatz close', tools: ['eats_get_location_hours'], has: ['**Schatz Dining Room**', '- Friday: 7:30 AM - 8:00 PM'] },
  { q: 'is the exchange open sunday', tools: ['eats_get_location_hours'], has: ['**The Exchange** is closed on Sunday.'] },
  { q: 'what about sunday?', history: ['is nourish open on saturday', 'Yes.'], tools: ['eats_get_location_hours'], has: ['**Nourish** is closed on Sunday.'] },
  { q: 'Where can I eat in the UC?', tools: ['eats_get_all_dining_locations', 'maps_search_buildings'], has: ['### Dining in Cohon University Center', '**Schatz Dining Room**', '**El Gallo de Oro**'], not: ['Wean Coffee Bar'] },
  { q: 'food in tepper', tools: ['eats_get_all_dining_locations'], has: [/### Dining in Tepper( Building)?\n/, '**Stephanie’s Bakery**', '**Rohr Café**'] },
  { q: 'Lunch that fits my diet', facts: ['Is vegetarian'], tools: ['eats_get_locations_by_cuisine'], has: ["Since you're vegetarian", '**Nourish**', '**Taste of India**'] },
  { q: 'what can i eat right now', facts: ['Is vegetarian'], tools: ['eats_get_locations_open_now'], has: ["Since you're vegetarian, places with vegetarian options come first.", /### Open on campus right now\n\n- \*\*(Nourish|Tartan Pizza Co\.|Taste of India)\*\* \(vegetarian options\)/] },
  { q: 'lunch that fits my diet', tools: ['eats_get_locations_open_now'], has: ["I don't know your diet yet", '**Schatz Dining Room**'] },
];

const COURSES: Row[] = [
  { q: 'What are the prerequisites for 15-213?', tools: ['courses_fetch_course_by_id', 'courses_fetch_course_requisites'], has: ['### 15-213 Introduction to Computer Systems', '**Prerequisites:** 15-122', '**Leads to:** 15-440, 15-445'] },
  { q: 'prereqs for 15213 and who teaches it', tools: ['courses_fetch_course_instructors'], has: ['**Taught by:** Brian Railing, David Varodayan'] },
  { q: 'when does 15-122 meet', tools: ['courses_fetch_course_schedules'], has: ['**Lecture (Fall 2026):** Tue/Thu 11:00 AM - 12:20 PM in GHC 4401'] },
  { q: 'who teaches 15-150?', tools: ['courses_fetch_course_instructors'], has: ['Michael Erdmann'] },
  { q: 'tell me about 21-127', tools: ['courses_fetch_course_by_id'], has: ['### 21-127 Concepts of Mathematics', '**Prerequisites:** none'] },
  { q: 'what about 15-150?', history: ['what are the prereqs for 15-210', '15-122 and 15-150.'], tools: ['courses_fetch_course_requisites'], has: ['**Prerequisites:** 15-112 and (21-127 or 15-151)'] },
  { q: 'what do i need before taking 10-301', tools: ['courses_fetch_course_requisites'], has: ['15-122 and (21-127 or 15-151)'] },
  { q: 'Are there any machine learning courses?', tools: ['courses_search_courses_by_query'], has: ['### Courses about machine learning', '**10-301 Introduction to Machine Learning**'] },
  { q: 'classes about databases', tools: ['courses_search_courses_by_query'], has: ['**15-445 Database Systems**'] },
  { q: 'which class teaches python', tools: ['courses_search_courses_by_query'], has: ['**15-112 Fundamentals of Programming and Computer Science**'] },
  { q: 'any AI courses?', tools: ['courses_search_courses_by_query'], has: ['**15-281 Artificial Intelligence: Representation and Problem Solving**'] },
  { q: 'courses on distributed systems', tools: ['courses_search_courses_by_query'], has: ['**15-440 Distributed Systems**'] },
  { q: 'What gen eds can I take in Dietrich?', tools: ['courses_fetch_geneds_tool'], has: ['### Gen eds in Dietrich College', '**76-101 Interpretation and Argument**', 'First-Year Writing'] },
  { q: 'scs gen eds', tools: ['courses_fetch_geneds_tool'], has: ['the School of Computer Science', '**79-104 Global Histories**'] },
  { q: 'history gen eds for dietrich', tools: ['courses_fetch_geneds_for_department_tool'], has: ['**79-104 Global Histories**', 'Cultural/Global Understanding'], not: ['76-101'] },
  { q: 'what about psychology?', history: ['What gen eds can I take in Dietrich?', 'Several.'], tools: ['courses_fetch_geneds_for_department_tool'], has: ['**85-102 Introduction to Psychology**'] },
  { q: 'general education courses', tools: ['courses_fetch_geneds_tool'], has: ['**73-102 Principles of Microeconomics**', 'Gen-ed requirements differ by school'] },
];

const GUIDE: Row[] = [
  { q: 'How does housing work for first-years?', tools: ['guide_search_guide', 'guide_get_section'], has: ['### Housing › First-year housing', 'guaranteed a room on campus', 'Source: [Housing › First-year housing]'] },
  { q: 'how do meal plans work', tools: ['guide_search_guide'], has: ['Meal Plans', 'blocks'] },
  { q: 'what is dinextra', tools: ['guide_search_guide'], has: ['### Meal Plans › DineXtra', 'declining balance'] },
  { q: 'how do i connect to wifi', tools: ['guide_search_guide'], has: ['eduroam'] },
  { q: 'where can i print', tools: ['guide_search_guide'], has: ['### Libraries and Study Spaces › Printing'] },
  { q: 'is there a shuttle at night?', tools: ['guide_search_guide'], has: ['### Getting Around › Shuttles and escorts'] },
  { q: 'i need to talk to a counselor', tools: ['guide_search_guide'], has: ['CaPS', '412-268-2922'] },
  { q: 'how does room selection work', tools: ['guide_search_guide'], has: ['### Housing › Room selection', 'lottery'] },
  { q: 'when is move in', tools: ['guide_search_guide'], has: ['### Housing › Moving in and out', 'Saturday before orientation'] },
  { q: 'where do i pick up packages', tools: ['guide_search_guide'], has: ['mailroom'] },
  { q: 'and parking?', history: ['is there a shuttle at night', 'Yes.'], tools: ['guide_search_guide'], has: ['### Getting Around › Parking'] },
];

const ROWS = [...MAPS, ...EATS, ...COURSES, ...GUIDE];

let sandbox: SandboxToolServer;
let tools: CampusTools;
let store: MemoryStore;
let app: ReturnType<typeof createApp>;
let userCounter = 0;

beforeAll(async () => {
  sandbox = await startSandboxToolServer({ port: 0, host: '127.0.0.1', now: () => WEDNESDAY_LUNCH });
  tools = createMcpCampusTools({ url: sandbox.url, logger: silentLogger });
  const gateway = createOpenAIGateway({ baseUrl: OFFLINE_BASE_URL, apiKey: 'offline', fetch: createOfflineModelFetch() });
  store = createInMemoryStore({ embeddingModel: null });
  const background = createBackgroundTasks(silentLogger);
  const turnMemory = testTurnMemory({ store, gateway, background, extractionModel: 'offline/x' });
  app = createApp(await createTestDeps({ gateway, campusTools: tools, memory: store, turnMemory, background, now: () => WEDNESDAY_LUNCH }));
});

afterAll(async () => {
  await tools?.close();
  await sandbox?.close();
});

async function ask(row: Pick<Row, 'q' | 'history' | 'facts'>) {
  const userId = `student-${++userCounter}`;
  for (const text of row.facts ?? []) await store.add({ userId, kind: 'remembered', text });
  const message_history = (row.history ?? []).map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));
  const res = await app.request('/agent/respond', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: row.q, user_id: userId, message_history }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { response_text: string; services_used: string[]; cmu_maps: { target: string | null } };
}

describe(`the offline model answers ${ROWS.length} natural student questions`, () => {
  it('has at least 60 questions over the four tool groups', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(60);
    for (const group of [MAPS, EATS, COURSES, GUIDE]) expect(group.length).toBeGreaterThanOrEqual(10);
  });

  it.each(ROWS.map((r) => [r.q + (r.history ? ` (after "${r.history[0]}")` : '') + (r.facts ? ` [${r.facts.join('; ')}]` : ''), r] as const))('%s', async (_, row) => {
    const body = await ask(row);
    const text = body.response_text;
    for (const tool of row.tools) expect(body.services_used, text).toContain(tool);
    for (const want of row.has) {
      if (typeof want === 'string') expect(text).toContain(want);
      else expect(text).toMatch(want);
    }
    for (const unwanted of row.not ?? []) expect(text).not.toContain(unwanted);
    expect(text).not.toBe(OFFLINE_INTRO);
    expect(text).not.toMatch(/-?\d{2}\.\d{3,}/); // no coordinates
    expect(text).not.toMatch(/\b\d{1,2}:\d{2}\b(?!\s*(AM|PM))/); // one time format: 12-hour
    if (row.map) expect(body.cmu_maps.target).toBe(row.map);
  });
});

describe('what the offline model cannot do', () => {
  it.each(['Write me a poem about autumn', "what's the weather like tomorrow", 'who won the steelers game', 'explain quantum computing'])(
    'answers "%s" with the one-line fallback naming two questions it can answer',
    async (q) => {
      const body = await ask({ q });
      expect(body.response_text).toBe(OFFLINE_INTRO);
      expect(body.response_text.split('\n')).toHaveLength(1);
      expect(body.response_text.match(/"[^"]+\?"/g)).toHaveLength(2);
      expect(body.services_used).toEqual([]);
    },
  );
});
