/**
 * The Node HTTP server around the app (Node specifics, beside server.ts): the `@hono/node-server`
 * request listener on `node:http`, with the envelope for the two kinds of error the app never sees.
 *
 * - The adapter's own refusals (a missing or invalid Host header, a backslash in the path, an invalid
 *   URL: its `RequestError`) reach its `errorHandler`: a 400 envelope.
 * - The HTTP parser's refusals (a bad method, a malformed or duplicated header, Transfer-Encoding with
 *   Content-Length, a NUL in a header, headers over the size limit) never become requests: Node emits
 *   `clientError` with the socket, and its default writes a bare status line with no body. Here the
 *   socket gets the envelope with the right status (431 for oversized headers, 413 for an oversized
 *   chunk extension, 408 for a request timeout, else 400), in OpenAI's shape when the request line the
 *   parser read names a `/v1` path (issue 63), and is closed.
 * - A client that went away mid-request (ECONNRESET, EPIPE) is logged at debug as what it is.
 * - `CONNECT` (a proxy tunnel request, `CONNECT host:22 HTTP/1.1`) never becomes a request either: Node
 *   emits `connect`, and with no listener closes the socket without a word. No route answers it, and
 *   its target is not a path, so it gets the 405 envelope (with `Allow`) and the connection closes.
 *   Other upgrade requests (`Upgrade: websocket`, `h2c`) are served as ordinary requests by Node.
 */
import { getRequestListener, RequestError } from '@hono/node-server';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { BadRequestError, INTERNAL_ERROR, MethodNotAllowedError, type Envelope } from './http/errors.js';
import type { Logger } from './logger.js';
import { openAIError, speaksOpenAI } from './http/openai-errors.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  431: 'Request Header Fields Too Large',
};

/** The status and envelope for a parser error code (llhttp's `HPE_*`, Node's `ERR_HTTP_*`). */
export function parserErrorResponse(code: string | undefined): { status: number; envelope: Envelope } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, envelope: { error: 'request header fields too large', detail: 'the request headers are too large' } };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, envelope: { error: 'payload too large', detail: 'a chunk of the request body is too large' } };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, envelope: { error: 'request timeout', detail: 'the request was not received in time' } };
    default:
      return { status: 400, envelope: { error: 'bad request', detail: 'the request is not valid HTTP' } };
  }
}

/**
 * The path of a request the parser refused, from the bytes it had (its request line), or null. Only to
 * choose the error's shape: nothing of it is logged or answered.
 */
export function refusedPath(raw: Buffer | undefined): string | null {
  if (!raw) return null;
  const line = raw.toString('latin1', 0, Math.min(raw.length, 8_192));
  const target = line.slice(0, line.search(/\r?\n|$/)).split(' ')[1];
  if (!target?.startsWith('/')) return null;
  return URL.canParse(target, 'http://x') ? new URL(target, 'http://x').pathname : null;
}

/**
 * A whole HTTP/1.1 response carrying `envelope` (in OpenAI's shape on the `/v1` paths, as the app answers
 * there), closing the connection.
 */
function rawEnvelope(status: number, envelope: Envelope, headers: Record<string, string> = {}, path: string | null = null): string {
  const body = JSON.stringify(path !== null && speaksOpenAI(path) ? openAIError(status, envelope) : envelope);
  return (
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

export function createNodeHttpServer(fetch: (request: Request) => Response | Promise<Response>, logger: Logger): Server {
  /**
   * The raw target of the request the adapter is reading. Its error handler is called without the
   * request, but synchronously within the listener's call when the adapter cannot make one (it throws
   * before its first await), so the target read there is this request's: a refused `/v1` path is
   * answered in OpenAI's shape, as the parser's refusals are (issue 74).
   */
  let reading: string | null = null;
  const listener = getRequestListener(fetch, {
    errorHandler: (err) => {
      if (err instanceof RequestError) {
        logger.debug('request refused by the HTTP adapter', { reason: err.message });
        const envelope = new BadRequestError('the request could not be read').toEnvelope();
        const path = reading?.split('?')[0] ?? '';
        return new Response(JSON.stringify(speaksOpenAI(path) ? openAIError(400, envelope) : envelope), {
          status: 400,
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
        });
      }
      logger.error('request failed in the HTTP adapter', { err });
      return new Response(JSON.stringify(INTERNAL_ERROR), { status: 500, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    },
  });
  // Without a Host header Node would answer a bare 400 itself; the adapter refuses it with the envelope.
  const server = createServer({ requireHostHeader: false }, (incoming, outgoing) => {
    reading = incoming.url ?? null;
    try {
      return listener(incoming, outgoing);
    } finally {
      reading = null;
    }
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (CLIENT_GONE.has(err.code ?? '')) {
      logger.debug('client went away mid-request', { code: err.code });
      socket.destroy();
      return;
    }
    const { status, envelope } = parserErrorResponse(err.code);
    logger.debug('malformed request refused', { code: err.code, status });
    // Nothing was written on this socket yet (Node calls clientError before any response starts).
    const path = refusedPath((err as NodeJS.ErrnoException & { rawPacket?: Buffer }).rawPacket);
    if (socket.writable) socket.end(rawEnvelope(status, envelope, {}, path));
    else socket.destroy();
  });
  server.on('connect', (_req, socket: Duplex) => {
    logger.debug('CONNECT refused');
    const refusal = new MethodNotAllowedError(['GET', 'POST', 'DELETE', 'OPTIONS']);
    if (socket.writable) socket.end(rawEnvelope(405, refusal.toEnvelope(), refusal.headers));
    else socket.destroy();
  });
  return server;
}
