/**
 * Helpers for the verify-stage tests: a turn context, and running the stage over an array of events
 * (arrays in, arrays out). Not a test file itself (no `.test.` in the name).
 */
import { createVerifyStage, type VerifyOptions } from '../../src/pipeline/stages/verify.js';
import type { TurnContext } from '../../src/pipeline/stage.js';
import type { AnswerNotes } from '../../src/guards/answer-notes.js';
import type { CmuMaps } from '../../src/campus/cmu-maps.js';
import type { Plan } from '../../src/pipeline/stages/plan.js';
import type { TurnEvent } from '../../src/pipeline/events.js';
import type { ToolOutcome } from '../../src/pipeline/toolbox.js';
import { baseLeakPolicy } from '../../src/security/leak-policy.js';
import { unmeteredBudget } from '../../src/admission/admission.js';
import { noSpan, noTelemetry } from '../../src/telemetry/telemetry.js';
import { loadCatalog } from '../../src/campus/catalog.js';
import { parseConfig } from '../../src/config.js';
import { createEvidence } from '../../src/guards/grounding/evidence.js';
import { createTurnGrounding, type GroundingStream } from '../../src/guards/grounding/index.js';
import type { LeakPolicy } from '../../src/security/leak-policy.js';

/** The campus defaults of the configuration (the configured phone numbers). */
export const CAMPUS = parseConfig({ AGENT_ENV: 'test' }).campus;

/** The built-in catalog, loaded once for the verify tests. */
export const CATALOG = loadCatalog(null);

/** Verify options as the service builds them (the built-in catalog, the default configured phone numbers). */
export function verifyOptions(options: { leaks: LeakPolicy } & Partial<VerifyOptions>): VerifyOptions {
  return { catalog: CATALOG, serviceFacts: [CAMPUS.counselingPhone, CAMPUS.policePhone], maxAnswerChars: 20_000, mapBaseUrl: CAMPUS.mapBaseUrl, ...options };
}

/** A grounding stream over `evidence` texts (the answer stream's own tests and benches). */
export function groundingOver(...evidence: string[]): GroundingStream {
  const e = createEvidence(CATALOG);
  for (const text of evidence) e.addText(text);
  return createTurnGrounding({ catalog: CATALOG, evidence: e, today: null });
}

export const PLAN: Plan = {
  groups: ['maps', 'courses', 'eats', 'guide'],
  ungroupedTools: true,
  genEds: false,
  showMap: true,
  conversational: false,
  recallMemory: false,
  memoryTools: false,
};

export function makeCtx(overrides: { query?: string; systemPrompt?: string; plan?: Partial<Plan>; disabled?: TurnContext['request']['disabledGroups'] } = {}): TurnContext {
  return {
    request: {
      query: overrides.query ?? 'where is wean hall?',
      userId: null,
      history: [],
      model: 'openai/gpt-4o-mini',
      disabledGroups: overrides.disabled ?? [],
    },
    plan: { ...PLAN, ...overrides.plan },
    signal: new AbortController().signal,
    requestId: 'req-test',
    systemPrompt: overrides.systemPrompt ?? 'You are the campus assistant.',
    budget: unmeteredBudget,
    outcome: { promptTokens: 0, completionTokens: 0, cut: false },
    span: noSpan,
    metrics: noTelemetry.metrics,
  };
}

async function* fromArray(events: TurnEvent[]): AsyncGenerator<TurnEvent> {
  for (const e of events) yield e;
}

export interface VerifyRun {
  out: TurnEvent[];
  deltas: string;
  answer: { text: string; map: CmuMaps; notes: AnswerNotes; grounding: { checked: number; unverified: number } } | null;
  maps: CmuMaps[];
}

/** Runs the verify stage over `events` and collects what it emits. */
export async function runVerify(
  events: TurnEvent[],
  ctx: TurnContext = makeCtx(),
  options: { leaks: LeakPolicy } & Partial<VerifyOptions> = { leaks: baseLeakPolicy },
): Promise<VerifyRun> {
  const out: TurnEvent[] = [];
  for await (const e of createVerifyStage(verifyOptions(options))(fromArray(events), ctx)) out.push(e);
  const last = out.at(-1);
  return {
    out,
    deltas: out.map((e) => (e.type === 'delta' ? e.text : '')).join(''),
    answer: last?.type === 'answer' ? { text: last.text, map: last.map, notes: last.notes, grounding: last.grounding } : null,
    maps: out.flatMap((e) => (e.type === 'map' ? [e.map] : [])),
  };
}

/** Text events for `text` cut at the given offsets. */
export function chunks(text: string, cuts: number[]): TurnEvent[] {
  const out: TurnEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    if (cut > from) out.push({ type: 'text', text: text.slice(from, cut) });
    from = Math.max(from, cut);
  }
  return out;
}

/** Text events of `size` characters each. */
export function everyN(text: string, size: number): TurnEvent[] {
  const cuts: number[] = [];
  for (let i = size; i < text.length; i += size) cuts.push(i);
  return chunks(text, cuts);
}

/** A tool event; `result` is what the tool returned (the turn's evidence). */
export function toolEvent(name: string, kind: ToolOutcome['kind'] = 'campus', ok = true, result?: string): TurnEvent {
  const group = kind === 'campus' ? ((name.split('_')[0] as ToolOutcome['group']) ?? null) : null;
  return { type: 'tool', outcome: { name, kind, group, ok, empty: false }, ...(result !== undefined && { result }) };
}
