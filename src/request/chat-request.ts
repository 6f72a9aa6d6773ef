/**
 * The chat request (CONTRACT.md "Chat request"): its zod schema, which the chat routes validate with
 * `zValidator`, and its normalised form, the `TurnRequest` every later room reads. Unknown fields are
 * stripped (older front ends send extras). The limits here are shared by the title route.
 */
import { z } from 'zod';
import { normalizeDisabledTools, type ToolGroup } from '../tools/tool-groups.js';

export const MAX_QUERY_CHARS = 8_000;
export const MAX_HISTORY_ITEMS = 200;
/** Only the most recent turns reach the model: older ones cost tokens and rarely matter. */
export const HISTORY_TURNS_USED = 40;
export const USER_ID_PATTERN = /^[A-Za-z0-9@:+=~-]{1,128}$/;

export interface HistoryTurn {
  /** Client `system` turns are dropped here: they never reach the model as system messages. */
  role: 'user' | 'assistant';
  content: string;
}

/** A chat request after validation and normalisation. */
export interface TurnRequest {
  query: string;
  /** Null: anonymous turn, no memory, budget bucket `anonymous`. */
  userId: string | null;
  /** At most the last 40 turns. */
  history: HistoryTurn[];
  model: string;
  disabledGroups: ToolGroup[];
}

/** The `query` rules, shared by the chat request and the title route. */
export const querySchema = z
  .string({ error: 'query is required and must be a string' })
  .trim()
  .min(1, 'query must not be empty')
  .max(MAX_QUERY_CHARS, `query must be at most ${MAX_QUERY_CHARS} characters`);

/** A `user_id` in a body or a path (a hash from the front end). */
export const userIdSchema = z.string().regex(USER_ID_PATTERN, 'user_id has an invalid format');

const historyItem = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.string(),
});

export const chatRequestSchema = z.object({
  query: querySchema,
  user_id: userIdSchema.nullish(),
  message_history: z.array(historyItem).max(MAX_HISTORY_ITEMS, `message_history may hold at most ${MAX_HISTORY_ITEMS} items`).nullish(),
  model: z
    .string()
    .trim()
    .max(200)
    .regex(/^[^\s/]+\/\S+$/, 'model must look like <vendor>/<model>')
    .nullish(),
  // Entries that are not strings are ignored like unknown names.
  disabled_tools: z.array(z.unknown()).nullish(),
});

export type ChatRequestBody = z.output<typeof chatRequestSchema>;

/** The validated body as the pipeline uses it: last 40 turns, no client `system` turns, group ids. */
export function toTurnRequest(body: ChatRequestBody, defaultModel: string): TurnRequest {
  const history: HistoryTurn[] = (body.message_history ?? [])
    .slice(-HISTORY_TURNS_USED)
    .filter((t): t is HistoryTurn => t.role !== 'system');
  return {
    query: body.query,
    userId: body.user_id ?? null,
    history,
    model: body.model ?? defaultModel,
    disabledGroups: normalizeDisabledTools((body.disabled_tools ?? []).filter((e): e is string => typeof e === 'string')),
  };
}
