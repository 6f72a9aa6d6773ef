/**
 * One chat turn as a stream of client events. The turn binds its user's memory once (none for an
 * anonymous or canned turn), plans, prepares (tools, recall, prompt), then runs
 * deliver(verify(execute(prepared))). Both chat routes consume this one generator: the JSON route drains
 * it, the stream route frames it as SSE. A refusal (moderation, flagrant injection) is a canned turn
 * through the same verify and deliver stages, with no model call, no tools and no map. The whole turn
 * runs under one signal: the client's, the turn deadline (TURN_TIMEOUT_MS) and the service's shutdown.
 */
import { unmeteredBudget, type Admission, type Refusal, type TurnBudget } from '../admission/admission.js';
import type { AnswerNotes } from '../guards/answer-notes.js';
import { detectFlagrantInjection, INJECTION_REFUSAL } from '../guards/injection.js';
import { noUserMemory, type TurnMemory, type UserMemory } from '../memory/turn-memory.js';
import { reservationTokens } from '../model/estimate-usage.js';
import { ModelNotConfiguredError } from '../model/gateway-errors.js';
import type { ModelGateway } from '../model/gateway.js';
import type { TurnRequest } from '../request/chat-request.js';
import type { LeakPolicy } from '../security/leak-policy.js';
import { errorType, noSpan, type Telemetry, type TraceSpan } from '../telemetry/telemetry.js';
import { isClientEvent, type ClientEvent, type TurnEvent } from './events.js';
import { prepareTurn, type PrepareDeps, type PreparedTurn } from './prepare.js';
import type { TurnContext, TurnOutcome } from './stage.js';
import { createDeliverStage } from './stages/deliver.js';
import { createExecute } from './stages/execute.js';
import { planTurn, type Plan } from './stages/plan.js';
import { createVerifyStage } from './stages/verify.js';
import { TurnTimeoutError } from './turn-errors.js';

export interface TurnRunnerDeps extends PrepareDeps {
  gateway: ModelGateway | null;
  turnMemory: TurnMemory;
  admission: Pick<Admission, 'reviewAnswer' | 'notePromptSize'>;
  leaks: LeakPolicy;
  telemetry: Telemetry;
}

export interface RunOptions {
  /** Aborted when the client goes away (or the service stops); ends the turn and the upstream calls. */
  signal: AbortSignal;
  requestId: string;
  /** The admission's moderation refusal, when the message was stopped. */
  refusal?: Refusal | null;
  /** The turn's reservation from admission; released here when the turn ends, however it ends. */
  budget?: TurnBudget;
  /** Filled as the turn runs (tokens used, answer cut); a fresh one when the caller does not read it. */
  outcome?: TurnOutcome;
  /** The turn's span: planning, preparation, the stages, model passes and tool calls are its children. */
  span?: TraceSpan;
  /** Sees every client event before it is yielded (one call per event; no generator between). */
  observe?: (e: ClientEvent) => void;
  /** Runs once when the turn's events end, however the consumer stops (end, return, throw). */
  onEnd?: () => void;
}

/** A canned turn binds nothing. */
const CANNED_PLAN: Plan = { groups: [], ungroupedTools: false, showMap: false, conversational: true, genEds: false, recallMemory: false, memoryTools: false };

async function* failing(err: unknown): AsyncGenerator<TurnEvent> {
  throw err;
}

/** A stage's events under a span that ends with them (only when the span records: no extra hop otherwise). */
function within(span: TraceSpan, events: AsyncGenerator<TurnEvent>): AsyncGenerator<TurnEvent> {
  if (!span.recording) return events;
  return (async function* () {
    try {
      yield* events;
    } catch (err) {
      span.fail(errorType(err));
      throw err;
    } finally {
      span.end();
    }
  })();
}

async function* cannedText(text: string): AsyncGenerator<TurnEvent> {
  yield { type: 'text', text };
}

