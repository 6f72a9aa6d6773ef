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

/** A reader of one response body, as a ReadableStream's default reader reads (the part of it used here). */
export interface BodyReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(): Promise<void>;
}

/** Where a body's chunks go once it flows: its ReadableStream, or a reader straight on the socket. */
interface BodySink {
  /** A chunk; true when the reader is a full read-ahead behind (the socket pauses). */
  push(chunk: Uint8Array): boolean;
  end(err: unknown | null): void;
}

/**
 * One response body over the socket's chunks (or the decoder's). It starts to flow to the first reader:
 * `socketReader`, which hands the chunks to its reader without the web stream (the streamed answer's few
 * hundred chunks a turn, the per-delta path: issue 75), or else the body's ReadableStream, at its first
 * read or on the next turn of the event loop, whichever comes first (so a body nobody reads is still
 * read ahead, and a small one ends and frees its connection, as before). Either way each chunk is
 * counted against the bounds (`check`) first, the reader is at most READ_AHEAD_BYTES behind the socket,
 * an abort ends the body with an AbortError and a socket closed early with `TypeError('terminated')`.
 */
class BodyFlow {
  private sink: BodySink | null = null;
  /** The body's end, when it came before a reader: null read to the end, else the error. */
  private outcome: { err: unknown | null } | null = null;
  private finished = false;

  constructor(
    private readonly res: IncomingMessage,
    private readonly source: Readable,
    private readonly signal: AbortSignal | null | undefined,
    private readonly check: ((chunk: Uint8Array) => Error | null) | null,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
    source.once('end', () => this.end(null));
    // A socket closed before the end, or a body that cannot be decoded; after an abort, the AbortError.
    const terminated = () => this.end(signal?.aborted ? abortError() : new TypeError('terminated'));
    source.once('error', terminated);
    res.once('close', () => {
      if (!res.complete) terminated();
    });
  }

  get started(): boolean {
    return this.sink !== null;
  }

  /** The reader's first read: chunks flow to `sink` from here. */
  start(sink: BodySink): void {
    this.sink = sink;
    if (this.outcome) return sink.end(this.outcome.err);
    this.source.on('data', this.onData);
  }

  resume(): void {
    if (!this.finished) this.source.resume();
  }

  /** The reader stopped: the connection is closed. */
  cancel(): void {
    if (this.finished) return;
    this.finished = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.destroy();
  }

  private readonly onAbort = () => this.end(abortError());

  private readonly onData = (chunk: Buffer) => {
    if (this.finished) return;
    const err = this.check?.(chunk) ?? null;
    if (err) return this.end(err);
    if (this.sink!.push(chunk)) this.source.pause();
  };

  private end(err: unknown | null): void {
    if (this.finished) return;
    this.finished = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    if (err !== null) this.destroy();
    if (this.sink) this.sink.end(err);
    else this.outcome = { err };
  }

  private destroy(): void {
    this.res.destroy();
    if (this.source !== this.res) this.source.destroy();
  }
}

/** The bodies this transport made, for `socketReader`. */
const flows = new WeakMap<ReadableStream<Uint8Array>, BodyFlow>();

/** The response body as one ReadableStream over the socket's chunks (BodyFlow). */
function bodyOf(res: IncomingMessage, signal: AbortSignal | null | undefined, check: ((chunk: Uint8Array) => Error | null) | null): ReadableStream<Uint8Array> {
  const flow = new BodyFlow(res, decoded(res), signal, check);
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const sink: BodySink = {
    push(chunk) {
      controller.enqueue(chunk);
      return (controller.desiredSize ?? 0) <= -READ_AHEAD_BYTES;
    },
    end: (err) => (err === null ? controller.close() : controller.error(err)),
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        setImmediate(() => {
          if (!flow.started) flow.start(sink);
        });
      },
      // Called when a read waits on an empty queue (a high-water mark of 0, the read-ahead counted in `push`).
      pull() {
        if (flow.started) flow.resume();
        else flow.start(sink);
      },
      cancel() {
        flow.cancel();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
  flows.set(body, flow);
  return body;
}

/**
 * A reader of a body this transport made that no one has read yet, straight on the socket's chunks: a
 * chunk that finds its reader waiting is one settled promise, where the ReadableStream's queue, controller
 * and read request cost about 3% of a replica's CPU at the campus peak (issue 75). The body's stream is
 * locked, so nothing else reads it. Null for any other body (another fetch's, or one already read):
 * the caller reads it with `getReader()`.
 */
export function socketReader(body: ReadableStream<Uint8Array>): BodyReader | null {
  const flow = flows.get(body);
  if (!flow || flow.started || body.locked) return null;
  const locked = body.getReader();
  const queue: Uint8Array[] = [];
  let queued = 0;
  let paused = false;
  let ended: { err: unknown | null } | null = null;
  let waiting: { resolve: (r: ReadableStreamReadResult<Uint8Array>) => void; reject: (err: unknown) => void } | null = null;
  const DONE: ReadableStreamReadResult<Uint8Array> = { done: true, value: undefined };
  flow.start({
    push(chunk) {
      if (waiting) {
        const w = waiting;
        waiting = null;
        w.resolve({ done: false, value: chunk });
        return false;
      }
      queue.push(chunk);
      queued += chunk.byteLength;
      paused = queued >= READ_AHEAD_BYTES;
      return paused;
    },
    end(err) {
      ended = { err };
      // As a stream errored: what was queued is dropped, the next read fails (an abort stops the reading at once).
      if (err !== null) queue.length = 0;
      const w = waiting;
      waiting = null;
      if (w) (err === null ? w.resolve(DONE) : w.reject(err));
    },
  });
  return {
    read() {
      const chunk = queue.shift();
      if (chunk) {
        queued -= chunk.byteLength;
        if (paused && queued < READ_AHEAD_BYTES) {
          paused = false;
          flow.resume();
        }
        return Promise.resolve({ done: false, value: chunk });
      }
      if (ended) return ended.err === null ? Promise.resolve(DONE) : Promise.reject(ended.err);
      return new Promise((resolve, reject) => (waiting = { resolve, reject }));
    },
    // As a stream's reader: the body is cancelled (its connection closed) and a read waiting ends.
    cancel() {
      ended ??= { err: null };
      const w = waiting;
      waiting = null;
      w?.resolve(DONE);
      return locked.cancel();
    },
  };
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
