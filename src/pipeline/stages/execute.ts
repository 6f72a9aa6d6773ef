/**
 * Execute, the turn's source: the model and tool loop over a prepared turn. Each pass streams the model's text (raw `text` events for
 * verify), and when the model calls tools they run concurrently and their results go back to the model.
 * At most `maxToolPasses` passes offer tools; then one final pass without tools forces an answer.
 *
 * Bounds (admission/turn-reservation.ts): every pass is sent with `max_tokens`, and what it may cost is
 * held from the daily budget before it starts. A pass offers tools only while the turn holds enough for
 * it and for an answer pass after it; otherwise it is the answer pass, fitted to what the turn holds
 * (tool results trimmed when they outgrew it). So a turn that was admitted is never refused halfway.
 * After each pass, in a `finally`, its usage is settled, so a pass cut short by a disconnect is still
 * charged. The answer is capped at `maxAnswerChars`: past it the model is no longer read (its call is
 * aborted), and the `cut` event tells verify to end the answer with the cut note. Verify also stops
 * reading when what leaves (marks included) fills the cap first (guards/answer-stream.ts).
 */
import { toolPassHold } from '../../admission/turn-reservation.js';
import type { Logger } from '../../logger.js';
import { estimateUsage, reservationTokens } from '../../model/estimate-usage.js';
import type { ModelGateway, ModelMessage, ToolCallRequest } from '../../model/gateway.js';
import type { LeakPolicy } from '../../security/leak-policy.js';
import type { TurnEvent } from '../events.js';
import type { PreparedTurn } from '../prepare.js';
import type { ToolRun } from '../toolbox.js';
import type { TurnContext } from '../stage.js';
import type { Usage } from '../../model/usage.js';

/** The cap: six passes may call tools, then a final pass without tools. */
export const MAX_TOOL_PASSES = 6;

/**
 * Tool calls run in one pass; the model's further calls of that pass are answered with
 * `TOOL_CALLS_DEFERRED` instead of running (all at once against the tool server, one turn could
 * otherwise start as many calls as its `max_tokens` can write: about a hundred).
 */
export const MAX_TOOL_CALLS_PER_PASS = 16;
export const TOOL_CALLS_DEFERRED = `Not run: at most ${MAX_TOOL_CALLS_PER_PASS} tool calls run in one step. Call it again in the next step if you still need it.`;

export const STATUS_CHECKING_TOOLS = 'Checking campus tools...';
export const STATUS_WRITING = 'Writing answer...';

/** What a trimmed tool result ends with, so the model knows it saw only part of it. */
export const TRIMMED_RESULT_MARKER = '\n[tool result trimmed to fit the budget]';

export interface ExecuteOptions {
  gateway: ModelGateway;
  logger: Logger;
  maxToolPasses?: number;
  /** `max_tokens` of every pass (MAX_OUTPUT_TOKENS). */
  maxOutputTokens: number;
  /** Characters of answer text after which the model is no longer read (MAX_ANSWER_CHARS). */
  maxAnswerChars: number;
  /** The leak policy: what the model writes into telemetry (a tool call's id) passes it first. */
  leaks: LeakPolicy;
}

/** What telemetry calls a tool the model named but this turn did not offer: one value, not one series per invention. */
export const UNOFFERED_TOOL = 'unknown';

/**
 * A tool call as telemetry may carry it. The model writes the name and the id: a name becomes an
 * attribute value only when it is one of the turn's offered tools (else UNOFFERED_TOOL, so invented
 * names neither leak nor grow metric series), and the id reaches a span (never a metric) only when it is
 * an ordinary id that the leak policy leaves as it is.
 */
export function toolCallLabels(call: ToolCallRequest, id: string, offered: readonly { name: string }[], leaks: LeakPolicy): { tool: string; callId: string | null } {
  const tool = offered.some((d) => d.name === call.name) ? call.name : UNOFFERED_TOOL;
  const callId = /^[\w.:-]{1,64}$/.test(id) && !leaks.scan(id).redacted ? id : null;
  return { tool, callId };
}

export type Execute = (prepared: PreparedTurn, ctx: TurnContext) => AsyncGenerator<TurnEvent>;