/** Builds the turn runner once; `run` starts one turn. */
export function createTurnRunner(deps: TurnRunnerDeps) {
  const { config, logger } = deps;
  const verify = createVerifyStage({ leaks: deps.leaks });
  const execute = deps.gateway
    ? createExecute({
        gateway: deps.gateway,
        logger,
        maxOutputTokens: config.budget.maxOutputTokens,
        maxAnswerChars: config.maxAnswerChars,
        leaks: deps.leaks,
      })
    : null;

  /** Runs one turn; yields client events only, ending with `done` or `error`. */
  async function* run(request: TurnRequest, options: RunOptions): AsyncGenerator<ClientEvent> {
    const injection = !options.refusal && detectFlagrantInjection(request.query);
    const canned: { text: string; reason: NonNullable<AnswerNotes['refused']> } | null =
      options.refusal ?? (injection ? { text: INJECTION_REFUSAL, reason: 'injection' } : null);
    const span = options.span ?? noSpan;
    // Every line the turn writes carries its request id (and, with tracing on, its trace and span ids).
    const log = logger.child({ request_id: options.requestId });
    // The one place a turn's user is decided: anonymous and canned turns have no memory.
    const memory: UserMemory =
      canned || request.userId === null ? noUserMemory : deps.turnMemory.forUser(request.userId, { logger: log, span });
    const planSpan = span.child('plan');
    const plan = canned ? CANNED_PLAN : planTurn(request, memory);
    planSpan.set({ 'campus.plan.groups': plan.groups, 'campus.plan.recall_memory': plan.recallMemory, 'campus.plan.canned': canned !== null });
    planSpan.end();

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new TurnTimeoutError()), config.turnTimeoutMs);
    const signal = AbortSignal.any([options.signal, deadline.signal]);
    /** The answer of a good turn (`done`), for memory extraction once the turn has ended. */
    let answered: string | null = null;
    const deliver = createDeliverStage({ admission: deps.admission, logger: log, leaks: deps.leaks, ...(canned && { refused: canned.reason }) });

    try {
      // Prepared before the stages are composed, so verify sees the final system prompt; a failure here
      // still leaves through deliver as the turn's `error` event.
      let prepared: PreparedTurn | null = null;
      let failure: { err: unknown } | null = null;
      if (!canned) {
        try {
          if (!execute) throw new ModelNotConfiguredError();
          prepared = await prepareTurn({ ...deps, logger: log }, { request, plan, memory, signal, span });
          // Admission holds a first pass before the prompt exists: it learns how large prompts are.
          deps.admission.notePromptSize(
            reservationTokens(prepared.messages[0]) + reservationTokens(prepared.toolbox.definitions),
          );
        } catch (err) {
          failure = { err };
        }
      }
      const ctx: TurnContext = {
        request,
        plan,
        signal,
        requestId: options.requestId,
        systemPrompt: prepared?.systemPrompt ?? '',
        budget: options.budget ?? unmeteredBudget,
        outcome: options.outcome ?? { promptTokens: 0, completionTokens: 0, cut: false },
        span,
        metrics: deps.telemetry.metrics,
      };
      const source = failure ? failing(failure.err) : canned ? cannedText(canned.text) : execute!(prepared!, ctx);
      const verified = within(span.child('verify'), verify(source, ctx));

      for await (const e of within(span.child('deliver'), deliver(verified, ctx))) {
        if (!isClientEvent(e)) continue;
        if (e.type === 'done') answered = e.response.response_text;
        options.observe?.(e);
        yield e;
      }
    } finally {
      clearTimeout(timer);
      try {
        // After the stages closed (their passes are settled): what is still reserved goes back.
        await options.budget?.release();
      } finally {
        // Memory extraction after the turn's hold went back, so its own reservation sees the day's real
        // room (in process it reserves at once: a user near the limit lost the fact). This runs however
        // the consumer stops, so one that stops right after `done` does not skip it; it never throws.
        if (answered !== null) memory.afterTurn({ query: request.query, history: request.history, answer: answered });
        options.onEnd?.();
      }
    }
  }

  return { run };
}

export type TurnRunner = ReturnType<typeof createTurnRunner>;
