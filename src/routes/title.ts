/**
 * `POST /agent/title {"query"}` → `{"title": "<2-5 words>"}` or `{"title": null}` (CONTRACT.md). The
 * first message is moderated first: a flagged one gets the neutral title "New chat" with no model call.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { Moderation } from '../admission/admission.js';
import type { AppEnv } from '../http/app-env.js';
import type { Config } from '../config.js';
import { validJson } from '../http/validate.js';
import type { Logger } from '../logger.js';
import type { ModelGateway } from '../model/gateway.js';
import { generateTitle } from '../model/title.js';
import { querySchema } from '../request/chat-request.js';
import type { LeakPolicy } from '../security/leak-policy.js';

export const FLAGGED_TITLE = 'New chat';

/** The chat request's `query` rules. */
const titleRequestSchema = z.object({ query: querySchema });

export interface TitleRouteDeps {
  config: Config;
  logger: Logger;
  gateway: ModelGateway | null;
  moderation: Moderation;
  leaks: LeakPolicy;
  guard: MiddlewareHandler;
}

export function createTitleRoutes(deps: TitleRouteDeps) {
  return new Hono<AppEnv>().post('/agent/title', deps.guard, validJson(titleRequestSchema), async (c) => {
    const { query } = c.req.valid('json');
    const signal = c.req.raw.signal;
    const verdict = await deps.moderation.check(query, signal);
    if (verdict.flagged) return c.json({ title: FLAGGED_TITLE });
    // No gateway (no key, no offline model): the front end keeps its placeholder.
    if (!deps.gateway) return c.json({ title: null });
    const title = await generateTitle(deps.gateway, {
      model: deps.config.gateway.titleModel,
      query,
      signal,
      logger: deps.logger.child({ request_id: c.get('requestId') }),
    });
    // A title that would carry a secret (in any form the leak policy reads) is no title: the front end
    // keeps its placeholder.
    return c.json({ title: title !== null && deps.leaks.scan(title).redacted ? null : title });
  });
}
