/**
 * Issue 61, item 1: every guard on the per-delta path is linear in the answer, whatever the answer and
 * the configured secrets are. The whole answer stream a turn runs (reasoning stripper → leak scanner with
 * a configured key that has a run of digits → grounding over a little evidence → shaping) takes hostile
 * answers of 20,000, 40,000 and 100,000 characters in 1-character deltas (the stream route's worst case),
 * then `finish`. The figure is CPU per character (process.cpuUsage, one process, the median of five
 * answers per size after a warm-up answer of the largest); the target is at most 2× between the sizes of a pattern. Before the fix, the first
 * pattern took 139 s of CPU at 20,000 characters (the scanner's release walked every finding per push).
 * Prints one Markdown section; exits 1 when a pattern misses the target.
 */
import { NO_MAP } from '../src/campus/cmu-maps.js';
import { createAnswerStream } from '../src/guards/answer-stream.js';
import { createLeakPolicy } from '../src/security/leak-policy.js';
import { groundingOver } from '../tests/support/verify.js';

const SIZES = [20_000, 40_000, 100_000];
const TARGET = 2;
const RUNS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A configured key whose digits an answer of digits keeps matching in overlapping fragments. */
const policy = createLeakPolicy({ random: ['sk-Zq012345678901234XYZ98765'], names: ['db.internal.example.edu'] });
const PROMPT = 'You are the campus assistant. Answer from what the campus tools return. '.repeat(20);

const cut = (unit: string) => (n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
const PATTERNS: Array<[string, (n: number) => string]> = [
  ['digits against a key with a run (overlapping secret fragments)', cut('0123456789')],
  ['unconfirmed prices (`$1,`: a mark each)', cut('$1,')],
  ['hours and rooms no evidence holds', cut('open 9 am to 5 pm in GHC 4401, ')],
  ['one sentence that never ends', cut('word ')],
  ['one word that never ends', cut('a')],
  ['percent escapes (the unescaped reading)', cut('%41')],
  ['base64 run (the decoded readings)', cut('QUJD')],
  ['"bearer" and a token, repeated', cut('bearer 1a2b3c ')],
];

function cpuPerChar(text: string): number {
  const stream = createAnswerStream({ scanner: policy.stream(PROMPT), grounding: groundingOver('GHC 4401 is open 9 am to 5 pm.') });
  const started = process.cpuUsage();
  for (let i = 0; i < text.length; i++) stream.push(text[i]!);
  stream.finish({ map: NO_MAP, toolsUsed: [], otherToolFailed: false, query: 'tell me' });
  const used = process.cpuUsage(started);
  return (used.user + used.system) / text.length;
}

const rows: string[] = [];
let missed = 0;
for (const [name, make] of PATTERNS) {
  // Warm-up at the largest size (the JIT and the heap settle), then the median of RUNS per size.
  cpuPerChar(make(SIZES.at(-1)!));
  const per = SIZES.map((n) => median(Array.from({ length: RUNS }, () => cpuPerChar(make(n)))));
  const ratio = Math.max(...per) / Math.min(...per);
  if (ratio > TARGET) missed++;
  rows.push(`| ${name} | ${per.map((p) => p.toFixed(2)).join(' | ')} | ${ratio.toFixed(2)}× | ${ratio <= TARGET ? 'met' : '**missed**'} |`);
}

process.stdout.write(
  [
    '## The answer guards are linear in the answer (issue 61)',
    '',
    'The whole answer stream (reasoning stripper, leak scanner with a configured key holding a run of digits,',
    'grounding, shaping) over hostile answers in 1-character deltas, then `finish`; CPU per character',
    '(`process.cpuUsage`, µs, median of 5 answers per size after a warm-up answer of the largest). Target: at most 2× between sizes.',
    '`npm run bench -- guards-linear`.',
    '',
    `| Pattern | ${SIZES.map((n) => `${n.toLocaleString('en-US')} chars`).join(' | ')} | Largest / smallest | Target |`,
    `|---|${SIZES.map(() => '---:').join('|')}|---:|---|`,
    ...rows,
    '',
  ].join('\n'),
);
if (missed > 0) process.exitCode = 1;
