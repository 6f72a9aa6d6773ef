/**
 * The provider transport (issue 46): a `fetch` over node:http and node:https with keep-alive agents, given
 * to the openai clients of the model gateway, embeddings and moderation and to the MCP client of the
 * campus tools, through their `fetch` options.
 *
 * Why not the global fetch: a streamed answer is a few hundred small chunks, and undici's fetch moves each
 * through its own body machinery and a web stream before the reader sees it; in the campus-peak profile
 * that path (undici, web streams) was about a sixth of a replica's CPU. Here the response body is read
 * from the socket's `data` events (`SocketBody`), optionally counting bytes against bounds as they arrive
 * (`onChunk`), with backpressure (the socket pauses while the reader is behind); the Response's web stream
 * pulls from it, and the model stream reads it without the web stream (`socketBody`).
 *
 * What it keeps of fetch's contract for these clients:
 * - the caller's AbortSignal aborts the request, before or during the body: the promise rejects, or the
 *   body errors, with an `AbortError` DOMException;
 * - a connection failure rejects with `TypeError('fetch failed', { cause })`, a body cut off errors it
 *   with `TypeError('terminated')`, as undici does;
 * - a gzip, deflate or br body is decoded;
 * - a request this transport does not carry (a body other than a string or bytes, a scheme other than
 *   http and https) goes to the global fetch.
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

type ReadResult = { done: false; value: Uint8Array } | { done: true; value: undefined };
const END: ReadResult = { done: true, value: undefined };

/**
 * A response body read straight from the socket's `data` events: a queue of up to 64 KB read ahead of the
 * reader (past that the socket pauses until the reader catches up), and at most one read waiting. The
 * model stream reads it directly (`socketBody`); every other reader gets it through the Response's web
 * stream, which pulls from it.
 */
export class SocketBody {
  private readonly queue: Uint8Array[] = [];
  private head = 0;
  private queuedBytes = 0;
  /** null while open; END once ended; an error once failed. */
  private outcome: ReadResult | { error: unknown } | null = null;
  private waiting: { resolve(r: ReadResult): void; reject(err: unknown): void } | null = null;
  private readonly onAbort = () => this.finish({ error: abortError() });

  constructor(
    private readonly res: IncomingMessage,
    private readonly source: Readable,
    private readonly signal: AbortSignal | null | undefined,
    check: ((chunk: Uint8Array) => Error | null) | null,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
    source.on('data', (chunk: Buffer) => {
      if (this.outcome) return;
      const err = check?.(chunk) ?? null;
      if (err) return this.finish({ error: err });
      if (this.waiting) {
        const waiting = this.waiting;
        this.waiting = null;
        return waiting.resolve({ done: false, value: chunk });
      }
      this.queue.push(chunk);
      this.queuedBytes += chunk.byteLength;
      if (this.queuedBytes >= READ_AHEAD_BYTES) source.pause();
    });
    source.once('end', () => this.finish(END));
    source.once('error', () => this.finish({ error: new TypeError('terminated') }));
    res.once('aborted', () => this.finish({ error: new TypeError('terminated') }));
    res.once('close', () => {
      if (!res.complete) this.finish({ error: new TypeError('terminated') });
    });
  }

  /** The next chunk, or done; rejects with the body's error once the chunks before it are read. */
  read(): Promise<ReadResult> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head]!;
      this.queue[this.head++] = EMPTY;
      this.queuedBytes -= value.byteLength;
      if (this.head === this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
      }
      if (this.queuedBytes < READ_AHEAD_BYTES && !this.outcome) this.source.resume();
      return Promise.resolve({ done: false, value });
    }
    const outcome = this.outcome;
    if (outcome) return 'error' in outcome ? Promise.reject(outcome.error) : Promise.resolve(END);
    if (this.waiting) return Promise.reject(new TypeError('a body read is already waiting'));
    this.source.resume();
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  /** The reader stops: the connection is closed, nothing more is read. */
  cancel(): Promise<void> {
    this.finish(END);
    this.queue.length = 0;
    this.head = 0;
    this.destroy();
    return Promise.resolve();
  }

  private finish(outcome: ReadResult | { error: unknown }): void {
    if (this.outcome) return;
    this.outcome = outcome;
    this.signal?.removeEventListener('abort', this.onAbort);
    if ('error' in outcome) {
      // An error is the reader's next read: chunks already queued before it are dropped.
      this.queue.length = 0;
      this.head = 0;
      this.destroy();
    }
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting) 'error' in outcome ? waiting.reject(outcome.error) : waiting.resolve(END);
  }

  private destroy(): void {
    this.res.destroy();
    if (this.source !== this.res) this.source.destroy();
  }
}

const EMPTY = new Uint8Array(0);

/** Each Response this transport made, and the body under its web stream (for `socketBody`). */
const socketBodies = new WeakMap<Response, SocketBody>();

/**
 * The body of a Response this transport made, to read without its web stream (the model stream's hot
 * path: one promise per chunk instead of the web stream's queue, pull and read). Null for any other
 * Response, or once its web stream has been read from.
 */
export function socketBody(response: Response): SocketBody | null {
  const body = socketBodies.get(response);
  if (!body || response.bodyUsed || response.body?.locked) return null;
  socketBodies.delete(response);
  return body;
}

/** The body's web stream: pulls a chunk from the socket body per read (nothing queued twice). */
function webStreamOf(body: SocketBody): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const r = await body.read();
          if (r.done) controller.close();
          else controller.enqueue(r.value);
        } catch (err) {
          controller.error(err);
        }
      },
      cancel: () => body.cancel(),
    },
    { highWaterMark: 0 },
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
        const body = nullBody ? null : new SocketBody(res, decoded(res), signal, options.onChunk?.() ?? null);
        const response = new Response(body && webStreamOf(body), { status, statusText: res.statusMessage ?? '', headers: headersOf(res) });
        if (body) socketBodies.set(response, body);
        resolve(response);
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
