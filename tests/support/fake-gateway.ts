/**
 * A protocol-faithful fake of an OpenAI-compatible gateway for tests and benches: a real HTTP server
 * (node:http on 127.0.0.1, random port) that speaks what the `openai` client expects.
 *
 * API
 * ```ts
 * const gw = await startFakeGateway({ handler?, chatDefault? });
 * new OpenAI({ baseURL: gw.baseUrl, apiKey: 'x' });    // baseUrl ends in /v1
 * gw.enqueue({ text: ['Hel', 'lo'] }, { toolCalls: [{ name: 'eats_x', arguments: { a: 1 } }] });
 * gw.handler = (body, index) => ({ text: 'fallback' }); // used when the queue is empty
 * gw.requests                    // every request in arrival order: { method, path, headers, body, at }
 * gw.chatRequests()              // only POST /v1/chat/completions bodies
 * await gw.waitForRequests(2)    // resolves once 2 requests of any route have arrived
 * await gw.waitForAbort()        // resolves once a streamed response's socket closed before it finished
 * gw.abortedStreams              // how many streams were cut short by the client
 * gw.setEmbedding('text', [..]); gw.embeddingFailure = { status: 500 };
 * gw.setModeration('text', { flagged: true, categories: { violence: true } }); gw.moderationFailure = {...}
 * await gw.close();
 * ```
 *
 * A `FakeReply` describes one chat completion: `text` (one string or an array of chunk strings),
 * `toolCalls` (streamed with id and name in the first delta and the arguments split across several
 * chunks, several calls interleaved by index), `usage` (object, or null for none; default derived from
 * the request and reply sizes), `status` (HTTP error with an OpenAI-style error body), `delayMs` (before
 * the response starts), `chunkDelayMs` (between chunks), `hang` (send headers and the text chunks, then
 * stall until the client goes away). With no queued reply and no handler the answer is `DEFAULT_TEXT`.
 *
 * Streams end with a finish_reason chunk, then a usage-only chunk (`choices: []`) when the request set
 * `stream_options.include_usage` and usage is not null, then `data: [DONE]`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildCompletion, type FakeReply } from './fake-chat-completion.js';
import { embeddingsBody, moderationsBody, type FailureScript, type ModerationScript } from './fake-embeddings-moderations.js';
import { readJson, sendError, sendJson, sleep } from './fake-http.js';
import type { ModelGateway } from '../../src/model/gateway.js';
import { createOpenAIGateway, type OpenAIGatewayOptions } from '../../src/model/openai-gateway.js';

export type { FakeReply, FakeToolCall, FakeUsage } from './fake-chat-completion.js';
export {
  MODERATION_CATEGORIES,
  hashEmbedding,
  type FailureScript,
  type ModerationCategory,
  type ModerationScript,
} from './fake-embeddings-moderations.js';

export const DEFAULT_TEXT = 'This is the fake gateway answer.';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (undefined when the body was empty or not JSON). */
  body: any;
  /** `Date.now()` at arrival. */
  at: number;
}

export type ReplyHandler = (body: any, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeGateway {
  /** Base URL for the openai client, ending in `/v1`. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Chat completion request bodies, in order. */
  chatRequests(): any[];
  enqueue(...replies: FakeReply[]): void;
  handler: ReplyHandler | null;
  waitForRequests(count: number): Promise<void>;
  /** Resolves once `count` (default 1) streamed responses were cut short by the client. */
  waitForAbort(count?: number): Promise<void>;
  readonly abortedStreams: number;
  /** `Date.now()` of each abort, in order. */
  abortTimes: number[];
  setEmbedding(text: string, vector: number[]): void;
  embeddingFailure: FailureScript | null;
  setModeration(text: string, result: ModerationScript): void;
  moderationFailure: FailureScript | null;
  close(): Promise<void>;
}

export interface FakeGatewayOptions {
  handler?: ReplyHandler;
  /** Keep every request in `requests` (default true); a bench's own process turns it off. */
  record?: boolean;
}

/** A promise resolved once `satisfied()` holds; `waiters` is re-checked after every relevant event. */
function waitUntil(satisfied: () => boolean, waiters: Array<() => boolean>): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = () => {
      if (!satisfied()) return false;
      resolve();
      return true;
    };
    if (!check()) waiters.push(check);
  });
}

