/**
 * The sandbox campus tool server through the MCP SDK client over Streamable HTTP: the published tool
 * list matches CAMPUS_TOOLS.md, every tool answers in the production shape, and the realistic failures
 * (unknown course, out-of-range hours, not-found sentences) come back the way production sends them.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxToolServer, type SandboxToolServer } from '../src/sandbox/campus/tool-server.js';

// A Wednesday at 12:30 in New York (EST, UTC-5) and a Sunday at 04:00, to judge open/closed.
const WEDNESDAY_NOON = new Date('2026-11-18T17:30:00Z');
const SUNDAY_4AM = new Date('2026-11-22T09:00:00Z');

let clock = WEDNESDAY_NOON;
let sandbox: SandboxToolServer;
let client: Client;

async function connect(url: string): Promise<Client> {
  const c = new Client({ name: 'sandbox-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

async function call(name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text: string }>;
  expect(content).toHaveLength(1);
  return { isError: result.isError === true, text: content[0]!.text };
}

const json = async (name: string, args: Record<string, unknown> = {}) => {
  const r = await call(name, args);
  expect(r.isError).toBe(false);
  return JSON.parse(r.text);
};

beforeAll(async () => {
  sandbox = await startSandboxToolServer({ port: 0, host: '127.0.0.1', now: () => clock });
  client = await connect(sandbox.url);
});

afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

describe('tools/list', () => {
  it('publishes the five groups with the production names and argument names, and no maps_show_map', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const expected: Record<string, string[]> = {
      maps_search_buildings: ['query'],
      maps_get_path: ['start_id', 'end_id'],
      maps_list_possible_locations: ['query'],
      maps_distance_between: ['start_id', 'end_id'],
      courses_fetch_course_by_id: ['course_id'],
      courses_fetch_courses_by_ids: ['course_ids', 'schedules'],
      courses_fetch_course_requisites: ['course_id'],
      courses_search_courses_by_query: ['query'],
      courses_fetch_course_instructors: ['course_id'],
      courses_fetch_course_schedules: ['course_id'],
      courses_fetch_geneds_tool: ['school'],
      courses_fetch_geneds_for_department_tool: ['department', 'school'],
      eats_get_all_dining_locations: [],
      eats_search_dining_locations: ['name_query'],
      eats_get_locations_open_now: [],
      eats_get_locations_open_at_time: ['day', 'hour', 'minute'],
      eats_get_location_hours: ['location_name'],
      eats_get_locations_by_cuisine: ['cuisine_query'],
      guide_search_guide: ['query', 'limit'],
      guide_get_section: ['chunk_id'],
      guide_get_page: ['path'],
      guide_list_pages: [],
      guide_refresh_index: [],
      bus_get_bus_predictions: [],
      bus_get_stop_predictions: ['stop_id'],
      bus_get_next_bus: ['stop_id', 'route', 'place', 'direction'],
      bus_search_bus_predictions: ['query'],
      bus_get_cmu_prt_rider_guide: [],
    };
    expect([...byName.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [name, args] of Object.entries(expected)) {
      expect(Object.keys(byName.get(name)!.inputSchema.properties ?? {}).sort(), name).toEqual([...args].sort());
    }
    expect(byName.get('courses_fetch_course_by_id')!.inputSchema.required).toEqual(['course_id']);
    expect(byName.has('maps_show_map')).toBe(false);
    expect(byName.get('maps_get_path')!.description).toMatch(/\n\nArgs:\n/);
  });
});

describe('maps', () => {
  it('finds Gates by name with the GHC building code and coordinates', async () => {
    const { results } = await json('maps_search_buildings', { query: 'Gates' });
    expect(results[0]).toMatchObject({ nameWithSpace: 'GHC', type: 'building', floor: { buildingCode: 'GHC' } });
    expect(results[0].fullNameWithSpace).toContain('Gates');
    expect(results[0].labelPosition.latitude).toBeCloseTo(40.44, 1);
    expect(results[0].labelPosition.longitude).toBeCloseTo(-79.94, 1);
  });

  it('finds a room on its floor and answers an empty list for nonsense', async () => {
    const { results } = await json('maps_search_buildings', { query: 'GHC 4401' });
    expect(results).toEqual([expect.objectContaining({ nameWithSpace: 'GHC 4401', floor: { buildingCode: 'GHC', level: '4' } })]);
    expect(await json('maps_search_buildings', { query: 'zzqx' })).toEqual({ results: [] });
  });

  it('searches by full text: typos, what a building holds, its description and nearest neighbours', async () => {
    const first = async (query: string) => (await json('maps_search_buildings', { query })).results[0];
    expect((await first('bakr hall')).nameWithSpace).toBe('BH');
    expect((await first('hunt libary')).nameWithSpace).toBe('HL');
    const gym = await first('gym');
    expect(gym).toMatchObject({ nameWithSpace: 'CUC', description: expect.stringContaining('fitness center') });
    expect(gym.nearby).toHaveLength(3);
    expect(gym.nearby[0]).toEqual({ code: expect.any(String), name: expect.any(String), metres: expect.any(Number) });
    expect(gym.nearby.map((n: { metres: number }) => n.metres)).toEqual([...gym.nearby.map((n: { metres: number }) => n.metres)].sort((a, b) => a - b));
    expect((await first('business school')).nameWithSpace).toBe('TEP');
  });

  it('lists possible locations by name', async () => {
    const names = await json('maps_list_possible_locations', { query: 'Wean' });
    expect(names).toContain('Wean Hall');
    expect(await json('maps_list_possible_locations', { query: 'zzqx' })).toEqual([]);
  });

  it('measures distances in metres and answers -1 for unknown places', async () => {
    const d = await json('maps_distance_between', { start_id: 'GHC', end_id: 'CUC' });
    expect(d).toBeGreaterThan(100);
    expect(d).toBeLessThan(600);
    expect(await json('maps_distance_between', { start_id: 'GHC', end_id: 'NOPE' })).toBe(-1);
    expect(await json('maps_distance_between', { start_id: '40.4435,-79.9445', end_id: 'GHC' })).toBe(0);
  });

  it('returns a path from "Start here" to "Arrive", and an error result for an unknown end', async () => {
    const path = await json('maps_get_path', { start_id: 'WEH', end_id: 'GHC-4401' });
    expect(path.fastest[0]).toMatchObject({ id: 'WEH', instruction: 'Start here' });
    expect(path.fastest.at(-1)).toMatchObject({ id: 'GHC-4401', instruction: 'Arrive', floor: '4' });
    const bad = await call('maps_get_path', { start_id: 'WEH', end_id: 'Atlantis' });
    expect(bad).toEqual({ isError: true, text: "Error calling tool 'get_path': Unknown location: Atlantis" });
  });
});

describe('courses', () => {
  it('fetches a course by id, normalising 15122', async () => {
    const course = await json('courses_fetch_course_by_id', { course_id: '15122' });
    expect(course).toMatchObject({ courseID: '15-122', units: '12.0', prereqs: ['15-112'], prereqString: '15-112' });
    expect(Object.keys(course).sort()).toEqual(
      ['courseID', 'coreqs', 'crosslisted', 'department', 'desc', 'name', 'prereqString', 'prereqs', 'units'].sort(),
    );
  });

  it('answers an unknown course with an error result in the production wording', async () => {
    const r = await call('courses_fetch_course_by_id', { course_id: '99-999' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^Error calling tool 'fetch_course_by_id': .*99-999/);
  });

  it('fetches several courses, leaving unknown ids out, with schedules on request', async () => {
    const list = await json('courses_fetch_courses_by_ids', { course_ids: ['15-213', '99-999', '21-127'], schedules: true });
    expect(list.map((c: { courseID: string }) => c.courseID)).toEqual(['15-213', '21-127']);
    expect(list[0].schedules[0].lectures[0].times[0]).toMatchObject({ building: 'GHC', room: '4401' });
  });

  it('reports requisites as AND-of-OR relations with postreqs', async () => {
    const r = await json('courses_fetch_course_requisites', { course_id: '15-150' });
    expect(r.prereqRelations).toEqual([['15-112'], ['21-127', '15-151']]);
    const base = await json('courses_fetch_course_requisites', { course_id: '15-122' });
    expect(base.postreqs).toEqual(expect.arrayContaining(['15-210', '15-213', '15-251']));
    expect(base.postreqs).not.toContain('15-150');
  });

  it('searches, lists instructors and schedules, and gen-eds by school and department', async () => {
    const found = await json('courses_search_courses_by_query', { query: 'functional programming' });
    expect(found.map((c: { courseID: string }) => c.courseID)).toContain('15-150');
    expect(await json('courses_search_courses_by_query', { query: 'underwater basket' })).toEqual([]);
    // By subject (stemmed, abbreviated), by instructor, best first.
    const ids = async (query: string) => (await json('courses_search_courses_by_query', { query })).map((c: { courseID: string }) => c.courseID);
    expect((await ids('statistics'))[0]).toBe('36-200');
    expect(await ids('intro statistics')).not.toContain('70-122');
    expect(await ids('AI')).toContain('15-281');
    expect(await ids('pavlo')).toEqual(['15-445']);
    expect(await ids('databases')).toContain('15-445');
    expect(await json('courses_fetch_course_instructors', { course_id: '15-445' })).toEqual(['Andy Pavlo']);
    const [sched] = await json('courses_fetch_course_schedules', { course_id: '15-112' });
    expect(sched).toMatchObject({ year: expect.any(Number), semester: expect.any(String) });
    expect(sched.lectures[0].times[0].days).toEqual(['M', 'W', 'F']);
    const geneds = await json('courses_fetch_geneds_tool', { school: 'DC' });
    expect(geneds.length).toBeGreaterThan(3);
    expect(geneds[0]).toEqual({ courseID: expect.any(String), name: expect.any(String), units: expect.any(String), desc: expect.any(String), tags: expect.any(Array) });
    const history = await json('courses_fetch_geneds_for_department_tool', { department: 'History' });
    expect(history.map((c: { courseID: string }) => c.courseID)).toEqual(['79-104']);
  });
});

describe('eats', () => {
  it('lists every place in the production Markdown format with open markers judged in New York time', async () => {
    clock = WEDNESDAY_NOON;
    const { text } = await call('eats_get_all_dining_locations');
    expect(text).toMatch(/^# .+\n\n\*\*12 locations found\*\* • \*\*\d+ currently open\*\*/);
    expect(text).toMatch(/\n## Coffee \(3\)\n/);
    expect(text).toContain('### 🟢 Gates Café');
    expect(text).toContain('**Hours:** Monday - Friday: 8:00 AM - 5:00 PM');
    expect(text).toMatch(/\*\*Cuisine:\*\* .+\n\*\*Location:\*\* .+\n\*\*Hours:\*\* .+\n\*\*Description:\*\* /);
  });

  it('open now follows the injected clock, including a late-night place past midnight', async () => {
    clock = WEDNESDAY_NOON;
    const noon = (await call('eats_get_locations_open_now')).text;
    expect(noon).toContain('Schatz Dining Room');
    expect(noon).not.toContain('🔴');
    clock = SUNDAY_4AM;
    expect((await call('eats_get_locations_open_now')).text).toBe('No dining locations are currently open.');
    clock = new Date('2026-11-22T06:30:00Z'); // Sunday 01:30 in New York: Saturday's late opening
    const late = (await call('eats_get_locations_open_now')).text;
    expect(late).toContain('Scotty’s Market');
    expect(late).toContain('**1 locations found**');
  });

  it('answers a given time and refuses out-of-range hours with an error result', async () => {
    const sat = await call('eats_get_locations_open_at_time', { day: 6, hour: 12 });
    expect(sat.isError).toBe(false);
    expect(sat.text).toContain('Tartan Pizza Co.');
    expect(sat.text).not.toContain('Gates Café');
    const bad = await call('eats_get_locations_open_at_time', { day: 2, hour: 25, minute: 0 });
    expect(bad).toEqual({ isError: true, text: "Error calling tool 'get_locations_open_at_time': hour must be between 0 and 23, got 25" });
    expect((await call('eats_get_locations_open_at_time', { day: 7, hour: 1 })).isError).toBe(true);
  });

  it('searches by name and cuisine with a not-found sentence that is not an error', async () => {
    clock = WEDNESDAY_NOON;
    expect((await call('eats_search_dining_locations', { name_query: 'pizza' })).text).toContain('### 🟢 Tartan Pizza Co.');
    expect(await call('eats_search_dining_locations', { name_query: 'Nowhere' })).toEqual({
      isError: false,
      text: "# Search Results for 'Nowhere'\n\nNo dining locations found matching 'Nowhere'.",
    });
    const coffee = (await call('eats_get_locations_by_cuisine', { cuisine_query: 'coffee' })).text;
    expect(coffee).toContain('**4 locations found**'); // three coffee bars and a café whose description says coffee
  });

  it('gives detailed hours of one place', async () => {
    clock = WEDNESDAY_NOON;
    const { text } = await call('eats_get_location_hours', { location_name: 'nourish' });
    expect(text).toContain('**Detailed Hours:**\n- Monday: 10:30 - 19:00');
    expect(text).toContain('- Sunday: Closed');
    expect((await call('eats_get_location_hours', { location_name: 'Nowhere' })).isError).toBe(false);
  });
});

