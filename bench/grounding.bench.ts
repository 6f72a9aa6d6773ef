/**
 * `npm run bench -- grounding` (issue 45): what the grounding check keeps and catches, and what it costs
 * per delta.
 *
 * 1. Quality over the corpus (tests/fixtures/grounding-corpus.ts: production-shaped tool results,
 *    honest answers, one planted atom per variant), through the real verify stage, each answer cut into
 *    random 1-12 character chunks (seeded; three cuts per answer). An honest answer is kept whole when
 *    the final text and the deltas equal it and nothing is unverified; a planted atom is caught when it
 *    is in neither the deltas nor the final text, the answer's other sentences are all there and it is
 *    counted in `metadata.grounding.unverified`. Per claim class: the honest claims checked and
 *    confirmed, the planted atoms caught.
 *    Also the hours written in the styles of language models (tests/fixtures/grounding-model-styles.ts),
 *    labelled error-free, invented or right-time-wrong-day; and the generated corpus of issue 73
 *    (tests/support/schedule-corpus.ts: random weeks, fourteen idioms, their one-day errors and
 *    invented values).
 * 2. Cost per delta, in one process, interleaved rounds: the answer stream (leak scanner, grounding,
 *    shaping) over the corpus's honest answers and over a claim-free answer, in 4-character deltas,
 *    with the grounding check against the same stream with an identity stage in its place (the floor).
 *    The held-streams and first-delta figures of the whole service before and after are measured with
 *    `bench/tools/before-after.ts` (BENCHMARKS.md says which).
 */
import { parseConfig } from '../src/config.js';
import { loadCatalog } from '../src/campus/catalog.js';
import { NO_MAP } from '../src/campus/cmu-maps.js';
import { createAnswerStream } from '../src/guards/answer-stream.js';
import { CLAIM_CLASSES, createEvidence, createTurnGrounding, type ClaimClass, type GroundingStream } from '../src/guards/grounding/index.js';
import type { TurnEvent } from '../src/pipeline/events.js';
import { leakPolicyFromConfig } from '../src/security/leak-policy.js';
import { noTelemetry } from '../src/telemetry/telemetry.js';
import { renderSafeText } from '../src/guards/render-safe.js';
import { GROUNDING_CORPUS, plantedAnswer, untouchedSentences, type GroundingCase, type MisboundKind } from '../tests/fixtures/grounding-corpus.js';
import { RECORDS, STYLED_ANSWERS, type StyledAnswer } from '../tests/fixtures/grounding-model-styles.js';
import { CATALOG } from '../tests/support/verify.js';
import { groundAnswer } from '../tests/support/grounding.js';
import { scheduleCases } from '../tests/support/schedule-corpus.js';
import { FAKE_SECRETS_ENV } from '../tests/support/fake-secrets.js';
import { makeCtx, runVerify, toolEvent } from '../tests/support/verify.js';

const PROMPT = 'You are the campus assistant.\n\n# Now\nToday is 2026-11-25 (Wednesday), 16:04 campus time (America/New_York).';
const CUTS_PER_ANSWER = 3;

