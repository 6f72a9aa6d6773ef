/**
 * Tokens per answer (issue 36): a fixed scripted set of 20 student turns (three signed-in students and
 * one anonymous, five turns each, drawn from: a building, food open now, prerequisites, a follow-up that
 * sends the history, "remember that I live in …", "thanks") through the service (`src/server.ts`,
 * AGENT_ENV=test, memory in process), the sandbox campus tool server for real results, and a gateway
 * that makes the tool calls a real model would and counts what it was sent with the o200k tokenizer
 * (bench/helpers/token-gateway.ts), each in a process of its own.
 *
 * Reported per answered turn: requests to /chat/completions and prompt / completion tokens by purpose,
 * the share a provider's prefix cache could reuse (OpenAI's rule), tokens by part, the distinct tool
 * lists of the chat passes, and any question whose needed tool was not offered.
 *
 * TOKENS_BENCH_BEFORE names another checkout (a worktree of an earlier commit, with this repository's
 * node_modules linked in): its service is measured the same way first, and the table shows before and after.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT, spawnService } from '../tests/support/spawn-service.js';
import { startHelper } from './support/production-fixtures.js';

interface Turn {
  query: string;
  followsUp?: boolean;
}

/** Each student's five turns; the wording varies between students, as real students' does. */
const SCRIPTS: { user: string | null; turns: Turn[] }[] = [
  {
    user: 'tokens-student-a',
    turns: [
      { query: 'Where is the Gates Hillman Center?' },
      { query: "What's open to eat right now?" },
      { query: 'What are the prerequisites for 15-213?' },
      { query: 'And where does its lecture meet?', followsUp: true },
      { query: 'Remember that I live in Donner House' },
    ],
  },
  {
    user: 'tokens-student-b',
    turns: [
      { query: 'Anything open for food near campus right now?' },
      { query: 'What do I need before taking 15-213?' },
      { query: 'where does that lecture meet?', followsUp: true },
      { query: 'Please remember that I live in Morewood Gardens' },
      { query: "Thanks, that's really helpful!" },
    ],
  },
  {
    user: 'tokens-student-c',
    turns: [
      { query: 'How do I find Gates Hillman Center from the UC?' },
      { query: 'What are the prereqs for 15-213 again?' },
      { query: 'and when does its lecture meet?', followsUp: true },
      { query: 'Remember that I live in Mudge House' },
      { query: 'Thanks!' },
    ],
  },
  {
    user: null,
    turns: [
      { query: 'Where is the Gates Hillman Center?' },
      { query: 'I am hungry, what is open right now?' },
      { query: 'What are the prerequisites for 15-213?' },
      { query: 'And where is its lecture?', followsUp: true },
      { query: 'thanks, this was super useful' },
    ],
  },
];

interface Stats {
  requests: Record<string, number>;
  promptTokens: Record<string, number>;
  completionTokens: Record<string, number>;
  cacheable: number;
  promptTotal: number;
  parts: Record<string, number>;
  missedTools: string[];
  toolLists: number;
}

/** Plays the script through the service of `tree`, with a fresh gateway and tool server; the gateway's counts. */
async function measure(tree: string): Promise<{ stats: Stats; answered: number }> {
  const [gatewayProcess, tools] = await Promise.all([
    startHelper('bench/helpers/token-gateway.ts', [], (line) => (line.startsWith('{') ? (JSON.parse(line) as { gateway: string; stats: string }) : null)),
    startHelper('src/sandbox/campus/main.ts', [], (line) => (line.startsWith('{') ? ((JSON.parse(line) as { url?: string }).url ?? null) : null), {
      SANDBOX_TOOLS_PORT: '0',
      LOG_LEVEL: 'info',
    }),
  ]);
  const service = await spawnService({
    entry: 'source',
    cwd: tree,
    env: {
      AGENT_ENV: 'test',
      LLM_GATEWAY_API_KEY: 'sk-tokens-bench',
      LLM_GATEWAY_BASE_URL: gatewayProcess.value.gateway,
      MCP_SERVER_URL: tools.value,
      DAILY_TOKEN_LIMIT: '100000000',
    },
  });
  let answered = 0;
  try {
    for (const script of SCRIPTS) {
      const history: { role: 'user' | 'assistant'; content: string }[] = [];
      for (const turn of script.turns) {
        const res = await fetch(`${service.url}/agent/respond`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: turn.query, message_history: history, ...(script.user && { user_id: script.user }) }),
        });
        const body = (await res.json()) as { response_text?: string };
        if (res.status !== 200 || !body.response_text) throw new Error(`turn "${turn.query}" failed: ${res.status}`);
        answered++;
        history.push({ role: 'user', content: turn.query }, { role: 'assistant', content: body.response_text });
        // Background extraction after the turn: let it reach the gateway before the next turn starts.
        await sleep(150);
      }
      // A new chat's title, as the front end asks for one per conversation.
      await fetch(`${service.url}/agent/title`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: script.turns[0]!.query }) });
    }
    await sleep(500);
    return { stats: (await (await fetch(gatewayProcess.value.stats)).json()) as Stats, answered };
  } finally {
    await service.stop();
    for (const child of [gatewayProcess.child, tools.child]) {
      child.removeAllListeners('exit');
      child.kill('SIGTERM');
    }
  }
}

