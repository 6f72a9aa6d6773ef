/**
 * One chat turn as a stream of client events: plan, discover tools and recall memory, build the system
 * prompt, then deliver(verify(execute())). Both chat routes consume this one generator: the JSON route
 * drains it, the stream route frames it as SSE. A refusal (moderation, flagrant injection) is a canned
 * turn through the same verify and deliver stages, with no model call, no tools and no map.
 */
import type { Admission, Refusal } from '../admission/admission.js';
import type { Config } from '../config.js';
import { detectFlagrantInjection, INJECTION_REFUSAL } from '../guards/injection.js';
import type { Logger } from '../logger.js';
import type { TurnMemory } from '../memory/turn-memory.js';
import { ModelNotConfiguredError } from '../model/gateway-errors.js';
import type { ModelGateway, ModelMessage } from '../model/gateway.js';
import { buildSystemPrompt } from '../prompt/system-prompt.js';
import { collectSecrets } from '../security/secrets.js';
import type { CampusTools } from '../tools/campus-tools.js';
import type { LocalTool } from '../tools/local-tool.js';
import type { TurnContext } from './stage.js';
import { createDeliverStage } from './stages/deliver.js';
import { createExecuteStage } from './stages/execute.js';
import { planTurn } from './stages/plan.js';
import { createVerifyStage } from './stages/verify.js';
import { bindTools } from './toolbox.js';
import { isClientEvent, type AnswerNotes, type ClientEvent, type Plan, type TurnEvent, type TurnRequest } from './types.js';

export interface TurnRunnerDeps {
  config: Config;
  logger: Logger;
  gateway: ModelGateway | null;
  campusTools: CampusTools;
  showMapTool: LocalTool | null;
  turnMemory: TurnMemory;
  admission: Pick<Admission, 'charge' | 'reviewAnswer'>;
  now: () => Date;
}

export interface RunOptions {
  /** Aborted when the client goes away; ends the turn and the upstream calls. */
  signal: AbortSignal;
  requestId: string;
  /** The admission's moderation refusal, when the message was stopped. */
  refusal?: Refusal | null;
}

/** A canned turn binds nothing. */
const CANNED_PLAN: Plan = { groups: [], ungroupedTools: false, showMap: false, conversational: true, recallMemory: false, memoryTools: false };

async function* nothing(): AsyncGenerator<TurnEvent> {}

async function* failing(err: unknown): AsyncGenerator<TurnEvent> {
  throw err;
}

async function* cannedText(text: string): AsyncGenerator<TurnEvent> {
  yield { type: 'text', text };
}

/** Builds the turn runner once; `run` starts one turn. */
export function createTurnRunner(deps: TurnRunnerDeps) {
  const { config, logger } = deps;
  const verify = createVerifyStage({ secrets: collectSecrets(config) });

  /** Discovers tools, recalls memory and builds the prompt (sets `ctx.systemPrompt`); returns the source stage. */
  async function prepare(request: TurnRequest, ctx: TurnContext, gateway: ModelGateway): Promise<AsyncGenerator<TurnEvent>> {
    const { plan, signal } = ctx;
    const wantsCampus = plan.groups.length > 0 || plan.ungroupedTools;
    const memoryTools = plan.memoryTools && request.userId ? deps.turnMemory.tools(request.userId) : [];
    const [campusTools, recall] = await Promise.all([
      wantsCampus ? deps.campusTools.list(signal) : Promise.resolve([]),
      plan.recallMemory && request.userId ? deps.turnMemory.recall(request.userId, request.query, signal) : Promise.resolve(null),
    ]);
    const toolbox = bindTools({ plan, request, campusTools, campus: deps.campusTools, showMapTool: deps.showMapTool, memoryTools, logger });
    ctx.systemPrompt = buildSystemPrompt({
      assistantName: config.campus.assistantName,
      campusName: config.campus.campusName,
      tools: toolbox.definitions,
      disabledGroups: request.disabledGroups,
      memoryTools: memoryTools.length > 0,
      recall,
      today: deps.now(),
    });
    const messages: ModelMessage[] = [
      { role: 'system', content: ctx.systemPrompt },
      ...request.history.map((t): ModelMessage => ({ role: t.role, content: t.content })),
      { role: 'user', content: request.query },
    ];
    const execute = createExecuteStage({ gateway, toolbox, messages, admission: deps.admission, logger });
    return execute(nothing(), ctx);
  }

  /** Runs one turn; yields client events only, ending with `done` or `error`. */
  async function* run(request: TurnRequest, options: RunOptions): AsyncGenerator<ClientEvent> {
    const injection = !options.refusal && detectFlagrantInjection(request.query);
    const canned: { text: string; reason: NonNullable<AnswerNotes['refused']> } | null =
      options.refusal ?? (injection ? { text: INJECTION_REFUSAL, reason: 'injection' } : null);
    const ctx: TurnContext = {
      request,
      plan: canned ? CANNED_PLAN : planTurn(request, deps.turnMemory),
      signal: options.signal,
      requestId: options.requestId,
      systemPrompt: '',
    };
    const deliver = createDeliverStage({ admission: deps.admission, logger, ...(canned && { refused: canned.reason }) });

    // Prepared before the stages are composed, so verify sees the final system prompt; a failure here
    // still leaves through deliver as the turn's `error` event.
    let source: AsyncGenerator<TurnEvent>;
    try {
      if (canned) source = cannedText(canned.text);
      else if (!deps.gateway) throw new ModelNotConfiguredError();
      else source = await prepare(request, ctx, deps.gateway);
    } catch (err) {
      source = failing(err);
    }

    for await (const e of deliver(verify(source, ctx), ctx)) {
      if (!isClientEvent(e)) continue;
      if (e.type === 'done' && !canned && request.userId) {
        // Before yielding: a consumer that stops right after `done` must not skip memory extraction.
        deps.turnMemory.afterTurn({ userId: request.userId, query: request.query, history: request.history, answer: e.response.response_text });
      }
      yield e;
    }
  }

  return { run };
}

export type TurnRunner = ReturnType<typeof createTurnRunner>;
