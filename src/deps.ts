/**
 * Everything the app needs from the outside world, built once by `server.ts` (or by a test with fakes)
 * and passed to `createApp`. Nothing here is created at import time.
 */
import type { Config } from './config.js';
import type { BackgroundTasks } from './lifecycle/background-tasks.js';
import type { Logger } from './logger.js';
import type { MemoryStore } from './memory/store.js';

export interface AppDeps {
  config: Config;
  logger: Logger;
  memory: MemoryStore;
  background: BackgroundTasks;
  /** The clock; tests inject one to cross a UTC midnight. */
  now: () => Date;
}
