/**
 * The zero-configuration path: how long a sandbox tool call takes through the service's MCP client,
 * how long one offline-model pass takes through the service's gateway, and what a whole turn costs on
 * the real entry point started with no configuration (time to the first `delta` and to `done`; the
 * offline model paces its frames by OFFLINE_PIECE_DELAY_MS, so `done` includes that pacing on purpose).
 */
import { startSandboxToolServer } from '../src/sandbox/campus/tool-server.js';
import { silentLogger } from '../src/logger.js';
import type { ModelMessage, ToolDefinition } from '../src/model/gateway.js';
import { OFFLINE_BASE_URL, OFFLINE_PIECE_DELAY_MS, createOfflineModelFetch } from '../src/sandbox/offline-model/offline-fetch.js';
import { createOpenAIGateway } from '../src/model/openai-gateway.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import { wrapUntrustedResult } from '../src/tools/untrusted-result.js';
import { spawnService } from '../tests/support/spawn-service.js';
import { ms, quantile, timeRuns } from './support/stats.js';
import { PARAPHRASE_SUITE, paraphraseTableByClock, runParaphraseSuite } from '../tests/fixtures/offline-paraphrases.js';
import { startOfflineService, SUITE_CLOCKS } from '../tests/support/offline-service.js';

const TOOL_RUNS = 300;
const PASS_RUNS = 300;
const TURN_RUNS = 40;
const rows: string[] = [];
const row = (what: string, samples: number[]) =>
  rows.push(`| ${what} | ${samples.length} | ${ms(quantile(samples, 0.5))} | ${ms(quantile(samples, 0.95))} | ${ms(quantile(samples, 0.99))} |`);

const sandbox = await startSandboxToolServer({ port: 0, host: '127.0.0.1' });
const tools = createMcpCampusTools({ url: sandbox.url, logger: silentLogger });
const listed = await tools.list();
// A fresh signal per call, as a turn has: the MCP SDK's Client.request never removes the abort
// listener it adds, so one long-lived signal would collect a listener per call.
const fresh = () => new AbortController().signal;
for (const [name, args] of [
  ['maps_search_buildings', { query: 'Gates' }],
  ['eats_get_locations_open_now', {}],
  ['courses_fetch_course_by_id', { course_id: '15-122' }],
  ['guide_search_guide', { query: 'meal plan blocks' }],
] as const) {
  row(`sandbox tool call \`${name}\` (MCP client, kept session)`, await timeRuns(TOOL_RUNS, () => tools.call(name, args, fresh())));
}

const gateway = createOpenAIGateway({ baseUrl: OFFLINE_BASE_URL, apiKey: 'offline', fetch: createOfflineModelFetch() });
const defs: ToolDefinition[] = listed.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));
const question: ModelMessage[] = [{ role: 'user', content: 'Where is Gates?' }];
const search = (await tools.call('maps_search_buildings', { query: 'Gates' }, fresh())).text;
const answered: ModelMessage[] = [
  ...question,
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'maps_search_buildings', arguments: '{"query":"Gates"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: wrapUntrustedResult('maps_search_buildings', search) },
];
const drain = async (messages: ModelMessage[]) => {
  for await (const _ of gateway.streamPass({ model: 'x/y', messages, tools: defs, signal: fresh() })) void _;
};
row('offline model pass: tool-call decision (gateway, 23 tools offered)', await timeRuns(PASS_RUNS, () => drain(question)));
row('offline model pass: answer from results (unpaced)', await timeRuns(PASS_RUNS, () => drain(answered)));
await tools.close();
await sandbox.close();

const service = await spawnService({ entry: 'source', env: { LOG_LEVEL: 'info' } });
async function turn(query: string) {
  const start = performance.now();
  const res = await fetch(`${service.url}/agent/respond/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let first = NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (Number.isNaN(first) && text.includes('event: delta')) first = performance.now() - start;
  }
  if (!text.includes('event: done')) throw new Error('turn did not finish');
  return { first, total: performance.now() - start };
}
for (const query of ['Where is Gates?', 'What can I eat right now?']) {
  for (let i = 0; i < 5; i++) await turn(query); // warm-up: module loading, MCP session
  const samples = [];
  for (let i = 0; i < TURN_RUNS; i++) samples.push(await turn(query));
  row(`zero-config turn "${query}": first delta`, samples.map((s) => s.first));
  row(`zero-config turn "${query}": done (paced ${OFFLINE_PIECE_DELAY_MS} ms/frame)`, samples.map((s) => s.total));
}
await service.stop();

// Issue 64: the paraphrase suite, each phrasing on both routes of the zero-config service in process,
// at each of the campus clocks the suite runs at (issue 78).
const byClock: Array<{ label: string; results: Awaited<ReturnType<typeof runParaphraseSuite>> }> = [];
for (const { label, now } of SUITE_CLOCKS) {
  const offline = await startOfflineService(now);
  const results: Awaited<ReturnType<typeof runParaphraseSuite>> = [];
  for (const route of ['json', 'stream'] as const) {
    results.push(...(await runParaphraseSuite((intent, p) => offline.ask(route, { ...p, facts: p.facts ?? intent.facts }))));
  }
  await offline.close();
  byClock.push({ label, results });
}
const paraphrases = byClock[0]!.results;

process.stdout.write(
  [
    '## Zero-configuration run: sandbox tools and offline model',
    '',
    `Method: sequential calls on one machine after warm-up; sandbox tool server and MCP client in one process (loopback HTTP); offline model through the service's openai gateway; whole turns against \`src/server.ts\` started with an empty environment, streamed over HTTP.`,
    '',
    '| What | Runs | Median | p95 | p99 |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    '### The same question asked another way (issue 64)',
    '',
    `The paraphrase suite (tests/fixtures/offline-paraphrases.ts): ${PARAPHRASE_SUITE.length} intents, ${paraphrases.length / 2} phrasings varying word order, ` +
      'politeness, tense, contractions, phone typos, context before the question and follow-ups, each asked on the JSON and the ' +
      'stream route of the zero-config service in process, at each campus clock of `SUITE_CLOCKS` (a weekday noon and evening, ' +
      "1:20 AM, a Sunday afternoon; the sandbox's data and answers follow the clock); an answer is right when it used the " +
      "intent's tool (or none) and carries what the intent must say. Targets: 95% overall, no intent under 85%, at every clock.",
    '',
    paraphraseTableByClock(byClock),
    '',
  ].join('\n'),
);
