/**
 * The one bounded wait (lifecycle/settle-within.ts): the work's value when it settles in time, the
 * fallback when it is late or fails, and no timer left behind once it has answered.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { settleWithin } from '../src/lifecycle/settle-within.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('settleWithin', () => {
  it("answers with the work's value when it settles within the bound, and leaves no timer", async () => {
    vi.useFakeTimers();
    const answer = settleWithin(Promise.resolve('done'), 5_000, 'late');
    await expect(answer).resolves.toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers with the fallback when the work is late, without waiting for it', async () => {
    vi.useFakeTimers();
    let finish!: (v: string) => void;
    const work = new Promise<string>((resolve) => (finish = resolve));
    const answer = settleWithin(work, 1_000, 'late');
    await vi.advanceTimersByTimeAsync(999);
    let settled = false;
    void answer.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(answer).resolves.toBe('late');
    finish('done');
  });

  it('answers with the fallback when the work fails, and a negative bound is no wait', async () => {
    await expect(settleWithin(Promise.reject(new Error('gone')), 1_000, null)).resolves.toBeNull();
    await expect(settleWithin(new Promise<never>(() => undefined), -50, 'past')).resolves.toBe('past');
  });
});
