/**
 * Execute, the turn's source: the model and tool loop over a prepared turn. Each pass streams the model's text (raw `text` events for
 * verify), and when the model calls tools they run concurrently and their results go back to the model.
 * At most `maxToolPasses` passes offer tools; then one final pass without tools forces an answer. Every
 * pass is charged to the budget in a `finally`, so a pass cut short by a disconnect is still charged.
 */
import type { Admission } from '../../admission/admission.js';
import type { Logger } from '../../logger.js';
import { estimateUsage } from '../../model/estimate-usage.js';
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
  admission: Pick<Admission, 'charge'>;
  logger: Logger;
  maxToolPasses?: number;
  maxTokens?: number;
}

export type Execute = (prepared: PreparedTurn, ctx: TurnContext) => AsyncGenerator<TurnEvent>;

/** Builds the execute source once; each call runs one prepared turn (tool turns go to a copy of its messages). */
export function createExecute(options: ExecuteOptions): Execute {
  const { gateway, admission } = options;
  const maxToolPasses = options.maxToolPasses ?? MAX_TOOL_PASSES;

  return async function* execute(prepared, ctx) {
    const { toolbox } = prepared;
    const messages: ModelMessage[] = [...prepared.messages];

    for (let pass = 0; pass <= maxToolPasses; pass++) {
      if (ctx.signal.aborted) return;
      const offerTools = pass < maxToolPasses && toolbox.definitions.length > 0;
      if (pass > 0) yield { type: 'pass', index: pass };

      let text = '';
      let calls: ToolCallRequest[] = [];
      let usage: Usage | null = null;
      try {
        const stream = gateway.streamPass({
          model: ctx.request.model,
          messages,
          ...(offerTools && { tools: toolbox.definitions }),
          signal: ctx.signal,
          ...(options.maxTokens && { maxTokens: options.maxTokens }),
        });
        for await (const e of stream) {
          if (e.type === 'text') {
            text += e.text;
            yield { type: 'text', text: e.text };
          } else if (e.type === 'tool_calls') calls = e.calls;
          else if (e.type === 'usage') {
            usage = e.usage;
            yield { type: 'usage', usage };
          }
        }
      } finally {
        // Also runs when the consumer stops early (client gone): the tokens already used are charged.
        await admission.charge(ctx.request, usage ?? estimateUsage(messages, text));
      }

      if (!offerTools || calls.length === 0) return;
      const ids = calls.map((c, i) => c.id || `call_${pass}_${i}`);
      messages.push({
        role: 'assistant',
        content: text || null,
        tool_calls: calls.map((c, i) => ({ id: ids[i]!, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      });

      yield { type: 'status', text: STATUS_CHECKING_TOOLS };
      // Independent calls of one pass run concurrently; a run never throws.
      const runs = await Promise.all(calls.map((c) => toolbox.run(c, ctx.signal)));
      if (ctx.signal.aborted) return;
      for (const [i, run] of runs.entries()) {
        if (run.outcome) yield { type: 'tool', outcome: run.outcome };
        for (const e of run.events) yield e;
        messages.push({ role: 'tool', tool_call_id: ids[i]!, content: run.content });
      }
      yield { type: 'status', text: STATUS_WRITING };
    }
  };
}
