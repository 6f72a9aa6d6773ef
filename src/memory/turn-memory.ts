/**
 * What a chat turn needs from memory, behind one interface so the pipeline does not know the store.
 * Whether a turn has memory at all is decided once, when the pipeline binds the turn's user: a
 * signed-in user gets `forUser(id)`, an anonymous turn (or a canned one) `noUserMemory`.
 */
import type { HistoryTurn } from '../request/chat-request.js';
import type { TurnScope } from '../telemetry/telemetry.js';
import type { LocalTool } from '../tools/local-tool.js';
import type { MemoryEvent } from './memory-event.js';

/** One user's memory as one turn sees it. */
export interface UserMemory {
  /** Deterministic: does this message ask for recall, and for the remember/forget tools? */
  plan(query: string, history: readonly HistoryTurn[]): { recall: boolean; tools: boolean };
  /** A clearly marked block of the user's facts for the system prompt, or null; never throws. */
  recall(query: string, signal: AbortSignal): Promise<string | null>;
  /** The remember/forget tools bound to this user. */
  tools(): LocalTool<MemoryEvent>[];
  /** Called once the answer is complete; schedules background extraction. Never throws. */
  afterTurn(turn: { query: string; history: readonly HistoryTurn[]; answer: string }): void;
}

export interface TurnMemory {
  /** The memory of a signed-in user, for one turn (its log lines and spans go to `turn`). */
  forUser(userId: string, turn?: TurnScope): UserMemory;
}

/** No memory: anonymous and canned turns. */
export const noUserMemory: UserMemory = {
  plan: () => ({ recall: false, tools: false }),
  recall: async () => null,
  tools: () => [],
  afterTurn: () => undefined,
};

/** Memory switched off for everyone (no model for extraction, tests). */
export const noTurnMemory: TurnMemory = { forUser: () => noUserMemory };
