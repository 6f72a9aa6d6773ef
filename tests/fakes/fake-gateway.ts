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
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DEFAULT_TEXT = 'This is the fake gateway answer.';

export interface FakeToolCall {
  name: string;
  /** Object arguments are JSON-encoded; a string is sent as is (it may be invalid JSON on purpose). */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface FakeReply {
  text?: string | string[];
  toolCalls?: FakeToolCall[];
  /** Null: the gateway reports no usage. Absent: derived from the request and reply sizes. */
  usage?: FakeUsage | null;
  /** An HTTP error status (429, 500, ...) answered with an OpenAI-style error body. */
  status?: number;
  errorMessage?: string;
  /** Extra response headers (e.g. `retry-after`). */
  headers?: Record<string, string>;
  /** Wait before sending anything (headers included). */
  delayMs?: number;
  /** Wait between streamed frames. */
  chunkDelayMs?: number;
  /** Send headers and the text chunks, then stall until the client disconnects. */
  hang?: boolean;
  finishReason?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (undefined when the body was empty or not JSON). */
  body: any;
  /** `Date.now()` at arrival. */
  at: number;
}

export interface ModerationScript {
  flagged: boolean;
  categories?: Partial<Record<ModerationCategory, boolean>>;
  category_scores?: Partial<Record<ModerationCategory, number>>;
}

export interface FailureScript {
  status?: number;
  delayMs?: number;
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
}

/** The `omni-moderation-latest` categories. */
export const MODERATION_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;
export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Splits a string into `parts` roughly equal pieces (at least one character each). */
function splitInto(s: string, parts: number): string[] {
  if (s.length <= 1) return [s];
  const n = Math.min(parts, s.length);
  const size = Math.ceil(s.length / n);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

/** A unit vector seeded by the text's hash: identical texts give identical vectors. */
export function hashEmbedding(text: string, dimensions = 1536): number[] {
  const out: number[] = [];
  let block = 0;
  while (out.length < dimensions) {
    const digest = createHash('sha256').update(`${block++}:${text}`).digest();
    for (let i = 0; i + 4 <= digest.length && out.length < dimensions; i += 4) {
      out.push(digest.readUInt32LE(i) / 0xffffffff - 0.5);
    }
  }
  const norm = Math.sqrt(out.reduce((s, v) => s + v * v, 0)) || 1;
  return out.map((v) => v / norm);
}

function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  sendJson(res, status, { error: { message, type, param: null, code: type } }, headers);
}

/** Normalises a moderation `input` (string, string[] or multimodal parts) to its texts. */
function moderationTexts(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input)) return [];
  return input.map((part) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : ''));
}

