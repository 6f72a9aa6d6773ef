/**
 * Polls `read` every 50 ms until it returns something truthy (that value is returned), or fails after
 * `timeoutMs` with an error naming what was awaited. For state another process changes (an export
 * arriving, a row written by another replica); tests never sleep a fixed time for it.
 */
export async function until<T>(what: string, read: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
