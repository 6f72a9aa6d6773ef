/**
 * MAX_TURNS_IN_FLIGHT through the real routes: a user with the allowed number of turns running gets a
 * 429 envelope with a short Retry-After (before the budget is read or the model called), other users
 * are not affected, and the slot frees as soon as a turn ends, however it ends.
 */
import { describe, expect, it } from 'vitest';
import { createTurnsInFlight, TooManyTurnsError } from '../src/lifecycle/turns-in-flight.js';
import { testConfig } from './support/deps.js';
import { listen } from './support/listen.js';
import { startTurnHarness } from './support/turn-harness.js';
import { closeAfterEach } from './support/cleanup.js';

const defer = closeAfterEach();

describe('turns in flight', () => {
  it('answers 429 with Retry-After past the cap for one user, not for another, and frees the slot when a turn ends', async () => {
    // No grace: a run ends as its reader goes (tests/runs-resume.test.ts has the grace, which holds the slot).
    const h = await startTurnHarness({ deps: { config: testConfig({ MAX_TURNS_IN_FLIGHT: '2', RUN_DETACHED_GRACE_MS: '0' }) } });
    defer(() => h.close());
    const server = await listen(h.app.fetch);
    defer(() => server.close());
    // Two turns that hang in the model until their client goes away.
    h.gw.enqueue({ text: ['one'], hang: true }, { text: ['two'], hang: true });
    const aborts = [new AbortController(), new AbortController()];
    const open = aborts.map((a) =>
      fetch(`${server.base}/agent/respond/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Is Schatz open?', user_id: 'busy-user' }),
        signal: a.signal,
      }),
    );
    const streams = await Promise.all(open);
    for (const s of streams) expect(s.status).toBe(200);
    await expect.poll(() => h.gw.chatRequests().length).toBe(2);

    const third = await h.post({ query: 'And Entropy?', user_id: 'busy-user' });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('2');
    expect(await third.json()).toEqual({ error: 'too many turns in flight', detail: expect.stringContaining('at most 2') });
    expect(h.gw.chatRequests()).toHaveLength(2);

    h.gw.enqueue({ text: ['Entropy is open.'] });
    expect((await h.post({ query: 'Is Entropy open?', user_id: 'someone-else' })).status).toBe(200);

    // One client goes away: its slot frees.
    aborts[0]!.abort();
    await h.gw.waitForAbort();
    h.gw.enqueue({ text: ['Now it fits.'] });
    await expect
      .poll(async () => (await h.post({ query: 'Retry', user_id: 'busy-user' })).status, { timeout: 5_000 })
      .toBe(200);
    aborts[1]!.abort();
  });

  it('counts per bucket, frees each slot once, and aborts every running turn on request', () => {
    const turns = createTurnsInFlight(1);
    const a = new AbortController();
    const finish = turns.start('u1', a);
    expect(() => turns.start('u1', new AbortController())).toThrow(TooManyTurnsError);
    const b = new AbortController();
    turns.start('u2', b);
    expect(turns.size).toBe(2);
    finish();
    finish();
    expect(turns.size).toBe(1);
    const reason = new Error('stopping');
    expect(turns.abortAll(reason)).toBe(1);
    expect(b.signal.reason).toBe(reason);
    expect(a.signal.aborted).toBe(false);
  });

  it('gives the anonymous bucket, shared by every signed-out student, a cap of its own', () => {
    const turns = createTurnsInFlight(3, 50);
    for (let i = 0; i < 50; i++) turns.start('anonymous', new AbortController());
    expect(() => turns.start('anonymous', new AbortController())).toThrow(TooManyTurnsError);
    // One user's cap is unchanged.
    for (let i = 0; i < 3; i++) turns.start('u1', new AbortController());
    expect(() => turns.start('u1', new AbortController())).toThrow(TooManyTurnsError);
    expect(turns.size).toBe(53);
  });
});
