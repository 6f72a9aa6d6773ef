/**
 * The answer guards of an earlier tree against this one's, in one process on the same input:
 * `npx tsx bench/tools/guards-trees.ts <before tree>`. Each tree's own `leakPolicyFromConfig` is built from the
 * same configuration (tests/support/fake-secrets.ts). Two measurements, each in rounds alternating which
 * tree goes first, the figure the median round:
 * - the leak scanner alone: the same answer pushed in 4-character chunks through a new scanner per
 *   answer (as a turn makes one), then flushed; 3,000 answers per round, 12 rounds;
 * - the whole answer stream (reasoning stripper → leak scanner → grounding, in a tree that has it, with
 *   the line itself as evidence → shaping; no map, so no sentence filter): a 9,000-character
 *   unpunctuated line in 1-character deltas, then `finish`; 3 answers per round, 14 rounds.
 * Prints one Markdown section.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { NO_MAP } from '../../src/campus/cmu-maps.js';
import type { createAnswerStream } from '../../src/guards/answer-stream.js';
import type { LeakPolicy } from '../../src/security/leak-policy.js';
import type { LeakScanner } from '../../src/security/leak-scanner/index.js';
import { existsSync } from 'node:fs';
import { FAKE_SECRETS_ENV } from '../../tests/support/fake-secrets.js';
import { REPO_ROOT } from '../../tests/support/spawn-service.js';

const beforeTree = process.argv[2];
if (!beforeTree) {
  process.stderr.write('usage: tsx bench/tools/guards-trees.ts <before tree>\n');
  process.exit(2);
}
const ANSWERS = 3_000;
const ROUNDS = 12;
const answer =
  'Gates Hillman Center is on the main campus, next to the Purnell Center. From Doherty Hall walk north across the Cut; ' +
  'the entrance faces Forbes Avenue. It opens at 7 am on weekdays and 9 am on weekends. ';
const chunks = answer.match(/.{1,4}/gs) ?? [];
const prompt = 'You are the campus assistant of Carnegie Mellon. Answer from what the campus tools return. '.repeat(25);

interface Guards {
  policy: LeakPolicy;
  /** A new answer stream of the tree, its grounding (if it has one) over `evidence`. */
  createAnswerStream(scanner: LeakScanner, evidence: string): ReturnType<typeof createAnswerStream>;
}

async function guardsOf(tree: string): Promise<Guards> {
  const { leakPolicyFromConfig } = await import(join(tree, 'src/security/leak-policy.ts'));
  const { parseConfig } = await import(join(tree, 'src/config.ts'));
  const stream = await import(join(tree, 'src/guards/answer-stream.ts'));
  const grounded = existsSync(join(tree, 'src/guards/grounding/grounding-stream.ts'));
  const grounding = grounded ? await import(join(tree, 'src/guards/grounding/grounding-stream.ts')) : null;
  const { createEvidence } = grounded ? await import(join(tree, 'src/guards/grounding/evidence.ts')) : { createEvidence: null };
  const { loadCatalog } = await import(join(tree, 'src/campus/catalog.ts'));
  const catalog = loadCatalog(null);
  return {
    policy: leakPolicyFromConfig(parseConfig({ AGENT_ENV: 'test', ...FAKE_SECRETS_ENV })),
    createAnswerStream(scanner, evidenceText) {
      if (!grounding) return stream.createAnswerStream({ scanner });
      const evidence = createEvidence(catalog);
      evidence.addText(evidenceText);
      return stream.createAnswerStream({ scanner, grounding: grounding.createGroundingStream({ catalog, evidence }) });
    },
  };
}

const trees = [beforeTree, REPO_ROOT];
const guards = await Promise.all(trees.map(guardsOf));
const perAnswerUs: number[][] = [[], []];
for (let round = 0; round < ROUNDS; round++) {
  for (const i of round % 2 ? [1, 0] : [0, 1]) {
    const policy = guards[i]!.policy;
    const t0 = process.hrtime.bigint();
    let released = 0;
    for (let k = 0; k < ANSWERS; k++) {
      const scanner = policy.stream(prompt);
      for (const c of chunks) released += scanner.push(c).length;
      released += scanner.flush().length;
    }
    if (released !== ANSWERS * answer.length) throw new Error('the scanner did not release the answer whole');
    perAnswerUs[i]!.push(Number(process.hrtime.bigint() - t0) / ANSWERS / 1000);
  }
}
const LINE =
  'I could not find the route but you can walk along Forbes Avenue past the museum and then turn left at Morewood where the path continues to the dorms '.repeat(60);
const STREAM_ANSWERS = 3;
const STREAM_ROUNDS = 14;
const perDeltaNs: number[][] = [[], []];
for (let round = 0; round < STREAM_ROUNDS; round++) {
  for (const i of round % 2 ? [1, 0] : [0, 1]) {
    const { policy, createAnswerStream: create } = guards[i]!;
    const t0 = process.hrtime.bigint();
    let length = 0;
    for (let k = 0; k < STREAM_ANSWERS; k++) {
      const stream = create(policy.stream(prompt), LINE);
      for (let j = 0; j < LINE.length; j++) stream.push(LINE[j]!);
      length += stream.finish({ map: NO_MAP, toolsUsed: [], otherToolFailed: false, query: 'how do I get to the dorms?' }).text.length;
    }
    if (length !== STREAM_ANSWERS * LINE.trimEnd().length) throw new Error('the answer stream did not keep the line whole');
    perDeltaNs[i]!.push(Number(process.hrtime.bigint() - t0) / (STREAM_ANSWERS * LINE.length));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const [before, after] = perAnswerUs.map(median) as [number, number];
const [streamBefore, streamAfter] = perDeltaNs.map(median) as [number, number];
const commit = (tree: string) => spawnSync('git', ['-C', tree, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
process.stdout.write(
  [
    '## Answer guards: before and after, same process, same input',
    '',
    `Method: \`npx tsx bench/tools/guards-trees.ts <tree at ${commit(beforeTree)}>\`: each tree's leak policy from the same ` +
      `configuration (${Object.keys(FAKE_SECRETS_ENV).length} secret-bearing variables), a ${prompt.length}-character system prompt, ` +
      `one ${answer.length}-character answer in ${chunks.length} chunks of 4 characters through a new scanner per answer; ` +
      `${ANSWERS.toLocaleString('en-US')} answers per round, ${ROUNDS} rounds alternating; median round.`,
    '',
    '| Tree | Per answer | Per chunk | Ratio |',
    '|---|---:|---:|---:|',
    `| before (${commit(beforeTree)}) | ${before.toFixed(1)} µs | ${(before / chunks.length).toFixed(2)} µs | 1.00× |`,
    `| after (${commit(REPO_ROOT)}) | ${after.toFixed(1)} µs | ${(after / chunks.length).toFixed(2)} µs | ${(after / before).toFixed(2)}× |`,
    '',
    `The whole answer stream (stripper → scanner → shaping), a ${LINE.length.toLocaleString('en-US')}-character unpunctuated line ` +
      `in 1-character deltas, ${STREAM_ANSWERS} answers per round, ${STREAM_ROUNDS} rounds alternating; median round:`,
    '',
    '| Tree | Per delta | Ratio |',
    '|---|---:|---:|',
    `| before (${commit(beforeTree)}) | ${streamBefore.toFixed(0)} ns | 1.00× |`,
    `| after (${commit(REPO_ROOT)}) | ${streamAfter.toFixed(0)} ns | ${(streamAfter / streamBefore).toFixed(2)}× |`,
    '',
  ].join('\n'),
);
