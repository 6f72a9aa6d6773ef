/**
 * `npm run eval` as an operator runs it (the CLI in a child process, a clean environment): with no
 * configuration against the offline model and the sandbox tool server (the suite's own checks run in
 * CI this way), and against the fake gateway with two models that answer differently, which the table
 * must rank in the right order.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { REPO_ROOT } from './support/spawn-service.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runEval(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'eval.ts'), ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'campus-eval-test-'));

describe('npm run eval with no configuration (offline model, sandbox tools)', () => {
  it('prints the table, writes every case to --json and exits 0 at --threshold 0.5', async () => {
    const file = join(dir, 'offline.json');
    const run = await runEval(['--threshold', '0.5', '--json', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Campus eval: \d+ cases against the offline sandbox model, tools from the sandbox tool server\./);
    expect(run.stdout).toContain(
      '| Rank | Model | Score | Cases passed | Turns answered / refused / failed | Tokens (in / cached in / out) | Cost (USD) | Turn p50 | Turn p95 | Unverified claims / answer |',
    );
    // Labelled as what answered: the offline model, not the default model id it stood in for.
    expect(run.stdout).toMatch(/\| 1 \| offline sandbox model \(asked for openai\/gpt-4o-mini\) \| (0\.\d{3}|1\.000) \| \d+\/\d+ \| \d+ \/ 0 \/ 0 \|/);
    expect(run.stderr).toMatch(/eval: openai\/gpt-4o-mini \d+\/\d+/); // the progress line
    const json = JSON.parse(readFileSync(file, 'utf8'));
    const [model] = json.models;
    expect(model.label).toBe('offline sandbox model (asked for openai/gpt-4o-mini)');
    expect(model.turns.refused + model.turns.failed).toBe(0);
    expect(model.cases.length).toBeGreaterThanOrEqual(40);
    expect(model.score).toBeGreaterThanOrEqual(0.5);
    expect(model.inputTokens).toBeGreaterThan(0);
    // The cost column is what the budget settled, at the default model's price the offline model stood in for (issue 47).
    expect(model.cost).toBeCloseTo(((model.inputTokens - model.cachedInputTokens) * 0.15 + model.cachedInputTokens * 0.075 + model.outputTokens * 0.6) / 1e6, 5);
    // The offline model writes only from tool data: over the whole eval, nothing it states goes unconfirmed (issue 45).
    expect(model.claimsChecked).toBeGreaterThan(50);
    expect(model.claimsUnverified).toBe(0);
    expect(model.claimsMisbound).toBe(0);
    expect(run.stdout).toMatch(/\| 0\.00 \(0 of \d+ checked, 0 misbound, \d+ ambiguous\) \|/);
    const claimChecks = model.cases.flatMap((c: any) => c.checks.filter((r: any) => r.name.startsWith('claims_true')));
    expect(claimChecks.length).toBeGreaterThanOrEqual(5);
    for (const r of claimChecks) expect(r.pass, JSON.stringify(r)).toBe(true);
    // Every case was scored by its checks, and the groups the issue names are all there.
    for (const c of model.cases) expect(c.checks.length, c.id).toBeGreaterThanOrEqual(5);
    expect(new Set(model.cases.map((c: { group: string }) => c.group))).toEqual(
      new Set(['places', 'directions', 'dining', 'courses', 'guide', 'bus', 'memory', 'follow-up', 'out-of-scope', 'injection']),
    );
  }, 120_000);

  it('exits non-zero when the score is below --threshold (1.01 can never be met)', async () => {
    const run = await runEval(['--threshold', '1.01', '--cases', 'places']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Below the threshold 1\.01: offline sandbox model \(asked for openai\/gpt-4o-mini\)/);
  }, 120_000);

  it('reports refused turns apart and scores a case with one as failed, not as half right', async () => {
    const file = join(dir, 'refused.json');
    // A day's budget smaller than one turn: admission answers every turn 429 before it runs.
    const run = await runEval(['--cases', 'places', '--json', file], { DAILY_TOKEN_LIMIT: '1' });
    expect(run.code, run.stderr).toBe(0);
    const [model] = JSON.parse(readFileSync(file, 'utf8')).models;
    expect(model.turns.answered).toBe(0);
    expect(model.turns.refused).toBeGreaterThan(0);
    expect(model.turns.failed).toBe(0);
    expect(model.score).toBe(0);
    for (const c of model.cases) {
      expect(c.passed, c.id).toBe(false);
      expect(c.fates.every((f: string) => f === 'refused'), c.id).toBe(true);
    }
    expect(run.stdout).toMatch(/\| 0\.000 \| 0\/\d+ \| 0 \/ \d+ \/ 0 \|/);
    expect(run.stdout).toMatch(/- place-gates \(0\.00\): turn 1 refused/);
  }, 120_000);

  it('stops starting cases before --max-tokens would be passed; the cases not run count as failed', async () => {
    const file = join(dir, 'capped.json');
    const run = await runEval(['--max-tokens', '30000', '--cases', 'places', '--concurrency', '2', '--json', file]);
    expect(run.code, run.stderr).toBe(0);
    const [model] = JSON.parse(readFileSync(file, 'utf8')).models;
    const ran = model.cases.filter((c: { skipped: boolean }) => !c.skipped);
    expect(ran.length).toBeGreaterThan(0);
    expect(ran.length).toBeLessThan(model.cases.length);
    expect(model.inputTokens + model.outputTokens).toBeLessThanOrEqual(30_000);
    expect(run.stdout).toMatch(/\(\d+ not run\)/);
    expect(run.stdout).toContain('not run (--max-tokens reached)');
  }, 120_000);

  it('refuses a bad argument with exit 2 and the usage', async () => {
    const run = await runEval(['--threshold', 'high']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--threshold high is not valid/);
    expect(run.stderr).toMatch(/usage: npm run eval/);
  }, 60_000);
});

describe('npm run eval against a gateway, two models', () => {
  let gw: FakeGateway;
  beforeAll(async () => {
    gw = await startFakeGateway();
    // `good/model` looks things up and answers from what the tool returned; `bad/model` never calls a
    // tool and claims the lookup failed.
    gw.handler = (body: any) => {
      if (body?.response_format?.type === 'json_object') return { text: '{"operations": []}' };
      if (body.model === 'bad/model') return { text: "Sorry, I couldn't look that up right now: the lookup failed." };
      if (body.model === 'rowswap/model') {
        // Looks up coffee, then tells the first place's name with the second place's hours (issue 59).
        const listed = body.messages.filter((m: any) => m.role === 'tool').map((m: any) => String(m.content)).join('\n');
        if (!listed) return { toolCalls: [{ name: 'eats_get_locations_by_cuisine', arguments: { cuisine_query: 'coffee' } }] };
        const names = [...listed.matchAll(/^### \S+ (.+)$/gm)].map((m) => m[1]);
        const hours = [...listed.matchAll(/^\*\*Hours:\*\* (.+)$/gm)].map((m) => m[1]);
        const other = hours.findIndex((h) => h !== hours[0]);
        return { text: `${names[0]} is open ${hours[other]}.` };
      }
      const results = body.messages.filter((m: any) => m.role === 'tool').map((m: any) => String(m.content));
      if (results.length === 0 && body.tools?.length) {
        const names: string[] = body.tools.map((t: any) => t.function.name);
        const campus = names.filter((n) => !n.startsWith('memory_') && n !== 'maps_show_map');
        const pick = campus.find((n) => /search|open_at_time|fetch_course_by_id/.test(n)) ?? campus[0];
        if (pick) return { toolCalls: [{ name: pick, arguments: { query: body.messages.at(-1).content } }] };
      }
      return { text: `Here is what I found. ${results.join(' ').slice(0, 600)}`.trim(), usage: { prompt_tokens: 50, completion_tokens: 40, cost: 0.0001, cached_tokens: 30 } };
    };
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('sends a follow-up step with the steps before it as history: the model sees the earlier question and answer', async () => {
    const from = gw.requests.length;
    // ALLOWED_MODELS does not bind the eval: a candidate is evaluated before it is allowed (issue 47).
    const run = await runEval(['--model', 'good/model', '--cases', 'follow-place'], {
      LLM_GATEWAY_API_KEY: 'sk-eval-test',
      LLM_GATEWAY_BASE_URL: gw.baseUrl,
      ALLOWED_MODELS: 'openai/gpt-4o-mini',
    });
    expect(run.code, run.stderr).toBe(0);
    const asked = gw.requests.slice(from).map((r) => r.body).filter((b: any) => b?.tools && b.messages.at(-1)?.content === 'and what about hunt library?');
    expect(asked.length).toBeGreaterThan(0);
    expect(asked[0].model).toBe('good/model');
    const roles = asked[0].messages.filter((m: any) => m.role !== 'system').map((m: any) => `${m.role}: ${String(m.content).slice(0, 14)}`);
    expect(roles).toEqual(['user: where is gates', 'assistant: Here is what I', 'user: and what about']);
  }, 60_000);

  it("counts a model's misbound claims: another place's hours told for the place it names", async () => {
    const file = join(dir, 'rowswap.json');
    const run = await runEval(['--model', 'rowswap/model', '--json', file, '--cases', 'dining-coffee'], {
      LLM_GATEWAY_API_KEY: 'sk-eval-test',
      LLM_GATEWAY_BASE_URL: gw.baseUrl,
    });
    expect(run.code, run.stderr).toBe(0);
    const [model] = JSON.parse(readFileSync(file, 'utf8')).models;
    expect(model.claimsMisbound).toBeGreaterThan(0);
    expect(model.claimsUnverified).toBeGreaterThanOrEqual(model.claimsMisbound);
    expect(run.stdout).toContain(`${model.claimsMisbound} misbound, ${model.claimsAmbiguous} ambiguous) |`);
  }, 60_000);

  it('ranks the model that looks things up above the one that does not, with tokens and cost per model', async () => {
    const file = join(dir, 'two-models.json');
    const run = await runEval(['--model', 'bad/model', '--model', 'good/model', '--json', file, '--cases', 'places', '--cases', 'courses'], {
      LLM_GATEWAY_API_KEY: 'sk-eval-test',
      LLM_GATEWAY_BASE_URL: gw.baseUrl,
    });
    expect(run.code, run.stderr).toBe(0);
    const rows = run.stdout.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^\| 1 \| good\/model \|/);
    expect(rows[1]).toMatch(/^\| 2 \| bad\/model \|/);
    expect(run.stdout).toContain('against the configured gateway (LLM_GATEWAY_BASE_URL)');
    const json = JSON.parse(readFileSync(file, 'utf8'));
    const [good, bad] = json.models;
    expect(good.model).toBe('good/model');
    expect(good.score).toBeGreaterThan(bad.score);
    expect(good.inputTokens + good.outputTokens).toBeGreaterThan(0);
    expect(bad.inputTokens + bad.outputTokens).toBeGreaterThan(0);
    expect(good.cost).toBeGreaterThan(0);
    // The input the provider's cache served, as the gateway reported it (30 of 50 on each answer pass).
    expect(good.cachedInputTokens).toBeGreaterThan(0);
    expect(good.cachedInputTokens).toBeLessThan(good.inputTokens);
    expect(rows[0]).toMatch(new RegExp(`\\(${good.inputTokens} / ${good.cachedInputTokens} / ${good.outputTokens}\\)`));
    // The bad model's failures are the checks that catch it.
    const badChecks = bad.cases.flatMap((c: any) => c.checks.filter((r: any) => !r.pass).map((r: any) => r.name));
    expect(badChecks).toContain('tools_called');
    expect(badChecks).toContain('no_false_failure_claim');
    expect(run.stdout).toMatch(/Failing checks, bad\/model:\n- place-gates \(0\.\d\d\): .*tools_called/);
  }, 120_000);
});
