/**
 * The provider transport (transport/outbound-fetch.ts) against a real HTTP server: request method, headers
 * and body; status and headers back; a body read chunk by chunk, read at most 64 KB ahead of its reader
 * (the server held back); gzip decoded; the caller's abort before the response and during the body; a
 * refused connection; a body cut off; the per-chunk check ending a body; and the openai client making a
 * call through it. Every body case runs twice: read through the body's ReadableStream, and through
 * `socketReader` (the streamed answer's reader), which must keep the same contract.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutboundFetch, socketReader, type BodyReader } from '../src/transport/outbound-fetch.js';

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = null;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, res, body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const fetchOut = createOutboundFetch();

const readers: Array<[string, (res: Response) => BodyReader]> = [
  ['the body stream', (res) => res.body!.getReader()],
  ['the socket reader', (res) => socketReader(res.body!)!],
];

async function readText(reader: BodyReader): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true });
  return text + decoder.decode();
}

describe('provider transport', () => {
  it('sends the method, headers and body and returns status, headers and the body', async () => {
    const url = await serve((req, res, body) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-echo': String(req.headers['x-key']) });
      res.end(JSON.stringify({ method: req.method, body }));
    });
    const res = await fetchOut(`${url}/v1/x`, { method: 'POST', headers: { 'x-key': 'k1', 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-echo')).toBe('k1');
    expect(await res.json()).toEqual({ method: 'POST', body: '{"a":1}' });
  });

  describe.each(readers)('a body read through %s', (_name, read) => {
    it('gives the body chunk by chunk as the server writes it, and decodes gzip', async () => {
      const url = await serve((req, res) => {
        if (req.url === '/gz') {
          res.writeHead(200, { 'content-encoding': 'gzip' });
          return res.end(gzipSync('zipped text'));
        }
        res.writeHead(200);
        res.write('one;');
        setTimeout(() => res.end('two'), 50);
      });
      const reader = read(await fetchOut(`${url}/slow`));
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toBe('one;');
      const rest = await reader.read();
      expect(new TextDecoder().decode(rest.value)).toBe('two');
      expect((await reader.read()).done).toBe(true);
      expect(await readText(read(await fetchOut(`${url}/gz`)))).toBe('zipped text');
    });

    it('rejects with an AbortError when aborted before the response, and errors the body when aborted during it', async () => {
      const url = await serve((req, res) => {
        if (req.url === '/late') return void setTimeout(() => res.end('late'), 5_000);
        res.writeHead(200);
        res.write('partial');
      });
      const early = new AbortController();
      const pending = fetchOut(`${url}/late`, { signal: early.signal });
      setTimeout(() => early.abort(), 20);
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });

      const during = new AbortController();
      const reader = read(await fetchOut(`${url}/stream`, { signal: during.signal }));
      await reader.read();
      during.abort();
      await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    });

    it('drops what it read ahead when aborted: the next read fails', async () => {
      const url = await serve((_req, res) => {
        res.writeHead(200);
        res.write('one;');
        setTimeout(() => res.write('two;'), 20);
      });
      const during = new AbortController();
      let taken = 0;
      const counting = createOutboundFetch({ onChunk: () => (chunk) => ((taken += chunk.byteLength), null) });
      const reader = read(await counting(url, { signal: during.signal }));
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('one;');
      await expect.poll(() => taken).toBe(8);
      during.abort();
      await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    });

    it('rejects a refused connection as fetch does, and errors a body the server cut off', async () => {
      const url = await serve((_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('short');
        setTimeout(() => res.destroy(), 10);
      });
      const refused = await fetchOut('http://127.0.0.1:1/').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TypeError);
      expect((refused as Error).message).toBe('fetch failed');
      await expect(readText(read(await fetchOut(url)))).rejects.toThrow(/terminated/);
    });

    it('ends a body with the error its per-chunk check returns', async () => {
      const url = await serve((_req, res) => {
        res.writeHead(200);
        res.write('a'.repeat(10));
        setTimeout(() => res.end('b'.repeat(10)), 20);
      });
      const bounded = createOutboundFetch({
        onChunk: () => {
          let seen = 0;
          return (chunk) => ((seen += chunk.byteLength) > 15 ? new Error('too long') : null);
        },
      });
      await expect(readText(read(await bounded(url)))).rejects.toThrow('too long');
    });

    it('reads at most 64 KB ahead of a reader that waits, and gives every byte once it reads', async () => {
      // The server writes until it is held back. Loopback socket buffers may grow to tens of megabytes
      // (tcp_rmem's ceiling is the machine's), so what is measured is what the transport takes off the
      // socket (its per-chunk check sees each chunk before it is queued), not how much the kernel holds.
      const CAP = 256 * 1024 * 1024;
      let written = 0;
      let stop = false;
      let serverRes: ServerResponse | null = null;
      const url = await serve((_req, res) => {
        serverRes = res;
        res.writeHead(200);
        const piece = Buffer.alloc(16 * 1024, 'x');
        const pump = () => {
          while (!stop && written < CAP) {
            written += piece.length;
            if (!res.write(piece)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      });
      let taken = 0;
      const counting = createOutboundFetch({ onChunk: () => (chunk) => ((taken += chunk.byteLength), null) });
      const reader = read(await counting(url));
      // The reader waits until the server is held back: nothing more written over 200 ms, its write refused.
      let got = 0;
      for (let last = -1, deadline = Date.now() + 10_000; Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 200));
        if (written === last && serverRes!.writableNeedDrain) break;
        last = written;
      }
      expect(serverRes!.writableNeedDrain).toBe(true);
      expect(written).toBeLessThan(CAP);
      // One socket read (at most 64 KB) may land past the mark before the socket pauses.
      expect(taken).toBeGreaterThan(0);
      expect(taken).toBeLessThanOrEqual(128 * 1024);
      stop = true;
      for (let r = await reader.read(); !r.done; r = await reader.read()) got += r.value.byteLength;
      expect(got).toBe(written);
    });
  });

  it('gives a socket reader only for a body of its own no one has read, and locks the body to it', async () => {
    const url = await serve((_req, res) => res.end('body'));
    const started = await fetchOut(url);
    const streamReader = started.body!.getReader();
    expect(socketReader(started.body!)).toBeNull();
    expect(await readText(streamReader)).toBe('body');
    expect(socketReader(new Response('elsewhere').body!)).toBeNull();
    // A body nobody took within a turn of the event loop flows to its stream (read ahead, as any fetch's).
    const left = await fetchOut(url);
    await new Promise((r) => setImmediate(r));
    expect(socketReader(left.body!)).toBeNull();
    expect(await left.text()).toBe('body');

    const taken = await fetchOut(url);
    const reader = socketReader(taken.body!)!;
    expect(taken.body!.locked).toBe(true);
    expect(socketReader(taken.body!)).toBeNull();
    expect(await readText(reader)).toBe('body');
  });

  it('gives the socket reader to a streamed completion as the openai client returns it', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n');
    });
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-transport', maxRetries: 0, fetch: fetchOut });
    const response = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true }).asResponse();
    const reader = socketReader(response.body!);
    expect(reader).not.toBeNull();
    expect(await readText(reader!)).toContain('"content":"hi"');
  });

  it('a socket reader cancelled closes the connection and ends the read that waits', async () => {
    let closed: Promise<unknown> = Promise.resolve();
    const url = await serve((req, res) => {
      closed = once(res, 'close');
      res.writeHead(200);
      res.write('first');
    });
    const reader = socketReader((await fetchOut(url)).body!)!;
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first');
    const waiting = reader.read();
    await reader.cancel();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    await closed;
  });

  it('carries the openai client: a call and its refusal as the client reports them', async () => {
    const url = await serve((req, res) => {
      if (req.headers.authorization !== 'Bearer sk-transport') {
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: 'no key', type: 'auth' } }));
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5] }], model: 'e', usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
    const good = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-transport', maxRetries: 0, fetch: fetchOut });
    const out = await good.embeddings.create({ model: 'e', input: ['x'], encoding_format: 'float' });
    expect(out.data[0]!.embedding).toEqual([0.5]);
    const bad = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-wrong', maxRetries: 0, fetch: fetchOut });
    await expect(bad.embeddings.create({ model: 'e', input: ['x'], encoding_format: 'float' })).rejects.toMatchObject({ status: 401 });
  });

  it('shares one signal among many requests in flight without a listener warning', async () => {
    const url = await serve((_req, res) => setTimeout(() => res.end('ok'), 30));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const shared = new AbortController().signal;
      const bodies = await Promise.all(Array.from({ length: 30 }, async () => (await fetchOut(url, { signal: shared })).text()));
      expect(bodies.every((b) => b === 'ok')).toBe(true);
      await new Promise((r) => setTimeout(r, 10));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
