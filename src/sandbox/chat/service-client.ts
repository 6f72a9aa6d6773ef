/**
 * The HTTP calls the terminal client makes to a running service: a streamed chat turn, and the memory
 * routes (list, delete one, clear). Failures come back as the service's envelope `{error, detail}`.
 */
import { readSseEvents, type WireEvent } from './sse-reader.js';

export interface ServiceClientOptions {
  /** Base URL of the service, without a trailing slash. */
  url: string;
  /** AGENT_SHARED_SECRET of the service, or null when it has none. */
  secret: string | null;
  fetch?: typeof fetch;
}

export interface Envelope {
  error: string;
  detail: string;
}

export interface MemoryItem {
  id: string;
  type: 'learned' | 'remembered';
  text: string;
  created_at: string;
}

/** A failed request, carrying the service's envelope (or a transport message). */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: Envelope,
  ) {
    super(`${envelope.error}: ${envelope.detail}`);
    this.name = 'ServiceError';
  }
}

export interface ChatTurnRequest {
  query: string;
  user_id?: string;
  message_history: Array<{ role: 'user' | 'assistant'; content: string }>;
  disabled_tools: string[];
}

/** Tries to resume a dropped turn, 250 ms apart and growing to 2 s: about the service's 30 s grace in all. */
export const RESUME_ATTEMPTS = 20;

export function createServiceClient(options: ServiceClientOptions) {
  const doFetch = options.fetch ?? fetch;
  const headers = (json: boolean): Record<string, string> => ({
    ...(json ? { 'Content-Type': 'application/json' } : {}),
    ...(options.secret ? { Authorization: `Bearer ${options.secret}` } : {}),
  });

  async function request(path: string, init: RequestInit): Promise<Response> {
    const res = await doFetch(`${options.url}${path}`, init);
    if (res.ok) return res;
    const body = (await res.json().catch(() => null)) as Partial<Envelope> | null;
    throw new ServiceError(res.status, {
      error: body?.error ?? `HTTP ${res.status}`,
      detail: res.status === 401 ? 'the service wants a bearer token: pass --secret or set AGENT_SHARED_SECRET' : body?.detail ?? '',
    });
  }

  const memoryPath = (userId: string) => `/memory/${encodeURIComponent(userId)}`;

  return {
    /**
     * Streams one turn's events; the HTTP errors before the stream starts are thrown. A connection that
     * drops before the turn's last event is resumed (`GET /agent/runs/{run_id}/stream` after the last
     * frame read, CONTRACT.md "Resuming a stream"), so every event arrives once.
     */
    async *streamTurn(body: ChatTurnRequest, signal?: AbortSignal): AsyncGenerator<WireEvent> {
      let res: Response | null = await request('/agent/respond/stream', {
        method: 'POST',
        headers: headers(true),
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
      const runId = res.headers.get('x-run-id');
      let lastId: string | undefined;
      for (let attempt = 0; ; ) {
        try {
          for await (const e of res?.body ? readSseEvents(res.body) : []) {
            if (e.id) lastId = e.id;
            yield e;
            if (e.type === 'done' || e.type === 'error') return;
          }
        } catch (err) {
          if (!runId || signal?.aborted) throw err;
        }
        if (!runId || ++attempt > RESUME_ATTEMPTS) throw new ServiceError(0, { error: 'connection lost', detail: 'the answer could not be resumed' });
        await new Promise((r) => setTimeout(r, Math.min(250 * attempt, 2_000)));
        const query = body.user_id ? `?user_id=${encodeURIComponent(body.user_id)}` : '';
        res = await request(`/agent/runs/${encodeURIComponent(runId)}/stream${query}`, {
          headers: { ...headers(false), ...(lastId && { 'Last-Event-ID': lastId }) },
          ...(signal ? { signal } : {}),
        }).catch((err: unknown) => {
          // The service answered (the run expired, another replica lost it): that is the end. A network
          // failure is tried again.
          if (err instanceof ServiceError || signal?.aborted) throw err;
          return null;
        });
      }
    },
    async listMemory(userId: string): Promise<{ items: MemoryItem[]; total: number }> {
      return (await request(memoryPath(userId), { headers: headers(false) })).json() as Promise<{ items: MemoryItem[]; total: number }>;
    },
    async deleteMemory(userId: string, item: Pick<MemoryItem, 'id' | 'type'>): Promise<void> {
      await request(`${memoryPath(userId)}/items/${item.type}/${encodeURIComponent(item.id)}`, { method: 'DELETE', headers: headers(false) });
    },
    async clearMemory(userId: string): Promise<number> {
      const res = await request(memoryPath(userId), { method: 'DELETE', headers: headers(false) });
      return ((await res.json()) as { removed: number }).removed;
    },
  };
}

export type ServiceClient = ReturnType<typeof createServiceClient>;