/** Re-checks waiters, keeping the unsatisfied ones. */
function settle(waiters: Array<() => boolean>): void {
  const pending = waiters.filter((w) => !w());
  waiters.length = 0;
  waiters.push(...pending);
}

/** Starts the fake gateway on 127.0.0.1 with a random port. */
export async function startFakeGateway(options: FakeGatewayOptions = {}): Promise<FakeGateway> {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  const embeddings = new Map<string, number[]>();
  const moderations = new Map<string, ModerationScript>();
  const abortTimes: number[] = [];
  const requestWaiters: Array<() => boolean> = [];
  const abortWaiters: Array<() => boolean> = [];
  let chatIndex = 0;
  let seq = 0;
  const nextSeq = () => ++seq;

  const gateway: FakeGateway = {
    baseUrl: '',
    requests,
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body),
    enqueue: (...replies) => void queue.push(...replies),
    handler: options.handler ?? null,
    waitForRequests: (count) => waitUntil(() => requests.length >= count, requestWaiters),
    waitForAbort: (count = 1) => waitUntil(() => abortTimes.length >= count, abortWaiters),
    get abortedStreams() {
      return abortTimes.length;
    },
    abortTimes,
    setEmbedding: (text, vector) => void embeddings.set(text, vector),
    embeddingFailure: null,
    setModeration: (text, result) => void moderations.set(text, result),
    moderationFailure: null,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };

  async function nextReply(body: any): Promise<FakeReply> {
    const index = chatIndex++;
    const queued = queue.shift();
    if (queued) return queued;
    if (gateway.handler) return gateway.handler(body, index);
    return { text: DEFAULT_TEXT };
  }

  async function chat(res: ServerResponse, body: any): Promise<void> {
    const reply = await nextReply(body);
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.status && reply.status >= 400) {
      return sendError(res, reply.status, reply.errorMessage ?? `fake gateway error ${reply.status}`, reply.headers);
    }
    const completion = buildCompletion(reply, body, nextSeq);
    if (!body?.stream) return sendJson(res, 200, completion.json, reply.headers);

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    let finished = false;
    res.on('close', () => {
      if (finished) return;
      abortTimes.push(Date.now());
      settle(abortWaiters);
    });
    for (const f of completion.frames) {
      if (res.destroyed) return;
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      if (res.destroyed) return;
      res.write(f);
    }
    if (reply.hang) return; // stall: the socket stays open until the client goes away
    finished = true;
    res.end();
  }

  async function failure(res: ServerResponse, script: FailureScript | null, what: string): Promise<boolean> {
    if (script?.delayMs) await sleep(script.delayMs);
    if (!script?.status) return false;
    sendError(res, script.status, `fake ${what} failure`);
    return true;
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const body = await readJson(req);
    if (options.record !== false) requests.push({ method: req.method ?? 'GET', path, headers: { ...req.headers }, body, at: Date.now() });
    settle(requestWaiters);
    if (req.method !== 'POST') return sendError(res, 405, 'method not allowed');
    if (path === '/v1/chat/completions') return chat(res, body);
    if (path === '/v1/embeddings') {
      if (await failure(res, gateway.embeddingFailure, 'embeddings')) return;
      return sendJson(res, 200, embeddingsBody(body, embeddings));
    }
    if (path === '/v1/moderations') {
      if (await failure(res, gateway.moderationFailure, 'moderation')) return;
      return sendJson(res, 200, moderationsBody(body, moderations, `modr-fake-${nextSeq()}`));
    }
    return sendError(res, 404, `no route ${path}`);
  }

  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, `fake gateway crashed: ${String(err)}`);
      else res.destroy();
    });
  });
  // Frames go out as written (no Nagle batching), as a real gateway streaming tokens would send them.
  server.on('connection', (socket) => socket.setNoDelay(true));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gateway.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return gateway;
}

/**
 * The service's gateway client (the real openai-based one) pointed at a fake gateway, as the tests wire
 * it: a test key and a 1 ms retry backoff unless the test says otherwise.
 */
export function gatewayClient(gw: Pick<FakeGateway, 'baseUrl'>, options: Partial<OpenAIGatewayOptions> = {}): ModelGateway {
  return createOpenAIGateway({ baseUrl: gw.baseUrl, apiKey: 'sk-test-gateway-key', retryBackoffMs: 1, ...options });
}
