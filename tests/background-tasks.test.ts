import { describe, expect, it } from 'vitest';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import { createLogger } from '../src/logger.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('BackgroundTasks', () => {
  it('drain waits for running tasks, including follow-ups they register', async () => {
    const tasks = createBackgroundTasks(createLogger({ level: 'silent' }));
    const gate = deferred();
    const done: string[] = [];
    tasks.run('first', async () => {
      await gate.promise;
      done.push('first');
      tasks.run('follow-up', async () => {
        done.push('follow-up');
      });
    });
    expect(tasks.pending).toBe(1);
    const drained = tasks.drain(5_000);
    gate.resolve();
    expect(await drained).toBe(true);
    expect(done).toEqual(['first', 'follow-up']);
    expect(tasks.pending).toBe(0);
  });

  it('drain gives up at its bound and reports it', async () => {
    const tasks = createBackgroundTasks(createLogger({ level: 'silent' }));
    tasks.run('stuck', () => new Promise(() => undefined));
    expect(await tasks.drain(20)).toBe(false);
    expect(tasks.pending).toBe(1);
  });

  it('logs a failing task with its name and keeps going; refuses tasks after close', async () => {
    const lines: string[] = [];
    const tasks = createBackgroundTasks(createLogger({ sink: (l) => lines.push(l) }));
    tasks.run('explodes', async () => {
      throw new Error('extraction failed');
    });
    expect(await tasks.drain(1_000)).toBe(true);
    const failure = lines.map((l) => JSON.parse(l)).find((e) => e.msg === 'background task failed');
    expect(failure).toMatchObject({ task: 'explodes', err: { message: 'extraction failed' } });
    tasks.close();
    let ran = false;
    tasks.run('late', async () => {
      ran = true;
    });
    await tasks.drain(100);
    expect(ran).toBe(false);
  });
});
