/**
 * Telemetry end to end: the real entry point exporting OTLP/HTTP JSON to a collector served by this
 * test, a real MCP tool server, the fake gateway. A tool turn on the stream route and one on the JSON
 * route each leave one trace with the HTTP, agent, admission, planning, model-pass, tool, verify and
 * deliver spans and their GenAI attributes; memory extraction (a job on the Postgres queue, PGlite here)
 * is a trace of its own linked to the turn;
 * the gen_ai.client.* and service metrics arrive; an incoming `traceparent` is continued and the turn's
 * log lines carry its trace id and request id. Nothing exported holds the message, the answer, the fact, the tool
 * arguments, a configured secret or the clear user id.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { until } from './support/until.js';
import { startTestPostgres, type TestPostgres } from './support/postgres.js';
import { spawnService, type ServiceProcess } from './support/spawn-service.js';
import { collectSseEvents } from './support/sse.js';
import { startTestMcpServer, type TestMcpServer } from './support/test-mcp-server.js';

interface Exported {
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
  body: any;
}

/** An OTLP/HTTP collector: records every export request (JSON protocol). */
async function startCollector(): Promise<{ url: string; received: Exported[]; close: () => Promise<void> }> {
  const received: Exported[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    received.push({ path: req.url ?? '', headers: req.headers, raw, body: JSON.parse(raw) });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((r) => server.close(() => r())) };
}

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  status: { code?: number };
}

const attrValue = (v: any): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? v.arrayValue?.values?.map(attrValue);

function spansOf(received: Exported[]): Span[] {
  const out: Span[] = [];
  for (const r of received.filter((e) => e.path === '/v1/traces')) {
    for (const rs of r.body.resourceSpans ?? [])
      for (const ss of rs.scopeSpans ?? [])
        for (const s of ss.spans ?? [])
          out.push({
            ...s,
            attributes: Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, attrValue(a.value)])),
            links: s.links ?? [],
            status: s.status ?? {},
          });
  }
  return out;
}

/** The attributes of every data point exported for metric `name` (OTLP JSON), as flat objects. */
function dataPointAttributes(received: Exported[], name: string): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [];
  for (const r of received.filter((e) => e.path === '/v1/metrics'))
    for (const rm of r.body.resourceMetrics ?? [])
      for (const sm of rm.scopeMetrics ?? [])
        for (const m of (sm.metrics ?? []).filter((x: any) => x.name === name))
          for (const p of m.sum?.dataPoints ?? [])
            out.push(Object.fromEntries((p.attributes ?? []).map((a: any) => [a.key, String(a.value?.stringValue ?? '')])));
  return out;
}

function metricNames(received: Exported[]): Set<string> {
  const names = new Set<string>();
  for (const r of received.filter((e) => e.path === '/v1/metrics'))
    for (const rm of r.body.resourceMetrics ?? []) for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) names.add(m.name);
  return names;
}

const SHARED_SECRET = 'tele-shared-secret-Zq81mXv40pLk2Jd7Wc9aR3tY';
const GATEWAY_KEY = 'sk-tele-gateway-key-8842vnq';
const COLLECTOR_KEY = 'collector-key-55xq0pzv7';
const USER_ID = 'student-zx9917';
const QUERY = 'Where is Wean Hall? I need it for my quokka-lantern seminar';
// One hour the tool gave (7 AM) and one it did not (11 PM): grounding's counter sees both outcomes.
const ANSWER = 'Wean Hall is on the north edge of the mall, beside the marmoset-clocktower. It opens at 7 AM and closes at 11 PM.';
const TOOL_ARG = 'wean-heron-argument';
const TOOL_RESULT = 'Wean Hall (WEH): pelican-result-block, open from 07:00';
const FACT = 'Attends the quokka-lantern seminar';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const HOSTILE = 'hostile-tool-names please';
const CACHED = 'cached-prefix please';
const CONFIGURED_SECRETS = [SHARED_SECRET, GATEWAY_KEY, COLLECTOR_KEY];
const PARENT_SPAN = '00f067aa0ba902b7';

