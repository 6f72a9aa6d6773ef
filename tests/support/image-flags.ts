/**
 * The image's NODE_OPTIONS flags, read from the Dockerfile: tests and benches that run the service as
 * the image does use exactly the shipped heap flags, never a copy that can drift.
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
