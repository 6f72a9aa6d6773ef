#!/usr/bin/env node
/**
 * `npm start`: rebuilds dist/ only when a source changed since the last build (`npm ci` already built
 * it through `prepare`), then runs the service in this same process, so SIGTERM reaches its drain.
 * The container image does not use this: its CMD runs `node dist/src/server.js` directly.
 */
import { buildIfStale } from './build.mjs';

if (!buildIfStale()) process.exit(1);
await import('../dist/src/server.js');
