/**
 * Runs the evaluation cases through the real service: the dependencies `server.ts` builds
 * (src/server/build-deps.ts: the configured gateway and MCP_SERVER_URL, or with no configuration the
 * offline model and the sandbox tool server), the real app, the stream route. Two things are observed
 * from inside, per turn, through an AsyncLocalStorage entered around each request: the campus tool
 * calls (a wrapper over the tool client) and the tokens and cost of every model call (the telemetry
 * seam's model-operation metric, which also sees the background extraction a turn starts).
 *
 * Each case runs as its own user (`<prefix>-<run>-<n>`), so cases never share memory; their facts
 * are cleared at the end. `maxTokens` stops starting cases once what was spent, plus what the cases
 * still running and the next one may spend (each turn counted at what admission holds for a turn, or
 * the largest turn so far), would pass it. Only a turn that spends more than that (many tool passes)
 * can take the run past the limit, by its excess. A case not run scores 0, so a run cut short cannot
 * pass a threshold it did not earn.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROMPT_SIZE_FLOOR_TOKENS, toolPassHold } from '../../src/admission/turn-reservation.js';
import { createApp } from '../../src/app.js';
import { parseConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { referenceSystemPrompt } from '../../src/prompt/system-prompt.js';
import { serviceReferencePrompts } from '../../src/memory/service-prompts.js';
import { readSseEvents } from '../../src/sandbox/chat/sse-reader.js';
import { leakPolicyFromConfig } from '../../src/security/leak-policy.js';
import { buildDeps } from '../../src/server/build-deps.js';
import { noTelemetry, type Telemetry } from '../../src/telemetry/telemetry.js';
import type { CampusTools } from '../../src/tools/campus-tools.js';
import { CASES, type EvalCase } from './cases.js';
import { runParaphraseSuite, type ParaphraseResult } from '../../tests/fixtures/offline-paraphrases.js';
import { checkTurn, type CheckResult, type ToolCall, type TurnObservation } from './checks.js';

export interface EvalOptions {
  /** Models to run the whole set with; empty: the configured DEFAULT_MODEL. */
  models: string[];
  /** Only cases whose id or group contains one of these. */
  cases: string[];
  concurrency: number;
  /** Stop starting cases before the run would spend more tokens than this. */
  maxTokens: number | null;
  /** User id prefix of the eval's turns (their budget bucket and memory). */
  userPrefix: string;
  onProgress?: (model: string, done: number, total: number) => void;
}

/**
 * How the service took one turn: `answered` (a `done`), `refused` (declined before it ran: a budget,
 * in-flight or overload answer, or no model), `failed` (ran and ended in an `error` event or an error
 * status). Only answered turns are judged; a case with any other turn fails whole.
 */
export type TurnFate = 'answered' | 'refused' | 'failed';

/** Statuses of a turn the service declined to run (CONTRACT.md: budget/in-flight 429, overload 503 before the stream). */
const REFUSED_STATUSES = new Set([429, 503]);

export function fateOf(turn: Pick<TurnObservation, 'status' | 'error'>): TurnFate {
  if (turn.status === 200) return turn.error === null ? 'answered' : 'failed';
  return REFUSED_STATUSES.has(turn.status) ? 'refused' : 'failed';
}

export interface CaseResult {
  id: string;
  group: string;
  /** Share of the case's checks that passed; 0 for a case not run or with a turn refused or failed. */
  score: number;
  passed: boolean;
  /** Not run: the token limit was reached first. */
  skipped: boolean;
  tokens: number;
  turnMs: number[];
  /** Each turn's fate, in order. */
  fates: TurnFate[];
  /** Each turn's `metadata.grounding` (zeros for a turn that did not answer). */
  grounding: Array<{ checked: number; unverified: number; misbound?: number; ambiguous?: number }>;
  checks: Array<CheckResult & { step: number }>;
}

