/**
 * Answer text in batches (issue 46): a model streams a token a chunk, 25-100 ms apart, and every piece
 * passed on costs the same downstream (the verify stage's checks, an SSE frame, a socket write), so text
 * that arrives within `windowMs` of the last piece passed on waits and goes with the pieces after it.
 *
 * - The first piece of a pass goes at once (the time to first text is not delayed), and so does any
 *   piece that arrives after a window of silence: a slow model's chunks still go one by one.
 * - Held text waits at most `windowMs` after the last piece went: one timer per window, not per chunk.
 * - And at most MAX_HELD_CHARS: a gateway that sends faster than any reader (an endless answer) has its
 *   text passed on in pieces of that size, so the answer cap downstream still stops the reading early and
 *   nothing grows with the answer here.
 * - The text is the same: only where it is cut changes, which the answer stream already allows.
 * - `windowMs` 0: every piece goes as it came.
 *
 * The reader drives it: `next()` gives the next chunk to read, or a string, the text to pass on now. The
 * reader hands each chunk's text back with `hold(piece)`.
 */

const WINDOW = Symbol('window');

/** Held text passed on at once when it reaches this many characters, window or not. */
export const MAX_HELD_CHARS = 2_048;

export interface TextBatchOptions {
  windowMs: number;
  now: () => number;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (handle: unknown) => void;
}

export interface TextBatches<C> {
  /** The next chunk of the source, or the text to pass on now; done after the source's end and the last text. */
  next(): Promise<IteratorResult<C | string, undefined>>;
  /** A chunk's text, to pass on when its batch is due. */
  hold(piece: string): void;
  /** The reader stopped: the window's timer is cleared and a read in flight may fail unobserved. */
  close(): void;
}

/** The batching window of one pass: its state in fields, as the streaming engines keep theirs (issue 60). */
class Batches<C> implements TextBatches<C> {
  private readonly chunks: AsyncIterator<C>;
  private held = '';
  private sentAt = -Infinity;
  private sourceDone = false;
  /** A read of the source started while text was waiting, and not yet given to the reader. */
  private reading: Promise<IteratorResult<C>> | null = null;
  private windowEnd: Promise<typeof WINDOW> | null = null;
  private timer: unknown = null;

  constructor(
    source: AsyncIterable<C>,
    private readonly options: TextBatchOptions,
  ) {
    this.chunks = source[Symbol.asyncIterator]();
  }

  async next(): Promise<IteratorResult<C | string, undefined>> {
    const { windowMs, now } = this.options;
    if (this.held && (this.sourceDone || this.held.length >= MAX_HELD_CHARS || now() - this.sentAt >= windowMs)) return this.pass();
    if (this.sourceDone) return { done: true, value: undefined };
    this.reading ??= this.chunks.next();
    let step: IteratorResult<C>;
    if (this.held) {
      this.windowEnd ??= new Promise<typeof WINDOW>((resolve) => {
        this.timer = this.options.setTimer(() => resolve(WINDOW), Math.max(0, this.sentAt + windowMs - now()));
      });
      const first = await Promise.race([this.reading, this.windowEnd]);
      if (first === WINDOW) return this.pass();
      step = first;
    } else step = await this.reading;
    this.reading = null;
    if (step.done) {
      this.sourceDone = true;
      return this.held ? this.pass() : { done: true, value: undefined };
    }
    return { done: false, value: step.value };
  }

  hold(piece: string): void {
    this.held += piece;
  }

  close(): void {
    this.stopTimer();
    this.reading?.catch(() => undefined);
  }

  /** The held text, passed on now; the window starts again from here. */
  private pass(): IteratorResult<string, undefined> {
    const text = this.held;
    this.held = '';
    this.sentAt = this.options.now();
    this.stopTimer();
    this.windowEnd = null;
    return { done: false, value: text };
  }

  private stopTimer(): void {
    if (this.timer !== null) this.options.clearTimer(this.timer);
    this.timer = null;
  }
}

export function textBatches<C>(source: AsyncIterable<C>, options: TextBatchOptions): TextBatches<C> {
  return new Batches(source, options);
}
