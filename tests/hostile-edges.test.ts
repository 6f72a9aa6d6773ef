/**
 * Issue 61, the edges a sweep found under hostile output: each test here failed on the code before it.
 *
 * 1. The leak scanner stays linear when an answer keeps matching overlapping fragments of a configured
 *    secret (a secret with a run such as `0123456789012`, an answer of digits): the findings merge into
 *    one span, and 100,000 such characters in 1-character pushes are scanned in well under the test's
 *    time (the old release walked every finding on every push: 139 s of CPU at 20,000 characters).
 * 2. Every allowed answer cap ends with `done` and the length note when the model sends one character a
 *    chunk: the gateway response's byte bound grows with the cap (it was derived from MAX_OUTPUT_TOKENS
 *    alone, and ended 100,000-character answers near 40,000 as "model unavailable").
 * 3. An answer full of details grounding marks "not confirmed" stays within the cap, marks, the cut note
 *    and the grounding note included (a 60,000-character answer of `$1,` went out as 146,905 characters).
 * 4. Expected refusals (a spent service cap, overload) are counted and logged at info, never at error.
 * 6. Sandbox tools read prototype keys (`__proto__`, `constructor`) as words, and refuse over-long
 *    arguments before reading them (through the real MCP server and the service's MCP client).
 * (Item 5, the understated price, is tests/spend-understated-price.test.ts: two replicas on Postgres.)
 *
 * Through the real service: the composition root (buildDeps) wired to the fake gateway over HTTP, served
 * on a listening socket for the stream route.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { ANSWER_CUT_NOTE } from '../src/guards/answer-stream.js';
import { createLogger, silentLogger } from '../src/logger.js';
import { createOverloadGuard } from '../src/lifecycle/overload.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import { createLeakPolicy, REDACTED } from '../src/security/leak-policy.js';
import { Findings } from '../src/security/leak-scanner/reading.js';
import { MAX_ARGUMENT_CHARS, startSandboxToolServer, type SandboxToolServer } from '../src/sandbox/campus/tool-server.js';
import { buildDeps } from '../src/server/build-deps.js';
import type { CampusTools } from '../src/tools/campus-tools.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import { closeAfterEach } from './support/cleanup.js';
import { startAdmissionApp } from './support/admission-harness.js';
import { createTestDeps, testConfig } from './support/deps.js';
import { gatewayClient, startFakeGateway, type FakeReply } from './support/fake-gateway.js';
import { listen } from './support/listen.js';
import { collectSseEvents } from './support/sse.js';

const defer = closeAfterEach();

/** A configured key with a run the digits of an answer keep matching, overlapping. */
const RUN_SECRET = 'sk-Zq012345678901234XYZ98765';

describe('the leak scanner under overlapping findings', () => {
  it('keeps overlapping and touching spans as one, whatever order they arrive in', () => {
    const f = new Findings();
    for (let i = 0; i < 10_000; i++) f.add(i * 3, i * 3 + 13);
    expect(f.count).toBe(1);
    f.add(40_000, 40_010);
    f.add(40_020, 40_030);
    f.add(40_010, 40_020);
    expect(f.count).toBe(2);
    expect([f.starts, f.ends]).toEqual([
      [0, 40_000],
      [30_010, 40_030],
    ]);
    // A span reported from text already released is kept from the release on.
    f.floor = 50_000;
    f.add(49_990, 50_005);
    expect(f.starts.at(-1)).toBe(50_000);
  });

  it('scans 100,000 characters of the worst answer in 1-character pushes, redacting it whole', () => {
    const policy = createLeakPolicy({ random: [RUN_SECRET], names: [] });
    const scanner = policy.stream();
    const answer = `Here: ${'0123456789'.repeat(10_000)} done.`;
    const started = process.cpuUsage();
    let out = '';
    for (const c of answer) out += scanner.push(c);
    out += scanner.flush();
    const cpu = process.cpuUsage(started);
    expect(out).toBe(`Here: ${REDACTED} done.`);
    // A safety bound far above the linear cost (about 0.2 s here), far below the old quadratic one
    // (minutes at a fifth of this length). The per-character figures are `npm run bench -- guards`.
    expect((cpu.user + cpu.system) / 1e6).toBeLessThan(10);
  });
});

