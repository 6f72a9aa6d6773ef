/**
 * A chat turn, from its admission to its last event, as one object that owns what it holds: its
 * controller (the client's disconnect, the deadline and the service's shutdown all abort it), its
 * in-flight slot, its budget reservation, its span and its metrics. Everything it took is given back in
 * one ordered `close`, however the turn ends: refused at the door, answered, failed, abandoned by its
 * client, or never read at all. Every chat encoding (the agent routes' JSON and SSE, the OpenAI-compatible
 * route) starts turns here and only encodes their events.
 *
 * Admission, in CONTRACT.md's order after the guard and validation: gateway configured (503) → overload
 * (503 + Retry-After) → turns in flight (429) → budget (429/503) and moderation. A refusal there throws
 * the AppError that `onError` answers before any stream starts. Moderation's verdict is not waited for
 * there: the turn prepares beside it and awaits it before the model is called (issue 46).
 *
 * The turn itself binds its user's memory once (none for an anonymous or canned turn), plans, prepares
 * (tools, recall, prompt), then runs deliver(verify(execute(prepared))). A refusal (moderation, flagrant
 * injection) is a canned turn through the same verify and deliver stages, with no model call, no tools
 * and no map.
 */
import { budgetBucket, type Admission, type AdmissionDecision } from '../admission/admission.js';
import type { Catalog } from '../campus/catalog.js';
import type { AnswerNotes } from '../guards/answer-notes.js';
import { detectFlagrantInjection, INJECTION_REFUSAL } from '../guards/injection.js';
import { AppError } from '../http/errors.js';
import type { OverloadGuard } from '../lifecycle/overload.js';
import type { TurnsInFlight } from '../lifecycle/turns-in-flight.js';
import { noUserMemory, type TurnMemory, type UserMemory } from '../memory/turn-memory.js';
import { reservationTokens } from '../model/estimate-usage.js';
import { ModelNotConfiguredError } from '../model/gateway-errors.js';
import type { ModelGateway } from '../model/gateway.js';
import type { TurnRequest } from '../request/chat-request.js';
import type { LeakPolicy } from '../security/leak-policy.js';
import {
  errorType,
  noRequestTrace,
  providerOf,
  spannedEvents,
  type RequestTrace,
  type Telemetry,
  type TraceSpan,
  type TurnOutcomeLabel,
} from '../telemetry/telemetry.js';
import type { AttachmentReader } from './attachments.js';
import { isClientEvent, type ClientEvent, type TurnEvent } from './events.js';
import { prepareTurn, type PrepareDeps } from './prepare.js';
import type { Stage, TurnContext, TurnOutcome } from './stage.js';
import { createDeliverStage } from './stages/deliver.js';
import { createExecute, type Execute } from './stages/execute.js';
import { planTurn, type Plan } from './stages/plan.js';
import { createVerifyStage } from './stages/verify.js';
import { TurnTimeoutError } from './turn-errors.js';

export interface TurnDeps extends PrepareDeps {
  /** The building catalog (grounding reads rooms against it). */
  catalog: Catalog;
  gateway: ModelGateway | null;
  turnMemory: TurnMemory;
  admission: Admission;
  leaks: LeakPolicy;
  telemetry: Telemetry;
  turns: TurnsInFlight;
  overload: OverloadGuard;
  /** Reads a turn's attachments for its model (pipeline/attachments.ts). */
  attachments: AttachmentReader;
}

/** Where a turn comes from: its request's signal (the client going away), id and trace. */
export interface TurnOrigin {
  signal: AbortSignal;
  requestId: string;
  trace?: RequestTrace;
}

/** How a turn ended: its tokens and cut (TurnOutcome) and the label its metrics and span carry. */
export interface TurnResult extends TurnOutcome {
  label: TurnOutcomeLabel;
}

