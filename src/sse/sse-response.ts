/**
 * Server-sent events at the edge: the one module that knows the wire framing (CONTRACT.md "Stream").
 * Each client event is `event: <type>\ndata: <one line of JSON>\n\n`; a `: keep-alive` comment goes out
 * after every `keepAliveMs` of silence (proxies drop idle streams); a client that goes away cancels the
 * stream, which calls `onCancel` (the route aborts the turn) and ends the event generator.
 */
import { INTERNAL_ERROR } from '../http/errors.js';
import type { ClientEvent } from '../pipeline/types.js';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  // nginx and similar proxies buffer responses unless told not to.
  'X-Accel-Buffering': 'no',
};

export const KEEP_ALIVE_FRAME = ': keep-alive\n\n';

/** The `data` payload of each event type. */
function payload(e: ClientEvent): unknown {
  switch (e.type) {
    case 'status':
    case 'delta':
      return { text: e.text };
    case 'map':
      return e.map;
    case 'memory':
      return e.data;
    case 'done':
      return e.response;
    case 'error':
      return e.envelope;
  }
}

/** One SSE frame. JSON.stringify escapes newlines, so the data is always a single line. */
export function encodeSseEvent(e: ClientEvent): string {
  return `event: ${e.type}\ndata: ${JSON.stringify(payload(e))}\n\n`;
}

export interface SseOptions {
  /** Silence before a keep-alive comment; CONTRACT.md asks for at least one every 15 s. */
  keepAliveMs?: number;
  /** Called once when the client goes away before the end. */
  onCancel?: () => void;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

/** A streaming Response that frames `events` as SSE. */
export function sseResponse(events: AsyncIterable<ClientEvent>, options: SseOptions = {}): Response {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const setTimer = options.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = options.clearTimeout ?? ((h) => clearTimeout(h as NodeJS.Timeout));
  const iterator = events[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  let timer: unknown = null;
  let finished = false;

  const stopTimer = () => {
    if (timer !== null) clearTimer(timer);
    timer = null;
  };

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (!finished) controller.enqueue(encoder.encode(text));
      };
      const arm = () => {
        stopTimer();
        if (finished) return;
        timer = setTimer(function keepAlive() {
          send(KEEP_ALIVE_FRAME);
          arm();
        }, keepAliveMs);
      };
      void (async () => {
        arm();
        try {
          for (;;) {
            const next = await iterator.next();
            if (next.done || finished) break;
            send(encodeSseEvent(next.value));
            arm();
          }
        } catch {
          // The pipeline turns failures into `error` events; this is the last line of defence.
          send(encodeSseEvent({ type: 'error', envelope: INTERNAL_ERROR }));
        } finally {
          stopTimer();
          if (!finished) {
            finished = true;
            controller.close();
          }
        }
      })();
    },
    cancel() {
      if (finished) return;
      finished = true;
      stopTimer();
      options.onCancel?.();
      // Queued behind a pending next(); onCancel has aborted the turn, so that next() settles soon.
      void iterator.return?.(undefined)?.catch(() => undefined);
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