export interface ModelResult {
  /** The model id the turns asked for. */
  model: string;
  /** What answered them: the model id, or the offline sandbox model standing in for it. */
  label: string;
  /** Turns by fate over the run. */
  turns: Record<TurnFate, number>;
  score: number;
  casesPassed: number;
  cases: CaseResult[];
  skipped: number;
  inputTokens: number;
  /** Of the input tokens, those the provider served from its prompt cache (reported by the gateway). */
  cachedInputTokens: number;
  outputTokens: number;
  /**
   * US dollars, as the budget settled each call (the spend metric): the gateway's reported cost when it
   * gave one, else tokens at MODEL_PRICES (the highest listed price for a model with none); null when no
   * call was settled.
   */
  cost: number | null;
  turnP50Ms: number;
  turnP95Ms: number;
  /** Claims the service checked in this model's answers, and those it could not confirm (marked, never sent). */
  claimsChecked: number;
  claimsUnverified: number;
  /** Of the unverified, those true elsewhere in the evidence but not for their day or subject (issue 59). */
  claimsMisbound: number;
  /** Claims kept though the reader could not tell their days (issue 73): their value holds on some day of their place. */
  claimsAmbiguous: number;
}

export interface EvalRun {
  /** What the run talked to, for the report's header. */
  gateway: string;
  tools: string;
  caseCount: number;
  models: ModelResult[];
  /**
   * Offline, with every case selected: the paraphrase suite (tests/fixtures/offline-paraphrases.ts) on
   * the stream route, each phrasing judged; null otherwise (it is written for the sandbox's data).
   */
  paraphrases: ParaphraseResult[] | null;
}

interface Usage {
  input: number;
  cached: number;
  output: number;
  cost: number | null;
}

interface TurnScope {
  usage: Usage;
  calls: ToolCall[];
  /** Claims of the answer counted `misbound` (true elsewhere in the evidence, not for their day or subject). */
  misbound?: number;
  /** Claims of the answer counted `ambiguous` (kept: days not understood, the value true on some day). */
  ambiguous?: number;
}

