/**
 * This process's resumable runs (issue 62, CONTRACT.md "Resuming a stream", docs/design/runs.md): the
 * runs it produces (live-run.ts) and the readers that come back for any run, here or on another replica.
 *
 * - `start` makes a chat turn a run with a random id (a v4 UUID: 122 random bits), owned by its user.
 * - `follow` answers a resume: a run produced here is read from its frames in memory; any other from the
 *   log (runs/run-log.ts), woken by the store's notices and on a slow timer, telling the producing replica
 *   it is wanted (so it writes the frames through) until the run ends. A run whose replica stopped
 *   heartbeating is marked `interrupted` by its reader, which ends on the `error` event.
 * - Another user's run and an unknown or expired one are the same null (the routes' one 404).
 * - A resume never touches the turn: no model call, no budget, no moderation, no tools.
 * - `close` (SIGTERM) lets the running runs finish until shortly before the deadline, ends those still
 *   running then (ShuttingDownError: their readers get the `error` event), and waits for their ends to be
 *   written.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { StartedTurn } from '../pipeline/turn.js';
import { ShuttingDownError } from '../pipeline/turn-errors.js';
import { settleWithin } from '../lifecycle/settle-within.js';
import type { ServiceMetrics } from '../telemetry/telemetry.js';
import { LiveRun, type RunFollower } from './live-run.js';
import { closingFrame, runState, type Frame, type RunState, type RunStore, type StoredRun } from './run-log.js';
import { HEARTBEAT_MS } from './postgres-run-store.js';

export interface RunsOptions {
  store: RunStore;
  /** RUN_DETACHED_GRACE_MS. */
  graceMs: number;
  logger: Logger;
  metrics: ServiceMetrics;
  /** The batch window of frames written through to the log; default 50 ms. */
  batchMs?: number;
  /** How often a reader of another replica's run reads the log without a notice; default 1 s. */
  followPollMs?: number;
  /** How often ended runs past their retention are deleted; default a minute. */
  pruneEveryMs?: number;
}

/** Frames a cursor can name at most (a run's frames are bounded by the answer cap far below this). */
export const MAX_SEQ = 2_147_483_647;

/** A one-shot latch: `wait` returns at once if `fire` came first. */
class Latch {
  private fired = false;
  private resolve: (() => void) | null = null;
  readonly fire = () => {
    this.fired = true;
    this.resolve?.();
  };
  wait(timeoutMs: number): Promise<void> {
    if (this.fired) {
      this.fired = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.resolve = () => {
        this.resolve = null;
        this.fired = false;
        done();
      };
    });
  }
}

export class Runs {
  private readonly live = new Map<string, LiveRun>();
  private readonly store: RunStore;
  private readonly batchMs: number;
  private readonly followPollMs: number;
  /** Only a shared log needs a heartbeat (another replica judges this one by it); none in memory. */
  private readonly heartbeat: ReturnType<typeof setInterval> | null;
  private readonly pruning: ReturnType<typeof setInterval>;
  private closing = false;

  constructor(private readonly options: RunsOptions) {
    this.store = options.store;
    this.batchMs = options.batchMs ?? 50;
    this.followPollMs = options.followPollMs ?? 1_000;
    this.store.onSignal((runId, kind) => {
      const run = this.live.get(runId);
      if (!run) return;
      if (kind === 'cancel') run.cancel();
      else run.wantedElsewhere();
    });
    this.heartbeat = this.store.kind === 'postgres' ? setInterval(() => this.beat(), HEARTBEAT_MS) : null;
    this.heartbeat?.unref();
    this.pruning = setInterval(() => void this.prune(), options.pruneEveryMs ?? 60_000);
    this.pruning.unref();
  }

  /** Runs this process is producing now. */
  get size(): number {
    return this.live.size;
  }

  /** Makes a started turn a run of `owner`; its first follower is the connection that started it. */
  start(owner: string, turn: StartedTurn): LiveRun {
    const run = new LiveRun(randomUUID(), owner, turn, {
      store: this.store,
      graceMs: this.options.graceMs,
      batchMs: this.batchMs,
      logger: this.options.logger,
      metrics: this.options.metrics,
      ended: (r) => this.live.delete(r.id),
    });
    this.live.set(run.id, run);
    return run;
  }