/** Starts the fake gateway on 127.0.0.1 with a random port. */
export async function startFakeGateway(options: FakeGatewayOptions = {}): Promise<FakeGateway> {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  const embeddings = new Map<string, number[]>();
  const moderations = new Map<string, ModerationScript>();
  const abortTimes: number[] = [];
  // Each waiter answers whether it is satisfied; satisfied ones are dropped after every event.
  let requestWaiters: Array<() => boolean> = [];
  let abortWaiters: Array<() => boolean> = [];
  let chatIndex = 0;
  let completionSeq = 0;


  const gateway: FakeGateway = {
    baseUrl: '',
    requests,
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body),
    enqueue: (...replies) => void queue.push(...replies),
    handler: options.handler ?? null,
    waitForRequests(count) {
      return new Promise<void>((resolve) => {
        const check = () => {
          if (requests.length < count) return false;
          resolve();
          return true;
        };
        if (!check()) requestWaiters.push(check);
      });
    },
    waitForAbort(count = 1) {
      return new Promise<void>((resolve) => {
        const check = () => {
          if (abortTimes.length < count) return false;
          resolve();
          return true;
        };
        if (!check()) abortWaiters.push(check);
      });
    },
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

  async function chat(req: IncomingMessage, res: ServerResponse, body: any): Promise<void> {
    const reply = await nextReply(body);
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.status && reply.status >= 400) {
      sendError(res, reply.status, reply.errorMessage ?? `fake gateway error ${reply.status}`, reply.headers);
      return;
    }
    const texts = reply.text === undefined ? [] : Array.isArray(reply.text) ? reply.text : [reply.text];
    const calls = (reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${++completionSeq}_${i}`,
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    }));
    const model = typeof body?.model === 'string' ? body.model : 'fake/model';
    const id = `chatcmpl-fake-${++completionSeq}`;
    const created = Math.floor(Date.now() / 1000);
    const finish = reply.finishReason ?? (calls.length ? 'tool_calls' : 'stop');
    const fullText = texts.join('');
    const usage =
      reply.usage === null
        ? null
        : (reply.usage ?? {
            prompt_tokens: estimateTokens(body?.messages),
            completion_tokens: estimateTokens(fullText + calls.map((c) => c.arguments).join('')),
          });
    const usageBody = usage && { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };

    if (!body?.stream) {
      sendJson(
        res,
        200,
        {
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: calls.length && !fullText ? null : fullText,
                refusal: null,
                ...(calls.length && {
                  tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
                }),
              },
              finish_reason: finish,
              logprobs: null,
            },
          ],
          ...(usageBody && { usage: usageBody }),
        },
        reply.headers,
      );
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    let finished = false;
    res.on('close', () => {
      if (finished) return;
      abortTimes.push(Date.now());
      abortWaiters = abortWaiters.filter((w) => !w());
    });
    const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
    const delta = (d: Record<string, unknown>, finishReason: string | null = null) =>
      frame([{ index: 0, delta: d, finish_reason: finishReason, logprobs: null }]);

    const frames: string[] = [delta({ role: 'assistant', content: '' })];
    for (const t of texts) frames.push(delta({ content: t }));
    // First delta of each call carries id and name; arguments follow in several pieces, interleaved.
    const argParts = calls.map((c) => splitInto(c.arguments, 3));
    calls.forEach((c, i) =>
      frames.push(delta({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] })),
    );
    const rounds = Math.max(0, ...argParts.map((p) => p.length));
    for (let r = 0; r < rounds; r++) {
      argParts.forEach((parts, i) => {
        if (parts[r] !== undefined) frames.push(delta({ tool_calls: [{ index: i, function: { arguments: parts[r] } }] }));
      });
    }
    const textFrames = 1 + texts.length;
    if (!reply.hang) {
      frames.push(delta({}, finish));
      if (usageBody && body?.stream_options?.include_usage) frames.push(frame([], { usage: usageBody }));
      frames.push('data: [DONE]\n\n');
    }
    const toSend = reply.hang ? frames.slice(0, textFrames) : frames;
    for (const f of toSend) {
      if (res.destroyed) return;
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
      if (res.destroyed) return;
      res.write(f);
    }
    if (reply.hang) return; // stall: the socket stays open until the client goes away
    finished = true;
    res.end();
  }

  async function embeddingsRoute(res: ServerResponse, body: any): Promise<void> {
    const failure = gateway.embeddingFailure;
    if (failure?.delayMs) await sleep(failure.delayMs);
    if (failure?.status) return sendError(res, failure.status, 'fake embeddings failure');
    const inputs: string[] = typeof body?.input === 'string' ? [body.input] : Array.isArray(body?.input) ? body.input : [];
    const dimensions = typeof body?.dimensions === 'number' ? body.dimensions : 1536;
    const base64 = body?.encoding_format === 'base64';
    sendJson(res, 200, {
      object: 'list',
      model: body?.model ?? 'text-embedding-3-small',
      data: inputs.map((text, index) => {
        const vector = embeddings.get(text) ?? hashEmbedding(String(text), dimensions);
        return { object: 'embedding', index, embedding: base64 ? toBase64(vector) : vector };
      }),
      usage: { prompt_tokens: estimateTokens(inputs), total_tokens: estimateTokens(inputs) },
    });
  }

  async function moderationsRoute(res: ServerResponse, body: any): Promise<void> {
    const failure = gateway.moderationFailure;
    if (failure?.delayMs) await sleep(failure.delayMs);
    if (failure?.status) return sendError(res, failure.status, 'fake moderation failure');
    const results = moderationTexts(body?.input).map((text) => {
      const script = moderations.get(text) ?? { flagged: false };
      const categories: Record<string, boolean> = {};
      const scores: Record<string, number> = {};
      const applied: Record<string, string[]> = {};
      for (const c of MODERATION_CATEGORIES) {
        categories[c] = script.categories?.[c] ?? false;
        scores[c] = script.category_scores?.[c] ?? (categories[c] ? 0.9 : 0.0001);
        applied[c] = ['text'];
      }
      return { flagged: script.flagged, categories, category_scores: scores, category_applied_input_types: applied };
    });
    sendJson(res, 200, { id: `modr-fake-${++completionSeq}`, model: body?.model ?? 'omni-moderation-latest', results });
  }

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const body = await readJson(req);
      requests.push({ method: req.method ?? 'GET', path, headers: { ...req.headers }, body, at: Date.now() });
      requestWaiters = requestWaiters.filter((w) => !w());
      if (req.method !== 'POST') return sendError(res, 405, 'method not allowed');
      if (path === '/v1/chat/completions') return chat(req, res, body);
      if (path === '/v1/embeddings') return embeddingsRoute(res, body);
      if (path === '/v1/moderations') return moderationsRoute(res, body);
      return sendError(res, 404, `no route ${path}`);
    })().catch((err: unknown) => {
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
