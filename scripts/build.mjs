#!/usr/bin/env node
/**
 * Compiles src/ to dist/ with tsc when dist/ is missing or older than a source file, and otherwise does
 * nothing (`--force`: always; that is `npm run build`). Runs as npm's `prepare` step (so `npm ci` leaves a built service and `npm start` serves at
 * once) and from `scripts/start.mjs` (so an edited source is rebuilt before a start). Where TypeScript is
 * not installed (a production install, `npm ci --omit=dev`) there is nothing to build with: it says so
 * and exits 0, since such an install ships a dist/ built elsewhere (the Dockerfile's build stage).
 * Plain JavaScript on purpose: it must run before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');

/** The newest modification time of the build's inputs. */
function newestInput() {
  let newest = 0;
  const visit = (path) => {
    const s = statSync(path);
    if (s.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, s.mtimeMs);
  };
  visit(join(root, 'src'));
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json']) visit(join(root, f));
  return newest;
}

/** True when dist/ was built from the current sources. */
export function isFresh() {
  return existsSync(stamp) && statSync(stamp).mtimeMs >= newestInput();
}

/** Builds when stale; returns false (with the reason on stderr) when it could not. */
export function buildIfStale({ force = false } = {}) {
  if (!existsSync(join(root, 'src'))) return true; // a production install: dist/ comes with it
  if (!force && isFresh()) return true;
  let tsc;
  try {
    tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    process.stderr.write('build: TypeScript is not installed (production install?); skipping the build\n');
    return existsSync(join(root, 'dist', 'src', 'server.js'));
  }
  process.stderr.write(`build: compiling src/ to dist/${force ? '' : ' (sources changed since the last build)'}\n`);
  const started = new Date();
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write('build: tsc failed; see the errors above\n');
    return false;
  }
  // Stamped with the time the build started: a source saved during the build makes the next start rebuild.
  writeFileSync(stamp, started.toISOString());
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exit(buildIfStale({ force: process.argv.includes('--force') }) ? 0 : 1);
}
