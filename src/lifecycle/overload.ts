/**
 * Graceful overload: when the process is saturated, new chat turns are refused at once with 503 and
 * `Retry-After` (before any stream starts), so the turns already admitted keep their pace instead of
 * every stream slowing down together. Open streams are never cut by it.
 *
 * Saturated means any of:
 * - more turns running than OVERLOAD_MAX_OPEN_TURNS;
 * - the event loop's delay (p99 over the last second, `monitorEventLoopDelay`, see `processReadings`) above
 *   OVERLOAD_MAX_LOOP_DELAY_MS: the core is busy enough that every open stream is already late;
 * - the V8 heap above OVERLOAD_MAX_HEAP_PERCENT of its limit: more streams risk the heap limit (the
 *   image's `--max-old-space-size`) and a crash that would cut every stream.
 */
import { getHeapStatistics } from 'node:v8';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { AppError } from '../http/errors.js';
import type { Logger } from '../logger.js';
import type { TurnsInFlight } from './turns-in-flight.js';

/** Seconds a refused client is asked to wait: a saturated core usually drains within this. */
export const OVERLOAD_RETRY_AFTER_S = 5;

export type OverloadReason = 'open_turns' | 'event_loop' | 'heap';

export class OverloadedError extends AppError {
  override readonly refusal = 'overload';

  constructor(readonly reason: OverloadReason) {
    super(503, 'service overloaded', 'the assistant is busy right now; please try again in a few seconds', {
      'Retry-After': String(OVERLOAD_RETRY_AFTER_S),
    });
  }
}

export interface OverloadLimits {
  /** OVERLOAD_MAX_OPEN_TURNS; 0 turns this check off. */
  maxOpenTurns: number;
  /** OVERLOAD_MAX_LOOP_DELAY_MS (p99 over the last second); 0 turns this check off. */
  maxLoopDelayMs: number;
  /** OVERLOAD_MAX_HEAP_PERCENT of the heap limit; 0 turns this check off. */
  maxHeapPercent: number;
}

export interface OverloadGuard {
  /** Throws OverloadedError when the process is saturated. */
  admit(): void;
  close(): void;
}

export interface ProcessReadings {
  /** p99 event-loop delay over the last window, ms. */
  loopDelayMs(): number;
  /** Heap used as a percentage of the heap limit. */
  heapPercent(): number;
}

/**
 * The delay histogram samples the loop with a timer every `resolution` ms, and each sample wakes an idle
 * loop: at 10 ms that was about 4 ms of CPU a second per idle replica (issue 46, docs/perf-log/2026-11-26-issue-46-cuts.md). Sampled
 * every fifth of the limit (10-100 ms), a loop late by the limit is still read within a fifth of it.
 */
export function loopDelayResolutionMs(limitMs: number): number {
  return Math.min(100, Math.max(10, Math.round(limitMs / 5)));
}

/**
 * The process's own readings: an event-loop delay histogram read and reset every second, sampled at the
 * resolution the limit needs, and none when the limit is off (`loopDelayLimitMs` 0: the reading is 0).
 * A sample is the time between two of the histogram's timer fires, so the reading is its p99 less the
 * resolution: how late the loop was. With 10-100 samples a second, p99 is the worst one or two: a single
 * stall past the limit is read as saturation for the next second.
 *
 * The histogram's blind spot: its `reset()` also forgets its last fire's time (Node's Histogram::Reset
 * zeroes `prev_`), so the interval its next fire closes is never recorded. A stall in that interval was
 * not read at all: one during which the reading fell due (the reading then ran before the histogram's
 * fire and reset it), or one that began right after a reading. Two cheap measures cover it, each late by
 * at least the stall less the resolution, as the histogram's own samples are: the reading's own lateness
 * (a stall it fell due in), and a one-shot probe armed at each reset for one resolution later (a stall
 * that began before the histogram's next fire). tests/overload.test.ts failed on the first in CI and
 * failed every time on the second before this. A timer of our own sampling the loop instead (recording
 * lateness as values, which a reset keeps) cost about 4 ms of CPU a second idle at the default limit,
 * against about 2 for the histogram's native timer; hence the histogram and one probe a second.
 */
