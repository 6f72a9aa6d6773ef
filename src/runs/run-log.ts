/**
 * The shapes of resumable runs (CONTRACT.md "Resuming a stream", issue 62) and the shared log they are
 * kept in. A run is one `/agent/respond/stream` turn apart from its connection: every client event it
 * emits becomes a frame (`seq` from 1, its SSE event name and its one line of JSON data), kept by the
 * producing process while the run is live and written to a `RunLog` that every replica reads.
 *
 * Two stores of the log: Postgres (runs/postgres-run-store.ts) when DATABASE_URL is set, shared by the
 * replicas, which also implements their liveness (`ReplicaLiveness`), and in memory
 * (runs/memory-run-store.ts) otherwise, bounded, for one process, which needs none. What the
 * producing process does with them is runs/runs.ts; docs/design/runs.md says why it is built this way.
 */
import type { Envelope } from '../http/errors.js';
import type { CompleteResponse } from '../pipeline/complete-response.js';
import { RunCancelledError } from '../pipeline/turn-errors.js';
import type { RunRef } from './run-ids.js';
import type { RUN_STATUSES } from '../db/schema.js';

/** One SSE frame of a run: `id: <run_id>:<seq>`, `event: <event>`, `data: <data>`. */
export interface Frame {
  seq: number;
  event: string;
  data: string;
}

/**
 * A run's frames as the Postgres log keeps its end's tail (`agent_runs.tail_lines`): one line a frame,
 * `<seq> <event> <data>`. A frame's data is one line of JSON (JSON.stringify escapes every line break)
 * and its event one word, so a line splits at its first two spaces.
 */
export function frameLines(frames: readonly Frame[]): string {
  return frames.map((f) => `${f.seq} ${f.event} ${f.data}`).join('\n');
}

/** The frames of `frameLines`'s text after `afterSeq`, in order. */
export function framesOfLines(text: string, afterSeq: number): Frame[] {
  const frames: Frame[] = [];
  for (const line of text.split('\n')) {
    const a = line.indexOf(' ');
    const b = line.indexOf(' ', a + 1);
    const seq = Number(line.slice(0, a));
    if (seq > afterSeq) frames.push({ seq, event: line.slice(a + 1, b), data: line.slice(b + 1) });
  }
  return frames;
}

/** One of RUN_STATUSES (db/schema.ts, where the table's check is made from the same list). */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** `GET /agent/runs/{run_id}`: the run's state as CONTRACT.md shapes it. */
export interface RunState {
  run_id: string;
  status: RunStatus;
  last_seq: number;
  response?: CompleteResponse;
  error?: Envelope;
}

/** How a run ended, as its producer writes it. */
export interface RunEnd {
  status: Exclude<RunStatus, 'running' | 'interrupted'>;
  lastSeq: number;
  response: CompleteResponse | null;
  error: Envelope | null;
  /** A reader elsewhere may be waiting on the log (the run was detached here or asked for by another replica): tell the replicas. */
  followedElsewhere: boolean;
}

/** A run as the shared log holds it, with the frames after a cursor. */
export interface StoredRun {
  owner: string;
  status: RunStatus;
  lastSeq: number;
  response: CompleteResponse | null;
  error: Envelope | null;
  /** Running, but its replica stopped heartbeating (it died): the run is to be marked `interrupted`. */
  stale: boolean;
  /** The log holds the run's own last frame (`done` or `error`), written by its producer. */
  closed: boolean;
  /** The stored frames after the cursor asked for, in order. */
  frames: Frame[];
}

/** Signals between replicas: a reader elsewhere wants a run's frames, or asked to cancel it. */
export type RunSignal = 'want' | 'cancel';

/**
 * What the log says of a run id whose row it does not have: `gone` (never written by a replica still
 * known, or written and deleted: a 404), `young` (its replica is alive and writes the row at its next
 * heartbeat at the latest, or at once when asked), `orphaned` (its replica died before writing it).
 */
export type Unwritten = 'gone' | 'young' | 'orphaned';

/**
 * The log of runs, what every store is: a run begun, its frames appended, its end, read after a cursor,
 * cancelled, its owner's runs forgotten, the expired pruned, a run watched for changes. Postgres
 * (runs/postgres-run-store.ts) shares it between the replicas; memory (runs/memory-run-store.ts) keeps it
 * for one process.
 */
export interface RunLog {
  /**
   * Records a new running run of `owner`, produced by this replica. Postgres writes its row lazily: with
   * the run's first write (its end, or frames for a reader elsewhere) or at the next heartbeat, whichever
   * comes first, so a short turn costs its end alone (which Postgres batches with other ends).
   */
  begin(runId: string, owner: string): Promise<void>;
  /** Appends frames of a running run this replica produces (ignored once the run is no longer running here). */
  append(runId: string, frames: readonly Frame[], lastSeq: number): Promise<void>;
  /** Appends the last frames and the run's end, in one write; ignored if the run was already ended elsewhere (cancelled). */
  end(runId: string, frames: readonly Frame[], end: RunEnd): Promise<void>;
  /** The run and its frames after `afterSeq`; null when unknown or expired (past its `expires_at`). */
  read(runId: string, afterSeq: number): Promise<StoredRun | null>;
  /** Marks `owner`'s running run `cancelled` (and tells its replica, when it is another); true when it was running. */
  cancel(runId: string, owner: string): Promise<boolean>;
  /** Deletes every run of `owner` (clearing a user's memory), and forgets the rows of theirs not yet written; the number deleted. */
  forgetOwner(owner: string): Promise<number>;
  /** Deletes expired runs (and a dead replica's as old); one replica at a time does it. */
  prune(): Promise<number>;
  /** Wakes `onChange` when the run's stored frames or state change (another replica wrote them); returns the unsubscribe. */
  watch(runId: string, onChange: () => void): () => void;
  close(): Promise<void>;
}

