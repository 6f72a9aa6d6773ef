/**
 * A run while its producing process has it (issue 62): the turn's client events pumped into frames
 * held here, read by any number of followers (the connection that started it, readers that came back),
 * and written to the shared log when someone may need them elsewhere.
 *
 * - The pump reads the turn to its end whoever reads the run: a follower's slow socket no longer holds
 *   the turn back (the frames are bounded by the answer cap, MAX_ANSWER_CHARS, plus a few events).
 * - Writes to the log, in order on one chain: frames only while they may be read on another replica (no
 *   follower left here, or another replica asked for the run): then at most one write per batch window;
 *   the end and the frames not yet written, in one write. The run's row comes with the first write, or
 *   with the replica's heartbeat if the run is still going then (the store's `begin`). A run followed to
 *   its end by its own connection within a heartbeat costs its end, which the Postgres store writes with
 *   the other ends of its batch window in one statement (issue 62's target: at most 3 statements a turn
 *   more than before runs),
 *   and its end tells no other replica (`followedElsewhere` false: nobody there asked for it).
 * - Detached (no follower left): the run goes on for the grace period, then ends with
 *   RunAbandonedError. A follower here, or a reader on another replica asking again, holds it.
 * - A failing log degrades the run to this process (a warning); followers here are served as before,
 *   and the run is held until its end is written (`writeEnd`), so it is never read as interrupted while
 *   this process lives and the database comes back within END_HOLD_MS.
 */
import type { Logger } from '../logger.js';
import { INTERNAL_ERROR, type Envelope } from '../http/errors.js';
import { clientEventData, type ClientEvent } from '../pipeline/events.js';
import type { CompleteResponse } from '../pipeline/complete-response.js';
import type { StartedTurn } from '../pipeline/turn.js';
import { RunAbandonedError, RunCancelledError } from '../pipeline/turn-errors.js';
import type { ServiceMetrics } from '../telemetry/telemetry.js';
import type { Frame, RunEnd, RunLog, RunStatus } from './run-log.js';

/** What a live run needs from the process that holds it. */
/** How long a run whose end could not be written is held here, its end tried again (a database outage longer than this leaves it `interrupted` elsewhere). */
export const END_HOLD_MS = 120_000;
/** The first wait before an end is tried again, doubling up to END_RETRY_MAX_MS (within a second or two of the database's return). */
const END_RETRY_MS = 250;
const END_RETRY_MAX_MS = 2_000;

export interface RunHost {
  store: RunLog;
  /** RUN_DETACHED_GRACE_MS. */
  graceMs: number;
  /** The batch window of frames written through to the log. */
  batchMs: number;
  logger: Logger;
  metrics: ServiceMetrics;
  /** The run's end was written (or given up after END_HOLD_MS): the host lets go of it. */
  ended(run: LiveRun): void;
}

/** A reader of a run: its frames after a cursor, then live to the end; `detach` when its connection goes away. */
export interface RunFollower {
  readonly frames: AsyncIterable<Frame>;
  /** The run is over and the cursor is at or past its last frame: nothing will come (the resume answers 204). */
  readonly atEnd: boolean;
  detach(): void;
}

export class LiveRun {
  readonly frames: Frame[] = [];
  /** Running until the end; `cancelled` as soon as a cancel is asked (the turn's last frame follows). */
  status: RunStatus = 'running';
  response: CompleteResponse | null = null;
  error: Envelope | null = null;
  /** The last frame is pushed: followers end once they have read it. */
  private finished = false;
  private followers = 0;
  private waiting: { promise: Promise<void>; resolve: () => void } | null = null;
  private grace: ReturnType<typeof setTimeout> | null = null;
  /** Frames handed to the log so far; the rest are written at the next flush or at the end. */
  private written = 0;
  private writeThrough = false;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  /** The log's writes, in order: the row, the batches, the end. */
  private writes: Promise<void>;
  private logFailed = false;
  /** Resolves when the end is written (or given up: END_HOLD_MS). */
  readonly done: Promise<void>;

  constructor(
    /** The id clients see (`X-Run-Id`). */
    readonly id: string,
    /** The run's row in the log. */
    readonly key: string,
    readonly owner: string,
    private readonly turn: StartedTurn,
    private readonly host: RunHost,
  ) {
    this.writes = host.store.begin(key, owner).catch((err: unknown) => this.logFailure(err));
    this.done = this.pump();
  }

  /** A follower from `afterSeq` (0: from the start). */
  follow(afterSeq: number): RunFollower {
    this.followers++;
    this.clearGrace();
    let detached = false;
    const detach = () => {
      if (detached) return;
      detached = true;
      this.wake();
      if (--this.followers === 0 && !this.finished) this.detached();
    };
    // An iterator of its own, not an async generator: a frame already here is one settled promise,
    // where a generator's yield costs several microtasks, once a delta on the per-delta path
    // (docs/perf-log/2026-11-30-late.md).
    let next = Math.max(0, afterSeq);
    const ended: IteratorResult<Frame> = { value: undefined, done: true };
    const read = (): Promise<IteratorResult<Frame>> => {
      if (!detached && next < this.frames.length) return Promise.resolve({ value: this.frames[next++]!, done: false });
      if (detached || (this.finished && next >= this.frames.length)) {
        detach();
        return Promise.resolve(ended);
      }
      return this.changed().then(read);
    };
    const frames: AsyncIterableIterator<Frame> = {
      next: read,
      return: () => {
        detach();
        return Promise.resolve(ended);
      },
      [Symbol.asyncIterator]: () => frames,
    };
    return { frames, atEnd: this.finished && afterSeq >= this.frames.length, detach };
  }

