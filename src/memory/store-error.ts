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

/**
 * Wraps every method of `target` so a rejection becomes a MemoryStoreError, and, with `timeoutMs`, so
 * no call waits longer than that: while the database is gone the driver queues queries behind its
 * reconnect backoff (up to 20 s), and a turn must degrade (answer without memory) rather than wait.
 * A call that timed out may still complete later; it was reported as failed, never as done.
 */
export function withSafeErrors<T extends object>(target: T, methods: readonly (keyof T & string)[], options: { timeoutMs?: number } = {}): T {
  const out = { ...target };
  for (const name of methods) {
    const fn = target[name];
    if (typeof fn !== 'function') continue;
    (out as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const call = (fn as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (!options.timeoutMs) return await call;
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new MemoryStoreError(name, 'TIMEOUT')), options.timeoutMs);
        });
        call.catch(() => undefined); // settled after the deadline: already reported
        return await Promise.race([call, deadline]);
      } catch (err) {
        if (err instanceof MemoryStoreError) throw err;
        throw new MemoryStoreError(name, codeOf(err));
      } finally {
        clearTimeout(timer);
      }
    };
  }
  return out;
}
