/**
 * The run routes (CONTRACT.md "Resuming a stream", issue 62): a run's state, its stream resumed after a
 * cursor, and its cancel. Each goes through the guard (auth) and overload protection like any request;
 * a user holds at most MAX_READERS_PER_USER resumed streams at once. The owner is `user_id` (query or
 * body) or `X-User-Id`, else the `anonymous` bucket; an unknown, expired or other user's run is the same
 * 404, and so is an id that is not a run id at all; the run log unreachable is a 503. None of these
 * calls the model, touches the budget, or runs moderation or tools.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../http/app-env.js';
import { AppError, BadRequestError, NotFoundError, ServiceUnavailableError } from '../http/errors.js';
import { integerParam, validHeader, validJson, validParam, validQuery } from '../http/validate.js';
import { TURNS_IN_FLIGHT_RETRY_AFTER_S } from '../lifecycle/turns-in-flight.js';
import { principalOf, type Principal } from '../security/principal.js';
import { userIdSchema } from '../request/chat-request.js';
import { MAX_SEQ, sseFrameOf, type Frame } from '../runs/run-log.js';
import { sseStream } from '../sse/sse-stream.js';
import { EXAMPLE_RUN_ID, EXAMPLE_USER_ID, EXAMPLES } from './examples.js';
import { runStateSchema } from './response-schemas.js';
import { agentStreamFrameSchema, errors, eventStream, GUARDED, GUARDED_GET, json, route } from './route-docs.js';

/** Resumed streams one user may hold open at once (a resume costs no model call: this bounds sockets). */
export const MAX_READERS_PER_USER = 128;

const runParam = z.object({ run_id: z.string().max(64).meta({ description: 'the id the stream named in `X-Run-Id`', examples: [EXAMPLE_RUN_ID] }) });
const ownerId = userIdSchema.meta({ examples: [EXAMPLE_USER_ID] });
const ownerHeaders = z.object({
  'x-user-id': ownerId.optional().meta({ description: "the run's user, when `user_id` is not given (the chat request's `user_id`; absent: anonymous)" }),
});
const resumeHeaders = ownerHeaders.extend({
  'last-event-id': z.string().max(200).optional().meta({ description: '`<run_id>:<seq>` of the last frame the client has (what EventSource sends on its own); wins over `after`' }),
});
const ownerQuery = z.object({ user_id: ownerId.optional().meta({ description: "the run's user (the chat request's `user_id`); absent: anonymous" }) });
const resumeQuery = ownerQuery.extend({
  after: integerParam(0, 0, MAX_SEQ, 'the seq of the last frame the client has (0: from the start)'),
});
const cancelBody = z.object({ user_id: userIdSchema.nullish() });

/** A user has the allowed number of resumed streams open. */
export class TooManyReadersError extends AppError {
  constructor() {
    super(429, 'too many streams', `at most ${MAX_READERS_PER_USER} resumed streams can be open at once`, { 'Retry-After': String(TURNS_IN_FLIGHT_RETRY_AFTER_S) });
  }
}

/** The owner a request names: one of `user_id` and `X-User-Id` (both: they must agree), else anonymous. */
function ownerOf(given: string | null | undefined, header: string | undefined): Principal {
  if (given && header && given !== header) throw new BadRequestError('user_id and X-User-Id name different users', 'invalid request');
  return principalOf(given ?? header);
}

/** The cursor: `Last-Event-ID` (it must name this run) or `after` (0 when absent). */
function cursorOf(runId: string, lastEventId: string | undefined, after: number): number {
  if (lastEventId !== undefined && lastEventId.trim() !== '') {
    const at = lastEventId.lastIndexOf(':');
    const seq = lastEventId.slice(at + 1);
    if (at < 0 || lastEventId.slice(0, at) !== runId || !/^\d{1,10}$/.test(seq)) {
      throw new BadRequestError('Last-Event-ID must be <run_id>:<seq> of this run', 'invalid request');
    }
    return Math.min(Number(seq), MAX_SEQ);
  }
  return after;
}

