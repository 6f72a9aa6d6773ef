/**
 * `npm run openapi`: writes the service's OpenAPI 3.1 document to `openapi.json` at the repository root
 * (issue 49), where a front-end developer reads the current API on the repository host. `--check` writes
 * nothing and exits 1 when the committed file differs from what the code generates.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderApiDocument } from '../src/server/api-document-file.js';

const file = join(fileURLToPath(new URL('..', import.meta.url)), 'openapi.json');
const text = await renderApiDocument();
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    // No file yet: it differs.
  }
  if (committed !== text) {
    process.stderr.write('openapi: openapi.json differs from what the code generates; run `npm run openapi` and commit it\n');
    process.exit(1);
  }
  process.stdout.write('openapi: openapi.json is current\n');
} else {
  writeFileSync(file, text);
  process.stdout.write(`openapi: wrote ${file}\n`);
}