const quantile = (values: number[], q: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/**
 * The environment the eval runs with: its own budget file unless one is configured, and any model
 * allowed (`--model X` is how a model earns its place on ALLOWED_MODELS; it is priced by MODEL_PRICES).
 */
function evalConfig(env: Record<string, string | undefined>): Config {
  return parseConfig({
    ...env,
    ALLOWED_MODELS: '*',
    ...(!env.TOKEN_USAGE_DB && { TOKEN_USAGE_DB: join(mkdtempSync(join(tmpdir(), 'campus-eval-')), 'budget.sqlite') }),
  });
}

export async function runEval(env: Record<string, string | undefined>, options: EvalOptions): Promise<EvalRun> {
  const config = evalConfig(env);
  const systemPrompt = referenceSystemPrompt(config.campus);
  const leaks = leakPolicyFromConfig(config, serviceReferencePrompts(config.campus));
  // Log lines go to stderr (stdout is the report), warnings and errors only unless LOG_LEVEL says otherwise.
  const logger = createLogger({ level: env.LOG_LEVEL ? config.logLevel : 'warn', leaks, sink: (line) => process.stderr.write(line + '\n') });
  const scope = new AsyncLocalStorage<TurnScope>();
  // The telemetry seam, used only for two metrics: every model call's tokens, and what the budget settled
  // for it (the same prices the service charges, so the cost column is what the university would pay).
  const telemetry: Telemetry = {
    ...noTelemetry,
    enabled: true,
    metrics: {
      ...noTelemetry.metrics,
      modelOperation(o) {
        const usage = scope.getStore()?.usage;
        if (!usage) return;
        usage.input += o.inputTokens ?? 0;
        usage.cached += o.cachedInputTokens ?? 0;
        usage.output += o.outputTokens ?? 0;
      },
      spend(o) {
        const usage = scope.getStore()?.usage;
        if (usage) usage.cost = (usage.cost ?? 0) + o.usd;
      },
      // Misbound claims are not in `metadata.grounding` (CONTRACT.md fixes its two counts): read from the counter.
      groundingClaims(counts) {
        const turn = scope.getStore();
        if (turn)
          for (const c of counts.values()) {
            turn.misbound = (turn.misbound ?? 0) + (c.misbound ?? 0);
            turn.ambiguous = (turn.ambiguous ?? 0) + (c.ambiguous ?? 0);
          }
      },
    },
  };
  // Jobs in process: a case's extraction is counted (its tokens) and waited for here, never run by a replica.
  const { deps, close } = await buildDeps({ config, logger, leaks, telemetry, jobs: 'in-process' });
  const tools = deps.campusTools;
  const observedTools: CampusTools = {
    list: (signal) => tools.list(signal),
    async call(name, args, signal) {
      const result = await tools.call(name, args, signal);
      scope.getStore()?.calls.push({ name, ok: result.ok });
      return result;
    },
    close: () => tools.close(),
  };
  const app = createApp({ ...deps, campusTools: observedTools });
  const run = randomBytes(3).toString('hex');
  const users: string[] = [];
  const selected = CASES.filter((c) => options.cases.length === 0 || options.cases.some((f) => c.id.includes(f) || c.group === f));
  const models = options.models.length > 0 ? options.models : [config.gateway.defaultModel];
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.sharedSecret) headers.authorization = `Bearer ${config.sharedSecret}`;

  async function turn(body: unknown, turnScope: TurnScope): Promise<TurnObservation> {
    return scope.run(turnScope, async () => {
      const res = await app.fetch(new Request('http://eval.local/agent/respond/stream', { method: 'POST', headers, body: JSON.stringify(body) }));
      const observation: TurnObservation = {
        status: res.status,
        text: '',
        servicesUsed: [],
        map: null,
        memoryOps: [],
        error: null,
        toolCalls: turnScope.calls,
        grounding: { checked: 0, unverified: 0 },
      };
      if (res.status !== 200 || !res.body) {
        const envelope = (await res.json().catch(() => null)) as { error?: string } | null;
        return { ...observation, error: envelope?.error ?? `HTTP ${res.status}` };
      }
      for await (const e of readSseEvents(res.body)) {
        const data = e.data as Record<string, unknown>;
        if (e.type === 'memory') observation.memoryOps.push(String(data.op));
        else if (e.type === 'error') observation.error = String(data.error);
        else if (e.type === 'done') {
          observation.text = String(data.response_text ?? '');
          observation.servicesUsed = (data.services_used as string[]) ?? [];
          const map = data.cmu_maps as { target: string | null; mode: string | null } | undefined;
          observation.map = map?.target ? { target: map.target, mode: map.mode } : null;
          const grounding = (data.metadata as { grounding?: TurnObservation['grounding'] } | undefined)?.grounding;
          if (grounding) observation.grounding = { checked: grounding.checked, unverified: grounding.unverified, misbound: turnScope.misbound ?? 0, ambiguous: turnScope.ambiguous ?? 0 };
        }
      }
      return observation;
    });
  }

  // Tokens the run spent, and what the cases still running may spend: each of their turns counted at
  // what admission holds for a turn (a tool pass and the answer after it), or at the largest turn so
  // far if that was larger.
  let spent = 0;
  const firstHold = toolPassHold(PROMPT_SIZE_FLOOR_TOKENS, config.budget.maxOutputTokens);
  let largestTurn = firstHold.input + firstHold.output;
  let held = 0;

  async function runCase(c: EvalCase, index: number, model: string, usage: Usage): Promise<CaseResult> {
    const userId = `${options.userPrefix}-${run}-${model.replace(/[^A-Za-z0-9]/g, '')}-${index}`;
    users.push(userId);
    const caseUsage: Usage = { input: 0, cached: 0, output: 0, cost: null };
    const checks: CaseResult['checks'] = [];
    const turnMs: number[] = [];
    const fates: TurnFate[] = [];
    const grounding: CaseResult['grounding'] = [];
    let history: { role: 'user' | 'assistant'; content: string }[] = [];
    for (const [step, s] of c.steps.entries()) {
      if (s.fresh) history = [];
      const started = performance.now();
      const observation = await turn({ query: s.query, message_history: history, user_id: userId, model }, { usage: caseUsage, calls: [] });
      turnMs.push(performance.now() - started);
      fates.push(fateOf(observation));
      grounding.push(observation.grounding);
      for (const r of checkTurn(observation, s.expect, { leaks, systemPrompt, maxAnswerChars: config.maxAnswerChars, catalog: deps.catalog })) checks.push({ ...r, step });
      history = [...history, { role: 'user', content: s.query }, { role: 'assistant', content: observation.text }];
    }
    // Extraction after the last step may still be running: its tokens are counted when they arrive.
    await deps.background.drain(30_000);
    const tokens = caseUsage.input + caseUsage.output;
    usage.input += caseUsage.input;
    usage.cached += caseUsage.cached;
    usage.output += caseUsage.output;
    if (caseUsage.cost !== null) usage.cost = (usage.cost ?? 0) + caseUsage.cost;
    const passedChecks = checks.filter((r) => r.pass).length;
    // A refused or failed turn is not half an answer: the case scores nothing.
    const allAnswered = fates.every((f) => f === 'answered');
    const score = allAnswered ? passedChecks / checks.length : 0;
    return { id: c.id, group: c.group, score, passed: allAnswered && passedChecks === checks.length, skipped: false, tokens, turnMs, fates, grounding, checks };
  }

  const results: ModelResult[] = [];
  let paraphrases: ParaphraseResult[] | null = null;
  try {
    for (const model of models) {
      const usage: Usage = { input: 0, cached: 0, output: 0, cost: null };
      const caseResults: CaseResult[] = new Array(selected.length);
      let next = 0;
      let done = 0;
      const worker = async () => {
        for (;;) {
          const index = next++;
          if (index >= selected.length) return;
          const c = selected[index]!;
          const estimate = largestTurn * c.steps.length;
          if (options.maxTokens !== null && spent + held + estimate > options.maxTokens) {
            caseResults[index] = { id: c.id, group: c.group, score: 0, passed: false, skipped: true, tokens: 0, turnMs: [], fates: [], grounding: [], checks: [] };
          } else {
            held += estimate;
            try {
              caseResults[index] = await runCase(c, index, model, usage);
            } finally {
              held -= estimate;
            }
            spent += caseResults[index].tokens;
            largestTurn = Math.max(largestTurn, Math.ceil(caseResults[index].tokens / c.steps.length));
          }
          options.onProgress?.(model, ++done, selected.length);
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
      const turnMs = caseResults.flatMap((r) => r.turnMs);
      const fates = caseResults.flatMap((r) => r.fates);
      results.push({
        model,
        // Without a gateway key the offline sandbox model answers whatever id is asked for: say so.
        label: config.gateway.apiKey ? model : `offline sandbox model (asked for ${model})`,
        turns: { answered: fates.filter((f) => f === 'answered').length, refused: fates.filter((f) => f === 'refused').length, failed: fates.filter((f) => f === 'failed').length },
        score: caseResults.reduce((s, r) => s + r.score, 0) / Math.max(1, caseResults.length),
        casesPassed: caseResults.filter((r) => r.passed).length,
        cases: caseResults,
        skipped: caseResults.filter((r) => r.skipped).length,
        inputTokens: usage.input,
        cachedInputTokens: usage.cached,
        outputTokens: usage.output,
        cost: usage.cost,
        turnP50Ms: quantile(turnMs, 0.5),
        turnP95Ms: quantile(turnMs, 0.95),
        claimsChecked: caseResults.reduce((s, r) => s + r.grounding.reduce((t, g) => t + g.checked, 0), 0),
        claimsUnverified: caseResults.reduce((s, r) => s + r.grounding.reduce((t, g) => t + g.unverified, 0), 0),
        claimsMisbound: caseResults.reduce((s, r) => s + r.grounding.reduce((t, g) => t + (g.misbound ?? 0), 0), 0),
        claimsAmbiguous: caseResults.reduce((s, r) => s + r.grounding.reduce((t, g) => t + (g.ambiguous ?? 0), 0), 0),
      });
    }
    if (!config.gateway.apiKey && !config.mcpServerUrl && options.cases.length === 0) {
      // The offline model's robustness to rewording (issue 64): every phrasing as a new user with its facts.
      let n = 0;
      paraphrases = await runParaphraseSuite(async (intent, p) => {
        const userId = `${options.userPrefix}-${run}-para-${++n}`;
        users.push(userId);
        for (const text of p.facts ?? intent.facts ?? []) await deps.memory.add({ userId, kind: 'remembered', text });
        const message_history = (p.history ?? []).map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));
        const seen = await turn({ query: p.q, message_history, user_id: userId }, { usage: { input: 0, cached: 0, output: 0, cost: null }, calls: [] });
        return { text: seen.text, tools: seen.servicesUsed };
      });
    }
  } finally {
    // The eval's users leave no facts behind.
    for (const user of users) await deps.memory.clear(user).catch(() => undefined);
    await close(10_000);
  }
  return {
    // Named by their variables: a configured host can be a secret of the leak policy.
    gateway: config.gateway.apiKey ? 'the configured gateway (LLM_GATEWAY_BASE_URL)' : 'the offline sandbox model',
    tools: config.mcpServerUrl ? 'MCP_SERVER_URL' : 'the sandbox tool server',
    caseCount: selected.length,
    models: results,
    paraphrases,
  };
}
