/**
 * Bounds on every gateway response, counted as its bytes arrive (the provider transport, or the `fetch` seam of an injected fetch). The answer cap
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

/**
 * Bytes one chunk carrying a single character of answer may take: an honest envelope is 200-600 bytes.
 * A pass is read until the answer cap, so an answer cap of 100,000 characters sent a character a chunk
 * must fit (issue 61: a bound from `max_tokens` alone ended such answers near 38,000 characters with a
 * false "model unavailable").
 */
const BYTES_PER_ANSWER_CHAR = 1024;

/**
 * The bounds of one gateway response for passes of at most `maxOutputTokens`, read up to an answer of
 * `maxAnswerChars` characters: whichever allows more.
 */
export function responseByteLimit(maxOutputTokens: number, maxAnswerChars = 0): ResponseBounds {
  const maxBytes = Math.max(MIN_RESPONSE_BYTES, maxOutputTokens * BYTES_PER_TOKEN, maxAnswerChars * BYTES_PER_ANSWER_CHAR);
  return { maxBytes, maxLineBytes: MAX_LINE_BYTES };
}

/** The response passed a bound; the call fails as a gateway failure would. */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  constructor(what: 'response' | 'line', limit: number) {
    super(`a gateway ${what} passed ${limit} bytes`);
  }
}

/**
 * A fresh count for one response: called with each body chunk as it arrives, it returns the error that
 * ends the body once a bound is passed, else null. The provider transport (transport/outbound-fetch.ts) counts
 * with it as it reads the socket; `limitResponseBytes` puts it in front of any other fetch.
 */
export function responseCounter(bounds: ResponseBounds): () => (chunk: Uint8Array) => Error | null {
  return () => {
    let seen = 0;
    let line = 0;
    return (chunk) => {
      seen += chunk.byteLength;
      const lastNewline = chunk.lastIndexOf(NEWLINE);
      line = lastNewline < 0 ? line + chunk.byteLength : chunk.byteLength - lastNewline - 1;
      return seen > bounds.maxBytes
        ? new ResponseTooLargeError('response', bounds.maxBytes)
        : line > bounds.maxLineBytes
          ? new ResponseTooLargeError('line', bounds.maxLineBytes)
          : null;
    };
  };
}

/**
 * `fetchImpl` (an injected fetch: tests, the offline model) with each response body cut (errored) once
 * it passes a bound. The count sits in the `pull` of one ReadableStream over the body's reader: a chunk
 * goes through one read, the count and one enqueue. Cancelling it cancels the upstream body.
 */
export function limitResponseBytes(fetchImpl: typeof globalThis.fetch, bounds: ResponseBounds): typeof globalThis.fetch {
  const counter = responseCounter(bounds);
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    if (!res.body) return res;
    const reader = res.body.getReader();
    const count = counter();
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          const err = count(value);
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
