/**
 * Issue 45's corpus (tests/fixtures/grounding-corpus.ts): honest answers pass whole and report no
 * unverified claim; an answer with one planted atom never lets it out, streamed or final, keeps its
 * other sentences, says once that a detail was not confirmed, and counts it in `metadata.grounding`.
 * First through the verify stage at several chunk sizes (a claim split across chunks is the normal
 * case), then over real HTTP on the three chat encodings: the JSON route, the SSE route on a listening
 * server and the OpenAI-compatible stream, with a real MCP tool server returning the production-shaped
 * result and the fake gateway streaming the answer in small chunks after a tool call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import { GROUNDING_CORPUS, plantedAnswer, untouchedSentences, type GroundingCase, type Planted } from './fixtures/grounding-corpus.js';
import { startAdmissionApp, type AdmissionApp } from './support/admission-harness.js';
import { collectSseEvents } from './support/sse.js';
import { startTestMcpServer, type TestMcpServer } from './support/test-mcp-server.js';
import { everyN, makeCtx, runVerify, toolEvent } from './support/verify.js';
import { groundAnswer } from './support/grounding.js';
import { renderSafeText as shown } from '../src/guards/render-safe.js';

/** The corpus's campus time: Wednesday 2026-11-25, 16:04 in Pittsburgh. */
const NOW = new Date('2026-11-25T21:04:00Z');
const PROMPT = 'You are the campus assistant.\n\n# Now\nToday is 2026-11-25 (Wednesday), 16:04 campus time (America/New_York).';
const NOTE = /\n\n_Some details above could not be confirmed from the campus data/;


/** What every planted answer must show, streamed (`deltas`) and final (`text`). */
function expectCaught(c: GroundingCase, p: Planted, deltas: string, text: string, grounding: { unverified: number }) {
  expect(deltas).not.toContain(p.to);
  expect(text).not.toContain(p.to);
  expect(text).toContain('not confirmed)');
  expect(text).toMatch(NOTE);
  expect(text.match(/Some details above could not be confirmed/g)).toHaveLength(1);
  // As the renderer-safe answer writes them (a price's `$` escaped).
  for (const s of untouchedSentences(c, p)) expect(text).toContain(shown(s).trim());
  expect(grounding.unverified).toBeGreaterThanOrEqual(1);
}

const cases = GROUNDING_CORPUS.map((c) => [c.id, c] as const);
const planted = GROUNDING_CORPUS.flatMap((c) => c.planted.map((p) => [`${c.id}: ${p.to}`, c, p] as const));

describe('grounding corpus through the verify stage', () => {
  const ctxOf = (c: GroundingCase) => makeCtx({ query: c.query, systemPrompt: PROMPT, plan: { showMap: false } });
  const turn = (c: GroundingCase, text: string, size: number) => [toolEvent(c.tool, 'campus', true, c.result), { type: 'pass', index: 1 } as const, ...everyN(text, size)];

  it.each(cases)('honest: %s passes whole at every chunk size, with the same claims checked', async (_id, c) => {
    const checked = new Set<number>();
    for (const size of [1, 3, 7, 16, 64, 10_000]) {
      const run = await runVerify(turn(c, c.honest, size), ctxOf(c));
      expect(run.answer!.text).toBe(shown(c.honest));
      expect(run.deltas).toBe(shown(c.honest));
      expect(run.answer!.grounding.unverified).toBe(0);
      expect(run.answer!.grounding.checked).toBeGreaterThan(0);
      checked.add(run.answer!.grounding.checked);
    }
    expect(checked.size).toBe(1);
  });

  it.each(planted)('planted: %s never leaves, at every chunk size', async (_id, c, p) => {
    const text = plantedAnswer(c, p);
    for (const size of [1, 3, 7, 16, 64]) {
      const run = await runVerify(turn(c, text, size), ctxOf(c));
      expectCaught(c, p, run.deltas, run.answer!.text, run.answer!.grounding);
      expect(run.deltas).toBe(run.answer!.text);
    }
  });

  it('without the tool result, the honest answer\'s tool-only atoms are not confirmed', async () => {
    const c = GROUNDING_CORPUS.find((x) => x.id === 'bus, next bus')!;
    const run = await runVerify([{ type: 'pass', index: 1 }, ...everyN(c.honest, 5)], ctxOf(c));
    expect(run.answer!.text).not.toContain('11 minutes');
    expect(run.answer!.grounding).toEqual({ checked: 2, unverified: 1 });
  });
});

