/**
 * The memory routes (CONTRACT.md): `GET /memory/{user_id}` (a page of facts, newest first),
 * `GET /memory/{user_id}/items/{kind}/{item_id}/history` (one fact's changes, oldest first),
 * `DELETE /memory/{user_id}/items/{kind}/{item_id}` and `DELETE /memory/{user_id}` (each also deletes
 * the history of what it removes; clearing also deletes the user's resumable runs). Every query names
 * its user: one user's memory is never reachable through another's path. A store that cannot be
 * queried answers 503 with the envelope; the cause goes to the log only.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../http/app-env.js';
import type { AppDeps } from '../deps.js';
import { NotFoundError, ServiceUnavailableError } from '../http/errors.js';
import { integerParam, validParam, validQuery } from '../http/validate.js';
import { removeUnstorable } from '../memory/fact-text.js';
import { redactingStore } from '../memory/fact-guard.js';
import { MAX_PAGE_LIMIT } from '../memory/store-rules.js';
import { FACT_KINDS, type Fact, type FactChange } from '../memory/store.js';
import { userIdSchema } from '../request/chat-request.js';
import { EXAMPLE_FACT_ID, EXAMPLE_USER_ID, EXAMPLES } from './examples.js';
import { factDeletedSchema, factHistorySchema, memoryClearedSchema, memoryPageSchema } from './response-schemas.js';
import { errors, GUARDED, GUARDED_GET, json, route } from './route-docs.js';

/** CONTRACT.md "Memory page": `q` at most 200 characters. */
const MAX_Q_LENGTH = 200;

const userParam = z.object({ user_id: userIdSchema.meta({ examples: [EXAMPLE_USER_ID] }) });
const itemParams = userParam.extend({
  kind: z.enum(FACT_KINDS, { error: 'kind must be learned or remembered' }).meta({ examples: ['remembered'] }),
  // Ids are UUIDs; anything else within this bound simply names no fact (404).
  item_id: z.string().min(1).max(128).meta({ examples: [EXAMPLE_FACT_ID] }),
});

const pageQuery = z.object({
  q: z
    .string()
    .max(MAX_Q_LENGTH)
    // A stored fact never holds a control character (admission cleans it, a store refuses one), and Postgres cannot even compare
    // with a NUL: such a search is a bad request, not a store outage.
    .refine((s) => removeUnstorable(s) === s, 'q must not contain control characters')
    .optional()
    .transform((s) => (s ? s : undefined)),
  kind: z
    .enum(FACT_KINDS, { error: 'kind must be learned or remembered' })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  limit: integerParam(MAX_PAGE_LIMIT, 1, MAX_PAGE_LIMIT, `an integer, 1-${MAX_PAGE_LIMIT}`),
  offset: integerParam(0, 0, Number.MAX_SAFE_INTEGER, 'an integer, 0 or more'),
});

/** A fact as the front end reads it (`type` is the kind; snake_case, ISO-8601 UTC time). */
const toItem = (f: Fact) => ({
  id: f.id,
  type: f.kind,
  text: f.text,
  created_at: f.createdAt.toISOString(),
  updated_at: f.updatedAt.toISOString(),
});

/** A history entry as CONTRACT.md "Fact history" shows it. */
const toChange = (h: FactChange) => ({ at: h.at.toISOString(), change: h.change, source: h.source, text: h.text });

const MEMORY_ERRORS = [400, 503] as const;
const docs = {
  page: route({
    summary: "A page of the user's facts, newest first",
    description: '`q` filters by a case-insensitive substring of the text, `kind` by learned or remembered; `limit` (1-200) and `offset` page through `total`.',
    tags: ['memory'],
    responses: { 200: json('the memory page', memoryPageSchema, EXAMPLES.memoryPage), ...errors([...GUARDED_GET, ...MEMORY_ERRORS]) },
  }),
  history: route({
    summary: "One fact's changes, oldest first",
    description: 'Each change with its source (extraction, remember, forget or user) and the text after it (null for a deletion). 404 for a fact of another kind or another user.',
    tags: ['memory'],
    responses: { 200: json('the fact history', factHistorySchema, EXAMPLES.factHistory), ...errors([...GUARDED_GET, ...MEMORY_ERRORS, 404]) },
  }),
  remove: route({
    summary: 'Deletes one fact and its history',
    description: 'The fact named by its kind and id; 404 if absent, of another kind or another user\'s.',
    tags: ['memory'],
    responses: { 200: json('the fact deleted', factDeletedSchema, EXAMPLES.factDeleted), ...errors([...GUARDED, ...MEMORY_ERRORS, 404]) },
  }),
  clear: route({
    summary: "Deletes all of the user's facts and their history",
    description: 'Also deletes the user\'s stored runs (resumable streams). Answers how many facts were removed.',
    tags: ['memory'],
    responses: { 200: json('how many facts were removed', memoryClearedSchema, EXAMPLES.memoryCleared), ...errors([...GUARDED, ...MEMORY_ERRORS]) },
  }),
};

export function createMemoryRoutes(deps: Pick<AppDeps, 'memory' | 'logger' | 'leaks' | 'runs'> & { guard: MiddlewareHandler }) {
  const { logger } = deps;
  // Listings and deletions answer with fact texts: redacted by the leak policy on the way out.
  const memory = redactingStore(deps.memory, deps.leaks);

  /** Runs a store call; a store failure becomes a 503 envelope, with the cause logged. */
  async function query<T>(what: string, requestId: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      logger.error('memory store query failed', { op: what, request_id: requestId, err });
      throw new ServiceUnavailableError('the memory store cannot be reached right now; try again later', 'memory unavailable');
    }
  }

  return new Hono<AppEnv>()
    .get('/memory/:user_id', deps.guard, validParam(userParam), validQuery(pageQuery), docs.page, async (c) => {
      const { user_id } = c.req.valid('param');
      const { q, kind, limit, offset } = c.req.valid('query');
      const page = await query('list', c.get('requestId'), () =>
        memory.list(user_id, { limit, offset, ...(q && { q }), ...(kind && { kind }) }),
      );
      return c.json({ items: page.items.map(toItem), total: page.total, limit, offset });
    })
    .get('/memory/:user_id/items/:kind/:item_id/history', deps.guard, validParam(itemParams), docs.history, async (c) => {
      const { user_id, kind, item_id } = c.req.valid('param');
      const history = await query('history', c.get('requestId'), () => memory.history(user_id, item_id, kind));
      if (!history) throw new NotFoundError(`no ${kind} memory item with this id`);
      return c.json({ id: item_id.toLowerCase(), type: kind, history: history.map(toChange) });
    })
    .delete('/memory/:user_id/items/:kind/:item_id', deps.guard, validParam(itemParams), docs.remove, async (c) => {
      const { user_id, kind, item_id } = c.req.valid('param');
      const [removed] = await query('remove', c.get('requestId'), () => memory.remove(user_id, [item_id], kind));
      if (!removed) throw new NotFoundError(`no ${kind} memory item with this id`);
      return c.json({ status: 'deleted', id: removed.id, type: removed.kind });
    })
    .delete('/memory/:user_id', deps.guard, validParam(userParam), docs.clear, async (c) => {
      const { user_id } = c.req.valid('param');
      const removed = await query('clear', c.get('requestId'), () => memory.clear(user_id));
      // The user's stored runs (their answers) go with their memory (CONTRACT.md "Resuming a stream").
      await query('clear runs', c.get('requestId'), () => deps.runs.forgetOwner(user_id));
      return c.json({ status: 'cleared', removed });
    });
}
