/**
 * The tools bound to one turn: the campus tools of the planned groups (plus ungrouped ones), the map
 * tool and the memory tools, as definitions for the model and one `run` for a model's tool call. Running
 * never throws: bad arguments, an unknown name, a failed or timed-out tool all become guidance text.
 */
import type { Logger } from '../logger.js';
import type { ToolCallRequest, ToolDefinition } from '../model/gateway.js';
import type { CampusTool, CampusTools } from '../tools/campus-tools.js';
import { isEmptyToolResult } from '../tools/empty-result.js';
import type { MapRequestEvent } from '../campus/cmu-maps.js';
import type { MemoryEvent } from '../memory/memory-event.js';
import type { LocalTool } from '../tools/local-tool.js';
import { SHOW_MAP_TOOL, type ToolGroup } from '../tools/tool-groups.js';
import { toolFailureGuidance, wrapUntrustedResult } from '../tools/untrusted-result.js';
import type { Plan } from './stages/plan.js';

/** How a tool call of this turn went; `kind` separates campus tools from the service's own. */
export interface ToolOutcome {
  name: string;
  kind: 'campus' | 'map' | 'memory';
  group: ToolGroup | null;
  ok: boolean;
  /** True when the tool answered but found nothing (`[]`, `{"results": []}`, a not-found sentence). */
  empty: boolean;
}

/** The service's own tools and the events they report. */
export type LocalToolEvent = MapRequestEvent | MemoryEvent;
export type ShowMapTool = LocalTool<MapRequestEvent>;

export interface ToolRun {
  /** What the model sees as the tool message. */
  content: string;
  /** Null when nothing was called (unknown name, bad arguments). */
  outcome: ToolOutcome | null;
  /** What the tool returned, raw and whole (before wrapping and truncation for the model): the turn's evidence. */
  result?: string;
  events: LocalToolEvent[];
}

export interface Toolbox {
  definitions: ToolDefinition[];
  run(call: ToolCallRequest, signal: AbortSignal): Promise<ToolRun>;
}

export interface BindToolsInput {
  plan: Plan;
  /** The tool server's current list. */
  campusTools: readonly CampusTool[];
  campus: CampusTools;
  showMapTool: ShowMapTool | null;
  /** The user's remember/forget tools; empty for anonymous turns (decided when the turn binds its user). */
  memoryTools: readonly LocalTool<MemoryEvent>[];
  logger: Logger;
}

function parseArgs(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw.trim() || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The course group's gen-ed tools (`courses_fetch_geneds_tool`, `…_for_department_tool`): bound when the plan asks. */
const GEN_ED_TOOL = /^courses_.*geneds/;

/** Selects this turn's tools from the plan and returns the definitions and the runner. */
export function bindTools(input: BindToolsInput): Toolbox {
  const { plan, campus, logger } = input;
  const campusBound = input.campusTools.filter((t) =>
    t.name === SHOW_MAP_TOOL
      ? false
      : t.group === null
        ? plan.ungroupedTools
        : plan.groups.includes(t.group) && (plan.genEds || !GEN_ED_TOOL.test(t.name)),
  );
  const local: LocalTool<LocalToolEvent>[] = [];
  if (plan.showMap && input.showMapTool) local.push(input.showMapTool);
  if (plan.memoryTools) local.push(...input.memoryTools);

  const byName = new Map<string, { campus: CampusTool } | { local: LocalTool<LocalToolEvent> }>();
  for (const t of campusBound) byName.set(t.name, { campus: t });
  for (const t of local) byName.set(t.name, { local: t });

  const definitions: ToolDefinition[] = [
    ...campusBound.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })),
    ...local.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
  ];

  async function run(call: ToolCallRequest, signal: AbortSignal): Promise<ToolRun> {
    const bound = byName.get(call.name);
    if (!bound) return { content: `There is no tool named ${JSON.stringify(call.name.slice(0, 80))} this turn; answer without it.`, outcome: null, events: [] };
    const args = parseArgs(call.arguments);
    if (!args) return { content: `The arguments for ${call.name} were not a JSON object; call it again with valid arguments.`, outcome: null, events: [] };

    if ('campus' in bound) {
      const tool = bound.campus;
      const result = await campus.call(tool.name, args, signal);
      const outcome: ToolOutcome = { name: tool.name, kind: 'campus', group: tool.group, ok: result.ok, empty: result.ok && isEmptyToolResult(result.text) };
      if (!result.ok) {
        // The raw error may name hosts or echo the user's words: neither the model nor the log gets it.
        if (!signal.aborted) logger.warn('campus tool failed', { tool: tool.name, ...result.failure });
        return { content: toolFailureGuidance(tool.name), outcome, events: [] };
      }
      return { content: wrapUntrustedResult(tool.name, result.text), outcome, events: [], result: result.text };
    }

    const tool = bound.local;
    const outcome: ToolOutcome = { name: tool.name, kind: tool.kind, group: tool.kind === 'map' ? 'maps' : null, ok: true, empty: false };
    try {
      const result = await tool.run(args, { signal });
      return { content: result.content, outcome, events: result.events ?? [], result: result.content };
    } catch (err) {
      // Only the error's class: its message may carry the model's arguments, i.e. the user's words.
      logger.warn('local tool failed', { tool: tool.name, error: err instanceof Error ? err.name : typeof err });
      return { content: toolFailureGuidance(tool.name), outcome: { ...outcome, ok: false }, events: [] };
    }
  }

  return { definitions, run };
}
