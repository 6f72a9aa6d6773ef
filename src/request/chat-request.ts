/**
 * The chat request (CONTRACT.md "Chat request"): its zod schema, which the chat routes validate with
 * `zValidator`, and its normalised form, the `TurnRequest` every later room reads. Unknown fields are
 * stripped (older front ends send extras). The limits here are shared by the title route.
 */
import { z } from 'zod';
import { AppError, BadRequestError } from '../http/errors.js';
import { isReservedUserId, SIGNED_OUT, USER_ID_PATTERN } from '../security/principal.js';
import { MODEL_ID_PATTERN } from '../config.js';
import type { ModelAllowlist } from '../model/model-allowlist.js';
import { GROUP_LABELS, normalizeDisabledTools, TOOL_GROUPS, type ToolGroup } from '../tools/tool-groups.js';
import { ATTACHMENT_LIMITS, NO_ATTACHMENTS, noteAttachments, splitMessage, type MessageAttachments, type SeenAttachments } from './message-attachments.js';

export const MAX_QUERY_CHARS = 8_000;
export const MAX_HISTORY_ITEMS = 200;
/** Only the most recent turns reach the model: older ones cost tokens and rarely matter. */
export const HISTORY_TURNS_USED = 40;
/**
 * The history's context budget (CONTRACT.md "Chat request"; README): one item reaches the model with at
 * most HISTORY_ITEM_MAX_CHARS characters (a longer one keeps its start and ends with TRUNCATED_MARKER),
 * and all items together with at most HISTORY_MAX_CHARS (the oldest dropped first). 24,000 characters
 * are about 6,000-8,000 tokens a pass: enough for several long exchanges, while one pasted document can
 * no longer cost tens of thousands of tokens on every pass of every later turn.
 */
export const HISTORY_ITEM_MAX_CHARS = 6_000;
export const HISTORY_MAX_CHARS = 24_000;
export const TRUNCATED_MARKER = ' […truncated]';

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
  /** At most the last 40 turns, fitted to the history's context budget (fitHistory). */
  history: HistoryTurn[];
  model: string;
  disabledGroups: ToolGroup[];
  /** The current message's attachments as sent (message-attachments.ts); absent: none. */
  attachments?: MessageAttachments | undefined;
  /** The same once read for the turn's model (pipeline/attachments.ts); absent: none. */
  seen?: SeenAttachments;
}

/**
 * The chat's current message: its attachments taken out of its words (message-attachments.ts: a 400
 * naming one that passes its limit or cannot be read), then the query rules on the words the student
 * typed. A message of attachments alone is a question too ("which building is this?" left unsaid).
 */
const chatQuerySchema = z
  .string({ error: 'query is required and must be a string' })
  .transform((text, ctx) => {
    try {
      return splitMessage(text);
    } catch (err) {
      ctx.issues.push({ code: 'custom', input: text, message: err instanceof AppError ? err.detail : 'the message could not be read', continue: false });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .object({ words: z.string().max(MAX_QUERY_CHARS, `query must be at most ${MAX_QUERY_CHARS} characters`), attachments: z.custom<MessageAttachments>() })
      .refine((m) => m.words.length > 0 || hasAttachments(m.attachments), 'query must not be empty'),
  )
  .describe(
    `The student's message: at most ${MAX_QUERY_CHARS} characters of typed words, not empty unless it carries an attachment. ` +
      'Attachments written in it as the front end writes them (an image as `![name](data:image/<type>;base64,…)`, a text file as `**Attached:** name` and a fenced block) ' +
      `do not count: at most ${ATTACHMENT_LIMITS.count} a message, an image ${ATTACHMENT_LIMITS.imageBytes / 1024} KB, a text file ${ATTACHMENT_LIMITS.fileBytes / 1024} KB, ${ATTACHMENT_LIMITS.totalBytes / 1024 / 1024} MB in all (README "Attachments").`,
  );

const hasAttachments = (a: MessageAttachments) => a.images.length + a.files.length + a.imageLinks.length > 0;

/** A `user_id` in a body or a path (a hash from the front end). */
/** A user id (security/principal.ts): the format, and never the signed-out principal's reserved name. */
export const userIdSchema = z
  .string()
  .regex(USER_ID_PATTERN, 'user_id has an invalid format')
  .refine((id) => !isReservedUserId(id), `user_id "${SIGNED_OUT}" is reserved for signed-out requests; leave user_id out instead`);

const historyItem = z.object({
  role: z.enum(['user', 'assistant', 'system']),
  // An earlier attachment becomes a short note here, at validation: the request keeps the note, not the blob.
  content: z.string().transform(noteAttachments),
});

export const chatRequestSchema = z.object({
  query: chatQuerySchema,
  user_id: userIdSchema.nullish(),
  message_history: z.array(historyItem).max(MAX_HISTORY_ITEMS, `message_history may hold at most ${MAX_HISTORY_ITEMS} items`).nullish(),
  model: z
    .string()
    .trim()
    .max(200)
    .regex(MODEL_ID_PATTERN, 'model must look like <vendor>/<model>')
    .nullish(),
  // Entries that are not strings are ignored like unknown names.
  disabled_tools: z
    .array(z.unknown())
    .nullish()
    .describe(
      `Tool groups to switch off, by id (${TOOL_GROUPS.join(', ')}) or by the front end's label (${TOOL_GROUPS.map((g) => GROUP_LABELS[g]).join(', ')}); unknown entries are ignored.`,
    ),
})
  // The words are the query from here on; the attachments ride beside them.
  .transform(({ query, ...rest }) => ({ ...rest, query: query.words, attachments: query.attachments }));

/** The validated body; `attachments` absent is none (a body built in code). */
export type ChatRequestBody = Omit<z.output<typeof chatRequestSchema>, 'attachments'> & { attachments?: MessageAttachments };

/**
 * The history that reaches the model: each item cut to HISTORY_ITEM_MAX_CHARS (with the marker), then
 * the newest items that fit HISTORY_MAX_CHARS together; an older item never displaces a newer one.
 */
export function fitHistory(turns: readonly HistoryTurn[]): HistoryTurn[] {
  const kept: HistoryTurn[] = [];
  let total = 0;
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    const content =
      t.content.length > HISTORY_ITEM_MAX_CHARS ? t.content.slice(0, HISTORY_ITEM_MAX_CHARS - TRUNCATED_MARKER.length) + TRUNCATED_MARKER : t.content;
    if (total + content.length > HISTORY_MAX_CHARS) break;
    total += content.length;
    kept.push(content === t.content ? t : { role: t.role, content });
  }
  return kept.reverse();
}

/**
 * The validated body as the pipeline uses it: last 40 turns fitted, no client `system` turns, group ids,
 * the model checked against the allowlist (a 400 that names the allowed ones; the id sent is not echoed).
 */
export function toTurnRequest(body: ChatRequestBody, models: ModelAllowlist): TurnRequest {
  if (body.model != null && !models.allows(body.model)) {
    throw new BadRequestError(`this model is not offered here; allowed models: ${models.describe()}`, 'model not allowed');
  }
  const history = fitHistory(
    (body.message_history ?? []).slice(-HISTORY_TURNS_USED).filter((t): t is HistoryTurn => t.role !== 'system'),
  );
  return {
    query: body.query,
    userId: body.user_id ?? null,
    history,
    model: body.model ?? models.defaultModel,
    disabledGroups: normalizeDisabledTools((body.disabled_tools ?? []).filter((e): e is string => typeof e === 'string')),
    attachments: body.attachments ?? NO_ATTACHMENTS,
  };
}
