/**
 * Reading a streamed chat completion's body (model/completion-chunks.ts): events split anywhere across
 * the body's chunks, every line ending, several data lines, comments, `[DONE]`, a last event without its
 * blank line, and the failures the openai client raises (an `error` in the data, an `error` event, data
 * that is not JSON, told without the line). Bodies are real Responses fed chunk by chunk.
 */
import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { completionChunks, MalformedChunkError } from '../src/model/completion-chunks.js';

const encoder = new TextEncoder();

/** A Response whose body arrives as these pieces, one read each. */
function body(...pieces: string[]): Response {
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(encoder.encode(pieces[i++]!));
      else controller.close();
    },
  });
  return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
}

const chunk = (content: string) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] });

async function contents(res: Response): Promise<string[]> {
  const out: string[] = [];
  for await (const c of completionChunks(res)) out.push(c.choices[0]?.delta?.content ?? '');
  return out;
}

describe('completion chunks from the body', () => {
  it('reads events split across reads at every position, with any line ending', async () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const stream = `: keep-alive${eol}${eol}data: ${chunk('Hel')}${eol}${eol}event: message${eol}data: ${chunk('lo é')}${eol}${eol}data: [DONE]${eol}${eol}`;
      for (let cut = 1; cut < stream.length; cut += 7) {
        expect(await contents(body(stream.slice(0, cut), stream.slice(cut)))).toEqual(['Hel', 'lo é']);
      }
    }
  });

  it('splits a multi-byte character across reads without harm', async () => {
    const bytes = encoder.encode(`data: ${chunk('café ☕')}\n\n`);
    const cut = bytes.indexOf(0xe2) + 1;
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent === 0) c.enqueue(bytes.slice(0, cut));
        else if (sent === 1) c.enqueue(bytes.slice(cut));
        else c.close();
        sent++;
      },
    });
    expect(await contents(new Response(stream))).toEqual(['café ☕']);
  });

  it('joins several data lines of one event with a newline and ignores what follows [DONE]', async () => {
    const multi = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",\ndata: "choices":[{"index":0,"delta":{"content":"two lines"},"finish_reason":null}]}\n\n`;
    expect(await contents(body(multi, 'data: [DONE]\n\n', `data: ${chunk('after')}\n\n`))).toEqual(['two lines']);
  });

  it('reads a last event that lacks its blank line', async () => {
    expect(await contents(body(`data: ${chunk('a')}\n\n`, `data: ${chunk('b')}`))).toEqual(['a', 'b']);
  });

  it('fails with the openai client error on an error in the data or an error event', async () => {
    await expect(contents(body(`data: ${chunk('a')}\n\n`, 'data: {"error":{"message":"overloaded","code":"x"}}\n\n'))).rejects.toBeInstanceOf(APIError);
    await expect(contents(body('event: error\ndata: {"error":{"message":"bad"}}\n\n'))).rejects.toBeInstanceOf(APIError);
  });

  it('fails on data that is not JSON without repeating it', async () => {
    const err = await contents(body('data: secret-looking sk-not-json\n\n')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedChunkError);
    expect(String((err as Error).message)).not.toContain('sk-not-json');
  });

  it('cancels the body when its reader stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(encoder.encode(`data: ${chunk('x')}\n\n`));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const c of completionChunks(new Response(stream))) {
      expect(c.choices[0]?.delta?.content).toBe('x');
      break;
    }
    await new Promise((r) => setTimeout(r, 10));
    expect(cancelled).toBe(true);
  });
});
