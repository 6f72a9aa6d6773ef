/**
 * This process's resumable runs (issue 62, CONTRACT.md "Resuming a stream", docs/design/runs.md): the
 * runs it produces (live-run.ts) and the readers that come back for any run, here or on another replica.
 *
 * - `start` makes a chat turn a run, owned by its user, with an id of 128 random bits that names its
 *   replica and heartbeat and is MACed with its owner (runs/run-ids.ts).
 * - `follow` answers a resume: a run produced here is read from its frames in memory; any other from the
 *   log (runs/run-log.ts), woken by the store's notices and on a slow timer, telling the producing replica
 *   it is wanted (so it writes the frames through) until the run ends. A run whose replica stopped
 *   heartbeating is marked `interrupted` by its reader, which ends on the `error` event.
 * - Another user's run and an unknown or expired one are the same null (the routes' one 404): an id not
 *   issued for this owner opens to nothing before any query.
 * - A run whose row is not written yet (its replica writes it lazily) is asked for (`want`: its replica
 *   writes it at once) and waited for; if its replica died first, the reader writes it `interrupted`.
 * - A resume never touches the turn: no model call, no budget, no moderation, no tools.
 * - `close` (SIGTERM) lets the running runs finish until shortly before the deadline, ends those still
 *   running then (ShuttingDownError: their readers get the `error` event), and waits for their ends to be
 *   written.
 */
import type { Logger } from '../logger.js';
import type { StartedTurn } from '../pipeline/turn.js';
import { ShuttingDownError } from '../pipeline/turn-errors.js';
import { settleWithin } from '../lifecycle/settle-within.js';
import type { ServiceMetrics } from '../telemetry/telemetry.js';
import { LiveRun, type RunFollower } from './live-run.js';
import { RunIds, type RunRef } from './run-ids.js';
import { ReplicaHeartbeat } from './replica-heartbeat.js';
import { atRunEnd, closingFrame, MAX_SEQ, runState, type Frame, type ReplicaLiveness, type RunLog, type RunState, type StoredRun } from './run-log.js';
import { randomUUID } from 'node:crypto';

export interface RunsOptions {
  /** The log of runs (Postgres, shared; or memory, for one process). */
  store: RunLog;
  /** The replicas' liveness, when the log is shared by several (the Postgres store); absent: one process. */
  liveness?: ReplicaLiveness;
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
  /** AGENT_SHARED_SECRET, which run ids are MACed from (runs/run-ids.ts); null: auth off. */
  sharedSecret?: string | null;
}

