/**
 * The chunks of a streamed chat completion, read from the response body the openai client returned
 * (`create(...).asResponse()`: the client still makes the call, sends the key and turns a refused call
 * into its APIError; this reads the answer). One loop from the body's reader to the parsed chunk, where
 * the client's own stream went through four async generators and a line decoder per chunk (issue 46:
 * the model stream was a tenth of a replica's CPU at the campus peak).
 *
 * Server-sent events as the gateways send them: `data:` lines (several join with a newline), an
 * `event:` name, `:` comments, lines ended by LF, CRLF or CR, an event ended by a blank line; `[DONE]`
 * ends the answer. As the openai client does: a chunk whose JSON carries `error`, or an `error` event,
 * fails the pass with the client's APIError (no status: not retried). A data line that is not JSON fails
 * it too, and nothing of the line is logged or put in the error. The body's size and its longest line
 * are bounded as the bytes arrive (response-limit.ts), before anything here holds them.
 *
 * Owned, not `eventsource-parser` (issue 63 put the parsing on it; issue 75 brought this reader back): at
 * the campus peak on one core the same tree with `eventsource-parser` on undici cost 1.13× the CPU per
 * turn of this reader on the node:http transport, and the parser alone 1.04× this reader, alternating in
 * one run each (docs/perf-log/2026-11-30-transport.md; performance.md "Owned instead of a library" has
 * the condition for switching back). The way back: this file at 81b5e5c, under the same tests.
 */
import { APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { socketReader } from '../transport/outbound-fetch.js';

export class MalformedChunkError extends Error {
  override name = 'MalformedChunkError';
  constructor() {
    super('the gateway sent a stream event whose data is not JSON');
  }
}

export async function* completionChunks(response: Response): AsyncGenerator<ChatCompletionChunk> {
  if (!response.body) return;
  // The provider transport's body is read straight from its socket (outbound-fetch.ts); any other as a stream.
  const reader = socketReader(response.body) ?? response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let data: string | null = null;
  let event: string | null = null;
  let answered = false;
  let finished = false;

  /** The event ended by a blank line: a chunk to give, or null. */
  const dispatch = (): ChatCompletionChunk | null => {
    const payload = data;
    const name = event;
    data = null;
    event = null;
    if (payload === null || answered) return null;
    if (payload.startsWith('[DONE]')) {
      answered = true;
      return null;
    }
    let parsed: (Partial<ChatCompletionChunk> & { error?: object; message?: string }) | null;
    try {
      parsed = JSON.parse(payload) as typeof parsed;
    } catch {
      throw new MalformedChunkError();
    }
    if (name === 'error') throw new APIError(undefined, parsed?.error, parsed?.message, undefined);
    if (parsed && parsed.error) throw new APIError(undefined, parsed.error, undefined, response.headers);
    return parsed as ChatCompletionChunk;
  };

  try {
    for (;;) {
      const { done, value } = await reader.read();
      text += done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (text.includes('\r')) {
        // CRLF and a lone CR end lines as LF does; a CR at the end may be half a CRLF and waits.
        const half = !done && text.endsWith('\r');
        text = (half ? text.slice(0, -1) : text).replace(/\r\n?/g, '\n') + (half ? '\r' : '');
      }
      // At the end, a last line without its line end is read like the others.
      if (done && text !== '') text += '\n';
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        const line = text.slice(start, nl);
        start = nl + 1;
        if (line === '') {
          const chunk = dispatch();
          if (chunk) yield chunk;
        } else if (line.charCodeAt(0) !== 58 /* ':' comment */) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
          if (field === 'data') data = data === null ? value : `${data}\n${value}`;
          else if (field === 'event') event = value;
        }
      }
      text = start === 0 ? text : text.slice(start);
      if (done) {
        // A last event without its blank line still counts (as the openai client's decoder has it).
        const chunk = dispatch();
        if (chunk) yield chunk;
        finished = true;
        return;
      }
    }
  } finally {
    // The reader stopped early: the body is cancelled, which closes its connection.
    if (!finished) reader.cancel().catch(() => undefined);
  }
}