/** The commit a checkout is at, for the method line. */
function commitOf(tree: string): string {
  try {
    return execFileSync('git', ['-C', tree, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return tree;
  }
}

const beforeTree = process.env.TOKENS_BENCH_BEFORE ?? null;
const before = beforeTree ? await measure(beforeTree) : null;
const after = await measure(REPO_ROOT);

const PURPOSES = ['chat pass 1', 'chat pass 2', 'chat pass 3+', 'extraction', 'reconciliation', 'title'];
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
const fmt = (n: number, answered: number) => (n / answered).toLocaleString('en-US', { maximumFractionDigits: n / answered < 10 ? 2 : 0 });
const cell = (m: { stats: Stats; answered: number } | null, pick: (s: Stats) => number) => (m ? fmt(pick(m.stats), m.answered) : '-');
const purposes = PURPOSES.filter((p) => after.stats.requests[p] || before?.stats.requests[p]);
const share = (m: { stats: Stats }) => `${((m.stats.cacheable / Math.max(1, m.stats.promptTotal)) * 100).toFixed(0)}%`;
const change = (b: number, a: number) => `${a >= b ? '+' : '−'}${Math.abs(((a - b) / b) * 100).toFixed(0)}%`;
const lines = [
  '## Tokens per answered turn (`bench/tokens.bench.ts`)',
  '',
  `Method: ${after.answered} scripted turns (three signed-in students and one anonymous, five turns each: a building, food open now, ` +
    'prerequisites, a follow-up with the history, "remember that I live in …", thanks; each chat then asks for a title) through ' +
    'the service (`src/server.ts`, memory in process, no embeddings), the sandbox campus tool server and a gateway that makes ' +
    'the tool calls a real model would (bench/helpers/token-gateway.ts), each in a process of its own. Tokens are counted with ' +
    "gpt-tokenizer's o200k_base over exactly what was sent (tool definitions and messages). Cacheable: per request, the longest " +
    "prefix (tools first, then messages) shared with an earlier request, counted from 1,024 tokens in steps of 128 (OpenAI's " +
    'rule), over all prompt tokens.' +
    (beforeTree ? ` "Before" is the service at commit ${commitOf(beforeTree)} (TOKENS_BENCH_BEFORE) measured the same way in the same run.` : ''),
  '',
  beforeTree ? '| per answered turn | requests before | requests after | prompt tokens before | prompt tokens after | completion tokens before | completion tokens after |' : '| per answered turn | requests | prompt tokens | completion tokens |',
  beforeTree ? '|---|---:|---:|---:|---:|---:|---:|' : '|---|---:|---:|---:|',
  ...purposes.map((p) =>
    beforeTree
      ? `| ${p} | ${cell(before, (s) => s.requests[p] ?? 0)} | ${cell(after, (s) => s.requests[p] ?? 0)} | ${cell(before, (s) => s.promptTokens[p] ?? 0)} | ${cell(after, (s) => s.promptTokens[p] ?? 0)} | ${cell(before, (s) => s.completionTokens[p] ?? 0)} | ${cell(after, (s) => s.completionTokens[p] ?? 0)} |`
      : `| ${p} | ${cell(after, (s) => s.requests[p] ?? 0)} | ${cell(after, (s) => s.promptTokens[p] ?? 0)} | ${cell(after, (s) => s.completionTokens[p] ?? 0)} |`,
  ),
  beforeTree
    ? `| **all** | **${cell(before, (s) => sum(s.requests))}** | **${cell(after, (s) => sum(s.requests))}** | **${cell(before, (s) => sum(s.promptTokens))}** | **${cell(after, (s) => sum(s.promptTokens))}** (${change(sum(before!.stats.promptTokens) / before!.answered, sum(after.stats.promptTokens) / after.answered)}) | **${cell(before, (s) => sum(s.completionTokens))}** | **${cell(after, (s) => sum(s.completionTokens))}** |`
    : `| **all** | **${cell(after, (s) => sum(s.requests))}** | **${cell(after, (s) => sum(s.promptTokens))}** | **${cell(after, (s) => sum(s.completionTokens))}** |`,
  '',
  `Cacheable share of prompt tokens: ${before ? `${share(before)} before, ` : ''}${share(after)}${before ? ' after' : ''} (shorter prompts fall under the 1,024-token minimum more often). ` +
    `Distinct tool lists over the chat passes: ${before ? `${before.stats.toolLists} before, ` : ''}${after.stats.toolLists}. ` +
    `Questions whose needed tool was not offered: ${after.stats.missedTools.length ? after.stats.missedTools.join('; ') : 'none'}.`,
  '',
  beforeTree ? '| prompt tokens by part, per answered turn | before | after |' : '| prompt tokens by part, per answered turn | tokens |',
  beforeTree ? '|---|---:|---:|' : '|---|---:|',
  ...Object.entries(after.stats.parts)
    .concat(before ? Object.entries(before.stats.parts).filter(([k]) => !(k in after.stats.parts)) : [])
    .filter(([k]) => (after.stats.parts[k] ?? 0) > 0 || (before?.stats.parts[k] ?? 0) > 0)
    .sort((a, b) => (before?.stats.parts[b[0]] ?? b[1]) - (before?.stats.parts[a[0]] ?? a[1]))
    .map(([part]) => (beforeTree ? `| ${part} | ${cell(before, (s) => s.parts[part] ?? 0)} | ${cell(after, (s) => s.parts[part] ?? 0)} |` : `| ${part} | ${cell(after, (s) => s.parts[part] ?? 0)} |`)),
];
const reduction = before ? 1 - sum(after.stats.promptTokens) / after.answered / (sum(before.stats.promptTokens) / before.answered) : null;
if (reduction !== null) {
  lines.push('', `Target (issue 36): prompt tokens per answered turn down by at least a third: ${reduction >= 1 / 3 ? 'met' : '**not met**'} (${(reduction * 100).toFixed(1)}% fewer).`);
}
process.stdout.write(lines.join('\n') + '\n');
