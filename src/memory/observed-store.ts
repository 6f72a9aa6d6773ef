/**
 * The memory store counted by telemetry: every failed call adds one to `campus.memory.store_errors`
 * with the operation's name (never its arguments), then fails as it did. server.ts wraps the store with
 * this only when telemetry is on.
 */
import type { ServiceMetrics } from '../telemetry/telemetry.js';
import type { MemoryStore } from './store.js';

export function observedStore(store: MemoryStore, metrics: ServiceMetrics): MemoryStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const operation = String(property);
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((err: unknown) => {
          metrics.memoryStoreError(operation);
          throw err;
        });
      };
    },
  });
}
