/**
 * CLI entry of `npm run deploy` (a developer tool, not the service: it reads its own environment).
 * The logic lives in scripts/deploy/run-deploy.ts (a module without side effects) so tests can run it
 * against a fake platform; the service never loads it, so it is not under src/.
 */
import { runDeploy } from './deploy/run-deploy.js';

process.exitCode = await runDeploy({
  env: process.env,
  argv: process.argv.slice(2),
  fetch: globalThis.fetch,
  stdout: (line) => process.stdout.write(line + '\n'),
  stderr: (line) => process.stderr.write(line + '\n'),
});