/** The real service (buildDeps) with the chat model on a fake gateway, listening on loopback. */
async function serviceWith(env: Record<string, string>, reply: () => FakeReply) {
  const gw = await startFakeGateway();
  defer(() => gw.close());
  gw.handler = reply;
  const config = testConfig({
    LLM_GATEWAY_API_KEY: 'sk-test-edges-key',
    LLM_GATEWAY_BASE_URL: gw.baseUrl,
    TOKEN_USAGE_DB: join(mkdtempSync(join(tmpdir(), 'edges-')), 'usage.sqlite'),
    DAILY_TOKEN_LIMIT: '100000000',
    ...env,
  });
  const built = await buildDeps({
    config,
    logger: silentLogger,
    leaks: createLeakPolicy({ random: [], names: [] }),
    overrides: { memory: createInMemoryStore({ embeddingModel: null }) },
  });
  defer(() => built.close(5_000));
  const server = await listen(createApp(built.deps).fetch);
  defer(() => server.close());
  return {
    gw,
    async stream(query: string) {
      const res = await fetch(`${server.base}/agent/respond/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return collectSseEvents(res.body!);
    },
    async json(query: string) {
      const res = await fetch(`${server.base}/agent/respond`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return { status: res.status, body: await res.json() };
    },
  };
}

describe('every answer cap ends with done and the note, a character a chunk', () => {
  for (const cap of [2_000, 20_000, 100_000]) {
    it(`MAX_ANSWER_CHARS=${cap}: an endless answer in 1-character deltas`, async () => {
      const sentence = 'Gates has quiet rooms upstairs. ';
      const text = [...sentence.repeat(Math.ceil((cap + 5_000) / sentence.length))];
      const s = await serviceWith({ MAX_ANSWER_CHARS: String(cap) }, () => ({ text, ignoreMaxTokens: true }));
      const events = await s.stream('tell me everything about Gates');
      const done = events.at(-1)!;
      expect(done.type).toBe('done');
      const answer = done.data.response_text as string;
      expect(answer.endsWith(ANSWER_CUT_NOTE.trim())).toBe(true);
      expect(answer.length).toBeLessThanOrEqual(cap);
      expect(answer.length).toBeGreaterThan(cap - 1_500);
      expect(events.filter((e) => e.type === 'delta').map((e) => e.data.text).join('')).toBe(answer);
    }, 60_000);
  }
});

describe('marks and notes stay inside the cap', () => {
  // The gateway stalls after its text: only the service ending the call ends the turn.
  const priced = () => ({ text: '$1,'.repeat(20_000).match(/.{1,30}/gs)!, ignoreMaxTokens: true, hang: true });

  it('an answer of 60,000 characters of unconfirmed prices: within the cap on both routes', async () => {
    const s = await serviceWith({}, priced);
    const events = await s.stream('what does everything cost?');
    const done = events.at(-1)!;
    expect(done.type).toBe('done');
    const answer = done.data.response_text as string;
    expect(answer.length).toBeLessThanOrEqual(20_000);
    expect(answer).toContain('(price not confirmed)');
    expect(answer).toContain(ANSWER_CUT_NOTE.trim());
    expect(answer).toMatch(/could not be confirmed/);
    expect(events.filter((e) => e.type === 'delta').map((e) => e.data.text).join('')).toBe(answer);
    // Full at the cap, the model was read no further: its call was ended.
    await s.gw.waitForAbort();

    const { status, body } = await s.json('what does everything cost?');
    expect(status).toBe(200);
    expect(body.response_text.length).toBeLessThanOrEqual(20_000);
    expect(body.response_text).toContain(ANSWER_CUT_NOTE.trim());
  }, 60_000);
});

describe('expected refusals are quiet in the log', () => {
  it('a spent service cap: no error line per refused turn on any route, one warning a day, each refusal counted at info', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'debug', sink: (line) => lines.push(JSON.parse(line)) });
    const h = await startAdmissionApp({ env: { SERVICE_DAILY_SPEND_LIMIT_USD: '0.000001' }, logger });
    defer(() => h.close());
    const base = await h.listen();
    const send = (path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push((await send('/agent/respond', { query: `hello ${i}` })).status);
      statuses.push((await send('/agent/respond/stream', { query: `hello ${i}` })).status);
      statuses.push((await send('/v1/chat/completions', { model: 'campus-agent', messages: [{ role: 'user', content: `hi ${i}` }] })).status);
    }
    expect(statuses).toEqual(Array(30).fill(503));
    expect(h.chatCalls()).toBe(0);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines.filter((l) => l.msg === 'request refused' && l.reason === 'service_cap' && l.level === 'info')).toHaveLength(30);
    expect(lines.filter((l) => l.level === 'info' && JSON.stringify(l).includes('stack'))).toEqual([]);
    expect(lines.filter((l) => l.level === 'warn' && /spending cap reached/.test(String(l.msg)))).toHaveLength(1);
  });

  it('an overloaded replica: the 503s are counted and logged at most at warn, once a second', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'debug', sink: (line) => lines.push(JSON.parse(line)) });
    const refusals: string[] = [];
    const gw = await startFakeGateway();
    defer(() => gw.close());
    const deps = await createTestDeps({
      logger,
      gateway: gatewayClient(gw),
      overload: createOverloadGuard({
        limits: { maxOpenTurns: 0, maxLoopDelayMs: 0, maxHeapPercent: 1 },
        turns: { size: 0 } as never,
        logger,
        readings: { loopDelayMs: () => 0, heapPercent: () => 99 },
        onRefusal: (reason) => refusals.push(reason),
      }),
    });
    const app = createApp(deps);
    for (let i = 0; i < 20; i++) {
      const res = await app.request('/agent/respond', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'hi' }) });
      expect(res.status).toBe(503);
      expect((await res.json()).error).toBe('service overloaded');
    }
    expect(refusals).toHaveLength(20);
    expect(gw.chatRequests()).toHaveLength(0);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines.filter((l) => l.level === 'warn').length).toBeLessThanOrEqual(2);
  });
});

describe('sandbox tools under hostile arguments', () => {
  let sandbox: SandboxToolServer;
  let tools: CampusTools;
  beforeAll(async () => {
    sandbox = await startSandboxToolServer({ port: 0, host: '127.0.0.1' });
    tools = createMcpCampusTools({ url: sandbox.url, logger: silentLogger });
  });
  afterAll(async () => {
    await tools?.close();
    await sandbox?.close();
  });
  const call = (name: string, args: Record<string, unknown>) => tools.call(name, args, new AbortController().signal);

  it('reads prototype keys as words: an unknown place or stop, never a throw', async () => {
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      // An unknown place is no error in the production shape (CAMPUS_TOOLS.md): it resolves to no stop.
      const next = await call('bus_get_next_bus', { place: key });
      expect(next.ok, next.text).toBe(true);
      expect(JSON.parse(next.text).resolution).toEqual({ place: { query: key, stop_id: null } });
      const stop = await call('bus_get_stop_predictions', { stop_id: key });
      expect(JSON.parse(stop.text)).toMatchObject({ status: 'input_error', error: { code: 'unknown_stop' } });
      for (const [tool, arg] of [['maps_search_buildings', 'query'], ['guide_search_guide', 'query'], ['eats_search_dining_locations', 'name_query'], ['courses_search_courses_by_query', 'query']] as const) {
        const r = await call(tool, { [arg]: key });
        expect(r.text, `${tool} ${key}`).not.toMatch(/Error executing tool|TypeError|is not a function/);
      }
    }
  });

  it('bounds every string argument: a 1,000,000-character query is refused before any tool reads it', async () => {
    const huge = 'gates '.repeat(170_000);
    const bus = await call('bus_search_bus_predictions', { query: huge });
    expect(JSON.parse(bus.text)).toMatchObject({ status: 'input_error', error: { code: 'argument_too_long' } });
    for (const [tool, arg] of [['maps_search_buildings', 'query'], ['guide_search_guide', 'query'], ['eats_search_dining_locations', 'name_query'], ['courses_fetch_course_by_id', 'course_id']] as const) {
      const started = performance.now();
      const r = await call(tool, { [arg]: huge });
      expect(r.ok).toBe(false);
      expect(r.text).toContain(`longer than ${MAX_ARGUMENT_CHARS} characters`);
      expect(performance.now() - started).toBeLessThan(5_000);
    }
    // An honest query still answers.
    const gates = await call('maps_search_buildings', { query: 'Gates' });
    expect(gates.ok).toBe(true);
    expect(gates.text).toContain('Gates');
  });
});
