/**
 * `POST /agent/title {"query"}` → `{"title": "<2-5 words>"}` or `{"title": null}` (CONTRACT.md). The
 * first message is moderated first: a flagged one gets the neutral title "New chat" with no model call.
 * A message of any length (within the body limit) is accepted; the title is made from its first
 * MAX_QUERY_CHARS characters. The model call is charged to the daily budget of the optional `user_id`
 * (the `anonymous` bucket without one), like the turns.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { Admission, Moderation } from '../admission/admission.js';
import type { AppEnv } from '../http/app-env.js';
import type { Config } from '../config.js';
import { requestTrace } from '../http/trace.js';
import { validJson } from '../http/validate.js';
import type { Logger } from '../logger.js';
import type { ModelGateway } from '../model/gateway.js';
import { generateTitle } from '../model/title.js';
import { MAX_QUERY_CHARS, userIdSchema } from '../request/chat-request.js';
import { wordsOf } from '../request/message-attachments.js';
import type { LeakPolicy } from '../security/leak-policy.js';
import { EXAMPLES } from './examples.js';
import { titleResponseSchema } from './response-schemas.js';
import { errors, GUARDED, json, route } from './route-docs.js';

export const FLAGGED_TITLE = 'New chat';

/**
 * The first message's words (its attachments left out: message-attachments.ts), cut to the chat query's
 * limit (MAX_QUERY_CHARS) instead of refused when longer.
 */
const titleRequestSchema = z.object({
  query: z
    .string({ error: 'query is required and must be a string' })
    .transform((s) => wordsOf(s).slice(0, MAX_QUERY_CHARS).trim())
    .pipe(z.string().min(1, 'query must not be empty')),
  user_id: userIdSchema.nullish(),
});

export interface TitleRouteDeps {
  config: Config;
  logger: Logger;
  gateway: ModelGateway | null;
  moderation: Moderation;
  admission: Pick<Admission, 'reserveCall'>;
  leaks: LeakPolicy;
  guard: MiddlewareHandler;
}

const titleDocs = route({
  summary: 'A 2-5 word title for a new chat',
  description: 'null when no title could be made (no model, a spent budget or spending cap, a failed call): the front end keeps its placeholder.',
  tags: ['chat'],
  responses: { 200: json('the title, or null', titleResponseSchema, EXAMPLES.title), ...errors([...GUARDED, 400]) },
});

export function createTitleRoutes(deps: TitleRouteDeps) {
  return new Hono<AppEnv>().post('/agent/title', deps.guard, validJson(titleRequestSchema, [EXAMPLES.titleRequest]), titleDocs, async (c) => {
    const { query, user_id } = c.req.valid('json');
    const signal = c.req.raw.signal;
    const verdict = await deps.moderation.check(query, signal);
    if (verdict.flagged) return c.json({ title: FLAGGED_TITLE });
    // No gateway (no key, no offline model): the front end keeps its placeholder.
    if (!deps.gateway) return c.json({ title: null });
    // Paid from the user's daily budget like a chat pass; a spent budget means no title (null).
    const title = await generateTitle(deps.gateway, {
      model: deps.config.gateway.titleModel,
      query,
      signal,
      logger: deps.logger.child({ request_id: c.get('requestId') }),
      userId: user_id ?? null,
      reserve: deps.admission.reserveCall,
      span: requestTrace(c).span,
    });
    // A title that would carry a secret (in any form the leak policy reads) is no title: the front end
    // keeps its placeholder.
    return c.json({ title: title !== null && deps.leaks.scan(title).redacted ? null : title });
  });
}
