/**
 * The run log on Postgres (issue 62): the `agent_runs` and `agent_run_frames` tables (drizzle migration
 * 0011), read and written through the service's one `postgres` pool, shared by every replica.
 *
 * - A run's row is written lazily (docs/design/runs.md "The row, lazily"): with its first write, or at
 *   this replica's next heartbeat, whichever comes first. A short turn's only write is its end. The
 *   run's id names this replica and its heartbeat's number (runs/run-ids.ts), and the heartbeat keeps
 *   this replica's row in `agent_run_replicas`, so a reader elsewhere that finds no row can tell a run
 *   too young to be written from one whose replica died first.
 * - Each write is one statement (postgres-run-statements.ts holds them all): the run's row is inserted or updated only while it is `running` and this
 *   replica's (the fence: a run cancelled or marked interrupted elsewhere takes no more frames), its
 *   frames are inserted in the same statement, and `pg_notify` tells the other replicas in the same
 *   transaction, so a follower woken by it always finds the frames.
 * - The end writes the frames not yet written into the run's own row (`tail_lines`, text), not as
 *   rows: a run read whole on its connection (the common case) costs one write, with no per-frame
 *   insert, index entry or foreign-key check; and it notifies only when a reader on another replica
 *   follows the run (one that has not asked yet reads the end on its slow timer). Ends are written in
 *   batches (END_BATCH_MS): the ends of the runs that finished within a window go in one statement, so
 *   under load a turn costs a share of one; a run a reader elsewhere follows is written at once.
 * - One `LISTEN campus_runs` connection per replica hears three kinds of notice: `f <run>` (frames or
 *   state changed: its followers here read again), `w <run>` (a reader on another replica follows a
 *   run produced here) and `c <run>` (cancelled there). Followers also read on a slow timer, so a lost
 *   notice (the listening connection reconnecting) delays a frame by at most that timer.
 * - Ends and heartbeats commit asynchronously (no wait for the WAL's flush: docs/perf-log/2026-11-30-commits.md).
 *   What they wrote is kept here (`pending`) until the beats have seen the WAL flushed past it (the beat
 *   after a write reads where the WAL's end is, a later one that the flush passed it; if that one finds
 *   the flush still short, the next beat commits with the flush itself). A beat on a server
 *   restarted since inserts again the rows of runs still here that earlier beats inserted, in the same
 *   statement, and the ends are written again after it (`settle`): a crash in the flush's window loses
 *   no end a client saw, and no row of a run still going.
 * - Liveness: each replica heartbeats in one statement (not one per run), once a second while it
 *   produces a run and never while it produces none (runs/replica-heartbeat.ts): its own row,
 *   the rows of runs begun since, and the runs it is producing (a run whose end could not be written is
 *   among them while it is held and its end tried again: live-run.ts `writeEnd`). A running row whose
 *   heartbeat is HEARTBEAT_STALE_SECONDS old, in a database up at least that long, belongs to a dead
 *   replica (`stale`). Its first reader marks it `interrupted` (fenced on the stale heartbeat, so a live
 *   producer is never marked), and writes an orphan's row so (`interruptOrphan`).
 * - Retention: each ended run's expiry is fixed when it ends, by the replica that ends it (its
 *   RUN_RETENTION_SECONDS from then: `expires_at`), so replicas configured differently keep each other's
 *   promises (issue 74). Expired runs, and a dead replica's running rows and its own row older than this
 *   replica's retention, are deleted by `prune`, one replica at a time (a transaction-scoped advisory lock).
 */
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import type { Database } from '../db/client.js';
import type { RunRef } from './run-ids.js';
import { CHANNEL, END_BATCH_MS, RunStatements, type EndRow, type QueuedEnd, type WalReading } from './postgres-run-statements.js';
import { frameLines, RunWatchers, type Frame, type RunEnd, type RunSignal, type ReplicaLiveness, type RunLog, type StoredRun, type Unwritten } from './run-log.js';

/** How often a replica heartbeats while it produces a run (never while it produces none: replica-heartbeat.ts). */
export const HEARTBEAT_MS = 1_000;
/** A running run whose heartbeat is this old belongs to a dead replica (three beats missed). */
export const HEARTBEAT_STALE_SECONDS = 3;


const SIGNAL_OF: Record<string, RunSignal | undefined> = { w: 'want', c: 'cancel' };

/**
 * The most writes kept until they are durable (`pending`): a beat comes every second while any are kept,
 * two settle a write, and ends go at most 20 batches a second, so only beats failing while ends succeed
 * reach it.
 */