export interface StartedTurn {
  /** The turn's client events, ending with `done` or `error`; the turn holds its resources until they end. */
  readonly events: AsyncGenerator<ClientEvent>;
  /**
   * Ends the turn (its client went away; with an AppError `reason`, the service ended it and the turn's
   * last event is that error); a turn whose events were never read releases at once.
   */
  abort(reason?: unknown): void;
  /**
   * Resolves once the answer is settled, before `done` is yielded (so an encoder reads it when `done`
   * arrives), or when the turn ended without one.
   */
  readonly outcome: Promise<TurnResult>;
}

/** A canned turn binds nothing. */
const CANNED_PLAN: Plan = { groups: [], ungroupedTools: false, showMap: false, conversational: true, genEds: false, recallMemory: false, memoryTools: false };

/** Where the turn's text comes from: the model, a canned refusal, or a preparation that failed. */
type Source =
  | { kind: 'model'; run: Execute; prepared: Awaited<ReturnType<typeof prepareTurn>> }
  | { kind: 'canned'; text: string; reason: NonNullable<AnswerNotes['refused']> }
  | { kind: 'failed'; err: unknown };

async function* cannedText(text: string): AsyncGenerator<TurnEvent> {
  yield { type: 'text', text };
}

async function* failing(err: unknown): AsyncGenerator<TurnEvent> {
  throw err;
}

/** The source's own generator: the model's is handed to verify as it is (no wrapper on the per-delta path). */
function sourceEvents(source: Source, ctx: TurnContext): AsyncGenerator<TurnEvent> {
  switch (source.kind) {
    case 'model':
      return source.run(source.prepared, ctx);
    case 'canned':
      return cannedText(source.text);
    case 'failed':
      return failing(source.err);
  }
}

/** What every turn of a starter shares: the app's parts and the verify stage built once. */
interface TurnHost {
  deps: TurnDeps;
  verify: Stage;
}

/** One admitted (or refused) request: what it holds, released once by `close`. */
class Turn implements StartedTurn {
  readonly events: AsyncGenerator<ClientEvent>;
  readonly outcome: Promise<TurnResult>;
  private readonly controller = new AbortController();
  private readonly startedAt = performance.now();
  private readonly span: TraceSpan;
  private readonly releaseTrace: () => void;
  private readonly onClientAbort = () => this.controller.abort();
  private deadline: ReturnType<typeof setTimeout> | null = null;
  private finishInFlight: (() => void) | null = null;
  private decision: AdmissionDecision | null = null;
  /** Tokens and cut, added to by execute's passes (through the context). */
  private readonly tally: TurnOutcome = { promptTokens: 0, completionTokens: 0, cut: false };
  private label: TurnOutcomeLabel = 'aborted';
  private firstDeltaAt: number | null = null;
  /** The answer of a good turn (`done`), for memory extraction once the turn's hold went back. */
  private answered: { memory: UserMemory; text: string } | null = null;
  private reading = false;
  private closed = false;
  private readonly request: TurnRequest;
  private readonly origin: TurnOrigin;
  private readonly settle: (result: TurnResult) => void;

  private readonly execute: Execute;

  private get deps(): TurnDeps {
    return this.host.deps;
  }

  private get metrics() {
    return this.host.deps.telemetry.metrics;
  }

  constructor(
    private readonly host: TurnHost,
    request: TurnRequest,
    origin: TurnOrigin,
    execute: Execute,
  ) {
    this.request = request;
    this.execute = execute;
    this.origin = origin;
    let settle: (result: TurnResult) => void = () => undefined;
    this.outcome = new Promise((resolve) => (settle = resolve));
    this.settle = settle;
    const trace = origin.trace ?? noRequestTrace;
    // The turn's span (GenAI `invoke_agent`); the request's server span stays open until the turn ends.
    this.span = trace.span.child('invoke_agent campus-assistant', {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'campus-assistant',
      'gen_ai.provider.name': providerOf(request.model),
      'gen_ai.request.model': request.model,
      'campus.user.hash': request.userId !== null && trace.span.recording ? this.deps.telemetry.userHash(request.userId) : undefined,
      'campus.history.turns': request.history.length,
    });
    this.releaseTrace = trace.hold();
    if (origin.signal.aborted) this.controller.abort();
    origin.signal.addEventListener('abort', this.onClientAbort, { once: true });
    this.events = this.run();
  }

