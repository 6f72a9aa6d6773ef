/**
 * `npm run eval`: the campus evaluation (scripts/eval/) through the real service, against the
 * configured gateway and MCP_SERVER_URL, or with no configuration the offline model and the sandbox
 * tool server. Prints a table per model and the failing checks; exits 1 when a model scores below
 * `--threshold`, 2 on bad arguments.
 *
 *   npm run eval -- --model openai/gpt-4o-mini --model anthropic/claude-3.5-haiku --threshold 0.9 --json results.json
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { renderReport, reportJson } from './eval/report.js';
import { runEval } from './eval/run-eval.js';

const USAGE = `usage: npm run eval -- [--model <vendor/model>]... [--cases <id or group>]... [--threshold 0..1]
                        [--json <file>] [--concurrency <n>] [--max-tokens <n>] [--user <prefix>]`;

function fail(message: string): never {
  process.stderr.write(`eval: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      model: { type: 'string', multiple: true, default: [] },
      cases: { type: 'string', multiple: true, default: [] },
      threshold: { type: 'string' },
      json: { type: 'string' },
      concurrency: { type: 'string', default: '4' },
      'max-tokens': { type: 'string' },
      user: { type: 'string', default: 'campus-eval' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
}
try {
  args = parse();
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
if (args.values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const number = (name: string, raw: string | undefined, valid: (n: number) => boolean): number | null => {
  if (raw === undefined) return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || !valid(n)) fail(`--${name} ${raw} is not valid`);
  return n;
};
const threshold = number('threshold', args.values.threshold, (n) => n >= 0);
const concurrency = number('concurrency', args.values.concurrency, (n) => Number.isInteger(n) && n >= 1 && n <= 32)!;
const maxTokens = number('max-tokens', args.values['max-tokens'], (n) => Number.isInteger(n) && n > 0);
for (const m of args.values.model) if (!/^[^\s/]+\/\S+$/.test(m)) fail(`--model ${m}: a model id looks like <vendor>/<model>`);
if (!/^[A-Za-z0-9-]{1,40}$/.test(args.values.user)) fail('--user: letters, digits and - only');

const progress = (model: string, done: number, total: number) => {
  const line = `eval: ${model} ${done}/${total}`;
  if (process.stderr.isTTY) process.stderr.write(`\r${line}${done === total ? '\n' : ''}`);
  else if (done === total || done % 10 === 0) process.stderr.write(`${line}\n`);
};

const run = await runEval(process.env, {
  models: args.values.model,
  cases: args.values.cases,
  concurrency,
  maxTokens,
  userPrefix: args.values.user,
  onProgress: progress,
});
if (run.caseCount === 0) fail('no case matches --cases');
process.stdout.write(renderReport(run, threshold));
if (args.values.json) writeFileSync(args.values.json, JSON.stringify(reportJson(run, threshold), null, 2) + '\n');
const below = threshold !== null && run.models.some((m) => m.score < threshold);
process.exit(below ? 1 : 0);