describe('guide', () => {
  it('lists pages, searches chunks and fetches sections and pages', async () => {
    const pages = await json('guide_list_pages');
    expect(pages.length).toBeGreaterThanOrEqual(4);
    expect(pages[0]).toEqual({ path: expect.stringMatching(/^src\/pages\/.+\.md$/), title: expect.any(String), description: expect.any(String) });
    const hits = await json('guide_search_guide', { query: 'meal plan blocks', limit: 2 });
    expect(hits.length).toBeLessThanOrEqual(2);
    expect(hits[0]).toMatchObject({ chunk_id: expect.stringMatching(/^src\/pages\/meal-plans\.md#\d+$/), file: 'src/pages/meal-plans.md' });
    const section = await json('guide_get_section', { chunk_id: hits[0].chunk_id });
    expect(section).toEqual({ heading_path: expect.any(Array), url: expect.stringMatching(/^https:\/\//), content: expect.any(String) });
    expect(await json('guide_get_section', { chunk_id: 'nope#1' })).toEqual({ error: expect.stringMatching(/^No chunk found/) });
    expect((await json('guide_get_page', { path: 'src/pages/wifi.md' })).title).toBe('Wi-Fi and Accounts');
    expect(await json('guide_get_page', { path: 'x.md' })).toHaveProperty('error');
    expect(await json('guide_refresh_index')).toEqual({ pages: pages.length, chunks: expect.any(Number) });
  });
});

describe('sessions', () => {
  it('keeps sessions apart, serves a client that opens one session per call, and 404s an unknown session', async () => {
    const second = await connect(sandbox.url);
    const a = await second.callTool({ name: 'courses_fetch_course_instructors', arguments: { course_id: '15-150' } });
    expect((a.content as Array<{ text: string }>)[0]!.text).toBe('["Michael Erdmann"]');
    await second.close();
    const res = await fetch(sandbox.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'stale' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toBe('Session not found');
  });
});