  /** Cancels the run: its turn ends at once with the `cancelled` error event. Idempotent. */
  cancel(): void {
    if (this.finished) return;
    this.status = 'cancelled';
    this.turn.abort(new RunCancelledError());
  }

  /** Ends the turn with `reason` (shutdown's deadline). */
  abort(reason: unknown): void {
    this.turn.abort(reason);
  }

  /** A reader on another replica follows this run: write the frames through while it does, and hold on. */
  wantedElsewhere(): void {
    if (this.finished) return;
    if (this.followers === 0) this.detached(false);
    this.startWritingThrough();
  }

  get lastSeq(): number {
    return this.frames.length;
  }

  private async pump(): Promise<void> {
    try {
      for await (const e of this.turn.events) this.push(e);
    } catch (err) {
      // The stages turn failures into the `error` event; this is a fault below them.
      this.host.logger.error('run failed', { run_id: this.id, err });
      this.push({ type: 'error', envelope: INTERNAL_ERROR });
    }
    const last = this.frames.at(-1);
    if (last?.event !== 'done' && last?.event !== 'error') this.push({ type: 'error', envelope: INTERNAL_ERROR });
    this.finished = true;
    this.clearGrace();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.wake();
    if (this.followers === 0 && this.status === 'done') this.host.metrics.runEvent('completed_detached');
    const end: RunEnd = {
      status: this.status === 'running' ? 'failed' : (this.status as RunEnd['status']),
      lastSeq: this.frames.length,
      response: this.response,
      error: this.error,
      followedElsewhere: this.writeThrough,
    };
    await this.writeEnd(end);
    this.host.ended(this);
  }

  /**
   * Writes the end until it is written (issue 79). While the log fails (the database away) the run is
   * held here: resumes on this replica are served from its frames in memory, and the heartbeat keeps its
   * row alive, so no reader elsewhere judges it dead; the end is tried again with backoff (END_RETRY_MS,
   * doubling to END_RETRY_MAX_MS) for END_HOLD_MS at most. Past that it is let go with a warning, and a
   * reader elsewhere finds it `interrupted`: what it can prove. Shutdown does not wait past its deadline.
   */
  private async writeEnd(end: RunEnd): Promise<void> {
    const until = Date.now() + END_HOLD_MS;
    for (let attempt = 1; ; attempt++) {
      if (await this.write((from) => this.host.store.end(this.key, from, end))) {
        if (attempt > 1) this.host.logger.info('run end written after the log failed', { run_id: this.id, attempts: attempt });
        return;
      }
      const wait = Math.min(END_RETRY_MS * 2 ** (attempt - 1), END_RETRY_MAX_MS);
      if (Date.now() + wait > until) {
        this.host.logger.warn('run end not written; readers on other replicas will find the run interrupted', { run_id: this.id, attempts: attempt });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private push(e: ClientEvent): void {
    if (e.type === 'done') {
      // An answer that was whole before a cancel took effect is the run's answer.
      this.response = e.response;
      this.status = 'done';
    } else if (e.type === 'error') {
      this.error = e.envelope;
      if (this.status === 'running') this.status = 'failed';
    }
    this.frames.push({ seq: this.frames.length + 1, event: e.type, data: JSON.stringify(clientEventData(e)) });
    if (this.writeThrough && !this.flushTimer) this.flushTimer = setTimeout(() => this.flush(), this.host.batchMs);
    this.wake();
  }

  /** Resolves at the next frame, the end, or a follower's detach. */
  private changed(): Promise<void> {
    if (!this.waiting) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.waiting = { promise, resolve };
    }
    return this.waiting.promise;
  }

  private wake(): void {
    const w = this.waiting;
    if (w) {
      this.waiting = null;
      w.resolve();
    }
  }

  /** No follower is left here: write through for a reader elsewhere, and wait the grace for one. */
  private detached(count = true): void {
    if (count) this.host.metrics.runEvent('detached');
    this.startWritingThrough();
    this.clearGrace();
    if (this.host.graceMs === 0) return this.abandon();
    this.grace = setTimeout(() => this.abandon(), this.host.graceMs);
  }

  private abandon(): void {
    if (this.finished || this.followers > 0) return;
    this.host.metrics.runEvent('abandoned');
    this.turn.abort(new RunAbandonedError(this.host.graceMs));
  }

  private clearGrace(): void {
    if (this.grace) clearTimeout(this.grace);
    this.grace = null;
  }

  private startWritingThrough(): void {
    if (this.writeThrough) return;
    this.writeThrough = true;
    this.flush();
  }

  private flush(): void {
    this.flushTimer = null;
    if (this.finished) return;
    void this.write((from, lastSeq) => (from.length > 0 ? this.host.store.append(this.key, from, lastSeq) : Promise.resolve()));
  }

  /**
   * Queues a write of the frames not yet handed to the log (after the writes before it); true when it
   * succeeded. A failed write's frames count as not written, so the next write (the end) carries them.
   */
  private write(op: (frames: Frame[], lastSeq: number) => Promise<void>): Promise<boolean> {
    const written = this.writes.then(() => {
      const start = this.written;
      const from = this.frames.slice(start);
      this.written = this.frames.length;
      return op(from, this.written).then(
        () => true,
        (err: unknown) => {
          this.written = Math.min(this.written, start);
          this.logFailure(err);
          return false;
        },
      );
    });
    this.writes = written.then(() => undefined);
    return written;
  }

  private logFailure(err: unknown): void {
    if (this.logFailed) return;
    this.logFailed = true;
    this.host.logger.warn('run log write failed; the run is served from this process only', { run_id: this.id, err });
  }
}