describe('telemetry export (OTLP/HTTP JSON)', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let gw: FakeGateway;
  let mcp: TestMcpServer;
  let service: ServiceProcess;
  let pg: TestPostgres;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    collector = await startCollector();
    closers.push(() => collector.close());
    // Postgres, so extraction goes through the job queue: its trace links to the turn by `traceparent`.
    pg = await startTestPostgres();
    closers.push(() => pg.stop());
    mcp = await startTestMcpServer({ tools: [{ name: 'maps_search_buildings', run: async () => TOOL_RESULT }] });
    closers.push(() => mcp.close());
    gw = await startFakeGateway();
    closers.push(() => gw.close());
    gw.handler = (body: any) => {
      if (body?.response_format?.type === 'json_object') return { text: JSON.stringify({ operations: [{ op: 'add', text: FACT }] }) };
      const toolDone = body.messages.some((m: any) => m.role === 'tool');
      // A provider that served most of the prompt from its cache says so in its usage.
      if (JSON.stringify(body.messages).includes(CACHED)) return { text: 'Cached answer.', usage: { prompt_tokens: 2_048, completion_tokens: 3, cached_tokens: 1_920 } };
      // A hostile model writes every configured secret as a tool name and as a tool call id.
      if (JSON.stringify(body.messages).includes(HOSTILE) && body.tools && !toolDone) {
        return { toolCalls: CONFIGURED_SECRETS.flatMap((secret) => [{ name: secret, arguments: {}, id: secret }, { name: 'maps_search_buildings', arguments: { query: 'x' }, id: secret }]) };
      }
      if (body.tools && !toolDone) return { toolCalls: [{ name: 'maps_search_buildings', arguments: { query: TOOL_ARG } }] };
      return { text: ANSWER.match(/.{1,12}/g)! };
    };
    service = await spawnService({
      entry: 'source',
      env: {
        AGENT_ENV: 'test',
        AGENT_SHARED_SECRET: SHARED_SECRET,
        DATABASE_URL: pg.url,
        LLM_GATEWAY_API_KEY: GATEWAY_KEY,
        LLM_GATEWAY_BASE_URL: gw.baseUrl,
        MCP_SERVER_URL: mcp.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${COLLECTOR_KEY}`,
        OTEL_SERVICE_NAME: 'campus-agent-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_METRIC_EXPORT_INTERVAL: '300',
        // A cap far above what the test spends: the service's spend against it is exported (issue 47).
        SERVICE_DAILY_SPEND_LIMIT_USD: '100',
      },
    });
    closers.push(() => service.stop('SIGKILL'));
  }, 60_000);

  afterAll(async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(service.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SHARED_SECRET}`, ...headers },
      body: JSON.stringify(body),
    });

  /** The spans of one trace, once its server span (the last to end) has arrived. */
  const traceOf = (route: string) =>
    until(`the trace of ${route}`, () => {
      const spans = spansOf(collector.received);
      const server = spans.find((s) => s.name === `POST ${route}`);
      return server ? spans.filter((s) => s.traceId === server.traceId) : undefined;
    });

  function expectTurnTrace(spans: Span[], route: string): Span {
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const server = byName(`POST ${route}`)[0]!;
    expect(server.kind).toBe(2); // SERVER
    expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': route, 'http.response.status_code': 200 });
    const agent = byName('invoke_agent campus-assistant')[0]!;
    expect(agent.parentSpanId).toBe(server.spanId);
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.request.model': 'openai/gpt-4o-mini',
      'campus.turn.outcome': 'completed',
    });
    expect(agent.attributes['campus.user.hash']).toMatch(/^[0-9a-f]{16}$/);
    const childOf = (parent: Span, name: string) => {
      const s = spans.find((x) => x.name === name && x.parentSpanId === parent.spanId);
      expect(s, `${name} under ${parent.name}`).toBeDefined();
      return s!;
    };
    const admission = childOf(agent, 'admission');
    childOf(admission, 'budget');
    childOf(admission, 'moderation');
    childOf(agent, 'plan');
    childOf(agent, 'tools.discover');
    childOf(agent, 'verify');
    childOf(agent, 'deliver');
    const passes = spans.filter((s) => s.name === 'chat openai/gpt-4o-mini' && s.parentSpanId === agent.spanId);
    expect(passes).toHaveLength(2);
    for (const pass of passes) {
      expect(pass.kind).toBe(3); // CLIENT
      expect(pass.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'openai/gpt-4o-mini',
        'gen_ai.response.model': 'openai/gpt-4o-mini',
      });
      expect(pass.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(pass.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      expect(pass.attributes['campus.time_to_first_chunk_ms']).toBeGreaterThanOrEqual(0);
    }
    expect(passes.map((p) => p.attributes['gen_ai.response.finish_reasons']).sort()).toEqual([['stop'], ['tool_calls']]);
    const tool = childOf(agent, 'execute_tool maps_search_buildings');
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'maps_search_buildings' });
    expect(tool.status.code ?? 0).not.toBe(2);
    return agent;
  }

  it('exports one trace per tool turn (stream and JSON routes), extraction linked, metrics, and nothing secret or personal', async () => {
    const stream = await post('/agent/respond/stream', { query: QUERY, user_id: USER_ID });
    expect(stream.status).toBe(200);
    const events = await collectSseEvents(stream.body!);
    expect(events.at(-1)!.type).toBe('done');
    const streamTrace = await traceOf('/agent/respond/stream');
    const streamAgent = expectTurnTrace(streamTrace, '/agent/respond/stream');

    const json = await post('/agent/respond', { query: QUERY, user_id: USER_ID });
    expect(json.status).toBe(200);
    expect((await json.json()).response_text).toContain('Wean Hall');
    const jsonTrace = await traceOf('/agent/respond');
    expectTurnTrace(jsonTrace, '/agent/respond');
    expect(jsonTrace[0]!.traceId).not.toBe(streamTrace[0]!.traceId);

    // Extraction after the stream turn: a job on the Postgres queue, a trace of its own linked to the
    // turn (carried as a traceparent in the job), with its model call.
    const extraction = await until('the extraction span', () =>
      spansOf(collector.received).find((s) => s.name === 'memory-extraction' && s.links.some((l) => l.spanId === streamAgent.spanId)),
    );
    expect(extraction.traceId).not.toBe(streamAgent.traceId);
    expect(extraction.parentSpanId ?? '').toBe('');
    await until('the extraction model call', () =>
      spansOf(collector.received).find((s) => s.traceId === extraction.traceId && s.name.startsWith('chat ')),
    );

    // Cumulative exports every 300 ms: wait for one that holds every metric (a turn's own metrics are
    // recorded when it ends, after its model and tool metrics).
    const expected = [
      'gen_ai.client.token.usage',
      'gen_ai.client.operation.duration',
      'campus.turns',
      'campus.turn.duration',
      'campus.turn.time_to_first_delta',
      'campus.turns.open',
      'campus.tool.duration',
      'campus.answer.claims',
      'campus.model.spend',
      'campus.budget.service_spend',
      'campus.budget.service_spend_limit',
    ];
    const names = await until('the metrics', () => {
      const n = metricNames(collector.received);
      return expected.every((m) => n.has(m)) ? n : undefined;
    }).catch(() => metricNames(collector.received));
    for (const m of expected) expect(names, m).toContain(m);
    // Grounding's claims by class and outcome: counts only, the claim's text never.
    const claims = dataPointAttributes(collector.received, 'campus.answer.claims');
    expect(claims).toContainEqual({ 'campus.claim.class': 'time', 'campus.claim.outcome': 'verified' });
    expect(claims).toContainEqual({ 'campus.claim.class': 'time', 'campus.claim.outcome': 'unverified' });
    // Spend by model and purpose: the turns' passes and the extraction (issue 47).
    const spend = await until('the extraction spend', () => {
      const points = dataPointAttributes(collector.received, 'campus.model.spend');
      return points.some((p) => p['campus.spend.purpose'] === 'extraction') ? points : undefined;
    });
    expect(spend).toContainEqual({ 'gen_ai.request.model': 'openai/gpt-4o-mini', 'campus.spend.purpose': 'chat' });

    // Every export carried the collector's header; none carried what must never leave.
    expect(collector.received.every((r) => r.headers['x-api-key'] === COLLECTOR_KEY)).toBe(true);
    const everything = collector.received.map((r) => r.raw).join('\n');
    expect(everything).toContain('campus-agent-test');
    for (const secret of [QUERY, 'quokka', 'marmoset', TOOL_ARG, 'heron', 'pelican', FACT, SHARED_SECRET, GATEWAY_KEY, COLLECTOR_KEY, USER_ID]) {
      expect(everything, secret).not.toContain(secret);
    }
  }, 60_000);

  it('reports the input tokens the provider served from its cache: span attribute and metric', async () => {
    const res = await post('/agent/respond', { query: `thanks! ${CACHED}` });
    expect(res.status).toBe(200);
    await res.json();
    const chat = await until('the chat span with cached tokens', () =>
      spansOf(collector.received).find((s) => s.name.startsWith('chat ') && s.attributes['gen_ai.usage.cache_read.input_tokens'] !== undefined),
    );
    expect(chat.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 2_048, 'gen_ai.usage.cache_read.input_tokens': 1_920 });
    await until('the cached-token metric', () => metricNames(collector.received).has('campus.model.cached_input_tokens'));
  }, 60_000);

  it('a model that writes each configured secret as a tool name and a call id puts none in any export', async () => {
    const res = await post('/agent/respond', { query: `Where is Wean Hall? ${HOSTILE}` });
    expect(res.status).toBe(200);
    await res.json();
    const spans = await until('the hostile turn’s tool spans', () => {
      const found = spansOf(collector.received).filter((s) => s.name.startsWith('execute_tool '));
      return found.filter((s) => s.name === 'execute_tool unknown').length >= CONFIGURED_SECRETS.length ? found : undefined;
    });
    // Named tools keep their name; the ids the model wrote are secrets, so no span carries them.
    const offered = spans.filter((s) => s.name === 'execute_tool maps_search_buildings' && s.attributes['gen_ai.tool.call.id'] === undefined);
    expect(offered.length).toBeGreaterThanOrEqual(CONFIGURED_SECRETS.length);
    // A metric export after the turn: its tool series are `unknown`, never a secret.
    const exportsBefore = collector.received.length;
    await until('a metric export after the turn', () => collector.received.slice(exportsBefore).some((r) => r.path === '/v1/metrics'));
    const everything = collector.received.map((r) => r.raw).join('\n');
    expect(everything).toContain('"unknown"');
    for (const secret of CONFIGURED_SECRETS) expect(everything, secret).not.toContain(secret);
  }, 60_000);

  it('continues an incoming traceparent, and the turn’s log lines carry its trace id and request id', async () => {
    // A failing tool, so the turn writes a line of its own besides the access line.
    mcp.setTools([{ name: 'maps_search_buildings', run: async () => { throw new Error('tool server down'); } }]);
    const res = await post('/agent/respond', { query: QUERY }, { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    await res.json();
    const spans = await until('the continued trace', () => {
      const found = spansOf(collector.received).filter((s) => s.traceId === TRACE_ID);
      return found.some((s) => s.name === 'POST /agent/respond') ? found : undefined;
    });
    const server = spans.find((s) => s.name === 'POST /agent/respond')!;
    expect(server.parentSpanId).toBe(PARENT_SPAN);
    expect(spans.some((s) => s.name === 'invoke_agent campus-assistant' && s.parentSpanId === server.spanId)).toBe(true);

    const lines = service.logs.filter((l) => l.request_id === requestId);
    // The access line, the turn's own line about the failed tool, and grounding's counts (the answer
    // states two hours and the failed tool confirmed neither): numbers only, never the claim.
    expect(lines.map((l) => l.msg).sort()).toEqual(['answer details not confirmed', 'campus tool failed', 'request']);
    const grounding = lines.find((l) => l.msg === 'answer details not confirmed')!;
    expect({ checked: grounding.checked, unverified: grounding.unverified }).toEqual({ checked: 2, unverified: 2 });
    expect(JSON.stringify(grounding)).not.toMatch(/7 AM|11 PM/);
    for (const line of lines) expect(line.trace_id, String(line.msg)).toBe(TRACE_ID);
    const traced = service.logs.filter((l) => l.trace_id === TRACE_ID);
    for (const line of traced) expect(line.request_id, String(line.msg)).toBe(requestId);
  }, 60_000);
});