/**
 * Replicas judging each other alive, which only a log shared by several needs (Postgres implements it,
 * memory does not): this replica's heartbeat, what a run id with no row names, a dead replica's runs
 * marked `interrupted`, and the signals between replicas.
 */
export interface ReplicaLiveness {
  /** This process as a producer (a UUID): run ids name it. */
  readonly replica: string;
  /** The number of this replica's last heartbeat sent: a run started now has its row written by the next one. */
  readonly beat: number;
  /** How often this replica heartbeats while it produces a run (an idle one beats less: runs/replica-heartbeat.ts). */
  readonly heartbeatMs: number;
  /** A running run whose heartbeat is this old belongs to a dead replica. */
  readonly staleSeconds: number;
  /**
   * This replica's heartbeat (Postgres: one statement a beat), as runs/replica-heartbeat.ts times it: the
   * replica's own row, the rows of runs begun since the last beat, and the runs it is producing.
   */
  heartbeat(runIds: readonly string[]): Promise<void>;
  /**
   * Writes committed without waiting for their flush and not yet known durable (Postgres: the runs'
   * ends, and the rows a beat inserted; the beats after them read where the WAL's end and its flush
   * are): the replica beats until there are none, running runs or not.
   */
  readonly unflushed: boolean;
  /** What a run id with no row names (`read` gave null): see `Unwritten`. */
  unwritten(ref: RunRef): Promise<Unwritten>;
  /** Marks a stale running run `interrupted`; true when this call did. */
  interrupt(runId: string): Promise<boolean>;
  /** Writes the row of an orphaned run (its replica died before writing it) as `interrupted`; true when this call did. */
  interruptOrphan(ref: RunRef, owner: string): Promise<boolean>;
  /** Tells the run's replica that a reader elsewhere follows it (it writes the frames through while one does). */
  signal(runId: string, kind: RunSignal): Promise<void>;
  /** Where this replica hears the others' signals for the runs it produces. */
  onSignal(handler: (runId: string, kind: RunSignal) => void): void;
}

/** The `error` event of a run whose replica died before its end (CONTRACT.md). */
export const INTERRUPTED_ENVELOPE: Envelope = {
  error: 'interrupted',
  detail: 'the service restarted before this answer was finished; please ask again',
};

/** The `error` event of a run cancelled on another replica while that one was producing it: what the turn itself ends with when cancelled. */
export const CANCELLED_ENVELOPE: Envelope = new RunCancelledError().toEnvelope();

/** Frames a cursor can name at most (a run's frames are bounded by the answer cap far below this). */
export const MAX_SEQ = 2_147_483_647;

/**
 * The `seq` of a closing frame: past every number a producer can send (its frames are bounded by the
 * answer cap far below MAX_SEQ), so it names no other frame of the run, whatever the producer sent and
 * the log did not store (a client reading live is usually ahead of the store: issue 74).
 */
export const CLOSING_SEQ = MAX_SEQ;

/**
 * The frame a reader ends on when the log holds no end of its own: a run interrupted, or cancelled from
 * another replica, ends with the `error` event of its state at CLOSING_SEQ, whatever the reader's
 * cursor short of it; null when the log ends itself or the run is still running.
 */
export function closingFrame(run: Pick<StoredRun, 'status' | 'closed'>): Frame | null {
  if (run.closed || (run.status !== 'interrupted' && run.status !== 'cancelled')) return null;
  const envelope = run.status === 'interrupted' ? INTERRUPTED_ENVELOPE : CANCELLED_ENVELOPE;
  return { seq: CLOSING_SEQ, event: 'error', data: JSON.stringify(envelope) };
}

/**
 * A reader's cursor is at or past the end of a finished run: its last frame (the stored `done` or
 * `error`, or the closing frame) is the reader's already, and the resume answers 204 (CONTRACT.md).
 */
export function atRunEnd(run: Pick<StoredRun, 'status' | 'closed' | 'lastSeq'>, afterSeq: number): boolean {
  if (run.status === 'running') return false;
  return afterSeq >= (closingFrame(run) ? CLOSING_SEQ : run.lastSeq);
}

/** The wire state of a stored run. */
export function runState(runId: string, run: Pick<StoredRun, 'status' | 'lastSeq' | 'response' | 'error'>): RunState {
  return {
    run_id: runId,
    status: run.status,
    last_seq: run.lastSeq,
    ...(run.status === 'done' && run.response && { response: run.response }),
    ...(run.error && { error: run.error }),
  };
}

/** A run's frame as its SSE carries it: `id: <run_id>:<seq>` (CONTRACT.md "Stream"). */
export function sseFrameOf(runId: string) {
  return (f: Frame) => ({ id: `${runId}:${f.seq}`, event: f.event, data: f.data });
}

/** Who waits on which run: both stores wake a run's watchers when its frames or state change. */
export class RunWatchers {
  private readonly byRun = new Map<string, Set<() => void>>();

  /** Adds `onChange` for `runId`; returns the unsubscribe. */
  add(runId: string, onChange: () => void): () => void {
    let set = this.byRun.get(runId);
    if (!set) this.byRun.set(runId, (set = new Set()));
    set.add(onChange);
    return () => {
      set.delete(onChange);
      if (set.size === 0 && this.byRun.get(runId) === set) this.byRun.delete(runId);
    };
  }

  wake(runId: string): void {
    for (const w of this.byRun.get(runId) ?? []) w();
  }

  clear(): void {
    this.byRun.clear();
  }
}
