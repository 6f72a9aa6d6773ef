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

/** `fetchImpl` with each response body cut (errored) once it passes `maxBytes`. */
export function limitResponseBytes(fetchImpl: typeof globalThis.fetch, maxBytes: number): typeof globalThis.fetch {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    if (!res.body) return res;
    let seen = 0;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(new ResponseTooLargeError(maxBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
