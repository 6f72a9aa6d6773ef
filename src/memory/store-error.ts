/**
 * A store failure that is safe to log. Drizzle's query errors carry the SQL parameters in their message
 * and stack (user ids, fact texts, a memory search `q`): user text must never reach the log, so the
 * Postgres store rethrows failures as this error, naming the operation and the error code only.
 */

export class MemoryStoreError extends Error {
  constructor(
    readonly op: string,
    /** SQLSTATE (`23505`), a socket code (`ECONNREFUSED`), or the error's class name. */
    readonly code: string,
  ) {
    super(`memory store: ${op} failed (${code})`);
    this.name = 'MemoryStoreError';
  }
}

/** The most specific code of `err` or its causes, without any of their messages. */
function codeOf(err: unknown): string {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
  }
  return err instanceof Error ? err.name : 'unknown';
}

/** Wraps every method of `target` so a rejection becomes a MemoryStoreError. */
export function withSafeErrors<T extends object>(target: T, methods: readonly (keyof T & string)[]): T {
  const out = { ...target };
  for (const name of methods) {
    const fn = target[name];
    if (typeof fn !== 'function') continue;
    (out as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      try {
        return await (fn as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      } catch (err) {
        if (err instanceof MemoryStoreError) throw err;
        throw new MemoryStoreError(name, codeOf(err));
      }
    };
  }
  return out;
}
