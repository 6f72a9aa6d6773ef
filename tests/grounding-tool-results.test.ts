/**
 * The readers of the tool server's results (src/guards/grounding/tool-results.ts, issue 60) on every
 * sandbox tool's real output: the sandbox tool server over MCP, the service's MCP client, each tool
 * called with arguments a model would send, each result read into a recording sink. Every result gives
 * facts; each shape gives the ones its tool is for (a place's block its hours, a course its units and
 * rooms, a bus route its waits from when they were fetched, a day's name its hours). Then a few answers
 * are checked against the real evidence of those results, right and wrong. A tool the table does not
 * know fails the test: a new tool is read here before it ships.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/campus/catalog.js';
import { readClaims } from '../src/guards/grounding/claims.js';
import { createEvidence } from '../src/guards/grounding/evidence.js';
import { readToolResult, type FactSink } from '../src/guards/grounding/tool-results.js';
import { silentLogger } from '../src/logger.js';
import { startSandboxToolServer, type SandboxToolServer } from '../src/sandbox/campus/tool-server.js';
import { createMcpCampusTools } from '../src/tools/mcp-campus-tools.js';
import type { CampusTools } from '../src/tools/campus-tools.js';
import { classOf, fact, type Fact } from '../src/guards/grounding/facts.js';

const catalog = loadCatalog(null);

/** Arguments a model would send each tool; a guide page and section are found from the guide itself. */
const ARGS: Record<string, Record<string, unknown>> = {
  maps_search_buildings: { query: 'Gates' },
  maps_get_path: { start_id: 'WEH', end_id: 'GHC' },
  maps_list_possible_locations: { query: 'library' },
  maps_distance_between: { start_id: 'WEH', end_id: 'CUC' },
  courses_fetch_course_by_id: { course_id: '15-122' },
  courses_fetch_courses_by_ids: { course_ids: ['15-122', '21-127'], schedules: true },
  courses_fetch_course_requisites: { course_id: '15-122' },
  courses_search_courses_by_query: { query: 'machine learning' },
  courses_fetch_course_instructors: { course_id: '15-122' },
  courses_fetch_course_schedules: { course_id: '15-122' },
  courses_fetch_geneds_tool: { school: 'SCS' },
  courses_fetch_geneds_for_department_tool: { department: 'CS', school: 'SCS' },
  eats_get_all_dining_locations: {},
  eats_search_dining_locations: { name_query: 'pizza' },
  eats_get_locations_open_now: {},
  eats_get_locations_open_at_time: { day: 2, hour: 12, minute: 0 },
  eats_get_location_hours: { location_name: 'Schatz' },
  eats_get_locations_by_cuisine: { cuisine_query: 'coffee' },
  guide_search_guide: { query: 'housing' },
  guide_get_section: {},
  guide_get_page: {},
  guide_list_pages: {},
  guide_refresh_index: {},
  bus_get_bus_predictions: {},
  bus_get_stop_predictions: { stop_id: '7117' },
  bus_get_next_bus: { route: '61C', stop_id: '7117' },
  bus_search_bus_predictions: { query: 'Squirrel Hill' },
  bus_get_cmu_prt_rider_guide: {},
};

/** What a reader wrote: facts by the subject they were read as (`-` for nobody's), texts, day lines, fetch times. */
class RecordingSink implements FactSink {
  readonly facts = new Map<string, Set<Fact>>();
  readonly texts: string[] = [];
  readonly dayLines: string[] = [];
  readonly fetched: number[] = [];
  fetchedAt: number | null = null;
  private subject = '-';

  addKey(key: Fact): void {
    if (!this.facts.has(this.subject)) this.facts.set(this.subject, new Set());
    this.facts.get(this.subject)!.add(key);
    if (this.fetchedAt !== null) this.fetched.push(this.fetchedAt);
  }
  readText(text: string): void {
    this.texts.push(text);
    // Text is read into claims by the evidence; here its claims' keys are recorded as its facts.
    for (const c of readClaims(text, { catalog, mode: 'evidence' })) for (const k of c.keys) this.addKey(k);
  }
  readDayLine(line: string): void {
    this.dayLines.push(line);
  }
  within(subject: string | null, _names: readonly string[], read: () => void): void {
    const outer = this.subject;
    this.subject = subject ?? '-';
    try {
      read();
    } finally {
      this.subject = outer;
    }
  }
  keysOf(prefix: string): Fact[] {
    return [...this.facts].filter(([s]) => s.startsWith(prefix)).flatMap(([, keys]) => [...keys]);
  }
}