export function processReadings(options: { loopDelayLimitMs: number }): ProcessReadings & { close(): void; /** Loop-delay readings taken so far (one a second). */ readonly refreshes: number } {
  const limit = getHeapStatistics().heap_size_limit;
  const heapPercent = () => (getHeapStatistics().used_heap_size / limit) * 100;
  if (options.loopDelayLimitMs <= 0) return { loopDelayMs: () => 0, heapPercent, close: () => undefined, refreshes: 0 };
  const resolution = loopDelayResolutionMs(options.loopDelayLimitMs);
  const histogram = monitorEventLoopDelay({ resolution });
  histogram.enable();
  let last = 0;
  let refreshes = 0;
  let readAt = performance.now();
  let probeLate = 0;
  let probe: ReturnType<typeof setTimeout> | null = null;
  const armProbe = () => {
    const due = performance.now() + resolution;
    probe = setTimeout(() => {
      probeLate = Math.max(probeLate, performance.now() - due);
      probe = null;
    }, resolution);
    probe.unref();
  };
  const timer = setInterval(() => {
    const now = performance.now();
    const readingLate = now - readAt - 1_000;
    readAt = now;
    const sampled = histogram.count > 0 ? histogram.percentile(99) / 1e6 - resolution : 0;
    last = Math.max(0, sampled, readingLate, probeLate);
    probeLate = 0;
    histogram.reset();
    if (probe) clearTimeout(probe);
    armProbe();
    refreshes++;
  }, 1_000);
  timer.unref();
  return {
    loopDelayMs: () => last,
    get refreshes() {
      return refreshes;
    },
    // V8's own counter: process.memoryUsage() also reads the resident set from the OS, per turn.
    heapPercent,
    close() {
      clearInterval(timer);
      if (probe) clearTimeout(probe);
      histogram.disable();
    },
  };
}

export function createOverloadGuard(options: {
  limits: OverloadLimits;
  turns: Pick<TurnsInFlight, 'size'>;
  logger: Logger;
  readings?: ProcessReadings & { close?(): void };
  onRefusal?: (reason: OverloadReason) => void;
}): OverloadGuard {
  const { limits, turns } = options;
  const readings = options.readings ?? processReadings({ loopDelayLimitMs: limits.maxLoopDelayMs });
  // One log line per second at most while refusing: the access log already has every 503.
  let lastLogged = 0;
  let refusedSinceLog = 0;

  const saturated = (): OverloadReason | null => {
    if (limits.maxOpenTurns > 0 && turns.size >= limits.maxOpenTurns) return 'open_turns';
    if (limits.maxLoopDelayMs > 0 && readings.loopDelayMs() > limits.maxLoopDelayMs) return 'event_loop';
    if (limits.maxHeapPercent > 0 && readings.heapPercent() > limits.maxHeapPercent) return 'heap';
    return null;
  };

  return {
    admit() {
      const reason = saturated();
      if (!reason) return;
      options.onRefusal?.(reason);
      refusedSinceLog++;
      const now = Date.now();
      if (now - lastLogged >= 1_000) {
        options.logger.warn('turns refused: overloaded', {
          reason,
          refused: refusedSinceLog,
          open_turns: turns.size,
          loop_delay_ms: Math.round(readings.loopDelayMs()),
          heap_percent: Math.round(readings.heapPercent()),
        });
        lastLogged = now;
        refusedSinceLog = 0;
      }
      throw new OverloadedError(reason);
    },
    close() {
      readings.close?.();
    },
  };
}

/** Never refuses (tests that do not look at overload). */
export const noOverloadGuard: OverloadGuard = { admit: () => undefined, close: () => undefined };
