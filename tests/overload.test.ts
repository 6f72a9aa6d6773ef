/**
 * Graceful overload: with the thresholds set low, a new turn gets the 503 envelope with `Retry-After`
 * before any stream starts (on every chat route), while the stream already open is not cut and ends
 * with `done`. The guard's other readings (event-loop delay, heap) refuse the same way, and a limit of 0
 * turns its check off.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { createOverloadGuard, loopDelayResolutionMs, OverloadedError, processReadings, type ProcessReadings } from '../src/lifecycle/overload.js';
import { createTurnsInFlight } from '../src/lifecycle/turns-in-flight.js';
import { listen } from './support/listen.js';
import { collectSseEvents } from './support/sse.js';
import { startTurnHarness, type TurnHarness } from './support/turn-harness.js';
import { closeAfterEach } from './support/cleanup.js';
import { until } from './support/until.js';

const defer = closeAfterEach({ bestEffort: true });

const quiet: ProcessReadings = { loopDelayMs: () => 0, heapPercent: () => 10 };

describe('overload refusal through the chat routes', () => {
  it('refuses a new turn with 503 + Retry-After before any stream, and the open stream finishes', async () => {
    const turns = createTurnsInFlight(3);
    const refusals: string[] = [];
    const overload = createOverloadGuard({
      limits: { maxOpenTurns: 1, maxLoopDelayMs: 0, maxHeapPercent: 0 },
      turns,
      logger: silentLogger,
      readings: quiet,
      onRefusal: (reason) => refusals.push(reason),
    });
    const h: TurnHarness = await startTurnHarness({ deps: { turns, overload } });
    defer(() => h.close());
    const server = await listen(h.app.fetch);
    defer(() => server.close());
    // The first turn's answer is slow: 10 chunks 100 ms apart, so it is open while the others arrive.
    h.gw.enqueue({ text: Array.from({ length: 10 }, (_, i) => `part ${i} `), chunkDelayMs: 100 });
    const post = (path: string, body: unknown) =>
      fetch(server.base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    const open = await post('/agent/respond/stream', { query: 'tell me about campus' });
    expect(open.status).toBe(200);
    const openEvents = collectSseEvents(open.body!);

    for (const path of ['/agent/respond/stream', '/agent/respond']) {
      const refused = await post(path, { query: 'and another thing' });
      expect(refused.status, path).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await refused.json()).toEqual({ error: 'service overloaded', detail: 'the assistant is busy right now; please try again in a few seconds' });
    }
    // The OpenAI-compatible route refuses in its own error shape, with the same status and header.
    const openai = await post('/v1/chat/completions', { model: 'campus-agent', messages: [{ role: 'user', content: 'hi' }] });
    expect(openai.status).toBe(503);
    expect(openai.headers.get('retry-after')).toBe('5');

    const events = await openEvents;
    expect(events.at(-1)!.type).toBe('done');
    expect((events.at(-1)!.data as { response_text: string }).response_text).toContain('part 9');
    expect(refusals).toEqual(['open_turns', 'open_turns', 'open_turns']);
    // Only the first turn reached the gateway.
    expect(h.gw.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(1);

    // With the stream finished, a new turn is admitted again.
    h.gw.enqueue({ text: 'welcome back' });
    const after = await post('/agent/respond', { query: 'hello again' });
    expect(after.status).toBe(200);
  });
});

describe('the overload guard', () => {
  const guard = (limits: { maxOpenTurns: number; maxLoopDelayMs: number; maxHeapPercent: number }, readings: ProcessReadings, open = 0) =>
    createOverloadGuard({ limits, turns: { size: open }, logger: silentLogger, readings });

  it('refuses on event-loop delay and on heap, naming the reason', () => {
    const slow = guard({ maxOpenTurns: 0, maxLoopDelayMs: 200, maxHeapPercent: 0 }, { loopDelayMs: () => 450, heapPercent: () => 10 });
    expect(() => slow.admit()).toThrow(OverloadedError);
    try {
      slow.admit();
    } catch (err) {
      expect((err as OverloadedError).reason).toBe('event_loop');
      expect((err as OverloadedError).status).toBe(503);
    }
    const full = guard({ maxOpenTurns: 0, maxLoopDelayMs: 0, maxHeapPercent: 85 }, { loopDelayMs: () => 0, heapPercent: () => 91 });
    expect(() => full.admit()).toThrow(expect.objectContaining({ reason: 'heap' }));
  });

  it('admits below every limit, and a limit of 0 is off', () => {
    expect(() => guard({ maxOpenTurns: 10, maxLoopDelayMs: 200, maxHeapPercent: 85 }, { loopDelayMs: () => 199, heapPercent: () => 84 }, 9).admit()).not.toThrow();
    expect(() => guard({ maxOpenTurns: 0, maxLoopDelayMs: 0, maxHeapPercent: 0 }, { loopDelayMs: () => 10_000, heapPercent: () => 100 }, 10_000).admit()).not.toThrow();
  });
});

describe('the process readings', () => {
  const block = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  /** The highest loop-delay reading seen until `refreshes` readings have been taken. */
  const worstReading = async (readings: ReturnType<typeof processReadings>, refreshes: number) => {
    let seen = 0;
    await until(
      `reading ${refreshes}`,
      () => {
        seen = Math.max(seen, readings.loopDelayMs());
        return readings.refreshes >= refreshes;
      },
      15_000,
    );
    return Math.max(seen, readings.loopDelayMs());
  };

  it('samples the loop at a fifth of the limit, 10-100 ms', () => {
    expect(loopDelayResolutionMs(250)).toBe(50);
    expect(loopDelayResolutionMs(20)).toBe(10);
    expect(loopDelayResolutionMs(5_000)).toBe(100);
  });

  it('reads a loop that stalled past the limit as late, and a quiet loop as on time', async () => {
    const readings = processReadings({ loopDelayLimitMs: 250 });
    try {
      await until('the first reading', () => readings.refreshes >= 1, 5_000);
      expect(readings.loopDelayMs()).toBeLessThan(250);
      const before = readings.refreshes;
      block(400);
      // The first reading after the stall holds it (the histogram's sample, or the reading's own
      // lateness when it fell due in the stall). Two readings are watched, so a loaded machine that
      // polls late still sees the one that holds it.
      expect(await worstReading(readings, before + 2)).toBeGreaterThan(250);
    } finally {
      readings.close();
    }
  });

  it('reads a stall that begins right after a reading (the sample after a reset is not lost)', async () => {
    // monitorEventLoopDelay forgets its last fire's time on reset, so a stall between a reset and its next
    // fire is not in the histogram; the probe after each reset reads it (src/lifecycle/overload.ts). The stall here starts within
    // microseconds of a reading: spinning on immediates, it begins as soon as the reading is seen.
    const readings = processReadings({ loopDelayLimitMs: 250 });
    try {
      await until('the first reading', () => readings.refreshes >= 1, 5_000);
      const at = readings.refreshes;
      await new Promise<void>((resolve) => {
        const spin = () => (readings.refreshes > at ? resolve() : void setImmediate(spin));
        spin();
      });
      block(400);
      expect(await worstReading(readings, at + 3)).toBeGreaterThan(250);
    } finally {
      readings.close();
    }
  });

  it('keeps no histogram when the delay check is off: the reading stays 0 through a stall', async () => {
    const readings = processReadings({ loopDelayLimitMs: 0 });
    // A reading with the check on, as a clock: once it has read the stall, the one that is off would have too.
    const witness = processReadings({ loopDelayLimitMs: 250 });
    block(300);
    await until('a reading of the stall', () => witness.refreshes >= 1, 5_000);
    witness.close();
    expect(readings.loopDelayMs()).toBe(0);
    expect(readings.heapPercent()).toBeGreaterThan(0);
    readings.close();
  });
});
