/**
 * `npm run pins:record`: rewrites tests/fixtures/sentence-filter-pins.json from the current sentence
 * filter and answer stream (tests/support/sentence-filter-pins.ts), stamped with the commit it was
 * recorded at. Run it only after a change meant to alter what they release, and read the diff: the
 * pins test exists to catch changes nobody meant.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { computePins } from '../tests/support/sentence-filter-pins.js';

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const file = new URL('../tests/fixtures/sentence-filter-pins.json', import.meta.url);
const pins = computePins(commit);
writeFileSync(file, JSON.stringify(pins) + '\n');
process.stdout.write(`pins: ${pins.pins.length} filter and ${pins.answers.length} answer-stream cases written (recorded from ${commit})\n`);
