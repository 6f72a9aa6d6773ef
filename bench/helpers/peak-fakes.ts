/**
 * The peak bench's model gateway in a process of its own, with a real model's pace (issue 35):
 * - a chat pass: first token after 0.5-1.5 s, then 40 tokens a second, answers of 100-400 tokens (400 in
 *   the outside mix, PEAK_MIX=outside); a
 *   question about a place, food or a course first gets a tool pass (the tool call after the same
 *   first-token wait), and "remember ..." a call of the memory tool;
 * - memory extraction and titles (non-streamed): about 1 s; extraction adds "Lives in X" for a turn
 *   that says "I live in X", and nothing otherwise;
 * - embeddings and moderation: 50 ms.
 * Every reply reports its usage, and this process adds up what it reported. The pace is drawn from the
 * turn's marker (`#peak-N`), so the bench knows the model's own time of each turn.
 *
 * Prints `{"gateway": <base URL>, "stats": <URL>}` once listening; `GET <stats>` answers
 * `{"prompt_tokens", "completion_tokens", "calls": {purpose: n}, "model_ms": {turn: ms}}`; stops on SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeGateway, type FakeReply } from '../../tests/support/fake-gateway.js';
import { mixFromEnv, modelPace, PEAK_MARK, TOKEN_GAP_MS } from '../support/peak-load.js';

const lastUser = (body: any): string =>
  String([...(body.messages ?? [])].reverse().find((m: any) => m.role === 'user')?.content ?? '');
const toolsOffered = (body: any): Set<string> => new Set((body.tools ?? []).map((t: any) => t.function?.name));
const hasToolResult = (body: any): boolean => (body.messages ?? []).some((m: any) => m.role === 'tool');
/** As the fake counts tokens: four characters each. */
const tokensOf = (text: string) => Math.ceil(text.length / 4);

const totals = {
  prompt_tokens: 0,
  completion_tokens: 0,
  calls: {} as Record<string, number>,
  /** Per turn, the model's own time before its first answer token: the first-token wait of each streamed pass. */
  model_ms: {} as Record<number, number>,
};

function charged(purpose: string, body: any, reply: FakeReply, completionTokens: number): FakeReply {
  const usage = { prompt_tokens: tokensOf(JSON.stringify(body.messages ?? [])) + tokensOf(JSON.stringify(body.tools ?? [])), completion_tokens: completionTokens };
  totals.prompt_tokens += usage.prompt_tokens;
  totals.completion_tokens += usage.completion_tokens;
  totals.calls[purpose] = (totals.calls[purpose] ?? 0) + 1;
  return { ...reply, usage };
}

/** The tool call a real model would make for the question, when one of the offered tools fits. */
function toolCallFor(question: string, offered: Set<string>): { name: string; arguments: Record<string, unknown> } | null {
  const q = question.toLowerCase();
  const pick = (name: string, args: Record<string, unknown>) => (offered.has(name) ? { name, arguments: args } : null);
  if (q.startsWith('remember')) return pick('memory_remember', { fact: question.replace(/^remember (that )?/i, '').replace(/\s*\(#peak-\d+\)/, '') });
  if (/open|eat|food|coffee/.test(q)) return pick('eats_get_locations_open_now', {});
  if (/\d{2}-\d{3}/.test(q)) return pick('courses_fetch_course_by_id', { course_id: /\d{2}-\d{3}/.exec(q)![0] });
  if (/where|building|hall/.test(q)) return pick('maps_search_buildings', { query: 'Gates' });
  return null;
}

/** The mix the load generator sends (PEAK_MIX), for its answer lengths. */
const mix = mixFromEnv();
const gateway = await startFakeGateway({ record: false });
gateway.embeddingFailure = { delayMs: 50 };
gateway.moderationFailure = { delayMs: 50 };
gateway.handler = (body: any) => {
  const question = lastUser(body);
  const turn = Number(new RegExp(`${PEAK_MARK}(\\d+)`).exec(question)?.[1] ?? 0);
  const pace = modelPace(turn, mix);
  if (!body.stream) {
    if (body.response_format?.type === 'json_object') {
      const home = /I live in ([A-Z][a-z]+)/.exec(question)?.[1];
      const text = JSON.stringify({ operations: home ? [{ op: 'add', text: `Lives in ${home}` }] : [] });
      return charged('extraction', body, { text, delayMs: 1_000 }, tokensOf(text));
    }
    return charged('title', body, { text: 'Campus question', delayMs: 1_000 }, 3);
  }
  totals.model_ms[turn] = (totals.model_ms[turn] ?? 0) + pace.firstTokenMs;
  const call = hasToolResult(body) ? null : toolCallFor(question, toolsOffered(body));
  if (call) return charged('tool pass', body, { toolCalls: [call], delayMs: pace.firstTokenMs }, 20);
  const words = Array.from({ length: pace.answerTokens }, (_, i) => `${i % 7 === 0 ? ' Campus' : ' word'}${i % 10}`);
  return charged('answer pass', body, { text: words, delayMs: pace.firstTokenMs - 2 * TOKEN_GAP_MS, chunkDelayMs: TOKEN_GAP_MS }, pace.answerTokens);
};

const stats = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(totals));
});
await new Promise<void>((resolve) => stats.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ gateway: gateway.baseUrl, stats: `http://127.0.0.1:${(stats.address() as AddressInfo).port}/` })}\n`);
process.on('SIGTERM', () => {
  stats.close();
  void gateway.close().then(() => process.exit(0));
});
