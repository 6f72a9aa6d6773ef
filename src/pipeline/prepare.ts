/**
 * Preparation of a planned turn: discovers the campus tools and recalls memory (concurrently), binds
 * the turn's toolbox and builds the system prompt and the messages (the student's, with its attachments,
 * by request/user-content.ts). Returns what it computed; the
 * execute source runs it.
 */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { UserMemory } from '../memory/turn-memory.js';
import type { ModelMessage } from '../model/gateway.js';
import { buildSystemPrompt } from '../prompt/system-prompt.js';
import type { TurnRequest } from '../request/chat-request.js';
import { userContent } from '../request/user-content.js';
import type { CampusTools } from '../tools/campus-tools.js';
import { noSpan, spanned, type TraceSpan } from '../telemetry/telemetry.js';
import type { Plan } from './stages/plan.js';
import { bindTools, type ShowMapTool, type Toolbox } from './toolbox.js';

export interface PreparedTurn {
  systemPrompt: string;
  /** System prompt, history and the user's message. */
  messages: readonly ModelMessage[];
  toolbox: Toolbox;
}

export interface PrepareDeps {
  config: Config;
  logger: Logger;
  campusTools: CampusTools;
  showMapTool: ShowMapTool | null;
  now: () => Date;
}

export async function prepareTurn(
  deps: PrepareDeps,
  turn: { request: TurnRequest; plan: Plan; memory: UserMemory; signal: AbortSignal; span?: TraceSpan },
): Promise<PreparedTurn> {
  const { request, plan, memory, signal } = turn;
  const span = turn.span ?? noSpan;
  const wantsCampus = plan.groups.length > 0 || plan.ungroupedTools;
  const memoryTools = plan.memoryTools ? memory.tools() : [];
  const [campusTools, recall] = await Promise.all([
    wantsCampus ? spanned(span.child('tools.discover'), deps.campusTools.list(signal)) : Promise.resolve([]),
    plan.recallMemory ? spanned(span.child('recall'), memory.recall(request.query, signal)) : Promise.resolve(null),
  ]);
  const toolbox = bindTools({ plan, campusTools, campus: deps.campusTools, showMapTool: deps.showMapTool, memoryTools, logger: deps.logger });
  const systemPrompt = buildSystemPrompt({
    assistantName: deps.config.campus.assistantName,
    campusName: deps.config.campus.campusName,
    tools: toolbox.definitions,
    disabledGroups: request.disabledGroups,
    memoryTools: memoryTools.length > 0,
    recall,
    now: deps.now(),
    timeZone: deps.config.campus.timeZone,
  });
  const messages: ModelMessage[] = [
    { role: 'system', content: systemPrompt },
    ...request.history.map((t): ModelMessage => ({ role: t.role, content: t.content })),
    { role: 'user', content: userContent(request) },
  ];
  return { systemPrompt, messages, toolbox };
}