const MAX_PENDING_BATCHES = 200;

/** A write committed without waiting for the flush (a batch of ends, or a beat's new rows), kept until it is known durable (`settle`). */
interface Unsettled {
  /** The server's start time as the last beat before the write read it (null before one). */
  instance: string | null;
  /** The WAL position a beat sent after the write read: durable once the flush is past it (null until then). */
  until: bigint | null;
  /** Ends, each with its run's owner (written again, a row a crash lost whole is inserted). */
  ends: EndRow[];
  /** Runs' rows a beat inserted (run, owner): inserted again by a beat on a restarted server while the run is here. */
  rows: Array<readonly [string, string]>;
  /** A beat after the one that read `until` found the flush still short of it (no WAL writer, or a slow one). */
  late?: boolean;
}

export class PostgresRunStore implements RunLog, ReplicaLiveness {
  readonly heartbeatMs = HEARTBEAT_MS;
  readonly staleSeconds = HEARTBEAT_STALE_SECONDS;
  /** This process as a producer: its running rows carry it, and its heartbeat keeps them alive. */
  readonly replica = randomUUID();
  /** The number of the last heartbeat sent. */
  private sent = 0;
  private beating: Promise<void> | null = null;
  /** Runs begun here whose rows are not written yet: run → owner. */
  private readonly rowless = new Map<string, string>();
  /**
   * Runs begun here whose ends are not written yet: run → owner (what a beat on a restarted server needs
   * to insert a lost row again, and an end written again to insert its row). A run whose end is never
   * written (let go after two minutes of a database away: live-run.ts) keeps its entry, a few bytes.
   */
  private readonly owners = new Map<string, string>();
  /** Writes in flight that may insert runs' rows, with their owners (clearing an owner waits for them). */
  private readonly inserting = new Map<Promise<unknown>, readonly string[]>();
  /** Ends waiting for the next batch: run → its end. */
  private readonly ends = new Map<string, QueuedEnd>();
  /** Writes committed asynchronously (ends, beats' new rows) not yet known durable (`settle`). */
  private pending: Unsettled[] = [];
  /** The server's start time as the last successful beat read it (null before one). */
  private instance: string | null = null;
  private endTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly watchers = new RunWatchers();
  private handler: (runId: string, kind: RunSignal) => void = () => undefined;
  private listening: Promise<{ unlisten(): Promise<void> } | null> | null = null;

  /** Every statement this store runs (postgres-run-statements.ts). */
  private readonly statements: RunStatements;

  constructor(
    private readonly database: Database,
    /** RUN_RETENTION_SECONDS. */
    retentionSeconds: number,
    private readonly onListenError: (err: unknown) => void = () => undefined,
  ) {
    this.statements = new RunStatements(database.sql, this.replica, retentionSeconds, HEARTBEAT_STALE_SECONDS);
  }

  private get sql() {
    return this.database.sql;
  }

  /** Starts the replica's one LISTEN (lazily: a replica that never streams opens no second connection). */
  private listen(): void {
    this.listening ??= this.sql
      .listen(CHANNEL, (payload) => this.notice(payload))
      .catch((err: unknown) => {
        // Followers still read on their timer; the next watch tries again.
        this.listening = null;
        this.onListenError(err);
        return null;
      });
  }

  private notice(payload: string): void {
    const kind = payload.slice(0, 1);
    const runId = payload.slice(2);
    this.watchers.wake(runId);
    const signal = SIGNAL_OF[kind];
    const queued = signal === 'want' ? this.ends.get(runId) : undefined;
    if (queued) {
      // A reader elsewhere waits for a run whose end is queued here: written now, and told.
      queued.notify = true;
      this.writeEnds();
    }
    if (signal) this.handler(runId, signal);
  }

  get beat(): number {
    return this.sent;
  }

  get unflushed(): boolean {
    return this.pending.length > 0;
  }

  /** No statement: the row is written with the run's first write or at the next heartbeat. */
  async begin(runId: string, owner: string): Promise<void> {
    this.listen();
    this.rowless.set(runId, owner);
    this.owners.set(runId, owner);
  }

  async append(runId: string, frames: readonly Frame[], lastSeq: number): Promise<void> {
    await this.writeRow(runId, (owner) => this.statements.append(runId, owner, frames, lastSeq));
  }

