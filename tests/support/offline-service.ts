/**
 * The zero-config service in process, for the offline model's question suites and their bench: the real
 * app and pipeline, the offline model through the real `openai` gateway, the sandbox tool server over MCP
 * on a fixed clock, an in-memory store whose facts a test seeds, served on a loopback port. Not a test file.
 */
import { createApp } from '../../src/app.js';
import { createBackgroundTasks } from '../../src/lifecycle/background-tasks.js';
import { silentLogger } from '../../src/logger.js';
import { createInMemoryStore } from '../../src/memory/in-memory-store.js';
import type { MemoryStore } from '../../src/memory/store.js';
import { createOpenAIGateway } from '../../src/model/openai-gateway.js';
import { startSandboxToolServer } from '../../src/sandbox/campus/tool-server.js';
import { OFFLINE_BASE_URL, createOfflineModelFetch } from '../../src/sandbox/offline-model/offline-fetch.js';
import { createMcpCampusTools } from '../../src/tools/mcp-campus-tools.js';
import type { ParaphraseAnswer } from '../fixtures/offline-paraphrases.js';
import { createTestDeps, testTurnMemory } from './deps.js';
import { listen } from './listen.js';
import { collectSseEvents } from './sse.js';

/** Wednesday 12:30 in Pittsburgh: the clock the offline suites are written against. */
export const WEDNESDAY_LUNCH = new Date('2026-11-18T17:30:00Z');

/** The campus clocks the zero-config suite runs at (issue 78): a weekday noon and evening, the middle of the night, a Sunday. */
export const SUITE_CLOCKS: ReadonlyArray<{ label: string; now: Date }> = [
  { label: 'Wednesday 12:30', now: WEDNESDAY_LUNCH },
  { label: 'Wednesday 19:30', now: new Date('2026-11-19T00:30:00Z') },
  { label: 'Sunday 01:20', now: new Date('2026-11-22T06:20:00Z') },
  { label: 'Sunday 14:00', now: new Date('2026-11-22T19:00:00Z') },
];

export interface OfflineService {
  base: string;
  store: MemoryStore;
  /** One question on one route, as a new user with `facts` saved; the `done` response's parts. */
  ask(route: 'json' | 'stream', q: { q: string; history?: string[]; facts?: string[] }): Promise<ParaphraseAnswer & { unverified: number }>;
  close(): Promise<void>;
}

export async function startOfflineService(now: Date = WEDNESDAY_LUNCH): Promise<OfflineService> {
  const sandbox = await startSandboxToolServer({ port: 0, host: '127.0.0.1', now: () => now });
  const tools = createMcpCampusTools({ url: sandbox.url, logger: silentLogger });
  const gateway = createOpenAIGateway({ baseUrl: OFFLINE_BASE_URL, apiKey: 'offline', fetch: createOfflineModelFetch() });
  const store = createInMemoryStore({ embeddingModel: null });
  const background = createBackgroundTasks(silentLogger);
  const turnMemory = testTurnMemory({ store, gateway, background, extractionModel: 'offline/x' });
  const app = createApp(await createTestDeps({ gateway, campusTools: tools, memory: store, turnMemory, background, now: () => now }));
  const server = await listen(app.fetch);
  let users = 0;
  return {
    base: server.base,
    store,
    async ask(route, { q, history, facts }) {
      const userId = `offline-${++users}`;
      for (const text of facts ?? []) await store.add({ userId, kind: 'remembered', text });
      const message_history = (history ?? []).map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));
      const res = await fetch(`${server.base}/agent/respond${route === 'stream' ? '/stream' : ''}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: q, user_id: userId, message_history }),
      });
      if (res.status !== 200) throw new Error(`"${q}" answered ${res.status}`);
      const body = route === 'json' ? await res.json() : (await collectSseEvents(res.body!)).find((e) => e.type === 'done')?.data;
      if (!body) throw new Error(`"${q}": no done event`);
      return { text: body.response_text, tools: body.services_used, unverified: body.metadata.grounding.unverified };
    },
    async close() {
      await server.close();
      await tools.close();
      await sandbox.close();
    },
  };
}
