/**
 * Reads a `text/event-stream` body into `{type, data}` events, the client side of src/sse's framing:
 * frames end at a blank line, `event:` names the type, `data:` lines carry JSON, `id:` the cursor, comment lines
 * (`: keep-alive`) are skipped. Works on chunks split anywhere, including inside a UTF-8 character.
 * `parse` replaces JSON.parse for streams whose data is not always JSON (OpenAI's `data: [DONE]`).
 */

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

function parseFrame(frame: string, parse: (data: string) => unknown): WireEvent | null {
  let type = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue;
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    else if (line.startsWith('id:')) id = line.slice(3).trim();
  }
  if (data.length === 0) return null;
  return id === undefined ? { type, data: parse(data.join('\n')) } : { type, data: parse(data.join('\n')), id };
}

/** Yields each event of the stream as soon as its frame is complete. */
export async function* readSseEvents(body: ReadableStream<Uint8Array>, options: ReadSseOptions = {}): AsyncGenerator<WireEvent> {
  const parse = options.parse ?? JSON.parse;
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += decoder.decode(value, { stream: !done }).replace(/\r\n/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = parseFrame(buffer.slice(0, end), parse);
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
