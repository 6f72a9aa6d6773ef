/**
 * Server-sent events at the edge, on Hono's `streamSSE` (CONTRACT.md "Stream"): the one place events
 * become frames. Each event is `event: <type>\ndata: <one line of JSON>\nid: <run_id>:<seq>\n\n`.
 *
 * - Backpressure: the next event is pulled only after the previous frame was accepted by the socket
 *   (`writeSSE` is awaited; Hono's stream and the Node adapter wait for `drain`). Pulled from a turn
 *   (`/v1`), a slow reader holds one event, not the answer; pulled from a run (runs/), the run holds
 *   the frames, bounded by the answer cap, for readers that come back.
 * - Keep-alive: one timer per stream, re-armed only when it fires; each frame just records the time,
 *   and a `: keep-alive` comment goes out only after `keepAliveMs` of silence.
 * - A client that goes away: Hono aborts the stream; `onAbort` detaches the reader (a run goes on for its
 *   grace) or ends the turn, and the loop stops.
 * - Failure: `streamSSE`'s own error path writes `e.message` as the event data, which could carry
 *   internals; so nothing is allowed to throw out of the callback: a failure of the event source is
 *   logged by the caller and sent as the generic `error` envelope here.
 */
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { INTERNAL_ERROR } from '../http/errors.js';

/**
 * One frame: the event name (none: a bare `data:` frame, as OpenAI's stream has), its one line of data,
 * and its `id:` (a run's `<run_id>:<seq>`, CONTRACT.md "Stream"; none on OpenAI's stream).
 */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

export const KEEP_ALIVE_COMMENT = ': keep-alive\n\n';

export interface SseOptions<T = SseEvent> {
  /**
   * Turns a source item into its frame, in the write loop (no generator between the source and the
   * socket: every hop is promises per delta on the hot path). Default: the items are frames.
   */
  frame?: (item: T) => SseEvent;
  /** Silence before a keep-alive comment; CONTRACT.md asks for at least one every 15 s. */
  keepAliveMs: number;
  /** Called once when the client goes away before the end. */
  onAbort: () => void;
  /** Called with an error thrown by the event source (the client gets the generic envelope). */
  onError: (err: unknown) => void;
  /** The frame that tells the client of such a failure; default the `error` event with the generic envelope. */
  failure?: SseEvent;
  now?: () => number;
}

/** Answers `c` with `events` framed as SSE. */
export function sseStream<T = SseEvent>(c: Context, events: AsyncIterable<T>, options: SseOptions<T>): Response {
  const now = options.now ?? Date.now;
  const frame = options.frame ?? ((item: T) => item as unknown as SseEvent);
  // Proxies (nginx and the like) buffer responses unless told not to; streamSSE sets the other three.
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (sse) => {
    sse.onAbort(options.onAbort);
    const keepAlive = keepAliveTimer(sse, options.keepAliveMs, now);
    try {
      for await (const item of events) {
        if (sse.aborted) break;
        const e = frame(item);
        keepAlive.writing = true;
        await sse.writeSSE(e);
        keepAlive.writing = false;
        keepAlive.last = now();
      }
    } catch (err) {
      options.onError(err);
      if (!sse.aborted) {
        const failure = options.failure ?? { event: 'error', data: JSON.stringify(INTERNAL_ERROR) };
        await sse.writeSSE(failure);
      }
    } finally {
      keepAlive.stop();
    }
  });
}

/** The stream's one keep-alive timer: fires after a silence, writes a comment, re-arms for the next. */
function keepAliveTimer(sse: SSEStreamingApi, intervalMs: number, now: () => number) {
  const state = {
    last: now(),
    /** A frame is being written (a slow reader): a comment would only queue behind it. */
    writing: false,
    stop: () => clearTimeout(timer),
  };
  const fire = () => {
    // A stream that is over needs no keep-alive, even while its source has not noticed yet (a turn
    // waiting on a model or a database past the client's disconnect): the timer is not re-armed.
    if (sse.aborted || sse.closed) return;
    if (now() - state.last >= intervalMs && !state.writing) {
      state.last = now();
      void sse.write(KEEP_ALIVE_COMMENT);
    }
    // Next when the silence would reach the interval; a full interval while a frame is still being
    // written. (Re-arming at "due" alone, already past, spun a 1 ms timer per stream in both cases.)
    const due = state.last + intervalMs - now();
    timer = setTimeout(fire, due > 0 ? due : intervalMs);
  };
  let timer = setTimeout(fire, intervalMs);
  return state;
}
