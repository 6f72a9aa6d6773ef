/**
 * Reads a `text/event-stream` body into `{type, data}` events, the client side of src/sse's framing:
 * frames end at a blank line, `event:` names the type, `data:` lines carry JSON, comment lines
 * (`: keep-alive`) are skipped. Works on chunks split anywhere, including inside a UTF-8 character.
 */

export interface WireEvent {
  type: string;
  data: unknown;
}

function parseFrame(frame: string): WireEvent | null {
  let type = 'message';
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue;
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return null;
  return { type, data: JSON.parse(data.join('\n')) };
}

/** Yields each event of the stream as soon as its frame is complete. */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<WireEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += decoder.decode(value, { stream: !done }).replace(/\r\n/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
