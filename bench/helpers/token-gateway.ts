/**
 * The token bench's gateway in a process of its own (bench/tokens.bench.ts): it answers as a real model
 * would for the scripted questions (the tool calls a capable model makes for each, when the tool is
 * offered; a short answer after the tools), reports usage, and counts, with the o200k tokenizer
 * (gpt-tokenizer), exactly what the service sent: every request's tools and messages, by purpose and by
 * part, and the share a provider's prefix cache could reuse under OpenAI's rule (the longest prefix shared
 * with an earlier request, counted from 1,024 tokens in steps of 128).
 *
 * Prints `{"gateway": <base URL>, "stats": <URL>}`; `GET <stats>` answers the counts; SIGTERM stops it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { REMEMBER_SYSTEM_PROMPT } from '../../src/memory/remember-tool.js';
import { USER_MEMORY_CLOSE, USER_MEMORY_OPEN } from '../../src/security/leak-policy.js';
import { TITLE_SYSTEM_PROMPT } from '../../src/model/title.js';
import { startFakeGateway, type FakeReply } from '../../tests/support/fake-gateway.js';

type Purpose = 'chat pass 1' | 'chat pass 2' | 'chat pass 3+' | 'extraction' | 'reconciliation' | 'title';
type Part = 'system prompt' | 'tool definitions' | 'history' | 'message' | 'tool calls and results' | 'recalled facts';

const tokens = (text: string) => encode(text).length;

const stats = {
  requests: {} as Record<string, number>,
  promptTokens: {} as Record<string, number>,
  completionTokens: {} as Record<string, number>,
  cacheable: 0,
  promptTotal: 0,
  parts: {} as Record<string, number>,
  /** Chat questions whose needed tool was not offered (the planner missed it). */
  missedTools: [] as string[],
  toolLists: new Set<string>(),
};

const seen: number[][] = [];
/** Tokens of `sequence` a prefix cache could serve: the longest prefix shared with an earlier request. */
function cacheable(sequence: number[]): number {
  let best = 0;
  for (const earlier of seen) {
    const n = Math.min(earlier.length, sequence.length);
    let i = 0;
    while (i < n && earlier[i] === sequence[i]) i++;
    best = Math.max(best, i);
  }
  seen.push(sequence);
  return best < 1024 ? 0 : 1024 + Math.floor((best - 1024) / 128) * 128;
}

const add = (into: Record<string, number>, key: string, n: number) => void (into[key] = (into[key] ?? 0) + n);

function purposeOf(body: any): Purpose {
  const system = String(body.messages?.[0]?.content ?? '');
  if (body.response_format?.type === 'json_object') return system.startsWith(REMEMBER_SYSTEM_PROMPT.slice(0, 120)) ? 'reconciliation' : 'extraction';
  if (system.startsWith(TITLE_SYSTEM_PROMPT.slice(0, 40))) return 'title';
  const lastUser = (body.messages ?? []).map((m: any) => m.role).lastIndexOf('user');
  const sincePasses = (body.messages ?? []).slice(lastUser).filter((m: any) => m.role === 'assistant' && m.tool_calls).length;
  return sincePasses === 0 ? 'chat pass 1' : sincePasses === 1 ? 'chat pass 2' : 'chat pass 3+';
}

/** Counts one request: its purpose, its parts, its cacheable prefix. Returns its prompt tokens. */
function count(body: any, purpose: Purpose): number {
  const tools = body.tools ? JSON.stringify(body.tools) : '';
  const messages: any[] = body.messages ?? [];
  const parts: Record<Part, number> = { 'system prompt': 0, 'tool definitions': tokens(tools), history: 0, message: 0, 'tool calls and results': 0, 'recalled facts': 0 };
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  for (const [i, m] of messages.entries()) {
    const text = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'system') {
      const open = text.indexOf(USER_MEMORY_OPEN);
      const facts = open < 0 ? '' : text.slice(open, text.indexOf(USER_MEMORY_CLOSE, open) + USER_MEMORY_CLOSE.length);
      parts['recalled facts'] += tokens(facts);
      parts['system prompt'] += tokens(text) - tokens(facts);
    } else if (m.role === 'tool' || m.tool_calls) parts['tool calls and results'] += tokens(text + (m.tool_calls ? JSON.stringify(m.tool_calls) : ''));
    else if (i === lastUser) parts.message += tokens(text);
    else parts.history += tokens(text);
  }
  for (const [part, n] of Object.entries(parts)) add(stats.parts, `${purpose.startsWith('chat') ? 'chat' : purpose}: ${part}`, n);
  // What the provider renders, in its order: tool definitions first, then the messages.
  const sequence = encode(tools + JSON.stringify(messages));
  const prompt = Object.values(parts).reduce((a, b) => a + b, 0);
  stats.cacheable += Math.min(prompt, cacheable(sequence));
  stats.promptTotal += prompt;
  if (purpose.startsWith('chat') && body.tools) stats.toolLists.add(body.tools.map((t: any) => t.function.name).sort().join(','));
  return prompt;
}

