/**
 * Three-turn conversations with the zero-config service over real HTTP, as the front end holds them:
 * each turn sends the conversation so far in `message_history` (the user's questions and the answers
 * it got back), alternating the JSON and the streamed route. Every later turn points back at an
 * earlier answer ("its", "that one", "there", "my dorm") and must be answered about what it points at.
 * The offline model through the real `openai` gateway, the sandbox tool server over MCP on a fixed
 * clock (a Wednesday at 12:30 campus time), in-memory memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import { silentLogger } from '../src/logger.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import { createOpenAIGateway } from '../src/model/openai-gateway.js';
import { startSandboxToolServer, type SandboxToolServer } from '../src/sandbox/campus/tool-server.js';
import { OFFLINE_BASE_URL, createOfflineModelFetch } from '../src/sandbox/offline-model/offline-fetch.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import type { CampusTools } from '../src/tools/campus-tools.js';
import { createTestDeps, testTurnMemory } from './support/deps.js';
import { listen, type Listening } from './support/listen.js';
import { collectSseEvents } from './support/sse.js';

const WEDNESDAY_LUNCH = new Date('2026-11-18T17:30:00Z');

let sandbox: SandboxToolServer;
let tools: CampusTools;
let server: Listening;

beforeAll(async () => {
  sandbox = await startSandboxToolServer({ port: 0, host: '127.0.0.1', now: () => WEDNESDAY_LUNCH });
  tools = createMcpCampusTools({ url: sandbox.url, logger: silentLogger });
  const gateway = createOpenAIGateway({ baseUrl: OFFLINE_BASE_URL, apiKey: 'offline', fetch: createOfflineModelFetch() });
  const store = createInMemoryStore({ embeddingModel: null });
  const background = createBackgroundTasks(silentLogger);
  const turnMemory = testTurnMemory({ store, gateway, background, extractionModel: 'offline/x' });
  const app = createApp(await createTestDeps({ gateway, campusTools: tools, memory: store, turnMemory, background, now: () => WEDNESDAY_LUNCH }));
  server = await listen(app.fetch);
});

afterAll(async () => {
  await server?.close();
  await tools?.close();
  await sandbox?.close();
});

interface Answer {
  response_text: string;
  services_used: string[];
  cmu_maps: { target: string | null };
  metadata: { grounding: { checked: number; unverified: number } };
}

/** A conversation as the front end keeps it: each question goes out with everything said before it. */
function conversation(userId?: string) {
  const history: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  let turn = 0;
  return async (query: string): Promise<Answer> => {
    const streamed = turn++ % 2 === 1;
    const res = await fetch(`${server.base}/agent/respond${streamed ? '/stream' : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, message_history: history, ...(userId && { user_id: userId }) }),
    });
    expect(res.status).toBe(200);
    const answer: Answer = streamed ? (await collectSseEvents(res.body!)).find((e) => e.type === 'done')!.data : await res.json();
    // The offline model writes only from tool data: nothing it says goes unconfirmed (issue 45).
    expect(answer.metadata.grounding.unverified, answer.response_text).toBe(0);
    history.push({ role: 'user', content: query }, { role: 'assistant', content: answer.response_text });
    return answer;
  };
}

describe('three-turn conversations resolve what each question points back at', () => {
  it('a course: its prerequisites, then whether that one runs in spring, then where its lecture is', async () => {
    const say = conversation();
    const first = await say('is there an intro to computer systems course?');
    expect(first.response_text).toContain('**15-213 Introduction to Computer Systems**');
    const second = await say('and its prerequisites?');
    expect(second.services_used).toContain('courses_fetch_course_requisites');
    expect(second.response_text).toContain('### 15-213 Introduction to Computer Systems');
    expect(second.response_text).toContain('**Prerequisites:** 15-122');
    const third = await say('is that one offered in spring?');
    expect(third.services_used).toContain('courses_fetch_course_schedules');
    expect(third.response_text).toMatch(/^Yes: \*\*15-213 Introduction to Computer Systems\*\* is offered in Spring 2027\./);
  });

  it('a place: what is there to eat, then whether that one is open on Saturday, then the walk there from Wean', async () => {
    const say = conversation();
    const first = await say('where is the business school?');
    expect(first.cmu_maps.target).toBe('TEP');
    expect(first.response_text).toContain('**Tepper Building** (TEP)');
    const second = await say('what can I eat there?');
    expect(second.response_text).toContain('### Dining in Tepper Building');
    expect(second.response_text).toContain('**Stephanie’s Bakery**');
    const third = await say('how do I get there from Wean?');
    expect(third.services_used).toContain('maps_get_path');
    expect(third.response_text).toContain('### Walking from Wean Hall to Tepper Building');
    expect(third.cmu_maps.target).toBe('TEP');
  });

  it('a dining place named in a list: its hours, then what else its building serves', async () => {
    const say = conversation();
    const first = await say('where can I get sushi?');
    expect(first.response_text).toContain('**Sushi Sama**');
    const second = await say('is that one open on sunday?');
    expect(second.services_used).toContain('eats_get_location_hours');
    expect(second.response_text).toContain('**Sushi Sama**');
    const third = await say('what else can I eat in that building?');
    expect(third.response_text).toContain('### Dining in Resnik House');
  });

  it('what the user told us: a move replaces the old home, and "my dorm" is the new one', async () => {
    const user = `mover-${Date.now()}`;
    const say = conversation(user);
    expect((await say('remember that I live in Morewood Gardens')).response_text).toContain('"Lives in Morewood Gardens"');
    expect((await say('remember that I moved to Donner')).response_text).toContain('"Lives in Donner"');
    const memory = (await (await fetch(`${server.base}/memory/${user}`)).json()) as { items: Array<{ text: string }> };
    expect(memory.items.map((i) => i.text)).toEqual(['Lives in Donner']);
    const third = await say('where is my dorm?');
    expect(third.response_text).toContain('**Donner House** (DON)');
    expect(third.cmu_maps.target).toBe('DON');
  });

  it('a move told as news in a longer sentence: answered from the new home, and the saved home changes', async () => {
    const user = `news-mover-${Date.now()}`;
    const say = conversation(user);
    expect((await say('remember that I live in Mudge House')).response_text).toContain('"Lives in Mudge House"');
    const news = await say("I moved to Donner House last week, so what's good to eat near me?");
    expect(news.response_text).toContain('near Donner House (where you live)');
    expect(news.response_text).not.toContain('Mudge');
    // Extraction runs after the turn (in process here): the saved home becomes the new one.
    const saved = async () => ((await (await fetch(`${server.base}/memory/${user}`)).json()) as { items: Array<{ text: string }> }).items.map((i) => i.text);
    for (let i = 0; i < 50 && !(await saved()).includes('Lives in Donner House'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await saved()).toEqual(['Lives in Donner House']);
    const later = await say('where is my dorm?');
    expect(later.response_text).toContain('**Donner House** (DON)');
  });

  it('a bus conversation: the next 61C, the one after it, then toward downtown', async () => {
    const say = conversation();
    const first = await say("when's the next 61C?");
    expect(first.services_used).toContain('bus_get_next_bus');
    expect(first.response_text).toMatch(/\*\*61C\*\* to \w+ reaches \*\*Forbes Ave & Morewood Ave/);
    const second = await say('and the one after that?');
    expect(second.services_used).toContain('bus_get_stop_predictions');
    expect(second.response_text).toContain('**The bus after that**');
    const third = await say('what about toward downtown?');
    expect(third.response_text).toContain('near Tepper Quad');
  });
});