describe('grounding corpus: a value true elsewhere is counted misbound (issue 59)', () => {
  const WEDNESDAY = 3;
  const misbound = planted.filter(([, , p]) => p.misbound !== undefined);

  it('the corpus has misbound atoms of every kind', () => {
    expect(new Set(misbound.map(([, , p]) => p.misbound))).toEqual(new Set(['day', 'place', 'section', 'direction', 'heading', 'lead line', 'pronoun', 'guide section']));
  });

  it.each(misbound)('%s: counted misbound, not only unverified', (_id, c, p) => {
    const r = groundAnswer(plantedAnswer(c, p), { results: [c.result], today: WEDNESDAY, question: c.query });
    expect(r.text).not.toContain(p.to);
    expect(r.misbound).toBeGreaterThanOrEqual(1);
  });
});

describe('grounding corpus over real HTTP: JSON, SSE and the OpenAI-compatible stream', () => {
  let mcp: TestMcpServer;
  let h: AdmissionApp;
  let base: string;
  let current: { c: GroundingCase; text: string } | null = null;

  beforeAll(async () => {
    const tools = [...new Map(GROUNDING_CORPUS.map((c) => [c.tool, c])).values()].map((c) => ({
      name: c.tool,
      run: async () => GROUNDING_CORPUS.find((x) => x === current?.c && x.tool === c.tool)?.result ?? '[]',
    }));
    mcp = await startTestMcpServer({ tools });
    h = await startAdmissionApp({ now: () => NOW, campusTools: createMcpCampusTools({ url: mcp.url, logger: silentLogger }) });
    // First pass: the case's tool call (its arguments split across chunks); then the answer in 4-character chunks.
    h.gw.handler = (body: any) => {
      const { c, text } = current!;
      if (!body.messages.some((m: any) => m.role === 'tool')) return { toolCalls: [{ name: c.tool, arguments: c.args ?? {} }] };
      return { text: text.match(/[\s\S]{1,4}/g)! };
    };
    base = await h.listen();
  });

  afterAll(async () => {
    await h?.close();
    await mcp?.close();
  });

  async function allRoutes(c: GroundingCase, text: string) {
    current = { c, text };
    const json = await (await h.post('/agent/respond', { query: c.query })).json();
    const res = await fetch(`${base}/agent/respond/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: c.query }) });
    const events = await collectSseEvents(res.body!);
    const done = events.at(-1)!;
    expect(done.type).toBe('done');
    const v1 = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'campus-agent', stream: true, messages: [{ role: 'user', content: c.query }] }),
    });
    let openai = '';
    for (const line of (await v1.text()).split('\n')) {
      if (!line.startsWith('data: {')) continue;
      openai += JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? '';
    }
    return {
      json,
      sse: { deltas: events.filter((e) => e.type === 'delta').map((e) => e.data.text as string).join(''), done: done.data },
      openai,
    };
  }

  it.each(cases)('honest: %s', async (_id, c) => {
    const { json, sse, openai } = await allRoutes(c, c.honest);
    expect(json.services_used).toEqual([c.tool]);
    expect(json.response_text).toBe(shown(c.honest));
    expect(json.metadata.grounding.unverified).toBe(0);
    expect(json.metadata.grounding.checked).toBeGreaterThan(0);
    expect(sse.deltas).toBe(shown(c.honest));
    expect(sse.done.metadata.grounding).toEqual(json.metadata.grounding);
    expect(openai).toBe(shown(c.honest));
  });

  it.each(planted)('planted: %s', async (_id, c, p) => {
    const { json, sse, openai } = await allRoutes(c, plantedAnswer(c, p));
    expectCaught(c, p, json.response_text, json.response_text, json.metadata.grounding);
    expectCaught(c, p, sse.deltas, sse.done.response_text, sse.done.metadata.grounding);
    expect(sse.deltas).toBe(sse.done.response_text);
    expect(openai).toBe(json.response_text);
  });
});
