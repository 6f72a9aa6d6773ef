/**
 * The provider transport (issue 46): a `fetch` over node:http and node:https with keep-alive agents, given
 * to the openai clients of the model gateway, embeddings and moderation and to the MCP client of the
 * campus tools, through their `fetch` options.
 *
 * Why not the global fetch: a streamed answer is a few hundred small chunks, and fetch moves each through
 * its own body machinery and a web stream before the reader sees it; in the campus-peak profile that path
 * (undici's fetch, web streams) was about a sixth of a replica's CPU. Here the response body is one
 * ReadableStream fed by the socket's `data` events, optionally counting bytes against bounds as they
 * arrive (`onChunk`), with backpressure (the socket pauses while the reader is behind).
 *
 * Why not undici's `request` (issue 63 put the transport on it; issue 75 brought this one back): at the
 * campus peak on one core the same tree on undici's `request` cost 1.13× the CPU per turn of this
 * transport, with first-delta p99 1.58×, alternating in one run (docs/perf-log/2026-11-30-transport.md):
 * above issue 63's 5% for owning a piece, so it is owned, in docs/design/performance.md's table "Owned
 * instead of a library" with its condition for switching back. The way back: the undici version of this
 * file at 81b5e5c, under the same tests.
 *
 * What it keeps of fetch's contract for these clients:
 * - the caller's AbortSignal aborts the request, before or during the body: the promise rejects, or the
 *   body errors, with an `AbortError` DOMException;
 * - a connection failure rejects with `TypeError('fetch failed', { cause })`, a body cut off errors it
 *   with `TypeError('terminated')`, as fetch does;
 * - a gzip, deflate or br body is decoded;
 * - a request this transport does not carry (a body other than a string or bytes, a scheme other than
 *   http and https) goes to the global fetch.
 * It follows no redirect and uses no proxy (the providers are called at their configured address), as
 * undici's `request` with an Agent did not either.
 */
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { getMaxListeners, setMaxListeners } from 'node:events';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

export interface OutboundFetchOptions {
  /**
   * Sees each body chunk before the reader does; an error it returns ends the body with that error and
   * closes the connection (response-limit.ts's bounds).
   */
  onChunk?: () => (chunk: Uint8Array) => Error | null;
}

/**
 * An idle connection is closed after 4 s, or sooner when the server's `Keep-Alive: timeout=` says so (as
 * undici does): a connection the server already dropped is not reused for a call that cannot be retried.
 */
const IDLE_SOCKET_MS = 4_000;
const agents = {
  'http:': new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  'https:': new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
};

const READ_AHEAD_BYTES = 64 * 1024;

/**
 * A caller may share one signal among many requests (the MCP client does, one per transport): each
 * request in flight listens on it once, so the listener count follows the concurrency, as with undici,
 * which raises the same limit.
 */
const MAX_SIGNAL_LISTENERS = 1_500;

const abortError = () => new DOMException('This operation was aborted', 'AbortError');

function decoded(res: IncomingMessage): Readable {
  switch (res.headers['content-encoding']?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return res.pipe(createGunzip());
    case 'deflate':
      return res.pipe(createInflate());
    case 'br':
      return res.pipe(createBrotliDecompress());
    default:
      return res;
  }
}

/** The response body as one ReadableStream over the socket's chunks. */
function bodyOf(res: IncomingMessage, signal: AbortSignal | null | undefined, check: ((chunk: Uint8Array) => Error | null) | null): ReadableStream<Uint8Array> {
  const source = decoded(res);
  let finished = false;
  const end = (controller: ReadableStreamDefaultController<Uint8Array>, err: unknown | null) => {
    if (finished) return;
    finished = true;
    signal?.removeEventListener('abort', onAbort);
    if (err === null) controller.close();
    else {
      controller.error(err);
      res.destroy();
      if (source !== res) source.destroy();
    }
  };
  let onAbort = () => undefined as void;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        onAbort = () => end(controller, abortError());
        signal?.addEventListener('abort', onAbort, { once: true });
        source.on('data', (chunk: Buffer) => {
          if (finished) return;
          const err = check?.(chunk) ?? null;
          if (err) return end(controller, err);
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 1) <= 0) source.pause();
        });
        source.once('end', () => end(controller, null));
        // A socket closed before the end, or a body that cannot be decoded; after an abort, the AbortError.
        const terminated = () => end(controller, signal?.aborted ? abortError() : new TypeError('terminated'));
        source.once('error', terminated);
        res.once('close', () => {
          if (!res.complete) terminated();
        });
      },
      pull() {
        source.resume();
      },
      cancel() {
        finished = true;
        signal?.removeEventListener('abort', onAbort);
        res.destroy();
        if (source !== res) source.destroy();
      },
    },
    // Up to 64 KB is read ahead of the reader (a pause and a resume per chunk otherwise); past that the
    // socket waits for the reader.
    new ByteLengthQueuingStrategy({ highWaterMark: READ_AHEAD_BYTES }),
  );
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/** A fetch over node:http/https for the provider clients (module note). */
export function createOutboundFetch(options: OutboundFetchOptions = {}): typeof globalThis.fetch {
  return (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const body = init?.body;
    const carried = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (!carried || !(url.protocol in agents) || !(typeof input === 'string' || input instanceof URL)) return globalThis.fetch(input, init);
    const signal = init?.signal;
    if (signal?.aborted) return Promise.reject(abortError());
    if (signal && getMaxListeners(signal) < MAX_SIGNAL_LISTENERS) setMaxListeners(MAX_SIGNAL_LISTENERS, signal);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const protocol = url.protocol as keyof typeof agents;
    const send = protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      const onAbort = () => {
        req.destroy();
        if (!settled) {
          settled = true;
          reject(abortError());
        }
      };
      const req = send(url, { method: init?.method ?? 'GET', headers, agent: agents[protocol] }, (res) => {
        if (settled) return void res.destroy();
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        const status = res.statusCode ?? 502;
        const nullBody = status === 204 || status === 304 || init?.method === 'HEAD';
        if (nullBody) res.resume();
        resolve(
          new Response(nullBody ? null : bodyOf(res, signal, options.onChunk?.() ?? null), {
            status,
            statusText: res.statusMessage ?? '',
            headers: headersOf(res),
          }),
        );
      });
      req.once('error', (cause) => {
        signal?.removeEventListener('abort', onAbort);
        if (settled) return;
        settled = true;
        reject(new TypeError('fetch failed', { cause }));
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      req.end(body ?? undefined);
    });
  };
}

/** The transport of the provider calls that count no bytes (embeddings, moderation). */
export const providerFetch: typeof globalThis.fetch = createOutboundFetch();
