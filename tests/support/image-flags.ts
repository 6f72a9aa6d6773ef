/**
 * The image's NODE_OPTIONS flags and its allocator setting, read from the Dockerfile: tests and benches
 * that run the service as the image does use exactly what ships, never a copy that can drift.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './spawn-service.js';

/** The first group of `pattern` in the Dockerfile; an error naming `what` when it is not there. */
function fromDockerfile(pattern: RegExp, what: string): string {
  const match = pattern.exec(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
  if (!match) throw new Error(`no ${what} in the Dockerfile`);
  return match[1]!;
}

export function imageNodeOptions(): string[] {
  return fromDockerfile(/NODE_OPTIONS="([^"]+)"/, 'NODE_OPTIONS="…"').split(/\s+/).filter(Boolean);
}

/** The image's MALLOC_ARENA_MAX (glibc's arenas; Dockerfile), as an environment for a spawned service. */
export function imageMallocEnv(): Record<string, string> {
  return { MALLOC_ARENA_MAX: fromDockerfile(/MALLOC_ARENA_MAX=(\d+)/, 'MALLOC_ARENA_MAX=…') };
}
