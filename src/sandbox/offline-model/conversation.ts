/**
 * Reads a chat-completions request the way the offline model needs it: the user's question (the last
 * user message) and the messages before it (for follow-ups and references), the tools offered, the tool calls already made
 * since that question with their results unwrapped from the pipeline's untrusted-data markers, today's
 * weekday and the saved facts of the system prompt's memory block.
 */
import { movedTo } from './moves.js';
import { readRecallBlock } from '../../memory/recall.js';
import { readSystemPrompt } from '../../prompt/system-prompt.js';
import { GROUP_LABELS, TOOL_GROUPS, type ToolGroup } from '../../tools/tool-groups.js';
import { unwrapUntrustedResult } from '../../tools/untrusted-result.js';

export interface ToolOutcomeSeen {
  name: string;
  arguments: Record<string, unknown>;
  /** The result text without the untrusted-data markers. */
  result: string;
}

export interface Conversation {
  question: string;
  offered: Set<string>;
  /** Calls answered since the question, in call order. */
  done: ToolOutcomeSeen[];
  /** The messages before the question, the user's and the assistant's answers, oldest first. */
  history: Array<{ role: 'user' | 'assistant'; text: string }>;
  /** Today's weekday (0 = Sunday) from the system prompt's date, or null without one. */
  today: number | null;
  /** The campus time of day in minutes after midnight, from the system prompt, or null without one. */
  minute: number | null;
  /** Saved facts of the memory block (src/memory/recall.ts), without their markers. */
  facts: string[];
  /** The tool groups the user turned off (the system prompt's "Switched off by the user" section). */
  switchedOff: Set<ToolGroup>;
}

/** The groups the system prompt says the user turned off (prompt/system-prompt.ts writes their labels). */
function switchedOffIn(system: string): Set<ToolGroup> {
  const named = /The user turned off: ([^\n]*?)\. Do not use/.exec(system)?.[1] ?? '';
  const labels = new Set(named.split(', ').map((l) => l.trim()));
  return new Set(TOOL_GROUPS.filter((g) => labels.has(GROUP_LABELS[g])));
}

interface WireMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
  tool_call_id?: unknown;
}

/** Message content as plain text: a string, or the text parts of a content array. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p) => (p && typeof p === 'object' && 'text' in p && typeof p.text === 'string' ? p.text : ''))
      .join('');
  return '';
}

function parseArgs(raw: string | undefined): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw ?? '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Extracts what the rules need from a request body (`messages` and `tools` as OpenAI sends them). */
export function readConversation(body: { messages?: unknown; tools?: unknown }): Conversation {
  const messages: WireMessage[] = Array.isArray(body.messages) ? body.messages : [];
  const offered = new Set<string>();
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    const name = (t as { function?: { name?: unknown } })?.function?.name;
    if (typeof name === 'string') offered.add(name);
  }
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });
  const question = lastUser >= 0 ? textOf(messages[lastUser]!.content).trim() : '';
  const calls = new Map<string, { name: string; arguments: Record<string, unknown> }>();
  const done: ToolOutcomeSeen[] = [];
  for (const m of messages.slice(lastUser + 1)) {
    if (m.role === 'assistant') {
      for (const tc of m.tool_calls ?? []) {
        if (tc.id) calls.set(tc.id, { name: tc.function?.name ?? '', arguments: parseArgs(tc.function?.arguments) });
      }
    } else if (m.role === 'tool' && typeof m.tool_call_id === 'string') {
      const call = calls.get(m.tool_call_id);
      if (call) done.push({ ...call, result: unwrapUntrustedResult(textOf(m.content)) });
    }
  }
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n');
  const history = messages
    .slice(0, Math.max(0, lastUser))
    .filter((m) => (m.role === 'user' || m.role === 'assistant') && textOf(m.content).trim())
    .map((m) => ({ role: m.role as 'user' | 'assistant', text: textOf(m.content).trim() }));
  const { date, minute, memory } = readSystemPrompt(system);
  // A move told in the question itself is where the user lives now, before any saved home.
  const moved = movedTo(question);
  const facts = [...(moved ? [`Lives in ${moved}`] : []), ...readRecallBlock(memory)];
  const today = date ? new Date(`${date}T12:00:00Z`).getUTCDay() : null;
  return { question, offered, done, history, today, minute, facts, switchedOff: switchedOffIn(system) };
}
