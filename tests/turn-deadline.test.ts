/**
 * The turn deadline (TURN_TIMEOUT_MS): a turn that runs too long ends with the `error` event on the
 * stream (after what was already sent) and a 503 envelope on the JSON route; the upstream model call is
 * aborted and the pass is still charged. Through the real routes, the real openai gateway and the fake
 * gateway (which stalls after its text chunks).
 */
import { describe, expect, it } from 'vitest';
import { testConfig } from './support/deps.js';
import { listen } from './support/listen.js';
import { collectSseEvents } from './support/sse.js';
import { startTurnHarness, type TurnHarness } from './support/turn-harness.js';
import { closeAfterEach } from './support/cleanup.js';

const defer = closeAfterEach();

async function harness(turnTimeoutMs: number): Promise<TurnHarness> {
  // The model call's own deadline is far later: only the turn deadline can end these turns.
  const config = testConfig({ TURN_TIMEOUT_MS: String(turnTimeoutMs), MODEL_CALL_TIMEOUT_MS: '60000' });
  const h = await startTurnHarness({ deps: { config } });
  defer(() => h.close());
  return h;
}

describe('turn deadline', () => {
  it('ends a streamed turn that runs too long with the error event, after the text already sent', async () => {
    const h = await harness(300);
    h.gw.enqueue({ text: ['Schatz is ', 'open until '], hang: true });
    const server = await listen(h.app.fetch);
    defer(() => server.close());
    const res = await fetch(`${server.base}/agent/respond/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Is Schatz open?' }),
    });
    expect(res.status).toBe(200);
    const events = await collectSseEvents(res.body!);
    const last = events.at(-1)!;
    expect(last).toEqual({ type: 'error', data: { error: 'turn timed out', detail: expect.any(String) } });
    expect(events.filter((e) => e.type === 'done')).toHaveLength(0);
    await h.gw.waitForAbort();
    await h.chargedOnce;
  });

  it('answers the JSON route with a 503 envelope when the turn runs too long', async () => {
    const h = await harness(300);
    h.gw.enqueue({ text: ['thinking'], hang: true });
    const res = await h.post({ query: 'Is Schatz open?' });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'turn timed out', detail: 'the answer took too long to put together; please try again' });
    await h.gw.waitForAbort();
  });

  it('leaves a turn that finishes in time alone', async () => {
    const h = await harness(5_000);
    h.gw.enqueue({ text: ['Schatz is open.'] });
    const body = await (await h.post({ query: 'Is Schatz open?' })).json();
    expect(body.response_text).toBe('Schatz is open.');
  });
});
