/**
 * The MCP campus tools client against a real MCP server over Streamable HTTP: discovery and its cache,
 * groups and trimmed descriptions, list_changed, session loss, timeouts, failures and a dead server.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, silentLogger, type Logger } from '../src/logger.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import { startTestMcpServer, type TestTool } from './support/test-mcp-server.js';
import { closeAfterEach } from './support/cleanup.js';

const defer = closeAfterEach();

async function setup(tools: TestTool[], opts: { now?: () => number; callTimeoutMs?: number; logger?: Logger } = {}) {
  const server = await startTestMcpServer({ tools });
  const client = createMcpCampusTools({ url: server.url, logger: silentLogger, ...opts });
  defer(() => server.close());
  defer(() => client.close());
  return { server, client };
}

const signal = () => new AbortController().signal;
const tool = (name: string, run: TestTool['run'] = async () => `${name} result`, description?: string): TestTool => ({
  name,
  run,
  ...(description && { description }),
});

describe('MCP campus tools: discovery', () => {
  it('lists tools with groups, trimmed descriptions, and drops a server-side maps_show_map', async () => {
    const description =
      'Search dining locations by name, formatted as clean markdown.\n\nArgs:\n    name_query: part of the name\n\nReturns a markdown list of places.';
    const { client } = await setup([
      tool('eats_search_dining_locations', undefined, description),
      tool('bus_get_next_bus'),
      tool('parking_find_spots'),
      tool('maps_show_map'),
      tool('courses_fetch_course_by_id'),
    ]);
    const tools = await client.list();
    expect(tools.map((t) => [t.name, t.group])).toEqual([
      ['eats_search_dining_locations', 'eats'],
      ['bus_get_next_bus', 'bus'],
      ['parking_find_spots', null],
      ['courses_fetch_course_by_id', 'courses'],
    ]);
    expect(tools[0]?.description).toBe('Search dining locations by name.\nArgs:\n    name_query: part of the name');
    expect(tools[0]?.inputSchema.type).toBe('object');
  });

  it('keeps a tool of a group it does not know, and says so once, by name only', async () => {
    const lines: string[] = [];
    let t = 0;
    const { server, client } = await setup([tool('parking_find_spots', undefined, 'Find free parking spots near a building.'), tool('eats_a')], {
      now: () => t,
      logger: createLogger({ sink: (line) => lines.push(line) }),
    });
    expect((await client.list()).map((x) => [x.name, x.group])).toEqual([['parking_find_spots', null], ['eats_a', 'eats']]);
    t = 60_001;
    server.setTools([tool('parking_find_spots'), tool('eats_a')]);
    await client.list();
    expect(server.listCount).toBe(2);
    const said = lines.filter((l) => l.includes('unknown group'));
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0]!)).toMatchObject({ level: 'warn', tool: 'parking_find_spots' });
    expect(said[0]).not.toContain('Find free parking');
  });

  it('caches the list for 60 s with a single flight, then refreshes', async () => {
    let t = 0;
    const { server, client } = await setup([tool('eats_a')], { now: () => t });
    await Promise.all([client.list(), client.list(), client.list()]);
    expect(server.listCount).toBe(1);
    t = 59_000;
    await client.list();
    expect(server.listCount).toBe(1);
    t = 60_001;
    server.setTools([tool('eats_a'), tool('eats_b')]);
    expect((await client.list()).map((x) => x.name)).toEqual(['eats_a', 'eats_b']);
    expect(server.listCount).toBe(2);
  });

  it('refreshes on notifications/tools/list_changed', async () => {
    const { server, client } = await setup([tool('eats_a')], { now: () => 0 });
    await client.list();
    server.setTools([tool('guide_search_guide')]);
    await server.notifyToolsChanged();
    // The notification arrives on the session's SSE stream; poll the client (no sleeps) until it sees it.
    let names: string[] = [];
    for (let i = 0; i < 200 && names[0] !== 'guide_search_guide'; i++) {
      names = (await client.list()).map((x) => x.name);
      if (names[0] !== 'guide_search_guide') await new Promise((r) => setImmediate(r));
    }
    expect(names).toEqual(['guide_search_guide']);
  });

  it('answers an empty list for a dead server and retries after 15 s', async () => {
    let t = 0;
    const server = await startTestMcpServer({ tools: [tool('eats_a')] });
    const url = server.url;
    await server.close();
    let attempts = 0;
    const fetch: typeof globalThis.fetch = (input, init) => {
      attempts++;
      return globalThis.fetch(input, init);
    };
    const client = createMcpCampusTools({ url, logger: silentLogger, now: () => t, fetch });
    defer(() => client.close());
    expect(await client.list()).toEqual([]);
    const afterFirst = attempts;
    expect(afterFirst).toBeGreaterThan(0);
    t = 14_000;
    expect(await client.list()).toEqual([]);
    expect(attempts).toBe(afterFirst);
    t = 15_001;
    expect(await client.list()).toEqual([]);
    expect(attempts).toBeGreaterThan(afterFirst);
  });
});

describe('MCP campus tools: calls', () => {
  it('calls a tool and returns its text', async () => {
    const { server, client } = await setup([tool('courses_fetch_course_by_id', async (args) => JSON.stringify({ courseID: args.course_id }))]);
    const res = await client.call('courses_fetch_course_by_id', { course_id: '15-122' }, signal());
    expect(res).toEqual({ ok: true, text: '{"courseID":"15-122"}' });
    expect(server.calls[0]).toMatchObject({ name: 'courses_fetch_course_by_id', args: { course_id: '15-122' } });
  });

  it('reports isError results and thrown tools as not ok', async () => {
    const { client } = await setup([
      tool('eats_bad', async () => ({ text: "Error calling tool 'bad': upstream 500", isError: true })),
      tool('eats_throw', async () => {
        throw new Error('boom');
      }),
    ]);
    expect((await client.call('eats_bad', {}, signal())).ok).toBe(false);
    expect((await client.call('eats_throw', {}, signal())).ok).toBe(false);
  });

  it('times a slow tool out', async () => {
    const { client } = await setup([tool('eats_slow', (_a, { signal: s }) => new Promise((r) => s.addEventListener('abort', () => r('late'))))], {
      callTimeoutMs: 100,
    });
    const res = await client.call('eats_slow', {}, signal());
    expect(res.ok).toBe(false);
  });

  it('re-initialises after the server lost the session', async () => {
    const { server, client } = await setup([tool('eats_a')]);
    await client.call('eats_a', {}, signal());
    const firstSession = server.calls[0]?.session;
    server.dropSessions();
    const res = await client.call('eats_a', {}, signal());
    expect(res).toEqual({ ok: true, text: 'eats_a result' });
    expect(server.calls[1]?.session).toBeDefined();
    expect(server.calls[1]?.session).not.toBe(firstSession);
  });

  it('answers not ok when the server is gone', async () => {
    const { server, client } = await setup([tool('eats_a')]);
    await client.list();
    await server.close();
    expect((await client.call('eats_a', {}, signal())).ok).toBe(false);
  });
});
