/**
 * Bounds on every gateway response, applied at the `fetch` seam of the openai client. The answer cap
 * (execute.ts) counts answer characters as they are parsed, but the client's SSE decoder buffers a whole
 * line before anything is parsed: a gateway that sends one 12 MB `data:` line would be held whole
 * (measured: three at once took the process to 275 MB). So two bounds, counted as the bytes arrive:
 *
 * - a line: at most MAX_LINE_BYTES between two newlines. What the decoder holds at once is one line, so
 *   this is the memory bound. An honest `chat.completion.chunk` line is a few hundred bytes; a
 *   non-streamed completion (extraction, titles) is one JSON document of a few KB.
 * - a response: at most BYTES_PER_TOKEN per token of `max_tokens` (at least MIN_RESPONSE_BYTES): an
 *   endless stream of small lines that carry no answer text (empty deltas, reasoning) still ends. It is
 *   far above what an honest response needs: providers send one token a chunk in envelopes of 200-600
 *   bytes, with reasoning deltas and per-chunk usage, so the old bound of 256 bytes a token (1 MiB) ended
 *   a legitimate 5,000-character answer streamed a character at a time as "model unavailable".
 *
 * The model call's deadline (MODEL_CALL_TIMEOUT_MS) bounds the time either way.
 */

/** The longest line a response may carry: far above any honest chunk, far below the heap. */
export const MAX_LINE_BYTES = 1024 * 1024;
const BYTES_PER_TOKEN = 4 * 1024;
const MIN_RESPONSE_BYTES = 8 * 1024 * 1024;
const NEWLINE = 0x0a;

export interface ResponseBounds {
  /** Bytes one response may carry in all. */
  maxBytes: number;
  /** Bytes one line may carry. */
  maxLineBytes: number;
}

/** The bounds of one gateway response for passes of at most `maxOutputTokens`. */
export function responseByteLimit(maxOutputTokens: number): ResponseBounds {
  return { maxBytes: Math.max(MIN_RESPONSE_BYTES, maxOutputTokens * BYTES_PER_TOKEN), maxLineBytes: MAX_LINE_BYTES };
}

/** The response passed a bound; the call fails as a gateway failure would. */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  constructor(what: 'response' | 'line', limit: number) {
    super(`a gateway ${what} passed ${limit} bytes`);
  }
}

/**
 * `fetchImpl` with each response body cut (errored) once it passes a bound. The count sits in the `pull`
 * of one ReadableStream over the body's reader: a chunk goes through one read, one native search for
 * its last newline and one enqueue, where `pipeThrough(new TransformStream(…))` added a writable side and
 * a pipe loop per chunk (the per-delta path, measured in BENCHMARKS.md). Cancelling it cancels the
 * upstream body.
 */
export function limitResponseBytes(fetchImpl: typeof globalThis.fetch, bounds: ResponseBounds): typeof globalThis.fetch {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    if (!res.body) return res;
    const reader = res.body.getReader();
    let seen = 0;
    let line = 0;
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          seen += value.byteLength;
          const lastNewline = value.lastIndexOf(NEWLINE);
          line = lastNewline < 0 ? line + value.byteLength : value.byteLength - lastNewline - 1;
          const err =
            seen > bounds.maxBytes
              ? new ResponseTooLargeError('response', bounds.maxBytes)
              : line > bounds.maxLineBytes
                ? new ResponseTooLargeError('line', bounds.maxLineBytes)
                : null;
          if (err) {
            controller.error(err);
            await reader.cancel(err).catch(() => undefined);
          } else controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
