/**
 * Reads a `text/event-stream` body into `{type, data}` events, the client side of src/sse's framing,
 * with `eventsource-parser` (the parser the model gateway's stream is read with, model/completion-chunks.ts):
 * frames end at a blank line (LF, CRLF or CR, a CRLF split across chunks included), `event:` names the
 * type, `data:` lines carry JSON, `id:` the cursor, comment lines (`: keep-alive`) are skipped. Chunks may
 * split anywhere, inside a UTF-8 character too. `parse` replaces JSON.parse for streams whose data is not
 * always JSON (OpenAI's `data: [DONE]`).
 */
import { createParser } from 'eventsource-parser';

export interface WireEvent {
  type: string;
  data: unknown;
  /** The frame's `id:` (a run's `<run_id>:<seq>`), when it has one: the cursor a resume starts after. */
  id?: string;
}

export interface ReadSseOptions {
  /** Turns a frame's data (its `data:` lines joined by newlines) into `data`; default JSON.parse. */
  parse?: (data: string) => unknown;
}

/** Yields each event of the stream as soon as its frame is complete. */
export async function* readSseEvents(body: ReadableStream<Uint8Array>, options: ReadSseOptions = {}): AsyncGenerator<WireEvent> {
  const parse = options.parse ?? JSON.parse;
  const decoder = new TextDecoder();
  const reader = body.getReader();
  /** The events parsed from one read, given before the next read. */
  const ready: WireEvent[] = [];
  let failure: { err: unknown } | null = null;
  const parser = createParser({
    onEvent(message) {
      if (failure) return;
      try {
        const type = message.event ?? 'message';
        const data = parse(message.data);
        ready.push(message.id === undefined ? { type, data } : { type, data, id: message.id });
      } catch (err) {
        failure = { err };
      }
    },
  });
  let last = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = decoder.decode(value, { stream: !done });
      if (text) last = text;
      parser.feed(text);
      // A CR that ends the body ends its line: the parser holds it to see whether an LF follows.
      if (done && last.endsWith('\r')) parser.feed('\n');
      for (const event of ready.splice(0)) yield event;
      if (failure) throw (failure as { err: unknown }).err;
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