const RUN_ERRORS = [400, 404, 503] as const;
const docs = {
  state: route({
    summary: "A run's state, and its answer once done",
    description: 'For a client that lost the stream: `status` running, done (with `response`), failed (with `error`), cancelled or interrupted.',
    tags: ['runs'],
    responses: { 200: json('the run state', runStateSchema, EXAMPLES.runDone), ...errors([...GUARDED_GET, ...RUN_ERRORS]) },
  }),
  resume: route({
    summary: "A run's stream, resumed after a cursor",
    description:
      'Every frame after `Last-Event-ID` (or `after`) once, in order, then live until `done` or `error`, on any replica. A run whose replica died (or that was cancelled on another replica) ends with the `error` event `interrupted` (`cancelled`), whatever the cursor, with the id `<run_id>:2147483647`, which no other frame has. A cursor at or past the last frame of a finished run answers 204, which stops EventSource reconnecting.',
    tags: ['runs'],
    responses: {
      200: eventStream('the run\'s frames after the cursor', agentStreamFrameSchema, EXAMPLES.deltaFrame),
      204: { description: 'the run is over and the cursor is at or past its last frame: nothing more will come' },
      ...errors([...GUARDED_GET, ...RUN_ERRORS, 429]),
    },
  }),
  cancel: route({
    summary: 'Cancels a run (its model call is aborted); idempotent',
    description: 'The run ends at once with the `error` event `cancelled` (an answer already whole stays `done`). The body `{"user_id"}` (or `X-User-Id`) names the owner; a body is optional.',
    tags: ['runs'],
    responses: { 200: json('the run state after the cancel', runStateSchema, EXAMPLES.runCancelled), ...errors([...GUARDED, ...RUN_ERRORS]) },
    optionalBody: true,
  }),
};

export function createRunRoutes(deps: Pick<AppDeps, 'runs' | 'overload' | 'logger' | 'config'> & { guard: MiddlewareHandler }) {
  const readers = new Map<string, number>();

  /** A call on the run log; the database away is a 503 envelope, the cause logged. */
  async function log<T>(what: string, requestId: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      deps.logger.error('run log query failed', { op: what, request_id: requestId, err });
      throw new ServiceUnavailableError('stored answers cannot be reached right now; try again later', 'runs unavailable');
    }
  }

  /** Counts a resumed stream of `owner` until its frames end (its client gone or the run over). */
  async function* counted(owner: string, frames: AsyncIterable<Frame>): AsyncGenerator<Frame> {
    try {
      yield* frames;
    } finally {
      const n = (readers.get(owner) ?? 1) - 1;
      if (n === 0) readers.delete(owner);
      else readers.set(owner, n);
    }
  }

  return new Hono<AppEnv>()
    .get('/agent/runs/:run_id', deps.guard, validParam(runParam), validQuery(ownerQuery), validHeader(ownerHeaders), docs.state, async (c) => {
      deps.overload.admit();
      const { run_id } = c.req.valid('param');
      const owner = ownerOf(c.req.valid('query').user_id, c.req.valid('header')['x-user-id']);
      const state = await log('state', c.get('requestId'), () => deps.runs.state(run_id, owner));
      if (!state) throw new NotFoundError('no such run');
      return c.json(state);
    })
    .get('/agent/runs/:run_id/stream', deps.guard, validParam(runParam), validQuery(resumeQuery), validHeader(resumeHeaders), docs.resume, async (c) => {
      deps.overload.admit();
      const { run_id } = c.req.valid('param');
      const query = c.req.valid('query');
      const headers = c.req.valid('header');
      const owner = ownerOf(query.user_id, headers['x-user-id']);
      const after = cursorOf(run_id, headers['last-event-id'], query.after);
      if ((readers.get(owner) ?? 0) >= MAX_READERS_PER_USER) throw new TooManyReadersError();
      const follower = await log('follow', c.get('requestId'), () => deps.runs.follow(run_id, owner, after));
      if (!follower) throw new NotFoundError('no such run');
      if (follower.atEnd) {
        // The client has the run's last frame: 204 tells EventSource to stop reconnecting (WHATWG HTML).
        follower.detach();
        return c.body(null, 204);
      }
      readers.set(owner, (readers.get(owner) ?? 0) + 1);
      c.header('X-Run-Id', run_id);
      return sseStream(c, counted(owner, follower.frames), {
        frame: sseFrameOf(run_id),
        keepAliveMs: deps.config.sseKeepAliveMs,
        onAbort: follower.detach,
        onError: (err) => deps.logger.error('resumed stream failed', { request_id: c.get('requestId'), run_id, err }),
      });
    })
    .post('/agent/runs/:run_id/cancel', deps.guard, validParam(runParam), validJson(cancelBody, [EXAMPLES.cancelRequest]), validHeader(ownerHeaders), docs.cancel, async (c) => {
      deps.overload.admit();
      const { run_id } = c.req.valid('param');
      const owner = ownerOf(c.req.valid('json').user_id, c.req.valid('header')['x-user-id']);
      const state = await log('cancel', c.get('requestId'), () => deps.runs.cancel(run_id, owner));
      if (!state) throw new NotFoundError('no such run');
      return c.json(state);
    });
}
