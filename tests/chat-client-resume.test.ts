/**
 * Issue 62 in the terminal client: a turn whose connection drops mid-answer is resumed by the client
 * (`createServiceClient().streamTurn`) after the last frame it read, against a real listening service.
 * The drop is the connection's: the first response's body fails after some bytes, as a socket reset
 * does, and the real socket is closed under it. Every event arrives once; one model call.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createServiceClient, ServiceError } from '../src/sandbox/chat/service-client.js';
import type { WireEvent } from '../src/sandbox/chat/sse-reader.js';
import { createTestDeps, testConfig } from './support/deps.js';
import { gatewayClient, startFakeGateway } from './support/fake-gateway.js';
import { listen } from './support/listen.js';
import { closeAfterEach } from './support/cleanup.js';

const defer = closeAfterEach();
const WORDS = Array.from({ length: 20 }, (_, i) => `word${i} `);

/** A fetch whose first streamed chat response fails after `bytes` bytes, its socket closed. */
function droppingFetch(bytes: number): typeof fetch {
  let dropped = false;
  return async (input, init) => {
    const res = await fetch(input, init);
    if (dropped || !String(input).endsWith('/agent/respond/stream')) return res;
    dropped = true;
    const reader = res.body!.getReader();
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        if (seen + value.length >= bytes) {
          controller.enqueue(value.subarray(0, bytes - seen));
          await reader.cancel();
          controller.error(new TypeError('terminated: other side closed'));
          return;
        }
        seen += value.length;
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
}

async function start() {
  const gw = await startFakeGateway();
  const deps = await createTestDeps({ config: testConfig({ ANSWER_BATCH_MS: '0' }), gateway: gatewayClient(gw) });
  const server = await listen(createApp(deps).fetch);
  defer(() => server.close(), () => gw.close());
  return { gw, server };
}

describe('the terminal client resumes a dropped turn', () => {
  for (const cut of [1, 90, 333, 700]) {
    it(`cut after ${cut} bytes: every event once, deltas equal the answer, one model call`, async () => {
      const { gw, server } = await start();
      gw.enqueue({ text: WORDS, chunkDelayMs: 5 });
      const client = createServiceClient({ url: server.base, secret: null, fetch: droppingFetch(cut) });
      const events: WireEvent[] = [];
      for await (const e of client.streamTurn({ query: 'A long answer please', user_id: 'terminal-user', message_history: [], disabled_tools: [] })) events.push(e);
      const seqs = events.map((e) => Number(e.id!.split(':')[1]));
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      const done = events.at(-1)!;
      expect(done.type).toBe('done');
      const answer = (done.data as { response_text: string }).response_text;
      expect(answer).toBe(WORDS.join('').trimEnd());
      expect(events.filter((e) => e.type === 'delta').map((e) => (e.data as { text: string }).text).join('')).toBe(answer);
      expect(gw.chatRequests()).toHaveLength(1);
    });
  }

  it('a run that is gone when the client comes back ends with the service envelope', async () => {
    const { gw, server } = await start();
    gw.enqueue({ text: WORDS, chunkDelayMs: 5 });
    // Another user id on the resume than on the turn: the run is not theirs (404), as an expired one.
    const base = droppingFetch(100);
    const swapUser: typeof fetch = (input, init) => base(String(input).replace('user_id=owner', 'user_id=other'), init);
    const client = createServiceClient({ url: server.base, secret: null, fetch: swapUser });
    const run = async () => {
      for await (const _ of client.streamTurn({ query: 'hi', user_id: 'owner', message_history: [], disabled_tools: [] }));
    };
    await expect(run()).rejects.toBeInstanceOf(ServiceError);
  });
});
