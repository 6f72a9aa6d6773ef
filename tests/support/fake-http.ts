/**
 * Small node:http helpers shared by the fake gateway's routes: JSON bodies in and out, OpenAI-style
 * error bodies, and a rough token count for usage the fake derives itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** About four characters per token: close enough for a fake's usage numbers. */
export function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));
}

/** The parsed JSON body, or undefined when empty or not JSON. */
export async function readJson(req: IncomingMessage): Promise<any> {
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

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** An error in the shape OpenAI-compatible gateways use: `{"error": {message, type, param, code}}`. */
export function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  sendJson(res, status, { error: { message, type, param: null, code: type } }, headers);
}
