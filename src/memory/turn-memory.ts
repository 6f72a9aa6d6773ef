/**
 * What a chat turn needs from memory, behind one interface so the pipeline does not know the store:
 * plan hints, recall for the prompt, the remember/forget tools, and extraction after the answer.
 */
import type { LocalTool } from '../tools/local-tool.js';
import type { HistoryTurn } from '../pipeline/types.js';

export interface TurnMemory {
  /** Deterministic: does this message ask for recall, and for the remember/forget tools? */
  plan(query: string, history: readonly HistoryTurn[]): { recall: boolean; tools: boolean };
  /** A clearly marked block of the user's facts for the system prompt, or null; never throws. */
  recall(userId: string, query: string, signal: AbortSignal): Promise<string | null>;
  /** The remember/forget tools bound to this user. */
  tools(userId: string): LocalTool[];
  /** Called once the answer is complete; schedules background extraction. Never throws. */
  afterTurn(turn: { userId: string; query: string; history: readonly HistoryTurn[]; answer: string }): void;
}

/** Memory switched off (anonymous turns use this too). */
export const noTurnMemory: TurnMemory = {
  plan: () => ({ recall: false, tools: false }),
  recall: async () => null,
  tools: () => [],
  afterTurn: () => undefined,
};
