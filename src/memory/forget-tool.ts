/**
 * `memory_forget` (args `{query?, all?, confirm?}`): removes the user's facts that match. It removes a
 * single clear match at once; asks for confirmation (the model calls again with `confirm: true`) before
 * removing several; refuses to guess between two close semantic matches; `all` forgets everything
 * (confirmation first when there is more than one fact). Each removal emits a `memory` remove event.
 */
import { z } from 'zod';
import type { MemoryEvent } from './memory-event.js';
import { toolParameters, type LocalTool, type LocalToolResult } from '../tools/local-tool.js';
import { embedOrNull } from './embeddings.js';
import { normalizeFactText } from './fact-text.js';
import type { MemoryToolDeps } from './remember-tool.js';
import type { Fact } from './store.js';
import { MAX_PAGE_LIMIT } from './store-rules.js';

export const FORGET_TOOL_NAME = 'memory_forget';

/** A semantic match this close to the request is taken to mean the same fact. */
export const FORGET_MIN_SIMILARITY = 0.75;
/** Two semantic matches within this margin are too close to choose between. */
export const FORGET_AMBIGUITY_MARGIN = 0.05;
/** How many candidates a confirmation question lists. */
const MAX_LISTED = 10;

export const forgetArgs = z
  .object({
    query: z.string().trim().min(1).max(500).optional().describe('Words of the fact to forget.'),
    all: z.boolean().optional().describe('Forget every saved fact.'),
    confirm: z.boolean().optional().describe('The user confirmed removing several facts.'),
  });
// JSON Schema cannot say "one of the two" plainly; the description does, and this refinement checks it.
const Args = forgetArgs.refine((a) => a.all === true || a.query !== undefined, 'pass a query, or all: true');

const listed = (facts: readonly Fact[]) =>
  facts
    .slice(0, MAX_LISTED)
    .map((f) => `- "${f.text}"`)
    .join('\n');

const removeEvent = (text: string): MemoryEvent => ({ type: 'memory', data: { op: 'remove', text } });

/** Openings of this tool's results, written here and read by `forgetOutcome`. */
const FORGOT = 'Forgot ';
const NOTHING = 'Nothing ';
const ASKING = 'Not removed yet: ';

/** What a result of this tool says happened. For the offline model, which reads results by rule. */
export function forgetOutcome(content: string): 'forgot' | 'nothing' | 'ask' | 'failed' {
  if (content.startsWith(FORGOT)) return 'forgot';
  if (content.startsWith(NOTHING)) return 'nothing';
  return content.startsWith(ASKING) ? 'ask' : 'failed';
}

/** The forget tool bound to one user. */
export function createForgetTool(userId: string, deps: MemoryToolDeps): LocalTool<MemoryEvent> {
  const { store } = deps;

  /** Every fact of the user (at most MAX_FACTS_PER_USER, so a few pages). */
  const allFacts = async (id: string): Promise<Fact[]> => {
    const out: Fact[] = [];
    for (let offset = 0; ; offset += MAX_PAGE_LIMIT) {
      const page = await store.list(id, { limit: MAX_PAGE_LIMIT, offset });
      out.push(...page.items);
      if (page.items.length < MAX_PAGE_LIMIT || out.length >= page.total) return out;
    }
  };

  const removeFacts = async (facts: readonly Fact[]): Promise<LocalToolResult<MemoryEvent>> => {
    const removed = await store.remove(userId, facts.map((f) => f.id));
    if (removed.length === 0) return { content: `${NOTHING}was removed: those facts were already gone.` };
    const texts = removed.map((f) => f.text);
    return {
      content: `${FORGOT}${removed.length === 1 ? 'this fact' : `${removed.length} facts`}:\n${listed(removed)}`,
      events: [removeEvent(`Forgot: ${texts.join('; ')}`)],
    };
  };

  const forgetAll = async (confirm: boolean): Promise<LocalToolResult<MemoryEvent>> => {
    const count = await store.count(userId);
    if (count === 0) return { content: `${NOTHING}to forget: memory is already empty.` };
    if (count > 1 && !confirm) {
      return {
        content:
          `${ASKING}this would forget all ${count} saved facts. Ask the user to confirm; if they do, ` +
          'call memory_forget again with {"all": true, "confirm": true}.',
      };
    }
    const removed = await store.clear(userId);
    return {
      content: `${FORGOT}everything: ${removed} fact${removed === 1 ? '' : 's'} removed.`,
      events: [removeEvent(`Forgot: everything (${removed} fact${removed === 1 ? '' : 's'})`)],
    };
  };

  const forgetMatching = async (query: string, confirm: boolean, signal: AbortSignal): Promise<LocalToolResult<MemoryEvent>> => {
    const wanted = normalizeFactText(query);
    const textual = wanted
      ? (await allFacts(userId)).filter((f) => normalizeFactText(f.text).includes(wanted))
      : [];
    const exact = textual.find((f) => normalizeFactText(f.text) === wanted);
    if (exact) return removeFacts([exact]);
    if (textual.length === 1) return removeFacts(textual);
    if (textual.length > 1) {
      if (confirm) return removeFacts(textual);
      return {
        content:
          `${ASKING}${textual.length} saved facts match:\n${listed(textual)}\nAsk the user whether to forget ` +
          'all of them (then call memory_forget again with the same query and "confirm": true) or which one.',
      };
    }

    const [vector] = await embedOrNull(
      deps.embedder,
      [query],
      (err) => deps.logger.warn('memory_forget: embedding failed; matching by text only', { err }),
      signal,
    );
    const semantic = vector ? (await store.search(userId, vector, 3)).filter((f) => f.similarity >= FORGET_MIN_SIMILARITY) : [];
    if (semantic.length === 0) return { content: `${NOTHING}was removed: no saved fact matches that.` };
    const [best, second] = semantic;
    if (second && best!.similarity - second.similarity < FORGET_AMBIGUITY_MARGIN) {
      return {
        content:
          `${ASKING}several saved facts match about equally well:\n${listed(semantic)}\n` +
          'Ask the user which one to forget, and call memory_forget with its exact text.',
      };
    }
    return removeFacts([best!]);
  };

  return {
    name: FORGET_TOOL_NAME,
    kind: 'memory',
    description:
      'Forget saved facts about the user when they ask. {"query": "<what to forget>"} removes the matching ' +
      'fact; {"all": true} forgets everything. When several facts match, or for everything, the tool asks ' +
      'for confirmation first: ask the user, then call again with "confirm": true.',
    parameters: toolParameters(forgetArgs),
    async run(args, ctx) {
      const parsed = Args.safeParse(args ?? {});
      if (!parsed.success) {
        return { content: 'Nothing removed: pass {"query": "<what to forget>"} or {"all": true}.' };
      }
      const { query, all, confirm = false } = parsed.data;
      try {
        return all ? await forgetAll(confirm) : await forgetMatching(query!, confirm, ctx.signal);
      } catch (err) {
        deps.logger.error('memory_forget failed', { err });
        return { content: 'Memory is unavailable right now; nothing was removed. Tell the user so.' };
      }
    },
  };
}
