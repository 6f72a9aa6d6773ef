/**
 * Malformed requests on a raw socket against the service's Node server (src/node-http-server.ts with the
 * real app): whatever the HTTP parser or the adapter refuses comes back as the envelope with the right
 * status, never an empty body or a framework default. Each case is one connection.
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app.js';
import { createLogger, silentLogger } from '../src/logger.js';
import { createNodeHttpServer } from '../src/node-http-server.js';
import { createTestDeps } from './support/deps.js';

let server: Server;
let port: number;

beforeAll(async () => {
  const app = createApp(await createTestDeps());
  server = createNodeHttpServer(app.fetch, silentLogger);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** Sends raw bytes and reads until the server closes (or 5 s pass). */
function raw(bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    }, 5_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(bytes);
  });
}

function parse(response: string): { status: number; contentType: string; body: unknown } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /\r\ncontent-type: ([^\r\n]+)/i.exec(head)?.[1] ?? '';
  const text = /transfer-encoding: chunked/i.test(head) ? body.split('\r\n')[1] ?? '' : body;
  return { status, contentType, body: JSON.parse(text) };
}

const host = () => `Host: 127.0.0.1:${port}\r\n`;

describe('malformed requests get the envelope', () => {
  const close = 'Connection: close\r\n';
  it.each([
    ['an unknown method', 400, () => `FOO / HTTP/1.1\r\n${host()}\r\n`],
    ['an unknown HTTP version', 400, () => `GET / HTTP/9.9\r\n${host()}\r\n`],
    ['Transfer-Encoding with Content-Length', 400, () => `POST /agent/respond HTTP/1.1\r\n${host()}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
    ['two different Content-Lengths', 400, () => `POST /agent/respond HTTP/1.1\r\n${host()}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`],
    ['a NUL in a header', 400, () => `GET /api/health HTTP/1.1\r\n${host()}X-Probe: a\u0000b\r\n\r\n`],
    ['a header without a name', 400, () => `GET /api/health HTTP/1.1\r\n${host()}: nameless\r\n\r\n`],
    ['headers over the size limit', 431, () => `GET /api/health HTTP/1.1\r\n${host()}X-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`],
    ['a backslash in the path', 400, () => `GET /api\\health HTTP/1.1\r\n${host()}${close}\r\n`],
    ['no Host header', 400, () => `GET /api/health HTTP/1.1\r\n${close}\r\n`],
    ['an invalid Host header', 400, () => `GET /api/health HTTP/1.1\r\nHost: exa mple/../x\r\n${close}\r\n`],
  ])('%s: %i with the envelope', async (_label, status, request) => {
    const res = parse(await raw(request()));
    expect(res.status).toBe(status);
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
  });

  it('still answers a well-formed request (the cases above are refused for what they are)', async () => {
    const res = parse(await raw(`GET /api/health HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`));
    expect(res.status).toBe(200);
  });
});

describe('on the /v1 paths, in OpenAI\'s shape', () => {
  it.each([
    ['the adapter', `GET /v1/models\\junk HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`],
    ['the parser', `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Probe: a\u0000b\r\n\r\n`],
  ])('a request %s refuses on a /v1 path gets 400 as OpenAI\'s error object (issue 74)', async (_, bytes) => {
    const res = parse(await raw(bytes));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', code: expect.any(String) } });
  });

  it('the same refusal elsewhere is the envelope', async () => {
    const res = parse(await raw(`GET /api\\junk HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    expect(res).toMatchObject({ status: 400, body: { error: 'bad request', detail: expect.any(String) } });
  });
});

describe('CONNECT and abandoned requests', () => {
  it('CONNECT host:22 gets the 405 envelope with Allow, then the connection closes', async () => {
    const response = await raw(`CONNECT host:22 HTTP/1.1\r\nHost: host:22\r\n\r\n`);
    const res = parse(response);
    expect(res.status).toBe(405);
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: 'method not allowed', detail: expect.any(String) });
    expect(response).toMatch(/\r\nAllow: GET, POST, DELETE, OPTIONS\r\n/);
  });

  it('a body the client abandons mid-upload is logged as a client abort (499), not a 500 or an error', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'debug', sink: (l) => void lines.push(JSON.parse(l)) });
    const app = createApp(await createTestDeps({ logger }));
    const own = createNodeHttpServer(app.fetch, logger);
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    try {
      const ownPort = (own.address() as AddressInfo).port;
      for (const body of [
        `Content-Length: 1000\r\n\r\n{"query":"hi`,
        `Transfer-Encoding: chunked\r\n\r\n5\r\n{"que\r\n`,
      ]) {
        const socket = connect(ownPort, '127.0.0.1');
        await new Promise<void>((r) => socket.once('connect', () => r()));
        const logged = lines.length;
        // The server's `request` event: the head was parsed and the app was handed the request, whose
        // body it now reads; then the client goes away.
        const received = new Promise<void>((r) => own.once('request', () => r()));
        socket.write(`POST /agent/respond HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${body}`);
        await received;
        socket.destroy();
        await vi.waitFor(() => expect(lines.slice(logged).some((l) => l.msg === 'request')).toBe(true), { timeout: 5_000 });
        const access = lines.slice(logged).find((l) => l.msg === 'request')!;
        expect(access).toMatchObject({ method: 'POST', path: '/agent/respond', status: 499, client_aborted: true });
      }
      expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    } finally {
      own.closeAllConnections();
      await new Promise((r) => own.close(r));
    }
  });
});
