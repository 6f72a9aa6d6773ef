/**
 * The in-process job runner (no DATABASE_URL) keeps up with a burst without opening a model call per
 * job at once: at most JOB_CONCURRENCY jobs run, the rest wait in arrival order, every one runs, health
 * counts running and waiting, and SIGTERM's drain (the background registry) waits for the waiting ones too.
 */
import { describe, expect, it } from 'vitest';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import { createInProcessQueue, createJobSlots } from '../src/lifecycle/job-queue.js';
import { silentLogger } from '../src/logger.js';

describe('the in-process job runner', () => {
  it('runs at most `concurrency` jobs at once, all of them in arrival order, and drains them all', async () => {
    const background = createBackgroundTasks(silentLogger);
    const jobs = createInProcessQueue({ background, logger: silentLogger, expireSeconds: 30, concurrency: 3 });
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const release: (() => void)[] = [];
    jobs.handle('memory-extraction', async (payload) => {
      running++;
      most = Math.max(most, running);
      started.push(payload as number);
      await new Promise<void>((go) => release.push(go));
      running--;
    });
    for (let i = 0; i < 10; i++) jobs.enqueue('memory-extraction', i, { key: `k${i}` });
    // Let every job reach its slot or its place in line.
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    expect(await jobs.health()).toEqual({ backend: 'in-process', depth: 10, oldest_seconds: 0 });
    // Each finished job hands its slot to the next in line, never more than three at once.
    while (started.length < 10 || release.length > 0) {
      release.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    expect(await background.drain(1_000)).toBe(true);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(3);
    expect(await jobs.health()).toEqual({ backend: 'in-process', depth: 0, oldest_seconds: 0 });
  });

  it('hands a released slot straight to the next waiter', async () => {
    const slots = createJobSlots(1);
    await slots.acquire();
    const second = slots.acquire();
    expect(slots.waiting).toBe(1);
    slots.release();
    await second;
    expect(slots.running).toBe(1);
    slots.release();
    expect(slots.running).toBe(0);
  });
});
