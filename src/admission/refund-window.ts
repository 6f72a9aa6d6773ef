/**
 * The refunds of a window, written together (issue 75). A turn (or a title, a memory extraction) holds
 * its worst case while it runs and gives back what it did not use when it ends: one write of the store
 * per turn, and at a campus peak about one Postgres transaction in four of a turn's. What is given back
 * within BUDGET_REFUND_WINDOW_MS of the first refund queued is summed per bucket and day and written in
 * one transaction (`BudgetStore.chargeAll`), so under load a replica writes its refunds about once a
 * window however many turns end (docs/design/admission.md "Refunds").
 *
 * What it changes: for at most the window, a day's total still counts what a finished turn held and did
 * not use. That errs on the safe side of every limit, and it never stands in a user's way on this
 * replica: a reservation refused while refunds wait here writes them and asks once more (DailyBudget),
 * so the window never refuses a turn that fits. Another replica may see the total high for up to the
 * window. `close` writes what is waiting (shutdown, after the turns ended). A window of 0 writes each
 * refund when it is given.
 *
 * Every unconditional write of the budget goes through here (`now`: an excess a pass used past its hold;
 * a window: refunds): one transaction, retried once, then logged and left; never thrown.
 */
import type { Logger } from '../logger.js';
import type { BudgetCharge, BudgetStore } from './budget-store.js';

export class RefundWindow {
  /** Waiting refunds by day and bucket (`day bucket`), summed. */
  private readonly waiting = new Map<string, BudgetCharge>();
  /** Windows being written. */
  private writingNow = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The writes in order: a window's write starts after the one before it ended. */
  private writes: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly store: BudgetStore,
    /** BUDGET_REFUND_WINDOW_MS; 0: every refund written at once. */
    private readonly windowMs: number,
    private readonly log: Logger,
  ) {}

  /**
   * Gives back `tokens` and `nanoUsd` (both ≥ 0) to (`bucket`, `day`), and to the service row when
   * `service`. Resolves when queued (a window of 0 or a closed window: when written); never rejects.
   */
  give(bucket: string, day: string, tokens: number, nanoUsd: number, service: boolean): Promise<void> {
    if (tokens <= 0 && nanoUsd <= 0) return Promise.resolve();
    const key = `${day} ${bucket}`;
    const charge = this.waiting.get(key);
    if (charge) {
      charge.tokens -= tokens;
      charge.nanoUsd -= nanoUsd;
      charge.service ||= service;
    } else {
      this.waiting.set(key, { bucket, day, tokens: -tokens, nanoUsd: -nanoUsd, service });
    }
    if (this.windowMs === 0 || this.closed) return this.write();
    this.timer ??= setTimeout(() => void this.write(), this.windowMs).unref();
    return Promise.resolve();
  }

  /** Refunds wait here or are being written: a total read now may still count them. */
  get pending(): boolean {
    return this.waiting.size > 0 || this.writingNow > 0;
  }

  /** Writes what waits now; resolves when every refund given so far is written (or given up). */
  flush(): Promise<void> {
    return this.write();
  }

  /** Writes `charge` now (an excess: never held back), apart from the window; never rejects. */
  now(charge: BudgetCharge): Promise<void> {
    return this.writeAll([charge], 'excess');
  }

  /** Writes what waits, and every later refund at once. */
  close(): Promise<void> {
    this.closed = true;
    return this.write();
  }

  /** Writes everything waiting now, after the writes before it. */
  private write(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.waiting.size === 0) return this.writes;
    // Sorted by day and bucket: every writer takes the rows in the same order (no deadlock between replicas).
    const charges = [...this.waiting.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
    this.waiting.clear();
    this.writingNow++;
    this.writes = this.writes.then(() => this.writeAll(charges, 'refund')).finally(() => this.writingNow--);
    return this.writes;
  }

  /** One transaction of `charges`, retried once, then logged (the amounts as magnitudes) and left. */
  private async writeAll(charges: BudgetCharge[], what: 'excess' | 'refund'): Promise<void> {
    const counts = what === 'refund' ? { refunds: charges.length } : {};
    try {
      await this.store.chargeAll(charges).catch((first: unknown) => {
        // One retry: a dropped connection should not leave a pass unmetered (or a reservation held).
        this.log.warn('token budget write failed; retrying once', { err: first, what, ...counts });
        return this.store.chargeAll(charges);
      });
    } catch (err) {
      const tokens = Math.abs(charges.reduce((sum, c) => sum + c.tokens, 0));
      const nanoUsd = Math.abs(charges.reduce((sum, c) => sum + c.nanoUsd, 0));
      this.log.error('token budget write failed; left as it was', { err, what, ...counts, tokens, nano_usd: nanoUsd });
    }
  }
}
