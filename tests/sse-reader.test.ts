/**
 * The terminal client's reader of a `text/event-stream` body (src/sandbox/chat/sse-reader.ts, on
 * `eventsource-parser`): every line ending the format allows (LF, CRLF, a lone CR, a CRLF split across
 * two chunks), chunks split inside a UTF-8 character, comments skipped, ids kept, a frame's several
 * `data:` lines joined, and data that is not JSON failing the read.
 */
import { describe, expect, it } from 'vitest';
import { readSseEvents } from '../src/sandbox/chat/sse-reader.js';

/** A body that delivers `chunks` one read at a time. */
function body(chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    pull(controller) {
      const next = chunks.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(typeof next === 'string' ? encoder.encode(next) : next);
    },
  });
}

async function read(chunks: Array<string | Uint8Array>, parse?: (data: string) => unknown) {
  const events = [];
  for await (const e of readSseEvents(body(chunks), parse ? { parse } : {})) events.push(e);
  return events;
}

describe('the terminal client SSE reader', () => {
  it('reads LF, CRLF, a lone CR and a CRLF split across chunks alike', async () => {
    const expected = [
      { type: 'delta', data: { text: 'a' }, id: 'r:1' },
      { type: 'done', data: { ok: true }, id: 'r:2' },
    ];
    expect(await read(['event: delta\nid: r:1\ndata: {"text":"a"}\n\n', 'event: done\nid: r:2\ndata: {"ok":true}\n\n'])).toEqual(expected);
    expect(await read(['event: delta\r\nid: r:1\r\ndata: {"text":"a"}\r\n\r\n', 'event: done\r\nid: r:2\r\ndata: {"ok":true}\r\n\r\n'])).toEqual(expected);
    expect(await read(['event: delta\rid: r:1\rdata: {"text":"a"}\r\r', 'event: done\rid: r:2\rdata: {"ok":true}\r\r'])).toEqual(expected);
    expect(await read(['event: delta\r', '\nid: r:1\r\ndata: {"text":"a"}\r', '\n\r', '\nevent: done\r\nid: r:2\r\ndata: {"ok":true}\r\n\r\n'])).toEqual(expected);
  });

  it('joins a UTF-8 character split across chunks, skips comments, joins data lines, leaves out an id not sent', async () => {
    const bytes = new TextEncoder().encode('event: delta\ndata: {"text":"caf\u00e9"}\n\n');
    const at = bytes.indexOf(0xc3) + 1;
    expect(await read([bytes.slice(0, at), bytes.slice(at), ': keep-alive\n\n', 'data: [1,\ndata: 2]\n\n'])).toEqual([
      { type: 'delta', data: { text: 'café' } },
      { type: 'message', data: [1, 2] },
    ]);
  });

  it('fails the read on data that is not JSON, unless told how to read it', async () => {
    await expect(read(['data: [DONE]\n\n'])).rejects.toThrow(SyntaxError);
    expect(await read(['data: [DONE]\n\n'], (d) => d)).toEqual([{ type: 'message', data: '[DONE]' }]);
  });
});
