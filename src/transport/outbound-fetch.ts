/**
 * The provider transport (issue 46, on undici since issue 63): a `fetch` over undici's `request` with
 * one keep-alive `Agent`, given to the openai clients of the model gateway, embeddings and moderation
 * and to the MCP client of the campus tools, through their `fetch` options.
 *
 * Why not the global fetch: a streamed answer is a few hundred small chunks, and fetch moves each
 * through its own body machinery and a web stream before the reader sees it; in the campus-peak profile
 * that path (undici's fetch, web streams) was about a sixth of a replica's CPU. undici's lower-level
 * `request` (the client under Node's own fetch, made for this) gives the body as a Node stream; here it
 * becomes one ReadableStream fed by its `data` events, optionally counting bytes against bounds as they
 * arrive (`onChunk`), with backpressure (the body pauses while the reader is behind). Until issue 63 this
 * was node:http written here; redirects, proxies, trailers and half-closed sockets are undici's now.
 *
 * What it keeps of fetch's contract for these clients:
 * - the caller's AbortSignal aborts the request, before or during the body: the promise rejects, or the
 *   body errors, with an `AbortError` DOMException;
 * - a connection failure rejects with `TypeError('fetch failed', { cause })`, a body cut off errors it
 *   with `TypeError('terminated')`, as fetch does;
 * - a gzip, deflate or br body is decoded;
 * - a request this transport does not carry (a body other than a string or bytes, a scheme other than
 *   http and https) goes to the global fetch.
 */
import { getMaxListeners, setMaxListeners } from 'node:events';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, request } from 'undici';

export interface OutboundFetchOptions {
  /**
   * Sees each body chunk before the reader does; an error it returns ends the body with that error and
   * closes the connection (response-limit.ts's bounds).
   */
  onChunk?: () => (chunk: Uint8Array) => Error | null;
}

/**
 * An idle connection is closed after 4 s, or sooner when the server's `Keep-Alive: timeout=` says so: a
 * connection the server already dropped is not reused for a call that cannot be retried.
 */
const IDLE_SOCKET_MS = 4_000;
const dispatcher = new Agent({ keepAliveTimeout: IDLE_SOCKET_MS, keepAliveMaxTimeout: IDLE_SOCKET_MS });
const CARRIED_PROTOCOLS = new Set(['http:', 'https:']);

const READ_AHEAD_BYTES = 64 * 1024;

/**
 * A caller may share one signal among many requests (the MCP client does, one per transport): each
 * request in flight listens on it once, so the listener count follows the concurrency, as with undici,
 * which raises the same limit.
 */
const MAX_SIGNAL_LISTENERS = 1_500;

const abortError = () => new DOMException('This operation was aborted', 'AbortError');

function decoded(res: Readable, encoding: string | undefined): Readable {
  switch (encoding?.trim().toLowerCase()) {
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

/** The response body as one ReadableStream over undici's body stream. */
function bodyOf(res: Readable, encoding: string | undefined, signal: AbortSignal | null | undefined, check: ((chunk: Uint8Array) => Error | null) | null): ReadableStream<Uint8Array> {
  const source = decoded(res, encoding);
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
        // A socket closed before the end (undici's "other side closed"), or a body that cannot be decoded.
        const terminated = () => end(controller, signal?.aborted ? abortError() : new TypeError('terminated'));
        source.once('error', terminated);
        if (source !== res) res.once('error', terminated);
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

function headersOf(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.append(name, value);
  }
  return headers;
}

/** A fetch over undici's `request` for the provider clients (module note). */
export function createOutboundFetch(options: OutboundFetchOptions = {}): typeof globalThis.fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const body = init?.body;
    const carried = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (!carried || !CARRIED_PROTOCOLS.has(url.protocol) || !(typeof input === 'string' || input instanceof URL)) return globalThis.fetch(input, init);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw abortError();
    if (signal && getMaxListeners(signal) < MAX_SIGNAL_LISTENERS) setMaxListeners(MAX_SIGNAL_LISTENERS, signal);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const method = (init?.method ?? 'GET').toUpperCase() as 'GET';
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(url, { method, headers, body: body ?? null, signal, dispatcher, highWaterMark: READ_AHEAD_BYTES });
    } catch (cause) {
      if (signal?.aborted) throw abortError();
      throw new TypeError('fetch failed', { cause });
    }
    const status = res.statusCode;
    const nullBody = status === 204 || status === 304 || method === ('HEAD' as string);
    if (nullBody) res.body.resume();
    const encoding = res.headers['content-encoding'];
    return new Response(nullBody ? null : bodyOf(res.body, Array.isArray(encoding) ? encoding[0] : encoding, signal, options.onChunk?.() ?? null), {
      status,
      statusText: res.statusText ?? '',
      headers: headersOf(res.headers),
    });
  };
}

/** The transport of the provider calls that count no bytes (embeddings, moderation). */
export const providerFetch: typeof globalThis.fetch = createOutboundFetch();
