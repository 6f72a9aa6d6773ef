/**
 * The evaluation's report: one table with a row per model, best score first (score, cases passed,
 * tokens with the input the provider's cache served, cost (US dollars, as the budget settles it: the gateway's reported cost, else MODEL_PRICES), turn time
 * p50/p95, unverified claims per answer: details the grounding check could not confirm and marked),
 * then the failing checks by case; and
 * the JSON file (`--json`) with every case's checks per model.
 */
import { paraphraseRates, paraphraseTable } from '../../tests/fixtures/offline-paraphrases.js';
import type { EvalRun, ModelResult } from './run-eval.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Models best first; ties keep the order they were given in. */
export function ranked(run: EvalRun): ModelResult[] {
  return [...run.models].sort((a, b) => b.score - a.score);
}

export function renderReport(run: EvalRun, threshold: number | null): string {
  const lines: string[] = [];
  lines.push(`Campus eval: ${run.caseCount} cases against ${run.gateway}, tools from ${run.tools}.`, '');
  lines.push('| Rank | Model | Score | Cases passed | Turns answered / refused / failed | Tokens (in / cached in / out) | Cost (USD) | Turn p50 | Turn p95 | Unverified claims / answer |');
  lines.push('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [i, m] of ranked(run).entries()) {
    const ran = m.cases.length - m.skipped;
    lines.push(
      `| ${i + 1} | ${m.label} | ${m.score.toFixed(3)} | ${m.casesPassed}/${m.cases.length}${m.skipped ? ` (${m.skipped} not run)` : ''} | ` +
        `${m.turns.answered} / ${m.turns.refused} / ${m.turns.failed} | ` +
        `${m.inputTokens + m.outputTokens} (${m.inputTokens} / ${m.cachedInputTokens} / ${m.outputTokens}) | ${m.cost === null ? '-' : m.cost.toFixed(4)} | ` +
        `${ran ? seconds(m.turnP50Ms) : '-'} | ${ran ? seconds(m.turnP95Ms) : '-'} | ` +
        `${m.turns.answered ? (m.claimsUnverified / m.turns.answered).toFixed(2) : '-'} (${m.claimsUnverified} of ${m.claimsChecked} checked, ${m.claimsMisbound} misbound, ${m.claimsAmbiguous} ambiguous) |`,
    );
  }
  for (const m of ranked(run)) {
    const failing = m.cases.filter((c) => !c.passed);
    if (failing.length === 0) continue;
    lines.push('', `Failing checks, ${m.label}:`);
    for (const c of failing) {
      if (c.skipped) {
        lines.push(`- ${c.id}: not run (--max-tokens reached)`);
        continue;
      }
      const notAnswered = c.fates.map((f, step) => (f === 'answered' ? null : `turn ${step + 1} ${f}`)).filter((x) => x !== null);
      if (notAnswered.length > 0) {
        lines.push(`- ${c.id} (0.00): ${notAnswered.join('; ')}`);
        continue;
      }
      const failed = c.checks.filter((r) => !r.pass).map((r) => `${r.name}${c.checks.some((x) => x.step > 0) ? ` (turn ${r.step + 1})` : ''}${r.detail ? `: ${r.detail}` : ''}`);
      lines.push(`- ${c.id} (${c.score.toFixed(2)}): ${failed.join('; ')}`);
    }
  }
  if (run.paraphrases) {
    lines.push('', 'The same question asked another way (the paraphrase suite, tests/fixtures/offline-paraphrases.ts; the campus clock is the real one):', '', paraphraseTable(run.paraphrases));
    const wrong = run.paraphrases.filter((r) => r.misses.length > 0);
    for (const r of wrong) lines.push(`- ${r.intent}: "${r.q}": ${r.misses.join('; ')}`);
  }
  if (threshold !== null) {
    const below = run.models.filter((m) => m.score < threshold);
    lines.push('', below.length === 0 ? `Every model scored at least ${threshold}.` : `Below the threshold ${threshold}: ${below.map((m) => `${m.label} (${m.score.toFixed(3)})`).join(', ')}.`);
  }
  return lines.join('\n') + '\n';
}

/** The `--json` file: per model, per case, per check. */
export function reportJson(run: EvalRun, threshold: number | null): unknown {
  return {
    caseCount: run.caseCount,
    gateway: run.gateway,
    tools: run.tools,
    threshold,
    paraphrases: run.paraphrases && { rates: Object.fromEntries(paraphraseRates(run.paraphrases).perIntent), results: run.paraphrases },
    models: ranked(run).map((m) => ({
      model: m.model,
      label: m.label,
      score: m.score,
      turns: m.turns,
      casesPassed: m.casesPassed,
      casesNotRun: m.skipped,
      inputTokens: m.inputTokens,
      cachedInputTokens: m.cachedInputTokens,
      outputTokens: m.outputTokens,
      cost: m.cost,
      turnP50Ms: Math.round(m.turnP50Ms),
      turnP95Ms: Math.round(m.turnP95Ms),
      claimsChecked: m.claimsChecked,
      claimsUnverified: m.claimsUnverified,
      claimsMisbound: m.claimsMisbound,
      claimsAmbiguous: m.claimsAmbiguous,
      unverifiedPerAnswer: m.turns.answered ? m.claimsUnverified / m.turns.answered : null,
      cases: m.cases.map((c) => ({
        id: c.id,
        group: c.group,
        score: c.score,
        passed: c.passed,
        skipped: c.skipped,
        fates: c.fates,
        grounding: c.grounding,
        tokens: c.tokens,
        turnMs: c.turnMs.map((t) => Math.round(t)),
        checks: c.checks,
      })),
    })),
  };
}