/** Builds the execute source once; each call runs one prepared turn (tool turns go to a copy of its messages). */
export function createExecute(options: ExecuteOptions): Execute {
  const { gateway, maxOutputTokens, maxAnswerChars } = options;
  const maxToolPasses = options.maxToolPasses ?? MAX_TOOL_PASSES;

  return async function* execute(prepared, ctx) {
    const { toolbox } = prepared;
    let messages: ModelMessage[] = [...prepared.messages];
    // The tool definitions are the same on every pass of the turn: counted once.
    const toolTokens = reservationTokens(toolbox.definitions);
    // Characters of answer text read from the model so far, over all passes.
    let answerChars = 0;
    // The status line the user sees: "Checking" when a batch of tools starts (not again while it is
    // already showing), "Writing" once, at the first text after tools ran. A turn of several tool passes
    // reads Checking → Writing, not Checking → Writing → Checking → Writing.
    let status: 'none' | 'checking' | 'writing' = 'none';
    // A spending limit may stop the turn mid-pass (its model turned out to cost more than configured):
    // the model's call is aborted, what it used is charged, and the answer ends with the spend note.
    const stopped = ctx.budget.stopped;
    const signal = stopped ? AbortSignal.any([ctx.signal, stopped]) : ctx.signal;
    const spendCut = (): TurnEvent => {
      ctx.outcome.cut = true;
      options.logger.info('answer stopped by a spending limit at its model\'s observed price', { request_id: ctx.requestId });
      return { type: 'cut', by: 'spend' };
    };

    for (let pass = 0; pass <= maxToolPasses; pass++) {
      if (ctx.signal.aborted) return;
      if (stopped?.aborted) return yield spendCut();
      const offerTools = pass < maxToolPasses && toolbox.definitions.length > 0;
      if (pass > 0) yield { type: 'pass', index: pass };

      // What this pass may cost is held before it starts (see the module note).
      let tools = offerTools ? toolbox.definitions : undefined;
      let maxTokens = maxOutputTokens;
      const input = reservationTokens(messages);
      if (tools && !(await ctx.budget.hold(toolPassHold(input + toolTokens, maxOutputTokens)))) {
        // Not enough for another tool pass and the answer after it: this pass answers.
        tools = undefined;
      }
      if (!tools && !(await ctx.budget.hold({ input, output: maxOutputTokens }, true))) {
        if (stopped?.aborted) return yield spendCut();
        ({ messages, maxTokens } = fitToHeld(messages, ctx.budget.held, maxOutputTokens));
        options.logger.info('answer pass fitted to what the turn holds', { request_id: ctx.requestId, max_tokens: maxTokens });
      }

      let text = '';
      let calls: ToolCallRequest[] = [];
      let usage: Usage | null = null;
      let finish: string | null = null;
      let capped = false;
      let stoppedMidPass = false;
      try {
        const stream = gateway.streamPass({ model: ctx.request.model, messages, ...(tools && { tools }), signal, maxTokens, span: ctx.span });
        for await (const e of stream) {
          if (e.type === 'text') {
            let piece = e.text;
            if (answerChars + piece.length > maxAnswerChars) {
              // The cap: keep what fits, stop reading (leaving the loop aborts the upstream call).
              piece = piece.slice(0, maxAnswerChars - answerChars);
              capped = true;
            }
            answerChars += piece.length;
            text += piece;
            if (status === 'checking') {
              status = 'writing';
              yield { type: 'status', text: STATUS_WRITING };
            }
            if (piece) yield { type: 'text', text: piece };
            if (capped) break;
          } else if (e.type === 'tool_calls') calls = e.calls;
          else if (e.type === 'usage') {
            usage = e.usage;
            yield { type: 'usage', usage };
          } else if (e.type === 'finish') finish = e.reason;
        }
      } catch (err) {
        if (!stopped?.aborted || ctx.signal.aborted) throw err;
        stoppedMidPass = true;
      } finally {
        // Also runs when the consumer stops early (client gone): the tokens already used are charged.
        // A pass left at the cap reported no usage: the estimate charges what was sent and read.
        const used = usage ?? estimateUsage(messages, text);
        ctx.outcome.promptTokens += used.promptTokens;
        ctx.outcome.completionTokens += used.completionTokens;
        await ctx.budget.charge(used);
      }
      if (stoppedMidPass) return yield spendCut();

      if (capped || (finish === 'length' && calls.length === 0)) {
        ctx.outcome.cut = true;
        options.logger.info('answer cut at its length limit', { request_id: ctx.requestId, by: capped ? 'answer cap' : 'max_tokens' });
        yield { type: 'cut' };
        return;
      }
      if (!tools) return;
      if (calls.length === 0) return;
      const ids = calls.map((c, i) => c.id || `call_${pass}_${i}`);
      messages.push({
        role: 'assistant',
        content: text || null,
        tool_calls: calls.map((c, i) => ({ id: ids[i]!, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      });

      if (status !== 'checking') {
        status = 'checking';
        yield { type: 'status', text: STATUS_CHECKING_TOOLS };
      }
      // Independent calls of one pass run concurrently, up to the cap; a run never throws.
      const runs = await Promise.all(
        calls.map((c, i) => (i < MAX_TOOL_CALLS_PER_PASS ? runTool(toolbox, c, ids[i]!, ctx, options.leaks) : { content: TOOL_CALLS_DEFERRED, outcome: null, events: [] })),
      );
      if (ctx.signal.aborted) return;
      for (const [i, run] of runs.entries()) {
        if (run.outcome) yield { type: 'tool', outcome: run.outcome, ...(run.result !== undefined && { result: run.result }) };
        for (const e of run.events) yield e;
        messages.push({ role: 'tool', tool_call_id: ids[i]!, content: run.content });
      }
    }
  };
}

/** One tool call under an `execute_tool` span, measured by tool (never its arguments or result). */
async function runTool(toolbox: PreparedTurn['toolbox'], call: ToolCallRequest, id: string, ctx: TurnContext, leaks: LeakPolicy): Promise<ToolRun> {
  const { tool, callId } = toolCallLabels(call, id, toolbox.definitions, leaks);
  const span = ctx.span.child(`execute_tool ${tool}`, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    ...(callId && { 'gen_ai.tool.call.id': callId }),
    'gen_ai.tool.type': 'function',
  });
  const startedAt = performance.now();
  // Its own signal following the turn's: a client adds an abort listener per call, and a dozen calls
  // on the turn's one signal would pass Node's listener-leak warning (the listeners go with the call).
  const run = await toolbox.run(call, AbortSignal.any([ctx.signal]));
  // No outcome: the model named no tool of this turn or sent arguments that are not JSON.
  const failure = !run.outcome ? 'invalid_call' : run.outcome.ok ? null : 'tool_error';
  if (failure) span.fail(failure);
  span.end();
  ctx.metrics.toolCall({ tool, durationS: (performance.now() - startedAt) / 1000, errorType: failure });
  return run;
}

/**
 * The answer pass fitted to `held` tokens: tool results trimmed (the longest first) until the input
 * leaves room for a full answer (`maxOutput`), and `max_tokens` lowered to what is left if it still
 * does not. By construction (turn-reservation.ts answerAfterTools) the turn holds a full answer once
 * the results are within their share.
 */
function fitToHeld(messages: ModelMessage[], held: number, maxOutput: number): { messages: ModelMessage[]; maxTokens: number } {
  const out = messages.map((m) => ({ ...m }) as ModelMessage);
  const room = () => held - reservationTokens(out);
  for (let guard = 0; room() < maxOutput && guard < out.length; guard++) {
    let longest = -1;
    for (const [i, m] of out.entries()) {
      if (m.role !== 'tool' || typeof m.content !== 'string' || m.content.endsWith(TRIMMED_RESULT_MARKER)) continue;
      if (longest < 0 || m.content.length > (out[longest]!.content as string).length) longest = i;
    }
    if (longest < 0) break;
    const m = out[longest] as { content: string };
    // Three characters a token is what reservationTokens counts for ASCII; non-ASCII counts more, so loop.
    const keep = Math.max(0, m.content.length - 3 * (maxOutput - room()) - TRIMMED_RESULT_MARKER.length);
    m.content = m.content.slice(0, keep) + TRIMMED_RESULT_MARKER;
  }
  return { messages: out, maxTokens: Math.max(1, Math.min(maxOutput, room())) };
}
