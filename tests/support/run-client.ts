/**
 * A client of resumable runs for tests, over real sockets: a chat stream whose TCP connection is cut
 * after a number of bytes (anywhere, inside a frame too), and the resume that reads the rest with
 * `Last-Event-ID` as EventSource would send it. Not a test file.
 */
import { request } from 'node:http';
import { sseEventsOf, type SseEvent } from './sse.js';

export interface CutStream {
  runId: string;
  /** What arrived before the cut (the whole stream when it ended first). */
  raw: string;
  /** The stream ended before the cut. */
  whole: boolean;
}

/**
 * POSTs `body` to `/agent/respond/stream` on `base` and destroys the socket once `cutAfterBytes` bytes of
 * the body arrived (Infinity: read it all).
 */
export function streamCutAfter(base: string, body: unknown, cutAfterBytes: number, headers: Record<string, string> = {}): Promise<CutStream> {
  const url = new URL('/agent/respond/stream', base);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const runId = String(res.headers['x-run-id'] ?? '');
      const chunks: Buffer[] = [];
      let bytes = 0;
      let settled = false;
      const finish = (whole: boolean) => {
        if (settled) return;
        settled = true;
        resolve({ runId, raw: Buffer.concat(chunks).toString('utf8'), whole });
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = cutAfterBytes - bytes;
        if (chunk.length >= room) {
          chunks.push(chunk.subarray(0, Math.max(0, room)));
          bytes = cutAfterBytes;
          req.destroy();
          finish(false);
          return;
        }
        chunks.push(chunk);
        bytes += chunk.length;
      });
      res.on('end', () => finish(true));
      res.on('error', () => finish(false));
    });
    req.on('error', (err) => reject(err));
    req.end(JSON.stringify(body));
  });
}

/** The frames of `raw` that arrived whole (up to its last blank line), with their ids. */
export function completeFrames(raw: string): Promise<SseEvent[]> {
  const end = raw.lastIndexOf('\n\n');
  return end < 0 ? Promise.resolve([]) : sseEventsOf(raw.slice(0, end + 2), { ids: true });
}

/** `GET /agent/runs/{run_id}/stream` after the last frame the client has, read to its end. */
export async function resumeRun(base: string, runId: string, options: { lastEventId?: string; after?: number; owner?: string; headers?: Record<string, string> } = {}) {
  const query = new URLSearchParams();
  if (options.owner) query.set('user_id', options.owner);
  if (options.after !== undefined) query.set('after', String(options.after));
  const res = await fetch(`${base}/agent/runs/${runId}/stream?${query}`, {
    headers: { ...(options.lastEventId && { 'last-event-id': options.lastEventId }), ...options.headers },
  });
  const raw = res.status === 200 ? await res.text() : '';
  return { status: res.status, raw, events: raw ? await sseEventsOf(raw, { ids: true }) : [] };
}

/** The seqs of `events` (from their ids `<run_id>:<seq>`). */
export function seqsOf(events: readonly SseEvent[]): number[] {
  return events.map((e) => Number(e.id!.slice(e.id!.lastIndexOf(':') + 1)));
}