/** How often a reader waiting for a young run's row asks again and reads. */
const YOUNG_POLL_MS = 250;

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
  /** The runs produced here, by their row's key. */
  private readonly live = new Map<string, LiveRun>();
  private readonly store: RunLog;
  private readonly liveness: ReplicaLiveness | null;
  /** This process as a producer, when no liveness names it (one process: no other replica reads its ids). */
  private readonly replica: string;
  /**
   * How long a reader waits for the row of a run too young to be written: its replica writes it at once
   * when asked and at its next heartbeat anyway, and is judged dead after the liveness's stale window.
   */
  private readonly youngWaitMs: number;
  private readonly ids: RunIds;
  /** The first heartbeat (the replica's row written, so its runs' ids can be judged elsewhere). */
  readonly ready: Promise<void>;
  private readonly batchMs: number;
  private readonly followPollMs: number;
  /** Only a shared log needs a heartbeat (another replica judges this one by it): with the liveness. */
  private readonly heartbeat: ReplicaHeartbeat | null;
  private readonly pruning: ReturnType<typeof setInterval>;
  private closing = false;

  constructor(private readonly options: RunsOptions) {
    this.store = options.store;
    this.liveness = options.liveness ?? null;
    this.replica = this.liveness?.replica ?? randomUUID();
    this.youngWaitMs = ((this.liveness?.staleSeconds ?? 0) + 1) * 1_000;
    this.batchMs = options.batchMs ?? 50;
    this.followPollMs = options.followPollMs ?? 1_000;
    this.ids = new RunIds(options.sharedSecret ?? null);
    const liveness = this.liveness;
    liveness?.onSignal((runId, kind) => {
      const run = this.live.get(runId);
      if (!run) return;
      if (kind === 'cancel') run.cancel();
      else run.wantedElsewhere();
    });
    this.heartbeat = liveness ? new ReplicaHeartbeat(liveness, () => [...this.live.keys()], options.logger) : null;
    this.ready = this.heartbeat?.ready ?? Promise.resolve();
    this.pruning = setInterval(() => void this.prune(), options.pruneEveryMs ?? 60_000);
    this.pruning.unref();
  }

  /** Runs this process is producing now. */
  get size(): number {
    return this.live.size;
  }

  /**
   * Makes a started turn a run of `owner`; its first follower is the connection that started it. After
   * an idle spell the replica's row is made fresh first (replica-heartbeat.ts).
   */
  async start(owner: string, turn: StartedTurn): Promise<LiveRun> {
    await this.heartbeat?.fresh();
    const ref = this.ids.issue(owner, this.replica, this.liveness?.beat ?? 0);
    const run = new LiveRun(ref.id, ref.key, owner, turn, {
      store: this.store,
      graceMs: this.options.graceMs,
      batchMs: this.batchMs,
      logger: this.options.logger,
      metrics: this.options.metrics,
      ended: (r) => this.live.delete(r.key),
    });
    this.live.set(run.key, run);
    this.heartbeat?.producing();
    return run;
  }

  /** A reader of `owner`'s run after `afterSeq`; null when the run is unknown, expired or another user's. */
  async follow(runId: string, owner: string, afterSeq: number): Promise<RunFollower | null> {
    const ref = this.ids.open(runId, owner);
    if (!ref) return null;
    const local = this.live.get(ref.key);
    if (local) {
      if (local.owner !== owner) return null;
      this.options.metrics.runEvent('resumed', Math.max(0, local.lastSeq - afterSeq));
      return local.follow(afterSeq);
    }
    const stored = await this.stored(ref, owner, afterSeq);
    if (!stored || stored.owner !== owner) return null;
    this.options.metrics.runEvent('resumed', Math.max(0, stored.lastSeq - afterSeq));
    let detached = false;
    const latch = new Latch();
    return {
      atEnd: atRunEnd(stored, afterSeq),
      frames: this.fromLog(ref.key, afterSeq, stored, () => detached, latch),
      detach: () => {
        detached = true;
        latch.fire();
      },
    };
  }

  /** `GET /agent/runs/{run_id}`: the run's state; null as for `follow`. */
  async state(runId: string, owner: string): Promise<RunState | null> {
    const ref = this.ids.open(runId, owner);
    return ref && this.stateOf(ref, owner);
  }

  /** `POST /agent/runs/{run_id}/cancel`: aborts a running run at once; the state after; null as for `follow`. */
  async cancel(runId: string, owner: string): Promise<RunState | null> {
    const ref = this.ids.open(runId, owner);
    if (!ref) return null;
    const local = this.live.get(ref.key);
    if (local?.owner === owner) local.cancel();
    else if (!local) {
      // A run too young to have its row is waited for first, so the cancel finds it.
      const stored = await this.stored(ref, owner, MAX_SEQ);
      if (stored?.owner !== owner) return null;
      await this.store.cancel(ref.key, owner);
    }
    return this.stateOf(ref, owner);
  }

  private async stateOf(ref: RunRef, owner: string): Promise<RunState | null> {
    const local = this.live.get(ref.key);
    if (local) {
      if (local.owner !== owner) return null;
      return runState(ref.id, { status: local.status, lastSeq: local.lastSeq, response: local.response, error: local.error });
    }
    const stored = await this.stored(ref, owner, MAX_SEQ);
    return stored && stored.owner === owner ? runState(ref.id, stored) : null;
  }

  /** Clearing a user's memory: their runs here are cancelled and every stored run of theirs is deleted (and none is written after). */
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
    this.heartbeat?.close();
    await this.store.close();
  }

  /**
   * The stored run, a stale one marked `interrupted` first (its replica died). A run with no row yet
   * (its replica writes it lazily) is asked for and waited for, until its row is there, its replica is
   * judged dead (the reader writes it `interrupted`), or YOUNG_WAIT_MS; null when it is gone.
   */
  private async stored(ref: RunRef, owner: string, afterSeq: number): Promise<StoredRun | null> {
    const found = await this.current(ref.key, afterSeq);
    const liveness = this.liveness;
    // One process keeps every run from its begin: one it does not have is gone.
    if (found || !liveness) return found;
    const latch = new Latch();
    const unwatch = this.store.watch(ref.key, latch.fire);
    try {
      for (const until = Date.now() + this.youngWaitMs; ; ) {
        const unwritten = await liveness.unwritten(ref);
        if (unwritten === 'orphaned' && (await liveness.interruptOrphan(ref, owner))) this.options.metrics.runEvent('interrupted');
        if (unwritten === 'young') {
          await liveness.signal(ref.key, 'want');
          await latch.wait(YOUNG_POLL_MS);
        }
        const row = await this.current(ref.key, afterSeq);
        if (row || unwritten === 'gone' || Date.now() >= until) return row;
      }
    } finally {
      unwatch();
    }
  }

  private async current(key: string, afterSeq: number): Promise<StoredRun | null> {
    const stored = await this.store.read(key, afterSeq);
    if (!stored?.stale || !this.liveness) return stored;
    if (await this.liveness.interrupt(key)) this.options.metrics.runEvent('interrupted');
    return this.store.read(key, afterSeq);
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
          const closing = closingFrame(run);
          if (closing && cursor < closing.seq) yield closing;
          return;
        }
        if (run.stale) {
          run = await this.current(runId, cursor);
          continue;
        }
        // The producer writes the frames through while a reader elsewhere asks (and holds the run for it).
        if (Date.now() - askedAt >= this.wantEveryMs()) {
          askedAt = Date.now();
          await this.liveness?.signal(runId, 'want');
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

  private async prune(): Promise<void> {
    if (this.closing) return;
    try {
      await this.store.prune();
    } catch (err) {
      this.options.logger.warn('pruning ended runs failed', { err });
    }
  }
}
