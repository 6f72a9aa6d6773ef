/**
 * The OpenAI chat completions request (`POST /v1/chat/completions`), mapped onto the chat request so
 * every rule is the agent routes' own (chat-request.ts): the last `user` message is the query, the
 * `user` and `assistant` messages before it the history (client `system`, `developer` and `tool`
 * messages are dropped, as `system` turns are on the agent routes), `user` (OpenAI's end-user field)
 * or the `X-User-Id` header the user id, and `campus-agent` the configured default model. Unknown
 * OpenAI parameters (temperature, max_tokens, n, ...) are ignored; `tools` and `tool_choice` are
 * refused: the campus tools are the service's own.
 */
import { z } from 'zod';
import { BadRequestError } from '../http/errors.js';
import { describeIssues } from '../http/validate.js';
import { noteAttachments } from './message-attachments.js';
import { chatRequestSchema, MAX_HISTORY_ITEMS, type ChatRequestBody } from './chat-request.js';

/** The model id OpenAI clients use for this service: the configured default model behind the campus agent. */
export const CAMPUS_AGENT_MODEL = 'campus-agent';

const contentPart = z.object({
  type: z.string(),
  text: z.string().optional(),
  image_url: z.union([z.string(), z.object({ url: z.string(), detail: z.string().nullish() })]).optional(),
});

const message = z.object({
  role: z.string(),
  // A string, or content parts: text, and images (`image_url`), which are written into the text as the
  // front end writes an attached image, so one reader takes both (message-attachments.ts). Audio and
  // other parts are not read.
  content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
});

/** An `image_url` part's URL. */
const imageUrlOf = (p: z.output<typeof contentPart>): string | null =>
  p.type !== 'image_url' || p.image_url == null ? null : typeof p.image_url === 'string' ? p.image_url : p.image_url.url;

/** The message as text: its text parts, and each image part as `![image N](url)` on a line of its own. */
const textOf = (content: z.output<typeof message>['content']): string => {
  if (typeof content === 'string') return content;
  let images = 0;
  return (content ?? [])
    .flatMap((p) => {
      if (p.type === 'text' && p.text) return [p.text];
      const url = imageUrlOf(p);
      // A URL with `)` or white space cannot be written as Markdown: no image the reader would find.
      return url && !/[\s)]/.test(url) ? [`![image ${++images}](${url})`] : [];
    })
    .join('\n');
};

export const openAIChatRequestSchema = z.object({
  model: z.string({ error: 'model is required' }).trim().min(1, 'model is required').max(200),
  messages: z
    .array(message, { error: 'messages must be an array' })
    .min(1, 'messages must not be empty')
    // Earlier messages' attachments become notes at validation (the request keeps those, not the blobs);
    // the current message keeps its own, which the chat request's rules take out of its words.
    .transform((messages) => {
      const current = messages.findLastIndex((m) => m.role === 'user');
      return messages.map((m, i) => (i === current ? m : { ...m, content: noteAttachments(textOf(m.content)) }));
    }),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  user: z.string().nullish(),
  tools: z.unknown().optional(),
  tool_choice: z.unknown().optional(),
});

export type OpenAIChatRequest = z.output<typeof openAIChatRequestSchema>;

/** The chat request the OpenAI request stands for; throws the 400 when it breaks a rule. */
export function toChatRequestBody(body: OpenAIChatRequest, headerUserId: string | undefined): ChatRequestBody {
  const hasTools = Array.isArray(body.tools) ? body.tools.length > 0 : body.tools != null;
  if (hasTools || (body.tool_choice != null && body.tool_choice !== 'none')) {
    throw new BadRequestError('tools and tool_choice are not accepted: the campus tools are the service\'s own', 'invalid request');
  }
  const last = body.messages.findLastIndex((m) => m.role === 'user');
  if (last < 0) throw new BadRequestError('messages must include a user message', 'invalid request');
  const parsed = chatRequestSchema.safeParse({
    query: textOf(body.messages[last]!.content),
    user_id: body.user ?? headerUserId ?? null,
    // An OpenAI client sends the whole chat on every turn: the newest MAX_HISTORY_ITEMS are taken (only
    // the last 40 reach the model), where the agent routes' 400 would make a long chat unusable for ever.
    message_history: body.messages
      .slice(0, last)
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .slice(-MAX_HISTORY_ITEMS)
      .map((m) => ({ role: m.role, content: textOf(m.content) })),
    model: body.model === CAMPUS_AGENT_MODEL ? null : body.model,
  });
  if (!parsed.success) throw new BadRequestError(describeIssues(parsed.error), 'invalid request');
  return parsed.data;
}
