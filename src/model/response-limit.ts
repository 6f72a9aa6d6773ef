/**
 * A byte limit on every gateway response, applied at the `fetch` seam of the openai client. The answer
 * cap (execute.ts) counts answer characters as they are parsed, but the client's SSE decoder buffers a
 * whole line before anything is parsed: a gateway that sends one 12 MB `data:` line would be held whole
 * (measured: three at once took the process to 275 MB). Counting the bytes as they arrive bounds that.
 *
 * The limit follows from `max_tokens`: a pass writes at most MAX_OUTPUT_TOKENS, and a
 * `chat.completion.chunk` frame carrying one token is about 200 bytes, so 256 bytes a token (at least
 * 1 MiB) is several times what an honest response can need: 1 MiB for the default 1,500.
 */

const BYTES_PER_TOKEN_FRAME = 256;
const MIN_RESPONSE_BYTES = 1024 * 1024;

/** The byte limit of one gateway response for passes of at most `maxOutputTokens`. */
export function responseByteLimit(maxOutputTokens: number): number {
  return Math.max(MIN_RESPONSE_BYTES, maxOutputTokens * BYTES_PER_TOKEN_FRAME);
}

/** The response was longer than the limit; the call fails as a gateway failure would. */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  constructor(limit: number) {
    super(`the gateway response passed ${limit} bytes`);
  }
}

/**
 * `fetchImpl` with each response body cut (errored) once it passes `maxBytes`. The count sits in the
 * `pull` of one ReadableStream over the body's reader: a chunk goes through one read and one enqueue,
 * where `pipeThrough(new TransformStream(…))` added a writable side and a pipe loop per chunk (the
 * per-delta path, measured in BENCHMARKS.md). Cancelling it cancels the upstream body.
 */
export function limitResponseBytes(fetchImpl: typeof globalThis.fetch, maxBytes: number): typeof globalThis.fetch {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    if (!res.body) return res;
    const reader = res.body.getReader();
    let seen = 0;
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          seen += value.byteLength;
          if (seen > maxBytes) {
            const err = new ResponseTooLargeError(maxBytes);
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