/** A small seeded generator (mulberry32), so every run cuts the answers the same way. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(45);
const randomChunks = (text: string): TurnEvent[] => {
  const out: TurnEvent[] = [];
  for (let i = 0; i < text.length; ) {
    const size = 1 + Math.floor(random() * 12);
    out.push({ type: 'text', text: text.slice(i, i + size) });
    i += size;
  }
  return out;
};

interface ClassTally {
  honestChecked: number;
  honestConfirmed: number;
  planted: number;
  caught: number;
}
const tally = new Map<ClaimClass, ClassTally>(CLAIM_CLASSES.map((c) => [c, { honestChecked: 0, honestConfirmed: 0, planted: 0, caught: 0 }]));

type Counts = { checked: number; unverified: number; misbound?: number };
async function verify(c: GroundingCase, text: string) {
  const byClass = new Map<string, Counts>();
  const ctx = {
    ...makeCtx({ query: c.query, systemPrompt: PROMPT, plan: { showMap: false } }),
    metrics: { ...noTelemetry.metrics, groundingClaims: (counts: ReadonlyMap<string, Counts>) => counts.forEach((v, k) => byClass.set(k, { ...v })) },
  };
  const run = await runVerify([toolEvent(c.tool, 'campus', true, c.result), { type: 'pass', index: 1 }, ...randomChunks(text)], ctx);
  return { run, byClass };
}


let honestRuns = 0;
let honestWhole = 0;
let plantedRuns = 0;
let plantedCaught = 0;
/** Issue 59: atoms true elsewhere in the evidence, by the binding they break: caught, and counted `misbound`. */
const misbound = new Map<MisboundKind, { planted: number; caught: number; counted: number }>();
let inventedRuns = 0;
let inventedCaught = 0;
for (const c of GROUNDING_CORPUS) {
  for (let k = 0; k < CUTS_PER_ANSWER; k++) {
    const { run, byClass } = await verify(c, c.honest);
    honestRuns++;
    // Kept whole: the answer as the renderer-safe step writes it (guards/render-safe.ts: a price's `$` escaped).
    const shown = renderSafeText(c.honest);
    if (run.answer!.text === shown && run.deltas === shown && run.answer!.grounding.unverified === 0) honestWhole++;
    for (const [cls, counts] of byClass) {
      const t = tally.get(cls as ClaimClass)!;
      t.honestChecked += counts.checked;
      t.honestConfirmed += counts.checked - counts.unverified;
    }
    for (const p of c.planted) {
      const planted = await verify(c, plantedAnswer(c, p));
      const { run } = planted;
      const text = run.answer!.text;
      const caught = !run.deltas.includes(p.to) && !text.includes(p.to) && run.answer!.grounding.unverified >= 1 && untouchedSentences(c, p).every((s) => text.includes(renderSafeText(s).trim()));
      plantedRuns++;
      const t = tally.get(p.cls)!;
      t.planted++;
      if (caught) {
        plantedCaught++;
        t.caught++;
      }
      if (p.misbound) {
        const m = misbound.get(p.misbound) ?? { planted: 0, caught: 0, counted: 0 };
        m.planted++;
        if (caught) m.caught++;
        if ([...planted.byClass.values()].some((v) => (v.misbound ?? 0) > 0)) m.counted++;
        misbound.set(p.misbound, m);
      } else {
        inventedRuns++;
        if (caught) inventedCaught++;
      }
    }
  }
}

// Hours in the styles models write them (issue 59, item 5): each labelled answer through the grounding
// stream over its record, today Wednesday, cut into random chunks.
const styled: Record<StyledAnswer['label'], [kept: number, of: number]> = { ok: [0, 0], invented: [0, 0], 'wrong-day': [0, 0] };
for (const a of STYLED_ANSWERS) {
  for (let k = 0; k < CUTS_PER_ANSWER; k++) {
    const evidence = createEvidence(CATALOG, () => 3);
    evidence.addQuestion('what are the hours?');
    evidence.addToolResult(RECORDS[a.record]);
    const g = createTurnGrounding({ catalog: CATALOG, evidence, today: 3, question: 'what are the hours?' });
    let text = '';
    for (const e of randomChunks(a.text)) if (e.type === 'text') text += g.push(e.text);
    text += g.flush();
    const right = a.label === 'ok' ? text === a.text && g.unverified === 0 : !text.includes(a.span!);
    styled[a.label][1]++;
    if (right) styled[a.label][0]++;
  }
}

// The generated corpus (issue 73, item 3): random weeks, honest summaries in fourteen idioms and their
// mutations (tests/support/schedule-corpus.ts), through the grounding stream in random 1-12 character
// pieces, today Wednesday.
const SCHEDULE_WEEKS = 300;
const scheduleCasesRun = scheduleCases(SCHEDULE_WEEKS, 73);
const schedules = new Map<string, { honest: [number, number]; oneDay: [number, number]; invented: [number, number] }>();
const bump = (pair: [number, number], ok: boolean) => {
  pair[1]++;
  if (ok) pair[0]++;
};
for (const c of scheduleCasesRun) {
  const s = schedules.get(c.idiom) ?? { honest: [0, 0], oneDay: [0, 0], invented: [0, 0] };
  const g = (text: string) => groundAnswer(text, { results: [c.record], today: 3, question: 'what are the hours?', chunk: 1 + Math.floor(random() * 12) });
  const honest = g(c.honest);
  bump(s.honest, honest.text === c.honest && honest.unverified === 0);
  if (c.oneDay !== null) bump(s.oneDay, g(c.oneDay).unverified > 0);
  if (c.invented !== null) bump(s.invented, !g(c.invented.text).text.includes(c.invented.value));
  schedules.set(c.idiom, s);
}
const scheduleTotal = (key: 'honest' | 'oneDay' | 'invented'): [number, number] =>
  [...schedules.values()].reduce<[number, number]>((t, s) => [t[0] + s[key][0], t[1] + s[key][1]], [0, 0]);

