/**
 * Docs that check themselves: every path, npm script and environment variable that README.md,
 * DEPLOY.md and docs/design/*.md name exists (tests/support/doc-claims.ts says how each is read).
 * A file moved or renamed without its docs fails here, naming the doc and the claim.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { FULL_SUITE_ONLY } from '../vitest.config.js';
import { checkedDocs, readTree, staleClaims } from './support/doc-claims.js';
import { REPO_ROOT } from './support/spawn-service.js';

const tree = readTree(REPO_ROOT);
const docs = checkedDocs(REPO_ROOT);

describe('docs', () => {
  it('checks README.md, DEPLOY.md and every design note', () => {
    expect(docs).toContain('README.md');
    expect(docs).toContain('DEPLOY.md');
    expect(docs).toContain(join('docs', 'design', 'pipeline.md'));
  });

  it.each(docs)('%s names only paths, npm scripts and variables that exist', (doc) => {
    expect(staleClaims(doc, readFileSync(join(REPO_ROOT, doc), 'utf8'), tree)).toEqual([]);
  });

  it('finds a stale path, file, script, variable and link planted in a design doc', () => {
    const doc = join('docs', 'design', 'pipeline.md');
    const planted =
      readFileSync(join(REPO_ROOT, doc), 'utf8') +
      '\nThe runner lives in `src/pipeline/run-turn.ts` and `turn-start.ts`; run `npm run turns:check` with' +
      ' `TURN_START_MODE=fast`; see [the old note](old-turns.md).\n';
    expect(staleClaims(doc, planted, tree)).toEqual([
      'path src/pipeline/run-turn.ts',
      'file turn-start.ts',
      'npm script turns:check',
      'variable TURN_START_MODE',
      'link old-turns.md',
    ]);
  });

  it('lists only test files that exist as full-suite-only (vitest.config.ts)', () => {
    expect(FULL_SUITE_ONLY.filter((f) => !existsSync(join(REPO_ROOT, f)))).toEqual([]);
  });

  it('accepts what exists: a path with a line number, a script, a variable, a sibling link', () => {
    const text = 'See `src/pipeline/turn.ts:40`, `npm run bench -- peak`, `TURN_TIMEOUT_MS=5000` and [pipeline](pipeline.md).';
    expect(staleClaims(join('docs', 'design', 'admission.md'), text, tree)).toEqual([]);
  });
});
