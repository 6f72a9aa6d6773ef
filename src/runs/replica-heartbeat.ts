/**
 * When this replica heartbeats (issue 75): once a `heartbeatMs` (a second) while it produces runs (a run
 * whose end could not be written yet counts), so readers elsewhere judge its running runs alive and find
 * their rows, and while an end written without waiting for its flush is not yet known durable
 * (`unflushed`: a beat or two after the last run's end); never while it produces none, since then no
 * reader needs it: every run of it has ended, and an ended run is read without its replica's liveness.
 * An idle replica costs the database nothing here. Its row goes stale (and is pruned after the
 * retention), so the first run started after an idle spell waits for a fresh beat (at most
 * FRESH_BEAT_WAIT_MS) before its id is issued: a reader elsewhere never judges a live replica's new run
 * orphaned.
 */
import type { Logger } from '../logger.js';
import type { ReplicaLiveness } from './run-log.js';

/** The longest a run started after an idle spell waits for the fresh beat (a database in trouble must not hold turns). */
export const FRESH_BEAT_WAIT_MS = 250;

export class ReplicaHeartbeat {
  /** The first beat (the replica's row written, so its runs' ids can be judged elsewhere). */
  readonly ready: Promise<void>;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** When the pending timer fires. */
  private dueAt = 0;
  /** When the last beat was sent. */
  private sentAt = 0;
  private closed = false;

  constructor(
    private readonly liveness: ReplicaLiveness,
    /** The runs this replica produces now (their rows' heartbeats). */
    private readonly runIds: () => string[],
    private readonly logger: Logger,
  ) {
    this.ready = this.beat();
  }

  /**
   * Before a run's id is issued: after an idle spell (no beat sent for longer than `heartbeatMs`) a beat
   * is sent now and waited for, up to FRESH_BEAT_WAIT_MS.
   */
  async fresh(): Promise<void> {
    if (this.closed || Date.now() - this.sentAt <= this.liveness.heartbeatMs) return;
    let timeout: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.beat(), new Promise<void>((resolve) => (timeout = setTimeout(resolve, FRESH_BEAT_WAIT_MS)))]);
    clearTimeout(timeout);
  }

  /** A run is produced here now: the next beat (which writes its row) comes within `heartbeatMs`. */
  producing(): void {
    if (!this.timer || this.dueAt > Date.now() + this.liveness.heartbeatMs) this.schedule(this.liveness.heartbeatMs);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private beat(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.sentAt = Date.now();
    return this.liveness
      .heartbeat(this.runIds())
      .catch((err: unknown) => this.logger.warn('run heartbeat failed', { err }))
      .finally(() => {
        // Only the beat that left no timer behind schedules the next (a beat already in flight is
        // shared), and only while runs are produced here or an end is not yet known durable: an idle
        // replica does not beat.
        if (!this.timer && (this.runIds().length > 0 || this.liveness.unflushed)) this.schedule(this.liveness.heartbeatMs);
      });
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = Date.now() + ms;
    this.timer = setTimeout(() => void this.beat(), ms);
    this.timer.unref();
  }
}