// Cost per delta: the answer stream with grounding against the same stream with an identity stage.
const config = parseConfig({ AGENT_ENV: 'test', ...FAKE_SECRETS_ENV });
const leaks = leakPolicyFromConfig(config);
const catalog = loadCatalog(null);
const identity = (): GroundingStream => ({
  push: (t) => t,
  flush: () => '',
  reset: () => undefined,
  checked: 0,
  unverified: 0,
  byClass: new Map(),
  unconfirmed: new Set(),
});
const grounded = (c: GroundingCase): GroundingStream => {
  const evidence = createEvidence(catalog);
  evidence.addText(c.query);
  evidence.addText(PROMPT);
  evidence.addToolResult(c.result);
  return createTurnGrounding({ catalog, evidence, today: null });
};
const CLAIM_FREE = 'Gates Hillman Center is on the main campus, next to the Purnell Center. From Doherty Hall walk north across the Cut; the entrance faces Forbes Avenue. ';
const claimFreeCase: GroundingCase = { ...GROUNDING_CORPUS[0]!, honest: CLAIM_FREE.repeat(4) };
const ROUNDS = 15;
const REPEATS = 40;
const perDelta = { corpus: [[], []] as number[][], claimFree: [[], []] as number[][] };
for (let round = 0; round < ROUNDS; round++) {
  for (const which of round % 2 ? [1, 0] : [0, 1]) {
    for (const [key, cases] of [['corpus', GROUNDING_CORPUS], ['claimFree', [claimFreeCase]]] as const) {
      let deltas = 0;
      const t0 = process.cpuUsage();
      for (let r = 0; r < REPEATS; r++) {
        for (const c of cases) {
          const stream = createAnswerStream({ scanner: leaks.stream(PROMPT), grounding: which === 1 ? grounded(c) : identity() });
          for (let i = 0; i < c.honest.length; i += 4) {
            stream.push(c.honest.slice(i, i + 4));
            deltas++;
          }
          stream.finish({ map: NO_MAP, toolsUsed: [c.tool], otherToolFailed: false, query: c.query });
        }
      }
      const used = process.cpuUsage(t0);
      perDelta[key][which]!.push(((used.user + used.system) * 1000) / deltas);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);
const ratio = ([a, b]: [number, number]) => (b === 0 ? 1 : a / b);
const row = (label: string, key: keyof typeof perDelta) => {
  const [floor, check] = [median(perDelta[key][0]!), median(perDelta[key][1]!)];
  return `| ${label} | ${(floor / 1000).toFixed(2)} µs | ${(check / 1000).toFixed(2)} µs | ${(check / floor).toFixed(2)}× |`;
};

const misboundRuns = [...misbound.values()].reduce((n, m) => n + m.planted, 0);
const misboundCaught = [...misbound.values()].reduce((n, m) => n + m.caught, 0);
const lines = [
  '## Grounding: honest answers kept, planted atoms caught, cost per delta (`bench/grounding.bench.ts`)',
  '',
  `Corpus: ${GROUNDING_CORPUS.length} honest answers and ${GROUNDING_CORPUS.reduce((n, c) => n + c.planted.length, 0)} planted atoms ` +
    `(tests/fixtures/grounding-corpus.ts), through the real verify stage, each cut ${CUTS_PER_ANSWER} times into random 1-12 character chunks (seeded).`,
  '',
  '| Figure | Measured | Target |',
  '|---|---:|---:|',
  `| Honest answers kept whole (final = deltas = the answer, 0 unverified) | **${pct(honestWhole, honestRuns)}** (${honestWhole}/${honestRuns}) | ≥ 97% |`,
  `| Planted atoms caught (in no delta and not final, other sentences kept, counted) | **${pct(plantedCaught, plantedRuns)}** (${plantedCaught}/${plantedRuns}) | ≥ 90% |`,
  `| of them invented (a value no evidence holds) | **${pct(inventedCaught, inventedRuns)}** (${inventedCaught}/${inventedRuns}) | ≥ 95% |`,
  `| of them misbound (true elsewhere: another day, place, section, direction) | **${pct(misboundCaught, misboundRuns)}** (${misboundCaught}/${misboundRuns}) | ≥ 80% |`,
  '',
  `Hours in the styles models write them (tests/fixtures/grounding-model-styles.ts: ${STYLED_ANSWERS.length} answers over 6 records in the production shapes, labelled by hand; written here in those styles, not collected from models), each cut ${CUTS_PER_ANSWER} times:`,
  '',
  '| Figure | Measured | Target |',
  '|---|---:|---:|',
  `| error-free answers kept whole | **${pct(styled.ok[0], styled.ok[1])}** (${styled.ok[0]}/${styled.ok[1]}) | ≥ 97% |`,
  `| invented times caught | **${pct(styled.invented[0], styled.invented[1])}** (${styled.invented[0]}/${styled.invented[1]}) | ≥ 95% |`,
  `| right time for the wrong day caught | **${pct(styled['wrong-day'][0], styled['wrong-day'][1])}** (${styled['wrong-day'][0]}/${styled['wrong-day'][1]}) | ≥ 75% |`,
  '',
  `The generated corpus (issue 73; tests/support/schedule-corpus.ts): ${SCHEDULE_WEEKS} random weeks (fast-check, seed 73; closed days, split groups, past-midnight closes, one differing day), ` +
    `each summarised honestly in every idiom that fits it (${scheduleCasesRun.length} summaries), with a one-day error (a day told with another group's hours) and an invented value, ` +
    'each cut into random 1-12 character pieces. Written for the idioms real models use, not from a labelled set:',
  '',
  '| Idiom | Honest kept whole | One-day errors caught | Invented values caught |',
  '|---|---:|---:|---:|',
  ...[...schedules.entries()].map(([idiom, s]) => `| ${idiom} | ${pct(...s.honest)} (${s.honest[1]}) | ${pct(...s.oneDay)} (${s.oneDay[1]}) | ${pct(...s.invented)} (${s.invented[1]}) |`),
  `| **all** (targets ≥ 99%, ≥ 90%, ≥ 98%) | **${pct(...scheduleTotal('honest'))}** (${scheduleTotal('honest')[1]}) | **${pct(...scheduleTotal('oneDay'))}** (${scheduleTotal('oneDay')[1]}) | **${pct(...scheduleTotal('invented'))}** (${scheduleTotal('invented')[1]}) |`,
  '',
  'Misbound atoms by the binding they break (issue 59): caught, and counted `misbound` in `campus.answer.claims`:',
  '',
  '| Binding | Planted | Caught | Counted misbound |',
  '|---|---:|---:|---:|',
  ...[...misbound.entries()].map(([kind, m]) => `| ${kind} | ${m.planted} | ${pct(m.caught, m.planted)} | ${pct(m.counted, m.planted)} |`),
  '',
  '| Claim class | Honest claims checked | Confirmed | Planted | Caught |',
  '|---|---:|---:|---:|---:|',
  ...[...tally.entries()]
    .filter(([, t]) => t.honestChecked + t.planted > 0)
    .map(([cls, t]) => `| ${cls} | ${t.honestChecked} | ${pct(t.honestConfirmed, t.honestChecked)} | ${t.planted} | ${pct(t.caught, t.planted)} |`),
  '',
  `CPU per 4-character delta of the answer stream (leak scanner, grounding, shaping), median of ${ROUNDS} interleaved rounds ` +
    `of ${REPEATS} passes, against the same stream with an identity stage in grounding's place (the floor):`,
  '',
  '| Answers | Floor | With grounding | Ratio |',
  '|---|---:|---:|---:|',
  row(`the corpus's ${GROUNDING_CORPUS.length} honest answers (a claim in most sentences)`, 'corpus'),
  row('a claim-free answer (four paragraphs of directions)', 'claimFree'),
  '',
];
process.stdout.write(lines.join('\n') + '\n');
const ok =
  honestWhole / honestRuns >= 0.97 &&
  inventedCaught / inventedRuns >= 0.95 &&
  misboundCaught / misboundRuns >= 0.8 &&
  styled.ok[0] / styled.ok[1] >= 0.97 &&
  styled.invented[0] / styled.invented[1] >= 0.95 &&
  styled['wrong-day'][0] / styled['wrong-day'][1] >= 0.75 &&
  ratio(scheduleTotal('honest')) >= 0.99 &&
  ratio(scheduleTotal('oneDay')) >= 0.9 &&
  ratio(scheduleTotal('invented')) >= 0.98;
if (!ok) process.exitCode = 1;