const lastUserText = (body: any) => String([...(body.messages ?? [])].reverse().find((m: any) => m.role === 'user')?.content ?? '');
const offered = (body: any) => new Set<string>((body.tools ?? []).map((t: any) => t.function.name));

/** The tool calls a capable model makes for a scripted question: name and arguments, in one pass. */
function callsFor(question: string): { name: string; arguments: Record<string, unknown> }[] {
  const q = question.toLowerCase();
  if (/^(please )?remember\b/.test(q)) return [{ name: 'memory_remember', arguments: { fact: question.replace(/^(please )?remember (that )?/i, '') } }];
  if (/lecture|meet/.test(q)) return [{ name: 'courses_fetch_course_schedules', arguments: { course_id: '15-213' } }];
  if (/prereq|before taking|need for/.test(q)) return [{ name: 'courses_fetch_course_requisites', arguments: { course_id: /\d{2}-?\d{3}/.exec(q)?.[0] ?? '15-213' } }];
  if (/open|eat|food|hungry/.test(q)) return [{ name: 'eats_get_locations_open_now', arguments: {} }];
  if (/where|find|get to/.test(q)) {
    return [
      { name: 'maps_search_buildings', arguments: { query: 'Gates Hillman Center' } },
      { name: 'maps_show_map', arguments: { target: 'GHC' } },
    ];
  }
  return [];
}

const ANSWER = ['Here is what I found. ', 'The place you asked about is ', 'open today until 8 PM, ', 'and it is a short walk ', 'from the center of campus. ', 'Want directions or hours for another place?'];

function reply(body: any, purpose: Purpose, completion: string | null, extra: FakeReply): FakeReply {
  const prompt = count(body, purpose);
  add(stats.requests, purpose, 1);
  add(stats.promptTokens, purpose, prompt);
  const out = completion === null ? 20 : tokens(completion);
  add(stats.completionTokens, purpose, out);
  return { ...extra, usage: { prompt_tokens: prompt, completion_tokens: out } };
}

const gateway = await startFakeGateway({ record: false });
gateway.handler = (body: any) => {
  const purpose = purposeOf(body);
  if (purpose === 'extraction' || purpose === 'reconciliation') {
    const said = lastUserText(body);
    const home = /live in ([A-Z][\w ]+?)(?:[.,!]|$)/.exec(said)?.[1];
    const text = JSON.stringify({ operations: home ? [{ op: 'add', text: `Lives in ${home}` }] : [] });
    return reply(body, purpose, text, { text });
  }
  if (purpose === 'title') return reply(body, purpose, 'Campus directions', { text: 'Campus directions' });
  const question = lastUserText(body);
  if (purpose === 'chat pass 1') {
    const wanted = callsFor(question);
    const available = wanted.filter((c) => offered(body).has(c.name));
    if (wanted.length > 0 && available.length < wanted.length) stats.missedTools.push(`${question} → ${wanted.map((c) => c.name).join(', ')}`);
    if (available.length > 0) return reply(body, purpose, null, { toolCalls: available });
  }
  return reply(body, purpose, ANSWER.join(''), { text: ANSWER });
};

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ...stats, toolLists: stats.toolLists.size }));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ gateway: gateway.baseUrl, stats: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })}\n`);
process.on('SIGTERM', () => {
  server.close();
  void gateway.close().then(() => process.exit(0));
});
