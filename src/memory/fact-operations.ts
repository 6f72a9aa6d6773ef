/**
 * Facts that supersede each other. Background extraction and the remember tool show the model the
 * user's relevant stored facts under short ids (`f1`, `f2`, … — local to one call) and ask, in JSON mode,
 * for operations: add a fact, update a known id with new text, delete a known id the conversation
 * contradicts. This module owns that grammar: the prompt text describing it, parsing (zod; a bare array
 * or fenced JSON from a model that ignores JSON mode is accepted), and applying it to one user's facts.
 *
 * Ids the model writes are only ever looked up among the facts it was shown, which are this user's: an
 * invented id, a real id of another user's fact or a malformed operation is refused and counted, never
 * acted on. Every count is loggable; no text is.
 */
import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { ModelGateway } from '../model/gateway.js';
import { meteredComplete, type ReserveCall } from '../model/metered-call.js';
import type { TraceSpan } from '../telemetry/telemetry.js';
import type { LeakPolicy } from '../security/leak-policy.js';
import { embedOrNull, type Embedder } from './embeddings.js';
import { admitFact } from './fact-guard.js';
import type { Fact, FactKind, FactSource, MemoryStore } from './store.js';

/** At most this many operations from one answer: a turn rarely changes more, and a flood is a bad answer. */
export const MAX_OPERATIONS = 5;

const Operation = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), text: z.string() }),
  z.object({ op: z.literal('update'), id: z.string(), text: z.string() }),
  z.object({ op: z.literal('delete'), id: z.string() }),
]);
export type FactOperation = z.infer<typeof Operation>;

/** How the operations are asked for; both prompts end with it. */
export const OPERATIONS_GRAMMAR = [
  'Answer with JSON only: {"operations": [...]}, at most ' + MAX_OPERATIONS + ' operations, each one of:',
  '  {"op": "add", "text": "<a new fact>"}',
  '  {"op": "update", "id": "<id of a known fact>", "text": "<the fact as it is true now>"}  (the fact changed: moved, switched major)',
  '  {"op": "delete", "id": "<id of a known fact>"}  (the fact is no longer true and nothing replaces it)',
  'Use only ids from the known facts. Write each fact as a short third-person statement without a name, in',
  'the user\'s own terms, e.g. "Is vegetarian", "Lives in Morewood Gardens". {"operations": []} when nothing changes.',
].join('\n');

/** What a model answer held: the valid operations, and how many entries were not operations. */
export interface ParsedOperations {
  operations: FactOperation[];
  malformed: number;
  /** Valid operations past MAX_OPERATIONS, dropped. */
  excess: number;
}

const FENCED = /```(?:json)?\s*([\s\S]*?)\s*```/i;

/**
 * Parses `{"operations": [...]}`, a bare array of operations, or either inside a Markdown code fence.
 * Null when the answer is not such JSON at all; entries that are not operations are counted in
 * `malformed`, and the valid ones are still used.
 */
export function parseOperations(answer: string): ParsedOperations | null {
  const body = (FENCED.exec(answer)?.[1] ?? answer).trim();
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  const entries = Array.isArray(json)
    ? json
    : json !== null && typeof json === 'object' && Array.isArray((json as { operations?: unknown }).operations)
      ? (json as { operations: unknown[] }).operations
      : null;
  if (entries === null) return null;
  const operations: FactOperation[] = [];
  let malformed = 0;
  let excess = 0;
  for (const entry of entries) {
    const parsed = Operation.safeParse(entry);
    if (!parsed.success) malformed++;
    else if (operations.length === MAX_OPERATIONS) excess++;
    else operations.push(parsed.data);
  }
  return { operations, malformed, excess };
}

/** The facts shown to the model under short ids; an id outside this table names nothing. */
export class ShownFacts {
  private readonly byRef = new Map<string, Fact>();

  constructor(readonly facts: readonly Fact[]) {
    facts.forEach((f, i) => this.byRef.set(`f${i + 1}`, f));
  }

  /** `f1: Lives in Mudge House` lines, or `(none)`. */
  lines(): string {
    if (this.facts.length === 0) return '(none)';
    return [...this.byRef].map(([ref, f]) => `${ref}: ${f.text}`).join('\n');
  }

  /** The fact a model-written id names: `f3`, `F3` or `3`; undefined for anything else. */
  resolve(id: string): Fact | undefined {
    const ref = id.trim().toLowerCase();
    return this.byRef.get(/^\d+$/.test(ref) ? `f${ref}` : ref);
  }
}

/** Counts of one application; every field is safe to log. */
export interface OperationCounts {
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  refused_malformed: number;
  refused_unknown_id: number;
  refused_secret: number;
  /** Texts that repeated the service's instructions (fact-guard.ts). */
  refused_prompt: number;
  refused_conflict: number;
}

export interface AppliedOperations {
  counts: OperationCounts;
  /** Facts created or rewritten (after the change), for `memory` events. */
  written: Fact[];
  /** Facts deleted (as they were), for `memory` events. */
  deleted: Fact[];
}

export interface ApplyDeps {
  store: MemoryStore;
  embedder: Embedder | null;
  leaks: LeakPolicy;
  logger: Logger;
}

