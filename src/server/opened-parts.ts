/**
 * What a build opened, each part with its own closer. A part is opened after the parts it uses, so
 * closing the last opened first closes every part before what it uses: the order holds by construction,
 * and nothing outside the build keeps or reverses a list.
 */
import { settleWithin } from '../lifecycle/settle-within.js';

/** Closes one part; `deadline` (epoch ms) is when the whole close must be done. */
export type CloseFn = (deadline: number) => Promise<unknown> | void;

export class OpenedParts {
  private readonly closers: { name: string; close: CloseFn }[] = [];

  /** Records `part` as opened here, closed by `close` before everything opened earlier; returns it. */
  own<T>(name: string, part: T, close: (part: T, deadline: number) => Promise<unknown> | void): T {
    this.closers.push({ name, close: (deadline) => close(part, deadline) });
    return part;
  }

  /** The parts' names, in the order they will close. */
  get closingOrder(): string[] {
    return this.closers.map((c) => c.name).reverse();
  }

  /**
   * Closes every part, the last opened first; a part that fails to close is reported and the rest still
   * close. The deadline holds whatever a part does (a pool waiting on a database that is away): a part
   * not closed by then is given up (`onLate`) and the next is closed with no time left, which a
   * synchronous close still finishes. Each part is closed once: a second call closes only what was
   * opened since.
   */
  async close(deadline: number, onError: (part: string, err: unknown) => void, onLate: (part: string) => void = () => undefined): Promise<void> {
    for (let c = this.closers.pop(); c; c = this.closers.pop()) {
      const { name, close } = c;
      const closing = Promise.resolve()
        .then(() => close(deadline))
        .then(
          () => true,
          (err: unknown) => {
            onError(name, err);
            return true;
          },
        );
      if (!(await settleWithin(closing, deadline - Date.now(), false))) onLate(name);
    }
  }
}
