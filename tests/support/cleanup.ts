/**
 * The one teardown of what a test opened: `const defer = closeAfterEach()` at the top of a file, then
 * `defer(() => thing.close())` wherever a test opens something; after each test everything deferred is
 * closed, newest first (a server before the gateway it calls), even when the test failed.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startFakeGateway, type FakeGateway, type FakeGatewayOptions } from './fake-gateway.js';

export type Defer = (...closes: Array<() => unknown>) => void;

export interface CloseOptions {
  /**
   * A failing close does not fail the test (for what a test may have stopped or killed already: a
   * database the chaos test stopped, a replica it killed). Otherwise every close still runs, and the
   * first failure is thrown after them.
   */
  bestEffort?: boolean;
}

function closer(register: (fn: () => Promise<void>) => void, options: CloseOptions): Defer {
  const closers: Array<() => unknown> = [];
  register(async () => {
    const failures: unknown[] = [];
    for (const close of closers.splice(0).reverse()) {
      try {
        await close();
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length > 0 && !options.bestEffort) throw failures[0];
  });
  return (...closes) => void closers.push(...closes);
}

/** Closes what each test deferred after that test. */
export const closeAfterEach = (options: CloseOptions = {}): Defer => closer(afterEach, options);

/** Closes what the file deferred after its last test. */
export const closeAfterAll = (options: CloseOptions = {}): Defer => closer(afterAll, options);

/**
 * A fake gateway for every test of the file (`'each'`: a fresh one per test; `'all'`: one for the file),
 * started and closed by the file's hooks. The handle stands for the current gateway: read and set its
 * fields and call its methods as on the gateway itself.
 */
export function useFakeGateway(scope: 'each' | 'all' = 'each', options?: FakeGatewayOptions): FakeGateway {
  let current: FakeGateway | null = null;
  const live = (): FakeGateway => {
    if (!current) throw new Error('the fake gateway is used outside a test');
    return current;
  };
  (scope === 'each' ? beforeEach : beforeAll)(async () => {
    current = await startFakeGateway(options);
  });
  (scope === 'each' ? afterEach : afterAll)(async () => {
    await current?.close();
    current = null;
  });
  return new Proxy({} as FakeGateway, {
    get: (_, key) => {
      const value = Reflect.get(live(), key);
      return typeof value === 'function' ? value.bind(live()) : value;
    },
    set: (_, key, value) => Reflect.set(live(), key, value),
  });
}
