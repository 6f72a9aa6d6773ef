/**
 * The run log without a database: one process's runs in a Map, bounded (MAX_KEPT_RUNS runs and
 * MAX_KEPT_CHARS characters of frames; past either, the oldest ended runs go first, as if expired).
 * Behaves as the Postgres store does for one replica: watchers are woken on every write. It is the log
 * alone (no `ReplicaLiveness`): a run is never stale here, its producer is this process, and every run
 * is kept from its begin, so none is ever too young to read.
 */
import { RunWatchers, type Frame, type RunEnd, type RunLog, type RunStatus, type StoredRun } from './run-log.js';

/** Runs kept at most (running and ended). */
export const MAX_KEPT_RUNS = 2_000;
/** Characters of frame data kept at most across ended runs (about 64 MB of UTF-16 at worst). */
export const MAX_KEPT_CHARS = 32 * 1024 * 1024;

interface KeptRun {
  owner: string;
  status: RunStatus;
  frames: Frame[];
  chars: number;
  response: RunEnd['response'];
  error: RunEnd['error'];
  closed: boolean;
  endedAt: number | null;
}

export class MemoryRunStore implements RunLog {
  /** In insertion order: the oldest first, which is what eviction takes. */
  private readonly runs = new Map<string, KeptRun>();
  private readonly watchers = new RunWatchers();
  private chars = 0;

  constructor(
    /** RUN_RETENTION_SECONDS: an ended run older than this is gone (read) and deleted (prune). */
    private readonly retentionSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly limits = { runs: MAX_KEPT_RUNS, chars: MAX_KEPT_CHARS },
  ) {}

  async begin(runId: string, owner: string): Promise<void> {
    this.runs.set(runId, { owner, status: 'running', frames: [], chars: 0, response: null, error: null, closed: false, endedAt: null });
    this.evict();
  }

  async append(runId: string, frames: readonly Frame[]): Promise<void> {
    const run = this.runs.get(runId);
    if (run?.status !== 'running') return;
    this.add(run, frames);
    this.wake(runId);
  }

  async end(runId: string, frames: readonly Frame[], end: RunEnd): Promise<void> {
    const run = this.runs.get(runId);
    if (run?.status !== 'running') return;
    this.add(run, frames);
    Object.assign(run, { status: end.status, response: end.response, error: end.error, closed: true, endedAt: this.now() });
    this.wake(runId);
    this.evict();
  }

  async read(runId: string, afterSeq: number): Promise<StoredRun | null> {
    const run = this.runs.get(runId);
    if (!run || this.expired(run)) return null;
    const last = run.frames.at(-1)?.seq ?? 0;
    return {
      owner: run.owner,
      status: run.status,
      lastSeq: last,
      response: run.response,
      error: run.error,
      stale: false,
      closed: run.closed,
      // Frames are kept in seq order from 1 with no gap: the cursor is an index.
      frames: run.frames.slice(Math.max(0, afterSeq)),
    };
  }

  async cancel(runId: string, owner: string): Promise<boolean> {
    const run = this.runs.get(runId);
    if (run?.owner !== owner || run.status !== 'running') return false;
    Object.assign(run, { status: 'cancelled', endedAt: this.now() });
    this.wake(runId);
    return true;
  }

  async forgetOwner(owner: string): Promise<number> {
    let n = 0;
    for (const [id, run] of this.runs) {
      if (run.owner !== owner) continue;
      this.drop(id, run);
      n++;
    }
    return n;
  }

  async prune(): Promise<number> {
    let n = 0;
    for (const [id, run] of this.runs) {
      if (this.expired(run)) {
        this.drop(id, run);
        n++;
      }
    }
    return n;
  }

  watch(runId: string, onChange: () => void): () => void {
    return this.watchers.add(runId, onChange);
  }

  async close(): Promise<void> {
    this.watchers.clear();
  }

  private expired(run: KeptRun): boolean {
    return run.endedAt !== null && run.endedAt < this.now() - this.retentionSeconds * 1000;
  }

  private add(run: KeptRun, frames: readonly Frame[]): void {
    for (const f of frames) {
      // A frame already kept (a write retried after the first one landed) is not kept twice.
      if (f.seq !== run.frames.length + 1) continue;
      run.frames.push(f);
      run.chars += f.data.length;
      this.chars += f.data.length;
    }
  }

  private wake(runId: string): void {
    this.watchers.wake(runId);
  }

  private drop(id: string, run: KeptRun): void {
    this.runs.delete(id);
    this.chars -= run.chars;
    this.wake(id);
  }

  /** Past a bound, the oldest ended runs go (a running run is its producer's and stays). */
  private evict(): void {
    for (const [id, run] of this.runs) {
      if (this.runs.size <= this.limits.runs && this.chars <= this.limits.chars) return;
      if (run.endedAt !== null) this.drop(id, run);
    }
  }
}
