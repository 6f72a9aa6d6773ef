/**
 * Server-sent events at the edge (CONTRACT.md "Stream"): the one place events become frames. Each event
 * is `event: <type>\ndata: <one line of JSON>\nid: <run_id>:<seq>\n\n`, the text Hono's `writeSSE`
 * writes, with the headers its `streamSSE` sets, in the body of a Hono response.
 *
 * Owned, not `streamSSE` (issue 75): `streamSSE` moves each frame through an async `writeSSE`, a
 * TransformStream and a second ReadableStream before the Node adapter reads it; here a frame is one
 * enqueue on the body's one ReadableStream. At the campus peak on one core the same tree on `streamSSE`
 * cost 1.047× the CPU per turn (the replicas' 1.053×), both trees at once, four rounds
 * (docs/perf-log/2026-12-01-edge.md; docs/design/performance.md "Owned instead of a library" says when
 * to switch back). The way back: this file at b397b54, under the same tests.
 *
 * - Backpressure: a frame is enqueued, and the next event pulled, only while the body's queue has room
 *   (one frame; the Node adapter reads the next only after the socket took the last, or after `drain`).
 *   Pulled from a turn (`/v1`), a slow reader holds one event, not the answer; pulled from a run (runs/),
 *   the run holds the frames, bounded by the answer cap, for readers that come back.
 * - Keep-alive: one timer per stream, re-armed only when it fires; each frame just records the time,
 *   and a `: keep-alive` comment goes out only after `keepAliveMs` of silence.
 * - A client that goes away: the adapter cancels the body; `onAbort` detaches the reader (a run goes on
 *   for its grace) or ends the turn, and the loop stops.
 * - Failure: a failure of the event source is logged by the caller (`onError`) and sent as the generic
 *   `error` envelope here, never its message.
 */
import type { Context } from 'hono';
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

/** The SSE text of one frame, as Hono's `writeSSE` writes it (each line of `data` its own `data:` line). */
export function sseFrameText(e: SseEvent): string {
  if ((e.event && /[\r\n]/.test(e.event)) || (e.id && /[\r\n]/.test(e.id))) throw new Error('an SSE event name or id must not contain "\\r" or "\\n"');
  const data = /[\r\n]/.test(e.data) ? e.data.split(/\r\n|\r|\n/).join('\ndata: ') : e.data;
  return `${e.event ? `event: ${e.event}\n` : ''}data: ${data}${e.id !== undefined ? `\nid: ${e.id}` : ''}\n\n`;
}

/** Answers `c` with `events` framed as SSE. */
export function sseStream<T = SseEvent>(c: Context, events: AsyncIterable<T>, options: SseOptions<T>): Response {
  const now = options.now ?? Date.now;
  const frame = options.frame ?? ((item: T) => item as unknown as SseEvent);
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const state = { aborted: false, closed: false };
  /** The loop waits here while the socket is a frame behind; the stream's next pull wakes it. */
  let wake: (() => void) | null = null;
  const woken = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    pull: woken,
    // The adapter cancels the body when the client goes away (its socket closed before the end).
    cancel() {
      if (state.closed || state.aborted) return;
      state.aborted = true;
      woken();
      options.onAbort();
    },
  });
  const send = (text: string) => controller.enqueue(encoder.encode(text));
  const keepAlive = keepAliveTimer(state, send, options.keepAliveMs, now);
  void (async () => {
    try {
      for await (const item of events) {
        if (state.aborted) break;
        send(sseFrameText(frame(item)));
        keepAlive.last = now();
        if ((controller.desiredSize ?? 0) <= 0) {
          keepAlive.writing = true;
          await new Promise<void>((resolve) => (wake = resolve));
          keepAlive.writing = false;
          if (state.aborted) break;
        }
      }
    } catch (err) {
      options.onError(err);
      if (!state.aborted) send(sseFrameText(options.failure ?? { event: 'error', data: JSON.stringify(INTERNAL_ERROR) }));
    } finally {
      keepAlive.stop();
      if (!state.aborted) {
        state.closed = true;
        controller.close();
      }
    }
  })().catch(() => {
    // Only the caller's onError can throw this far, after `finally` ended the stream: the process goes on.
  });
  // The headers Hono's `streamSSE` sets, and X-Accel-Buffering: proxies (nginx and the like) buffer
  // responses unless told not to.
  return c.body(body, {
    headers: {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'Transfer-Encoding': 'chunked',
      'X-Accel-Buffering': 'no',
    },
  });
}

/** The stream's one keep-alive timer: fires after a silence, writes a comment, re-arms for the next. */
function keepAliveTimer(stream: { aborted: boolean; closed: boolean }, send: (text: string) => void, intervalMs: number, now: () => number) {
  const state = {
    last: now(),
    /** The socket is behind (a slow reader): a comment would only queue behind the frame. */
    writing: false,
    stop: () => clearTimeout(timer),
  };
  const fire = () => {
    // A stream that is over needs no keep-alive, even while its source has not noticed yet (a turn
    // waiting on a model or a database past the client's disconnect): the timer is not re-armed.
    if (stream.aborted || stream.closed) return;
    if (now() - state.last >= intervalMs && !state.writing) {
      state.last = now();
      send(KEEP_ALIVE_COMMENT);
    }
    // Next when the silence would reach the interval; a full interval while a frame is still being
    // written. (Re-arming at "due" alone, already past, spun a 1 ms timer per stream in both cases.)
    const due = state.last + intervalMs - now();
    timer = setTimeout(fire, due > 0 ? due : intervalMs);
  };
  let timer = setTimeout(fire, intervalMs);
  return state;
}
