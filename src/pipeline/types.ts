/**
 * The vocabulary of a chat turn: the validated request, the plan, the complete response object of
 * CONTRACT.md, and the closed union of events the stages pass along. Client events are framed at the
 * edge (SSE) or drained into JSON; internal events never leave the pipeline.
 */
import type { Envelope } from '../http/errors.js';

/** Tool groups the service knows (CAMPUS_TOOLS.md "Naming"). */
export const TOOL_GROUPS = ['maps', 'courses', 'eats', 'guide'] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

export interface HistoryTurn {
  /** Client `system` turns are dropped at validation: they never reach the model as system messages. */
  role: 'user' | 'assistant';
  content: string;
}

/** A chat request after validation and normalisation (CONTRACT.md "Chat request"). */
export interface TurnRequest {
  query: string;
  /** Null: anonymous turn, no memory, budget bucket `anonymous`. */
  userId: string | null;
  /** At most the last 40 turns. */
  history: HistoryTurn[];
  model: string;
  disabledGroups: ToolGroup[];
}

/** What the deterministic planner decided for this turn. */
export interface Plan {
  /** Known campus tool groups to bind (never a disabled one). */
  groups: ToolGroup[];
  /** Whether tools of groups the service does not know (e.g. `bus_*`) are bound. */
  ungroupedTools: boolean;
  /** `maps_show_map` is bound on every turn unless maps are disabled. */
  showMap: boolean;
  /** Conversational message ("thanks!"): no data tools. */
  conversational: boolean;
  /** Memory hooks (filled by the memory planner). */
  recallMemory: boolean;
  memoryTools: boolean;
}

/** The `cmu_maps` object: all null when no map accompanies the answer. */
export interface CmuMaps {
  url: string | null;
  mode: 'location' | 'directions' | null;
  target: string | null;
  target_label: string | null;
  src: string | null;
  src_label: string | null;
  dest: string | null;
  dest_label: string | null;
}

export const NO_MAP: Readonly<CmuMaps> = Object.freeze({
  url: null,
  mode: null,
  target: null,
  target_label: null,
  src: null,
  src_label: null,
  dest: null,
  dest_label: null,
});

export interface Thought {
  reasoning: string;
  confidence: number;
}

/** The complete response object (CONTRACT.md): every key always present. */
export interface CompleteResponse {
  thought: Thought;
  action: 'retrieve' | 'respond';
  /** Historical field the front end expects; always an empty array (tools run server-side). */
  tool_calls: never[];
  services_used: string[];
  response_text: string;
  cmu_maps: CmuMaps;
  metadata: Record<string, unknown>;
}

export type MemoryEventData =
  | { op: 'add'; text: string; id: string; kind: 'learned' | 'remembered'; fact: string }
  | { op: 'remove'; text: string };

/** Token usage of one model pass, reported by the gateway or estimated. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  estimated: boolean;
}

/** What the client sees (CONTRACT.md "Stream"). */
export type ClientEvent =
  | { type: 'status'; text: string }
  | { type: 'delta'; text: string }
  | { type: 'map'; map: CmuMaps }
  | { type: 'memory'; data: MemoryEventData }
  | { type: 'done'; response: CompleteResponse }
  /** `status` is the HTTP status the JSON route answers with; the stream carries only the envelope. */
  | { type: 'error'; envelope: Envelope; status?: number };

/** How a tool call of this turn went; `kind` separates campus tools from the service's own. */
export interface ToolOutcome {
  name: string;
  kind: 'campus' | 'map' | 'memory';
  group: ToolGroup | null;
  ok: boolean;
  /** True when the tool answered but found nothing (`[]`, `{"results": []}`, a not-found sentence). */
  empty: boolean;
}

/** Events that stay inside the pipeline. */
export type InternalEvent =
  /** Raw model text, not yet verified: only the verify stage turns it into `delta`. */
  | { type: 'text'; text: string }
  /** The model started a new pass after tool calls; text already held may be flushed first. */
  | { type: 'pass'; index: number }
  | { type: 'tool'; outcome: ToolOutcome }
  /** A valid `maps_show_map` call; the last one of the turn becomes the map. */
  | { type: 'map_request'; map: CmuMaps }
  | { type: 'usage'; usage: Usage }
  /** The verified answer, emitted once by verify at the end; deliver builds `done` from it. */
  | { type: 'answer'; text: string; map: CmuMaps; notes: AnswerNotes };

/** Facts verify and the guards report about the final answer, used for `thought`. */
export interface AnswerNotes {
  refused?: 'injection' | 'prompt_leak' | 'moderation' | 'self_harm';
  repairedFailureClaim?: boolean;
  redacted?: boolean;
  emptyModelOutput?: boolean;
}

export type TurnEvent = ClientEvent | InternalEvent;

/** Narrows an event to the client-visible ones. */
export function isClientEvent(e: TurnEvent): e is ClientEvent {
  return (
    e.type === 'status' ||
    e.type === 'delta' ||
    e.type === 'map' ||
    e.type === 'memory' ||
    e.type === 'done' ||
    e.type === 'error'
  );
}
