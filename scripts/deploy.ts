/**
 * CLI entry of `npm run deploy` (a developer tool, not the service: it reads its own environment).
 * The logic lives in src/deploy/run-deploy.ts so tests can run it against a fake platform.
 */
import { runDeploy } from '../src/deploy/run-deploy.js';

process.exitCode = await runDeploy({
  env: process.env,
  argv: process.argv.slice(2),
  fetch: globalThis.fetch,
  stdout: (line) => process.stdout.write(line + '\n'),
  stderr: (line) => process.stderr.write(line + '\n'),
});