  abort(reason?: unknown): void {
    this.controller.abort(reason);
    // A generator never started runs no `finally`: what it holds is released here instead.
    if (!this.reading) void this.close();
  }

  /** Takes the in-flight slot and the admission's decision; on a refusal, releases and throws. */
  async admit(): Promise<void> {
    /** A refusal at the door: counted by its reason, the turn's span failed, everything released. */
    const refuse = async (err: unknown) => {
      const reason = err instanceof AppError ? err.refusal : null;
      if (reason) this.metrics.refusal(reason);
      this.span.fail(errorType(err));
      await this.close();
      return err;
    };
    try {
      // Counted from here to the turn's last event; a user at the cap is answered 429 before the budget.
      this.finishInFlight = this.deps.turns.start(budgetBucket(this.request), this.controller);
    } catch (err) {
      throw await refuse(err);
    }
    const admission = this.span.child('admission');
    try {
      this.decision = await this.deps.admission.admit(this.request, this.controller.signal, admission);
      admission.end();
    } catch (err) {
      admission.fail(errorType(err));
      admission.end();
      // A refusal carries its reason (the budget, the service-wide spending cap); a failing store does not.
      throw await refuse(err);
    }
    this.metrics.turnStarted();
    // Past the deadline the turn ends, read or not (a route that never read its events holds nothing after it).
    this.deadline = setTimeout(() => this.abort(new TurnTimeoutError()), this.deps.config.turnTimeoutMs);
  }

  /** The turn's client events; one generator from the stages to the route (no wrapper on the delta path). */
  private async *run(): AsyncGenerator<ClientEvent> {
    this.reading = true;
    try {
      if (this.closed || !this.decision) return;
      const { request } = this;
      const injection = detectFlagrantInjection(request.query);
      const signal = this.controller.signal;
      const span = this.span;
      // Every line the turn writes carries its request id (and, with tracing on, its trace and span ids).
      const log = this.deps.logger.child({ request_id: this.origin.requestId });
      // The one place a turn's user is decided: anonymous and canned turns have no memory.
      let memory: UserMemory = injection || request.userId === null ? noUserMemory : this.deps.turnMemory.forUser(request.userId, { logger: log, span });
      const planSpan = span.child('plan');
      let plan = injection ? CANNED_PLAN : planTurn(request, memory);
      planSpan.set({ 'campus.plan.groups': plan.groups, 'campus.plan.recall_memory': plan.recallMemory });
      planSpan.end();

      // Prepared (tools, recall, prompt) while moderation decides; a failure here still leaves through
      // deliver as the turn's `error` event. Nothing reaches the model before the verdict.
      const preparing: Promise<Source> | null = injection
        ? null
        : prepareTurn({ ...this.deps, logger: log }, { request, plan, memory, signal, span }).then(
            (prepared): Source => {
              // Admission holds a first pass before the prompt exists: it learns how large prompts are.
              this.deps.admission.notePromptSize(reservationTokens(prepared.messages[0]) + reservationTokens(prepared.toolbox.definitions));
              return { kind: 'model', run: this.execute, prepared };
            },
            (err: unknown): Source => ({ kind: 'failed', err }),
          );
      const refusal = await this.decision.refusal;
      const canned = refusal ?? (injection ? { text: INJECTION_REFUSAL, reason: 'injection' as const } : null);
      if (refusal) {
        this.metrics.refusal('moderation');
        this.label = 'refused';
        // A stopped message binds nothing: no memory written from it, no tools, no map.
        memory = noUserMemory;
        plan = CANNED_PLAN;
      }
      span.set({ 'campus.plan.canned': canned !== null, 'campus.admission.refusal': refusal?.reason });
      const source: Source = canned ? { kind: 'canned', ...canned } : await preparing!;
      const ctx: TurnContext = {
        request,
        plan,
        signal,
        requestId: this.origin.requestId,
        systemPrompt: source.kind === 'model' ? source.prepared.systemPrompt : '',
        budget: this.decision.budget,
        outcome: this.tally,
        span,
        metrics: this.metrics,
      };
      const deliver = createDeliverStage({ admission: this.deps.admission, logger: log, leaks: this.deps.leaks, ...(canned && { refused: canned.reason }) });
      const verified = spannedEvents(span.child('verify'), this.host.verify(sourceEvents(source, ctx), ctx));

      for await (const e of spannedEvents(span.child('deliver'), deliver(verified, ctx))) {
        if (!isClientEvent(e)) continue;
        if (e.type === 'delta') {
          if (this.firstDeltaAt === null) this.firstDeltaAt = performance.now();
        } else if (e.type === 'done') {
          this.answered = { memory, text: e.response.response_text };
          if (this.label !== 'refused') this.label = 'completed';
          this.settle(this.result());
        } else if (e.type === 'error') this.label = 'failed';
        yield e;
      }
    } finally {
      await this.close();
    }
  }