export interface ApplyContext {
  userId: string;
  source: Extract<FactSource, 'extraction' | 'remember'>;
  /** Kind of added facts; `remembered` also promotes updated ones (the user asked). */
  kind: FactKind;
  shown: ShownFacts;
  /** Longest text kept from the model; longer texts are cut by the store's cleaning rules. */
  maxLength: number;
  signal?: AbortSignal;
}

const emptyCounts = (): OperationCounts => ({
  added: 0,
  updated: 0,
  deleted: 0,
  unchanged: 0,
  refused_malformed: 0,
  refused_unknown_id: 0,
  refused_secret: 0,
  refused_prompt: 0,
  refused_conflict: 0,
});

/** An operation ready for the store: its text admitted (admitFact: cleaned, worded, guarded), its target one of the shown facts. */
export type PlannedOperation =
  | { op: 'add'; text: string }
  | { op: 'update'; target: Fact; text: string }
  | { op: 'delete'; target: Fact };

/**
 * Applies a model's operations to the user's facts in order. One operation per known fact (a second one
 * on the same id is refused as malformed); each text is admitted once (fact-guard.ts) before it is
 * embedded or stored. Throws only when the store fails.
 */
export async function applyOperations(deps: ApplyDeps, ctx: ApplyContext, parsed: ParsedOperations): Promise<AppliedOperations> {
  const counts = emptyCounts();
  counts.refused_malformed = parsed.malformed + parsed.excess;
  const planned: PlannedOperation[] = [];
  const touched = new Set<string>();
  for (const op of parsed.operations) {
    let target: Fact | undefined;
    if (op.op !== 'add') {
      target = ctx.shown.resolve(op.id);
      if (!target || target.userId !== ctx.userId) {
        counts.refused_unknown_id++;
        continue;
      }
      if (touched.has(target.id)) {
        counts.refused_malformed++;
        continue;
      }
      touched.add(target.id);
    }
    if (op.op === 'delete') {
      planned.push({ op: 'delete', target: target! });
      continue;
    }
    const admitted = admitFact(op.text.slice(0, ctx.maxLength), deps.leaks);
    if (!admitted.ok) {
      if (admitted.reason === 'secret') counts.refused_secret++;
      else if (admitted.reason === 'prompt') counts.refused_prompt++;
      else counts.refused_malformed++;
      continue;
    }
    planned.push(op.op === 'add' ? { op: 'add', text: admitted.text } : { op: 'update', target: target!, text: admitted.text });
  }
  return applyPlanned(deps, ctx, planned, counts);
}

/**
 * Applies operations whose texts were already admitted (the remember tool's own fact, admitted where
 * the tool can tell the model why it was refused), embedding the texts in one call. Throws only when
 * the store fails.
 */
export async function applyPlanned(deps: ApplyDeps, ctx: ApplyContext, planned: readonly PlannedOperation[], counts = emptyCounts()): Promise<AppliedOperations> {
  const texts = planned.flatMap((p) => (p.op === 'delete' ? [] : [p.text]));
  const vectors = await embedOrNull(
    deps.embedder,
    texts,
    (err) => deps.logger.warn('memory: embedding failed; storing without vectors', { err }),
    ctx.signal,
  );
  const written: Fact[] = [];
  const deleted: Fact[] = [];
  let v = 0;
  for (const p of planned) {
    if (p.op === 'delete') {
      const removed = await deps.store.remove(ctx.userId, [p.target.id]);
      counts.deleted += removed.length;
      deleted.push(...removed);
      continue;
    }
    const embedding = vectors[v++] ?? null;
    if (p.op === 'add') {
      const result = await deps.store.add({ userId: ctx.userId, kind: ctx.kind, text: p.text, embedding, source: ctx.source });
      if (result.status === 'unchanged') counts.unchanged++;
      else {
        counts[result.status === 'created' ? 'added' : 'updated']++;
        written.push(result.fact);
      }
      continue;
    }
    const result = await deps.store.update(ctx.userId, p.target.id, {
      text: p.text,
      embedding,
      source: ctx.source,
      ...(ctx.kind === 'remembered' && { kind: 'remembered' as const }),
    });
    if (result === null) counts.refused_unknown_id++; // removed since it was shown
    else if (result.status === 'conflict') counts.refused_conflict++;
    else if (result.status === 'unchanged') counts.unchanged++;
    else {
      counts.updated++;
      written.push(result.fact);
    }
  }
  return { counts, written, deleted };
}

export interface AskDeps {
  gateway: ModelGateway;
  /** MEMORY_EXTRACTION_MODEL. */
  model: string;
  /** Reserves the call from the user's daily budget before it is sent (Admission.reserveCall). */
  reserve?: ReserveCall | undefined;
}

/**
 * One JSON-mode call for operations, paid from the user's budget; the raw answer, or a thrown gateway
 * error (CallNotAdmittedError when the budget cannot cover it).
 */
export async function askForOperations(
  deps: AskDeps,
  request: { userId: string; system: string; user: string; signal: AbortSignal; span?: TraceSpan },
): Promise<string> {
  const { text } = await meteredComplete(deps.gateway, {
    model: deps.model,
    messages: [
      { role: 'system', content: request.system },
      { role: 'user', content: request.user },
    ],
    json: true,
    temperature: 0,
    maxTokens: 400,
    signal: request.signal,
    ...(request.span && { span: request.span }),
  }, { userId: request.userId, purpose: 'extraction', reserve: deps.reserve });
  return text;
}
