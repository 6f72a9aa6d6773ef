/**
 * The chunks of a streamed chat completion, read from the response body the openai client returned
 * (`create(...).asResponse()`: the client still makes the call, sends the key and turns a refused call
 * into its APIError; this reads the answer). One loop from the body's reader to the parsed chunk, where
 * the client's own stream went through four async generators and a line decoder per chunk (issue 46:
 * the model stream was a tenth of a replica's CPU at the campus peak).
 *
 * Server-sent events are parsed by `eventsource-parser` (issue 63: the parser the AI SDK and most
 * clients use, in place of the one written here before): `data:` lines (several join with a newline),
 * an `event:` name, `:` comments, lines ended by LF, CRLF or CR, an event ended by a blank line; `[DONE]`
 * ends the answer. As the openai client does: a chunk whose JSON carries `error`, or an `error` event,
 * fails the pass with the client's APIError (no status: not retried). A data line that is not JSON fails
 * it too, and nothing of the line is logged or put in the error. The body's size and its longest line
 * are bounded as the bytes arrive (response-limit.ts), before anything here holds them.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';

export class MalformedChunkError extends Error {
  override name = 'MalformedChunkError';
  constructor() {
    super('the gateway sent a stream event whose data is not JSON');
  }
}

/** A chat completion chunk's event, as the gateway sent it: a chunk to give, `[DONE]`, or a failure thrown. */
function chunkOf(message: EventSourceMessage, headers: Headers): ChatCompletionChunk | 'done' {
  const payload = message.data;
  if (payload.startsWith('[DONE]')) return 'done';
  let parsed: (Partial<ChatCompletionChunk> & { error?: object; message?: string }) | null;
  try {
    parsed = JSON.parse(payload) as typeof parsed;
  } catch {
    throw new MalformedChunkError();
  }
  if (message.event === 'error') throw new APIError(undefined, parsed?.error, parsed?.message, undefined);
  if (parsed && parsed.error) throw new APIError(undefined, parsed.error, undefined, headers);
  return parsed as ChatCompletionChunk;
}

export async function* completionChunks(response: Response): AsyncGenerator<ChatCompletionChunk> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  /** The chunks parsed from one read, given before the next read. */
  const ready: ChatCompletionChunk[] = [];
  let answered = false;
  let failure: { err: unknown } | null = null;
  let finished = false;
  const parser = createParser({
    onEvent(message) {
      if (answered || failure) return;
      try {
        const chunk = chunkOf(message, response.headers);
        if (chunk === 'done') answered = true;
        else ready.push(chunk);
      } catch (err) {
        failure = { err };
      }
    },
  });

  try {
    for (;;) {
      const { done, value } = await reader.read();
      // At the end, a last line without its line end, and a last event without its blank line, still
      // count (as the openai client's decoder has it): the blank line is given.
      parser.feed(done ? `${decoder.decode()}\n\n` : decoder.decode(value, { stream: true }));
      if (failure) throw (failure as { err: unknown }).err;
      for (let i = 0; i < ready.length; i++) yield ready[i]!;
      ready.length = 0;
      if (done) {
        finished = true;
        return;
      }
    }
  } finally {
    // The reader stopped early: the body is cancelled, which closes its connection.
    if (!finished) reader.cancel().catch(() => undefined);
  }
}
