/**
 * `npm run bench` rewrites BENCHMARKS.md (bench/support/record-sections.ts): a bench's block is replaced,
 * everything recorded by hand around the blocks stays, whether one bench ran or all of them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordSections } from '../bench/support/record-sections.js';
import { REPO_ROOT } from './support/spawn-service.js';

const file = readFileSync(join(REPO_ROOT, 'BENCHMARKS.md'), 'utf8');
const options = { header: '# Benchmarks\n\nRecorded new by `npm run bench`.\n', recordedAt: '2030-01-01T00:00:00.000Z', node: 'v99' };
/** The file's text outside the benches' own blocks: what a person wrote there. */
const outsideBlocks = (text: string) => text.replace(/<!-- bench: (.+?) -->\n[\s\S]*?<!-- \/bench: \1 -->\n/g, '<block>');

describe('BENCHMARKS.md as npm run bench writes it', () => {
  const sections = new Map([
    ['footprint.bench.ts', '## Footprint\n\nnew figures\n'],
    ['brand-new.bench.ts', '## Brand new\n\nfirst figures\n'],
  ]);

  it('a full run keeps the current figures and the hand-recorded sections, and refreshes the Recorded line', () => {
    const line = 'Recorded 2030-01-01T00:00:00.000Z by `npm run bench` on a test machine.';
    const out = recordSections(file, sections, { ...options, recordedLine: line });
    expect(file).toContain('## Current figures');
    expect(out).toContain('## Current figures');
    expect(outsideBlocks(file)).toMatch(/## Campus peak on one core against the tree before resumable runs/);
    expect(out.split('\n')[2]).toBe(line);
    // Outside the blocks only the Recorded line changed, and the new bench's block came at the end.
    expect(outsideBlocks(out).replace(line, '')).toBe(outsideBlocks(file).replace(file.split('\n')[2]!, '') + '\n<block>');
  });

  it('a run of some benches replaces their blocks only, stamped, and adds a new one at the end', () => {
    const out = recordSections(file, sections, options);
    expect(out.split('\n')[2]).toBe(file.split('\n')[2]);
    expect(out).toContain('<!-- bench: footprint.bench.ts -->\n## Footprint\n\nnew figures\n\n_Section recorded 2030-01-01T00:00:00.000Z, Node v99._\n<!-- /bench: footprint.bench.ts -->\n');
    expect(out.match(/<!-- bench: footprint\.bench\.ts -->/g)).toHaveLength(1);
    expect(out.trimEnd().endsWith('<!-- /bench: brand-new.bench.ts -->')).toBe(true);
    // Every other block is as it was.
    const blocks = (text: string) => [...text.matchAll(/<!-- bench: (.+?) -->\n[\s\S]*?<!-- \/bench: \1 -->\n/g)].map((m) => m[0]);
    expect(blocks(out).filter((b) => !b.includes('footprint.bench.ts') && !b.includes('brand-new'))).toEqual(blocks(file).filter((b) => !b.includes('footprint.bench.ts')));
  });

  it('starts a file that does not exist with the header', () => {
    const out = recordSections('', new Map([['a.bench.ts', '## A\n']]), options);
    expect(out.startsWith('# Benchmarks\n\nRecorded new by `npm run bench`.\n')).toBe(true);
    expect(out).toContain('<!-- bench: a.bench.ts -->\n## A\n\n_Section recorded');
  });
});
