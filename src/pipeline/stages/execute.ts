/**
 * Execute, the turn's source: the model and tool loop over a prepared turn. Each pass streams the model's text (raw `text` events for
 * verify), and when the model calls tools they run concurrently and their results go back to the model.
 * At most `maxToolPasses` passes offer tools; then one final pass without tools forces an answer. Before
 * each pass its estimate is reserved from the daily budget (a refusal ends the turn with 429); after it,
 * in a `finally`, its usage is settled, so a pass cut short by a disconnect is still charged.
 */
import type { Logger } from '../../logger.js';
import { estimateUsage, reservationTokens } from '../../model/estimate-usage.js';
import type { ModelGateway, ModelMessage, ToolCallRequest } from '../../model/gateway.js';
import type { TurnEvent } from '../events.js';
import type { PreparedTurn } from '../prepare.js';
import type { TurnContext } from '../stage.js';
import type { Usage } from '../../model/usage.js';

/** The cap: six passes may call tools, then a final pass without tools. */
export const MAX_TOOL_PASSES = 6;

export const STATUS_CHECKING_TOOLS = 'Checking campus tools...';
export const STATUS_WRITING = 'Writing answer...';

export interface ExecuteOptions {
  gateway: ModelGateway;
  logger: Logger;
  maxToolPasses?: number;
  maxTokens?: number;
  /** Completion tokens reserved per pass on top of its prompt estimate (config.budget.reservePerPass). */
  reservePerPass?: number;
}

export type Execute = (prepared: PreparedTurn, ctx: TurnContext) => AsyncGenerator<TurnEvent>;

/** Builds the execute source once; each call runs one prepared turn (tool turns go to a copy of its messages). */
export function createExecute(options: ExecuteOptions): Execute {
  const { gateway } = options;
  const reservePerPass = options.reservePerPass ?? 1_000;
  const maxToolPasses = options.maxToolPasses ?? MAX_TOOL_PASSES;

  return async function* execute(prepared, ctx) {
    const { toolbox } = prepared;
    const messages: ModelMessage[] = [...prepared.messages];
    // The status line the user sees: "Checking" when a batch of tools starts (not again while it is
    // already showing), "Writing" once, at the first text after tools ran. A turn of several tool passes
    // reads Checking → Writing, not Checking → Writing → Checking → Writing.
    let status: 'none' | 'checking' | 'writing' = 'none';

    for (let pass = 0; pass <= maxToolPasses; pass++) {
      if (ctx.signal.aborted) return;
      const offerTools = pass < maxToolPasses && toolbox.definitions.length > 0;
      if (pass > 0) yield { type: 'pass', index: pass };

      // The pass's estimate (what is sent, plus the completion allowance) must be reserved before it
      // starts. The first pass that offers tools reserves for the pass that will read their results too,
      // so a turn that was let in can finish instead of stopping halfway when others spent the rest.
      const tools = offerTools ? toolbox.definitions : undefined;
      const estimate = reservationTokens(messages) + (tools ? reservationTokens(tools) : 0) + (options.maxTokens ?? reservePerPass);
      await ctx.budget.reserve(pass === 0 && tools ? 2 * estimate : estimate);

      let text = '';
      let calls: ToolCallRequest[] = [];
      let usage: Usage | null = null;
      try {
        const stream = gateway.streamPass({
          model: ctx.request.model,
          messages,
          ...(tools && { tools }),
          signal: ctx.signal,
          ...(options.maxTokens && { maxTokens: options.maxTokens }),
        });
        for await (const e of stream) {
          if (e.type === 'text') {
            text += e.text;
            if (status === 'checking') {
              status = 'writing';
              yield { type: 'status', text: STATUS_WRITING };
            }
            yield { type: 'text', text: e.text };
          } else if (e.type === 'tool_calls') calls = e.calls;
          else if (e.type === 'usage') {
            usage = e.usage;
            yield { type: 'usage', usage };
          }
        }
      } finally {
        // Also runs when the consumer stops early (client gone): the tokens already used are charged.
        await ctx.budget.charge(usage ?? estimateUsage(messages, text));
      }

      if (!offerTools || calls.length === 0) return;
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
      // Independent calls of one pass run concurrently; a run never throws.
      const runs = await Promise.all(calls.map((c) => toolbox.run(c, ctx.signal)));
      if (ctx.signal.aborted) return;
      for (const [i, run] of runs.entries()) {
        if (run.outcome) yield { type: 'tool', outcome: run.outcome };
        for (const e of run.events) yield e;
        messages.push({ role: 'tool', tool_call_id: ids[i]!, content: run.content });
      }
    }
  };
}
