/**
 * The sandbox's five bus tools over MCP, in the production shapes (CAMPUS_TOOLS.md, "bus"): predictions
 * from the campus clock that count down and roll over, an empty late-night period, `input_error` results
 * for bad stops, routes, directions and filters, and the PRT rider guide.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { startSandboxToolServer, type SandboxToolServer } from '../src/sandbox/campus/tool-server.js';
import type { CampusTools } from '../src/tools/campus-tools.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';

/** Wednesday 12:30:00 in Pittsburgh. */
const LUNCH = Date.parse('2026-11-18T17:30:00Z');
let clock = LUNCH;
let sandbox: SandboxToolServer;
let tools: CampusTools;

beforeAll(async () => {
  sandbox = await startSandboxToolServer({ port: 0, host: '127.0.0.1', now: () => new Date(clock) });
  tools = createMcpCampusTools({ url: sandbox.url, logger: silentLogger });
});

afterAll(async () => {
  await tools?.close();
  await sandbox?.close();
});

async function call(name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await tools.call(name, args, new AbortController().signal);
  expect(result.ok, result.text).toBe(true);
  return JSON.parse(result.text);
}

describe('the sandbox bus tools', () => {
  it('publishes the five production bus tools as the bus group', async () => {
    const bus = (await tools.list()).filter((t) => t.group === 'bus').map((t) => t.name);
    expect(bus.sort()).toEqual(['bus_get_bus_predictions', 'bus_get_cmu_prt_rider_guide', 'bus_get_next_bus', 'bus_get_stop_predictions', 'bus_search_bus_predictions']);
  });

  it('finds the next bus by route and place, minutes being the seconds rounded up', async () => {
    clock = LUNCH;
    const next = await call('bus_get_next_bus', { route: '61 c', place: 'Squirrel Hill' });
    expect(next).toMatchObject({ status: 'ok', selection: 'per_destination_area', filters: { route: '61C' }, resolution: { place: { query: 'Squirrel Hill', stop_id: '7117' } } });
    expect(next.results).toHaveLength(1);
    const [result] = next.results;
    expect(result.stop).toMatchObject({ stop_id: '7117', direction: 'outbound' });
    expect(result.match).toMatchObject({ route: '61C', destination: 'McKeesport', seconds: 120, minutes: 2 });
    expect(next.retrieved_at).toMatchObject({ timezone: 'America/New_York', local_display: 'Wednesday 12:30 PM' });
    expect(next.coverage_note).toContain('Forbes Ave & Morewood Ave');
  });

  it('counts down as the clock moves, and rolls over to the following bus', async () => {
    clock = LUNCH;
    const first = (await call('bus_get_next_bus', { route: '61C', stop_id: '7117' })).results[0].match;
    clock = LUNCH + 45_000;
    const later = (await call('bus_get_next_bus', { route: '61C', stop_id: '7117' })).results[0].match;
    expect(later.bus_id).toBe(first.bus_id);
    expect(later.seconds).toBe(first.seconds - 45);
    expect(later.minutes).toBe(Math.ceil(later.seconds / 60));
    clock = LUNCH + (first.seconds + 1) * 1000;
    const rolled = (await call('bus_get_next_bus', { route: '61C', stop_id: '7117' })).results[0].match;
    expect(rolled.bus_id).not.toBe(first.bus_id);
    expect(rolled.seconds).toBe(15 * 60 - 1);
  });

  it('lists both stops with their routes, soonest first in a search', async () => {
    clock = LUNCH;
    const all = await call('bus_get_bus_predictions');
    expect(all.status).toBe('ok');
    expect(Object.keys(all.predictions)).toEqual(['4407', '7117']);
    expect(all.stops['4407']).toMatchObject({ direction: 'inbound' });
    expect(all.predictions['4407'].map((g: any) => g.route)).toContain('28X');
    const search = await call('bus_search_bus_predictions', { query: 'airport' });
    expect(search.matches.length).toBeGreaterThan(0);
    expect(search.matches.every((m: any) => m.route === '28X' && m.stop_id === '4407')).toBe(true);
    const seconds = search.matches.map((m: any) => m.seconds);
    expect(seconds).toEqual([...seconds].sort((a: number, b: number) => a - b));
  });

  it('predicts nothing late at night', async () => {
    clock = Date.parse('2026-11-19T08:00:00Z'); // 3:00 AM in Pittsburgh
    const all = await call('bus_get_bus_predictions');
    expect(all.status).toBe('empty');
    // What runs next, by the timetable, said as scheduled (issue 78): every route of both stops, soonest first.
    expect(all.message).toMatch(/^No buses are predicted at these stops right now\. By the timetable \(scheduled times, not live predictions\), service resumes with: /);
    expect(all.message).toContain('61C to McKeesport via Squirrel Hill, first bus 5:02 AM (outbound, near CUC)');
    expect(all.message).toContain('61A to Downtown via Oakland, first bus 5:03 AM (inbound, near Tepper Quad)');
    const next = await call('bus_get_next_bus', { route: '61C' });
    expect(next.status).toBe('empty');
    expect(next.results.every((r: any) => r.match === null)).toBe(true);
    // Filtered: only the route asked for.
    expect(next.message).toContain('61C to Downtown');
    expect(next.message).not.toMatch(/\b61[ABD]\b|\b71B\b|\b28X\b/);
    // Toward a place: the routes that go there, from the stop they leave from.
    const toSquirrelHill = await call('bus_get_next_bus', { place: 'Squirrel Hill' });
    expect(toSquirrelHill.message).toContain('69 to Squirrel Hill, first bus 5:16 AM');
    expect(toSquirrelHill.message).not.toContain('Downtown');
  });

  it.each([
    ['bus_get_stop_predictions', { stop_id: '9999' }, 'unknown_stop'],
    ['bus_get_next_bus', { route: '99Z' }, 'invalid_route'],
    ['bus_get_next_bus', { direction: 'sideways' }, 'invalid_direction'],
    ['bus_get_next_bus', { stop_id: '4407', place: 'Squirrel Hill' }, 'conflicting_filters'],
    ['bus_search_bus_predictions', { query: '  ' }, 'empty_query'],
  ])('answers %s %j with input_error %s', async (name, args, code) => {
    clock = LUNCH;
    expect(await call(name, args)).toMatchObject({ status: 'input_error', error: { code } });
  });

  it('gives the PRT rider guide', async () => {
    const guide = await call('bus_get_cmu_prt_rider_guide');
    expect(guide).toMatchObject({ status: 'ok', credential: expect.stringContaining('CMU ID') });
    expect(guide.steps).toHaveLength(5);
    expect(guide.important_notes).toHaveLength(3);
  });
});
