/**
 * The chat pipeline's own overhead per turn: the same plain answer (20 streamed chunks, zero latency,
 * fake gateway over real loopback HTTP) read three ways: a bare pass-through of the gateway stream with
 * the openai client (the floor), the turn generator (plan, prompt, execute, verify, deliver), and the
 * whole SSE route through the Hono app. Prints one Markdown section.
 */
import OpenAI from 'openai';
import { createApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { silentLogger } from '../src/logger.js';
import { createOpenAIGateway } from '../src/model/openai-gateway.js';
import { createTurnStarter } from '../src/pipeline/turn.js';
import { drainTurn } from '../src/pipeline/drain-turn.js';
import { ModelAllowlist } from '../src/model/model-allowlist.js';
import { toTurnRequest, chatRequestSchema } from '../src/request/chat-request.js';
import { startFakeGateway } from '../tests/support/fake-gateway.js';
import { createTestDeps } from '../tests/support/deps.js';
import { ms, quantile, timeRuns } from './support/stats.js';

const RUNS = 400;
const CHUNKS = Array.from({ length: 20 }, (_, i) => `word${i} `);

const gw = await startFakeGateway({ handler: () => ({ text: CHUNKS, usage: { prompt_tokens: 400, completion_tokens: 20 } }) });
const config = parseConfig({ AGENT_ENV: 'test', LLM_GATEWAY_API_KEY: 'sk-bench', LLM_GATEWAY_BASE_URL: gw.baseUrl });
const client = new OpenAI({ baseURL: gw.baseUrl, apiKey: 'sk-bench', maxRetries: 0 });
const gateway = createOpenAIGateway({ baseUrl: gw.baseUrl, apiKey: 'sk-bench' });
const deps = await createTestDeps({ config, logger: silentLogger, gateway });
const startTurn = createTurnStarter(deps);
const app = createApp(deps);
const body = { query: 'thanks, and in one sentence please', message_history: [{ role: 'user', content: 'hello' }] };
const request = toTurnRequest(chatRequestSchema.parse(body), new ModelAllowlist(config.gateway));

async function bare(): Promise<void> {
  const stream = await client.chat.completions.create({
    model: config.gateway.defaultModel,
    messages: [{ role: 'user', content: body.query }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  if (text.length === 0) throw new Error('empty bare stream');
}

async function turn(): Promise<void> {
  const turn = await startTurn(request, { signal: new AbortController().signal, requestId: 'bench' });
  const res = await drainTurn(turn.events);
  if (!res.response_text) throw new Error('empty turn');
}

async function route(): Promise<void> {
  const res = await app.request('/agent/respond/stream', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!text.includes('event: done')) throw new Error('stream without done');
}

// Interleaved in rounds so drift (GC, JIT) spreads over all three.
const samples = { bare: [] as number[], turn: [] as number[], route: [] as number[] };
for (let round = 0; round < 4; round++) {
  samples.bare.push(...(await timeRuns(RUNS / 4, bare)));
  samples.turn.push(...(await timeRuns(RUNS / 4, turn)));
  samples.route.push(...(await timeRuns(RUNS / 4, route)));
}
await gw.close();

const floor = quantile(samples.bare, 0.5);
const row = (name: string, s: number[]) =>
  `| ${name} | ${ms(quantile(s, 0.5))} | ${ms(quantile(s, 0.99))} | ${name.startsWith('bare') ? '-' : ms(quantile(s, 0.5) - floor)} | ${(quantile(s, 0.5) / floor).toFixed(2)}× |`;

process.stdout.write(
  [
    '## Chat pipeline overhead per turn',
    '',
    `Method: ${RUNS} plain-answer turns per variant (20 streamed chunks + usage chunk, zero latency) from the fake gateway over ` +
      'loopback HTTP, interleaved in 4 rounds after warm-up. Overhead = median minus the bare pass-through median; ' +
      'ratio = median over the floor (the bare pass-through median of the same run).',
    '',
    '| Variant | Median | p99 | Overhead (median) | Ratio to the floor |',
    '|---|---|---|---|---|',
    row('bare pass-through (openai client stream, the floor)', samples.bare),
    row('turn generator (plan, prompt, execute, verify, deliver)', samples.turn),
    row('SSE route through the Hono app', samples.route),
    '',
  ].join('\n'),
);
