/**
 * The image's NODE_OPTIONS flags and its allocator setting, read from the Dockerfile: tests and benches
 * that run the service as the image does use exactly what ships, never a copy that can drift.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './spawn-service.js';

export function imageNodeOptions(): string[] {
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const match = /NODE_OPTIONS="([^"]+)"/.exec(dockerfile);
  if (!match) throw new Error('no NODE_OPTIONS="…" in the Dockerfile');
  return match[1]!.split(/\s+/).filter(Boolean);
}

/** The image's MALLOC_ARENA_MAX (glibc's arenas; Dockerfile), as an environment for a spawned service. */
export function imageMallocEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const match = /MALLOC_ARENA_MAX=(\d+)/.exec(dockerfile);
  if (!match) throw new Error('no MALLOC_ARENA_MAX=… in the Dockerfile');
  return { MALLOC_ARENA_MAX: match[1]! };
}
