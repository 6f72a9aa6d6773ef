/**
 * The one bounded wait: health probes, drains and shutdown steps wait for work only up to a bound, so a
 * database or exporter gone silent cannot hold a health answer or SIGTERM's drain open.
 */

/** `work`'s value if it settles within `ms`, else (or if it fails) `fallback`; late work goes on unwaited. */
export async function settleWithin<T>(work: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), Math.max(0, ms))));
  try {
    return await Promise.race([work.catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}