describe('the tool-result readers on every sandbox tool', () => {
  let server: SandboxToolServer;
  let tools: CampusTools;
  const results = new Map<string, string>();
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await tools.call(name, args, new AbortController().signal);
    return r.text;
  };

  beforeAll(async () => {
    // Tuesday noon in Pittsburgh: the dining places are open and the buses run.
    server = await startSandboxToolServer({ port: 0, host: '127.0.0.1', now: () => new Date('2026-11-24T17:00:00Z') });
    tools = createMcpCampusTools({ url: server.url, logger: silentLogger });
    const listed = (await tools.list()).map((t) => t.name);
    expect(listed.length).toBeGreaterThanOrEqual(27);
    for (const name of listed) {
      expect(ARGS, `arguments for ${name}`).toHaveProperty(name);
      let args = ARGS[name]!;
      if (name === 'guide_get_page') args = { path: (JSON.parse(await call('guide_list_pages', {})) as { path: string }[])[0]!.path };
      if (name === 'guide_get_section') args = { chunk_id: (JSON.parse(await call('guide_search_guide', { query: 'housing' })) as { chunk_id: string }[])[0]!.chunk_id };
      results.set(name, await call(name, args));
    }
  }, 60_000);

  afterAll(async () => {
    await tools?.close();
    await server?.close();
  });

  it('every result gives the readers something: facts or text', () => {
    for (const [name, text] of results) {
      const sink = new RecordingSink();
      readToolResult(text, sink, catalog);
      expect(sink.texts.length + sink.facts.size, name).toBeGreaterThan(0);
    }
  });

  it('a dining list owns each place\'s hours in its block; a day\'s line its hours', () => {
    const sink = new RecordingSink();
    readToolResult(results.get('eats_get_all_dining_locations')!, sink, catalog);
    const places = [...sink.facts.keys()].filter((s) => s.startsWith('place:'));
    expect(places.length).toBeGreaterThan(3);
    expect(sink.keysOf('place:').some((k) => classOf(k) === 'time')).toBe(true);
    const detail = new RecordingSink();
    readToolResult(results.get('eats_get_location_hours')!, detail, catalog);
    expect([...detail.facts.keys()].filter((s) => s.startsWith('place:'))).toHaveLength(1);
  });

  it('a course owns its units, its schedule\'s rooms and its term', () => {
    const sink = new RecordingSink();
    readToolResult(results.get('courses_fetch_courses_by_ids')!, sink, catalog);
    expect(sink.keysOf('course:15122').some((k) => classOf(k) === 'units')).toBe(true);
    expect(sink.keysOf('course:21127').some((k) => classOf(k) === 'units')).toBe(true);
    const schedules = new RecordingSink();
    readToolResult(results.get('courses_fetch_course_schedules')!, schedules, catalog);
    const keys = [...schedules.facts.values()].flatMap((k) => [...k]);
    expect(keys).toContain(fact.room('GHC', '4401'));
    expect(keys.some((k) => classOf(k) === 'term')).toBe(true);
    expect(keys).toContain(fact.time(660));
  });

  it('a bus route owns its waits, read with the time its predictions were fetched', () => {
    for (const name of ['bus_get_bus_predictions', 'bus_get_stop_predictions', 'bus_get_next_bus']) {
      const sink = new RecordingSink();
      readToolResult(results.get(name)!, sink, catalog);
      expect(sink.keysOf('route:').some((k) => classOf(k).startsWith('wait-')), name).toBe(true);
      expect(sink.fetched.length, name).toBeGreaterThan(0);
      expect(sink.fetchedAt, name).toBeNull();
    }
  });

  it('the real evidence of these results holds a right answer and not a wrong one', () => {
    const evidence = createEvidence(catalog, () => 2);
    for (const text of results.values()) evidence.addToolResult(text);
    const outcome = (sentence: string) => {
      const claims = readClaims(sentence, { catalog, mode: 'answer' });
      expect(claims.length, sentence).toBeGreaterThan(0);
      return claims.map((c) => evidence.check(c, [...new Set(evidence.mentionsOf(sentence, claims).map((m) => m.subject))]));
    };
    // The course and its room both held; the invented room not (the course still is).
    expect(outcome('15-122 meets in GHC 4401.')).toEqual(['held', 'held']);
    expect(outcome('15-122 meets in GHC 9999.')).toEqual(['held', 'unverified']);
  });
});
