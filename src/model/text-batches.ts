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

export function textBatches<C>(source: AsyncIterable<C>, options: TextBatchOptions): TextBatches<C> {
  const { windowMs, now } = options;
  const chunks = source[Symbol.asyncIterator]();
  let held = '';
  let sentAt = -Infinity;
  let sourceDone = false;
  /** A read of the source started while text was waiting, and not yet given to the reader. */
  let reading: Promise<IteratorResult<C>> | null = null;
  let windowEnd: Promise<typeof WINDOW> | null = null;
  let timer: unknown = null;

  const pass = (): IteratorResult<string, undefined> => {
    const text = held;
    held = '';
    sentAt = now();
    if (timer !== null) options.clearTimer(timer);
    timer = null;
    windowEnd = null;
    return { done: false, value: text };
  };

  return {
    async next() {
      if (held && (sourceDone || held.length >= MAX_HELD_CHARS || now() - sentAt >= windowMs)) return pass();
      if (sourceDone) return { done: true, value: undefined };
      reading ??= chunks.next();
      let step: IteratorResult<C>;
      if (held) {
        windowEnd ??= new Promise<typeof WINDOW>((resolve) => {
          timer = options.setTimer(() => resolve(WINDOW), Math.max(0, sentAt + windowMs - now()));
        });
        const first = await Promise.race([reading, windowEnd]);
        if (first === WINDOW) return pass();
        step = first;
      } else step = await reading;
      reading = null;
      if (step.done) {
        sourceDone = true;
        return held ? pass() : { done: true, value: undefined };
      }
      return { done: false, value: step.value };
    },
    hold(piece) {
      held += piece;
    },
    close() {
      if (timer !== null) options.clearTimer(timer);
      timer = null;
      reading?.catch(() => undefined);
    },
  };
}