  /**
   * Queues the end for the next batch (END_BATCH_MS), written with the other ends queued by then in one
   * statement; at once for a run a reader on another replica follows (it waits on the notice). Resolves
   * when the statement did.
   */
  end(runId: string, frames: readonly Frame[], end: RunEnd): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.ends.set(runId, { frames, end, notify: end.followedElsewhere, resolve, reject });
      if (end.followedElsewhere) this.writeEnds();
      else this.endTimer ??= setTimeout(() => this.writeEnds(), END_BATCH_MS);
    });
  }

  /** Writes the queued ends in one statement (`endsStatement`); a run's owner goes with it while its row is not written. */
  private writeEnds(): void {
    if (this.endTimer) clearTimeout(this.endTimer);
    this.endTimer = null;
    if (this.ends.size === 0) return;
    const batch = [...this.ends];
    this.ends.clear();
    const rows: EndRow[] = batch.map(([id, { frames, end, notify }]) => ({
      id,
      owner: this.rowless.get(id) ?? null,
      status: end.status,
      last_seq: end.lastSeq,
      tail: frameLines(frames),
      response: end.response,
      error: end.error,
      notify,
    }));
    this.send(rows, batch);
  }

  /**
   * One statement of ends (`endsStatement`); kept, each with its owner, until the beats see it durable
   * (`settle`). A run's owner is let go once its end is written.
   */
  private send(rows: EndRow[], batch: ReadonlyArray<readonly [string, Pick<QueuedEnd, 'resolve' | 'reject'>]>, failed?: () => void): void {
    const owners = rows.flatMap((r) => (r.owner === null ? [] : [r.owner]));
    const instance = this.instance;
    const write = this.statements.ends(rows).then(() => {
      const kept = rows.map((r) => ({ ...r, owner: this.owners.get(r.id) ?? r.owner }));
      for (const r of rows) {
        if (r.owner !== null && this.rowless.get(r.id) === r.owner) this.rowless.delete(r.id);
        this.owners.delete(r.id);
      }
      this.keep({ instance, until: null, ends: kept, rows: [] });
    });
    if (owners.length > 0) this.inserting.set(write, owners);
    write.then(
      () => {
        this.inserting.delete(write);
        for (const [, p] of batch) p.resolve();
      },
      (err: unknown) => {
        this.inserting.delete(write);
        for (const [, p] of batch) p.reject(err);
        failed?.();
      },
    );
  }

  /**
   * One write of a run produced here: an insert-or-update while its row is not written yet (`owner`
   * given), an update after. The row counts as written once such a write succeeds; a failed one leaves
   * it to the next heartbeat or the next write.
   */
  private async writeRow(runId: string, statement: (owner: string | undefined) => PromiseLike<unknown>): Promise<void> {
    const owner = this.rowless.get(runId);
    if (owner === undefined) {
      await statement(undefined);
      return;
    }
    const write = Promise.resolve(statement(owner));
    this.inserting.set(write, [owner]);
    try {
      await write;
      if (this.rowless.get(runId) === owner) this.rowless.delete(runId);
    } finally {
      this.inserting.delete(write);
    }
  }

  read(runId: string, afterSeq: number): Promise<StoredRun | null> {
    return this.statements.read(runId, afterSeq);
  }

  interrupt(runId: string): Promise<boolean> {
    return this.statements.interrupt(runId);
  }

  async unwritten(ref: RunRef): Promise<Unwritten> {
    const replica = await this.statements.replicaOf(ref);
    // A heartbeat past the id's has written the row (it was deleted since); an unknown replica is long gone.
    if (!replica || replica.beat > ref.beat) return 'gone';
    return replica.stale ? 'orphaned' : 'young';
  }

  interruptOrphan(ref: RunRef, owner: string): Promise<boolean> {
    return this.statements.interruptOrphan(ref, owner);
  }

  cancel(runId: string, owner: string): Promise<boolean> {
    return this.statements.cancel(runId, owner);
  }

  async forgetOwner(owner: string): Promise<number> {
    // Their rows not yet written never will be; a write or a heartbeat already sent is waited for, so
    // the delete comes after any row it inserts.
    for (const [runId, o] of this.rowless) if (o === owner) this.rowless.delete(runId);
    for (const [runId, o] of this.owners) if (o === owner) this.owners.delete(runId);
    // Nor are their rows and ends written again after a restart: that would insert the rows deleted below.
    for (const b of this.pending) {
      b.ends = b.ends.filter((r) => r.owner !== owner);
      b.rows = b.rows.filter(([, o]) => o !== owner);
    }
    this.writeEnds();
    const inFlight = [...this.inserting].filter(([, owners]) => owners.includes(owner)).map(([w]) => w);
    await Promise.allSettled([...inFlight, this.beating]);
    return this.statements.deleteOwner(owner);
  }

  prune(): Promise<number> {
    return this.statements.prune();
  }

  async heartbeat(runIds: readonly string[]): Promise<void> {
    // One beat at a time: a run begun while one is in flight is in the next (its id names the one in flight).
    if (this.beating) return this.beating;
    const beat = ++this.sent;
    const fresh = [...this.rowless];
    // Rows earlier beats inserted, not known durable, of runs whose ends are not written: the beat inserts
    // them again if the server restarted since the last one (a crash may have lost them).
    const restate = new Map<string, string>();
    for (const b of this.pending) for (const [runId, owner] of b.rows) if (this.owners.get(runId) === owner && !this.rowless.has(runId)) restate.set(runId, owner);
    const prior = this.instance;
    // The writes before this beat is sent: committed before the WAL position it reads.
    const written = this.pending.filter((b) => b.until === null);
    // The WAL writer (which flushes asynchronous commits within 0.6 s) has not flushed a kept write within
    // a beat: this beat waits for the flush itself, and so makes every write before it durable.
    const flush = this.pending.some((b) => b.late);
    this.beating = (async () => {
      try {
        const read = await this.statements.heartbeat(beat, fresh, [...restate], prior, runIds, flush);
        const wal = flush ? { ...read, flushed: read.inserted > read.flushed ? read.inserted : read.flushed } : read;
        for (const [runId, owner] of fresh) if (this.rowless.get(runId) === owner) this.rowless.delete(runId);
        this.instance = wal.instance;
        for (const b of written) b.until = wal.inserted;
        const inserted = wal.instance === prior ? fresh : [...fresh, ...restate];
        if (inserted.length > 0) this.keep({ instance: wal.instance, until: null, ends: [], rows: inserted });
        this.settle(wal);
      } finally {
        this.beating = null;
      }
    })();
    return this.beating;
  }

  /**
   * The kept writes after a beat read `wal`: one whose position the flush has passed is durable and let
   * go. One made while the server had another start time (or before any beat read one) may have been
   * lost by a crash in between: its rows were inserted again by this beat (those of runs still here;
   * an ended run's end carries its owner), and its ends are written again, as the rows they were (an end
   * already there is fenced off: the run is no longer `running`), and kept until that write is durable in
   * turn. A write must be read on one server from itself to its flush: after a crash new WAL reuses the
   * positions the lost records had.
   */
  private settle(wal: WalReading): void {
    const again: EndRow[] = [];
    this.pending = this.pending.filter((b) => {
      if (b.instance !== wal.instance) {
        again.push(...b.ends.map((r) => ({ ...r, notify: true })));
        return false;
      }
      // Kept while not flushed (one a cleared user emptied is let go).
      const kept = b.ends.length + b.rows.length > 0 && (b.until === null || b.until > wal.flushed);
      // Read by a beat before this one and still short: the WAL writer is behind (or there is none).
      if (kept && b.until !== null && b.until < wal.inserted) b.late = true;
      return kept;
    });
    if (again.length === 0) return;
    // Nobody waits on these; one that fails is kept for the next beat to write again.
    const nobody = { resolve: () => undefined, reject: () => undefined };
    this.send(again, again.map((r) => [r.id, nobody] as const), () => this.keep({ instance: null, until: null, ends: again, rows: [] }));
  }

  /** A write kept until it is known durable; beats failing while writes succeed (not an outage: those fail both) must not keep them without bound. */
  private keep(write: Unsettled): void {
    this.pending.push(write);
    if (this.pending.length > MAX_PENDING_BATCHES) this.pending.splice(0, this.pending.length - MAX_PENDING_BATCHES);
  }

  watch(runId: string, onChange: () => void): () => void {
    this.listen();
    return this.watchers.add(runId, onChange);
  }

  async signal(runId: string, kind: RunSignal): Promise<void> {
    await this.statements.signal(runId, kind);
  }

  onSignal(handler: (runId: string, kind: RunSignal) => void): void {
    this.handler = handler;
  }

  async close(): Promise<void> {
    this.writeEnds();
    this.watchers.clear();
    const listening = await this.listening;
    this.listening = null;
    await listening?.unlisten().catch(() => undefined);
  }
}