  /** A reader of `owner`'s run after `afterSeq`; null when the run is unknown, expired or another user's. */
  async follow(runId: string, owner: string, afterSeq: number): Promise<RunFollower | null> {
    const local = this.live.get(runId);
    if (local) {
      if (local.owner !== owner) return null;
      this.options.metrics.runEvent('resumed', Math.max(0, local.lastSeq - afterSeq));
      return local.follow(afterSeq);
    }
    const stored = await this.store.read(runId, afterSeq);
    if (!stored || stored.owner !== owner) return null;
    this.options.metrics.runEvent('resumed', Math.max(0, stored.lastSeq - afterSeq));
    let detached = false;
    const latch = new Latch();
    return {
      frames: this.fromLog(runId, afterSeq, stored, () => detached, latch),
      detach: () => {
        detached = true;
        latch.fire();
      },
    };
  }

  /** `GET /agent/runs/{run_id}`: the run's state; null as for `follow`. */
  async state(runId: string, owner: string): Promise<RunState | null> {
    const local = this.live.get(runId);
    if (local) {
      if (local.owner !== owner) return null;
      return runState(runId, { status: local.status, lastSeq: local.lastSeq, response: local.response, error: local.error });
    }
    const stored = await this.current(runId);
    return stored && stored.owner === owner ? runState(runId, stored) : null;
  }

  /** `POST /agent/runs/{run_id}/cancel`: aborts a running run at once; the state after; null as for `follow`. */
  async cancel(runId: string, owner: string): Promise<RunState | null> {
    const local = this.live.get(runId);
    if (local?.owner === owner) local.cancel();
    else if (!local) await this.store.cancel(runId, owner);
    return this.state(runId, owner);
  }

  /** Clearing a user's memory: their runs here are cancelled and every stored run of theirs is deleted. */
  async forgetOwner(owner: string): Promise<void> {
    for (const run of this.live.values()) if (run.owner === owner) run.cancel();
    await this.store.forgetOwner(owner);
  }

  /** SIGTERM: running runs finish until shortly before `deadline`, then end; their ends are written. */
  async close(deadline: number): Promise<void> {
    this.closing = true;
    clearInterval(this.pruning);
    const runs = [...this.live.values()];
    const endAt = deadline - Math.min(1_000, Math.max(0, deadline - Date.now()) / 4);
    const ended = Promise.all(runs.map((r) => r.done));
    if (!(await settleWithin(ended.then(() => true), endAt - Date.now(), false))) {
      for (const run of this.live.values()) run.abort(new ShuttingDownError());
      await settleWithin(ended, deadline - Date.now(), undefined);
    }
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.store.close();
  }

  /** The stored run, a stale one marked `interrupted` first (its replica died). */
  private async current(runId: string, afterSeq = MAX_SEQ): Promise<StoredRun | null> {
    const stored = await this.store.read(runId, afterSeq);
    if (!stored?.stale) return stored;
    if (await this.store.interrupt(runId)) this.options.metrics.runEvent('interrupted');
    return this.store.read(runId, afterSeq);
  }

  /** Another replica's run (or an ended one), from the log: replayed, then followed until its end. */
  private async *fromLog(runId: string, afterSeq: number, first: StoredRun, isDetached: () => boolean, latch: Latch): AsyncGenerator<Frame> {
    const unwatch = this.store.watch(runId, latch.fire);
    let cursor = afterSeq;
    let run: StoredRun | null = first;
    let askedAt = 0;
    try {
      while (run && !isDetached()) {
        for (const f of run.frames) {
          if (f.seq <= cursor) continue;
          yield f;
          cursor = f.seq;
        }
        if (run.status !== 'running') {
          const closing = closingFrame(run, cursor);
          if (closing) yield closing;
          return;
        }
        if (run.stale) {
          run = await this.current(runId, cursor);
          continue;
        }
        // The producer writes the frames through while a reader elsewhere asks (and holds the run for it).
        if (Date.now() - askedAt >= this.wantEveryMs()) {
          askedAt = Date.now();
          await this.store.signal(runId, 'want');
        }
        await latch.wait(this.followPollMs);
        if (isDetached()) return;
        run = await this.store.read(runId, cursor);
      }
    } finally {
      unwatch();
    }
  }

  /** A reader elsewhere asks again well within the producer's grace, so the run is held while it reads. */
  private wantEveryMs(): number {
    return Math.max(250, Math.min(5_000, this.options.graceMs / 3));
  }

  private beat(): void {
    if (this.live.size === 0) return;
    this.store.heartbeat([...this.live.keys()]).catch((err: unknown) => this.options.logger.warn('run heartbeat failed', { err }));
  }

  private async prune(): Promise<void> {
    if (this.closing) return;
    try {
      await this.store.prune();
    } catch (err) {
      this.options.logger.warn('pruning ended runs failed', { err });
    }
  }
}