  private result(): TurnResult {
    return { ...this.tally, label: this.label };
  }

  /**
   * The one release, in order: the deadline; the budget's unused reservation (after the stages closed,
   * so every pass is settled); memory extraction (after the hold went back, so its own reservation
   * sees the day's real room; it never throws); the in-flight slot; the metrics, span and trace hold;
   * the client's abort listener. Runs once; a refusal at the door runs it too.
   */
  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.deadline) clearTimeout(this.deadline);
    try {
      await this.decision?.budget.release();
    } finally {
      if (this.answered) {
        const { request } = this;
        this.answered.memory.afterTurn({ query: request.query, history: request.history, answer: this.answered.text });
      }
      this.finishInFlight?.();
      if (this.decision) {
        const now = performance.now();
        this.metrics.turnEnded({
          outcome: this.label,
          durationS: (now - this.startedAt) / 1000,
          firstDeltaS: this.firstDeltaAt === null ? null : (this.firstDeltaAt - this.startedAt) / 1000,
        });
        this.span.set({
          'campus.turn.outcome': this.label,
          'gen_ai.usage.input_tokens': this.tally.promptTokens,
          'gen_ai.usage.output_tokens': this.tally.completionTokens,
          'campus.answer.cut': this.tally.cut,
        });
        if (this.label === 'failed') this.span.fail('turn_error');
      }
      this.span.end();
      this.releaseTrace();
      this.origin.signal.removeEventListener('abort', this.onClientAbort);
      this.settle(this.result());
    }
  }
}

/** Builds the turn starter once; each call admits one request and returns the started turn. */
export function createTurnStarter(deps: TurnDeps) {
  const { config, telemetry } = deps;
  const metrics = telemetry.metrics;
  const verify = createVerifyStage({
    leaks: deps.leaks,
    catalog: deps.catalog,
    serviceFacts: [config.campus.counselingPhone, config.campus.policePhone],
    maxAnswerChars: config.maxAnswerChars,
    mapBaseUrl: config.campus.mapBaseUrl,
  });
  const execute = deps.gateway
    ? createExecute({
        gateway: deps.gateway,
        logger: deps.logger,
        maxOutputTokens: config.budget.maxOutputTokens,
        maxAnswerChars: config.maxAnswerChars,
        leaks: deps.leaks,
      })
    : null;

  const host: TurnHost = { deps, verify };

  return async function startTurn(request: TurnRequest, origin: TurnOrigin): Promise<StartedTurn> {
    if (!execute) throw new ModelNotConfiguredError();
    // A saturated process refuses new turns first (503 + Retry-After), before anything is held.
    deps.overload.admit();
    // Its photos decoded for a model that sees (a 400 for one that cannot be read), before anything is held.
    const turn = new Turn(host, await deps.attachments.read(request), origin, execute);
    await turn.admit();
    return turn;
  };
}

export type TurnStarter = ReturnType<typeof createTurnStarter>;
