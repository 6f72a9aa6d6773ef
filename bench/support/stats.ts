/** Small statistics helpers shared by the benchmark scripts. */

/** The q-quantile (0..1) of samples by nearest rank. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** Formats milliseconds with a sensible precision. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(2)} ms`;
}

/** Times `fn` `n` times (after `warmup` runs) and returns per-run milliseconds. */
export async function timeRuns(n: number, fn: () => Promise<unknown>, warmup = Math.min(20, n)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn();
    out.push(performance.now() - start);
  }
  return out;
}
