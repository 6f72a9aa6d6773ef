/**
 * The plan of a turn, decided without a model call: which tool groups to bind (hint words in the
 * message; a follow-up keeps the conversation's groups; conversational messages bind none; disabled
 * groups never), whether unknown-group tools (only with every group) and `maps_show_map` are bound, and
 * the memory hooks.
 */
import type { UserMemory } from '../../memory/turn-memory.js';
import { asksAboutGenEds, hintedGroups, isConversational, isFollowUp, isMemoryCommand } from '../../tools/group-hints.js';
import { TOOL_GROUPS, type ToolGroup } from '../../tools/tool-groups.js';
import type { TurnRequest } from '../../request/chat-request.js';

/** How many earlier user turns define "the groups of the conversation". */
const RECENT_USER_TURNS = 3;

/** What the deterministic planner decided for this turn. */
export interface Plan {
  /** Known campus tool groups to bind (never a disabled one). */
  groups: ToolGroup[];
  /**
   * Whether tools of a group the service does not know (one the tool server adds later) are bound: only
   * when the turn binds every group (nothing narrowed it), so a narrowed turn sends no unknown schema.
   */
  ungroupedTools: boolean;
  /** `maps_show_map` is bound unless maps are disabled or the turn is conversational (courtesy, memory command). */
  showMap: boolean;
  /** Conversational message ("thanks!"): no data tools. */
  conversational: boolean;
  /** The gen-ed tools of the course group are bound (the message or the recent conversation asks about gen eds). */
  genEds: boolean;
  /** Memory hooks (filled by the memory planner). */
  recallMemory: boolean;
  memoryTools: boolean;
}

function recentGroups(request: TurnRequest): ToolGroup[] {
  const turns = request.history.filter((t) => t.role === 'user').slice(-RECENT_USER_TURNS);
  return [...new Set(turns.flatMap((t) => hintedGroups(t.content)))];
}

function ordered(groups: Iterable<ToolGroup>): ToolGroup[] {
  const set = new Set(groups);
  return TOOL_GROUPS.filter((g) => set.has(g));
}

/**
 * Plans a turn. A message with no hint words that is neither conversational nor a follow-up of a
 * conversation with groups binds every enabled group: unsure is better answered with tools than without.
 * A conversational message (courtesy, a request about the last answer's form) and a memory command bind
 * no campus tool and no map tool.
 */
export function planTurn(request: TurnRequest, memory: Pick<UserMemory, 'plan'>): Plan {
  const { query } = request;
  // "Remember that I'm vegetarian": the words are the fact, not a campus question (the memory tools
  // are bound by the memory plan below; anonymous turns get none and the model says so).
  const memoryCommand = isMemoryCommand(query);
  const hinted = memoryCommand ? [] : hintedGroups(query);
  // A photo or a file sent without words is a question about it (a flyer, a syllabus): never small talk.
  const attachmentsOnly = query === '' && (request.seen?.images.length ?? 0) + (request.seen?.files.length ?? 0) > 0;
  const conversational = !attachmentsOnly && (memoryCommand || (hinted.length === 0 && isConversational(query)));
  let groups: ToolGroup[];
  let everyGroup = false;
  if (conversational) groups = [];
  else if (hinted.length > 0) groups = isFollowUp(query) ? ordered([...hinted, ...recentGroups(request)]) : ordered(hinted);
  else {
    const recent = recentGroups(request);
    everyGroup = recent.length === 0;
    groups = everyGroup ? [...TOOL_GROUPS] : ordered(recent);
  }
  // Anonymous turns pass `noUserMemory`, which plans nothing.
  const memoryPlan = memory.plan(query, request.history);
  return {
    groups: groups.filter((g) => !request.disabledGroups.includes(g)),
    ungroupedTools: everyGroup,
    showMap: !conversational && !request.disabledGroups.includes('maps'),
    conversational,
    genEds: [query, ...request.history.filter((t) => t.role === 'user').slice(-RECENT_USER_TURNS).map((t) => t.content)].some(asksAboutGenEds),
    recallMemory: memoryPlan.recall,
    memoryTools: memoryPlan.tools,
  };
}
