/**
 * The readers of the campus tool server's results (issue 60): what a result of each tool of
 * `../shared/CAMPUS_TOOLS.md` says, as the grounding check's facts. One place for every result shape:
 *
 * - JSON (the bus group's results, courses, buildings, paths) is read field by field, so a number counts
 *   only as what its field says it is (`"minutes": 4` is a wait, `"units": "12.0"` units, `{"building":
 *   "GHC", "room": "4401"}` a room, `"level": 4` a floor, `"price": 2.75` a price); every string inside
 *   is read as text too. A course (`courseID`) or a bus route (`route`) owns the facts of its object. A
 *   day's name as a key ("Monday": "10:00 - 23:00") gives that day's hours. A guide section (an object
 *   with a `heading_path`) owns its text's facts as its last heading's topic, and so does each `##`
 *   section of a guide page's `content`.
 * - Markdown (dining lists and details, the guide): a dining list's `### <place>` blocks, or a detail's
 *   one `# <place>`, each owns its lines; what comes before the first place, and any other text, is
 *   nobody's.
 * - Anything else is text.
 *
 * The reader writes into a FactSink (evidence.ts's reader): it knows result shapes, the sink knows what
 * a fact is. `tests/grounding-tool-results.test.ts` runs every sandbox tool's real output through it.
 */
import type { Catalog } from '../../campus/catalog.js';
import { season } from './claims.js';
import { fact, type Fact } from './facts.js';
import { readClockTimes } from './clock-times.js';
import { DAY_WORDS, readDays } from './days.js';
import {
  courseSubject,
  directionAliases,
  directionSubject,
  headingName,
  phrase,
  placeAliases,
  placeSubject,
  routeSubject,
  sectionAliases,
  sectionSubject,
  semesterSubject,
  spaceSubject,
  topicAliases,
  topicSubject,
} from './subjects.js';

/** Where a tool result's facts go. */
export interface FactSink {
  /** A fact of the scope being read (the time 540, 12 units, the room GHC 4401: facts.ts). */
  addKey(key: Fact): void;
  /**
   * Free text: read into claims (a tool's lines bound to the days they name). `hours` false: a moment
   * (when a result was fetched, "Saturday 1:12 AM"), whose time is a fact but no hours of its day.
   */
  readText(text: string, hours?: boolean): void;
  /** One day's hours as a line ("Monday: 10:00 - 23:00"). */
  readDayLine(line: string): void;
  /** Reads `read` as `subject`'s (named by `names`; null: nobody's), then goes back to the scope before. */
  within(subject: string | null, names: readonly string[], read: () => void): void;
  /** When the bus predictions being read were fetched, in local minutes after midnight; null otherwise. */
  fetchedAt: number | null;
}

/** When a bus result's predictions were fetched, in local minutes after midnight (`retrieved_at.local`: "2026-11-25T16:04:00-05:00"). */
function fetchedMinutes(value: unknown): number | null {
  const local = (value as { retrieved_at?: { local?: unknown } } | null)?.retrieved_at?.local;
  const m = typeof local === 'string' ? /T(\d{2}):(\d{2})/.exec(local) : null;
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

const TIME_FIELD = /^(?:begin|end|start|starts|start_time|end_time|open|opens|close|closes|time|from|to|until)$/i;
const SEASON_FIELD = /^(?:semester|season|term)$/i;
/** A day name as a JSON key ("Monday", "mon"), whose value is that day's hours. */
const DAY_KEY = /^(?:sun|mon|tue|wed|thu|fri|sat)[a-z]*$/i;
/** A schedule's meeting days, as letters (`["T", "R"]`) or numbers (0 Sunday: `[2, 4]`). */
const DAY_LETTERS: Record<string, string> = { U: 'Sunday', M: 'Monday', T: 'Tuesday', W: 'Wednesday', R: 'Thursday', F: 'Friday', S: 'Saturday' };
const BUS_DIRECTION = /^(?:in|out)bound$/i;
/** A room's name in a places result: building code and number ("GHC 4401", "BH 136A"). */
const ROOM_NAME = /^([A-Za-z]{2,6})\s+(\d{2,4}[A-Za-z]?)$/;

/** A subject of a JSON object, with the phrases that name it. */
type Subject = [subject: string, names: string[]];

/** The direction subject of a stop or a match (`{direction: "inbound", stop_id, ...}`), or null; `id` names the stop when it has no `stop_id`. */
function directionOf(stop: unknown, id?: string, buses?: unknown): Subject | null {
  const s = stop as Record<string, unknown> | null | undefined;
  if (!s || typeof s !== 'object' || typeof s.direction !== 'string' || !BUS_DIRECTION.test(s.direction.trim())) return null;
  return [directionSubject(s.direction), directionAliases(s, id, destinationsOf(buses))];
}

/** The `destination` of a prediction, a match or a stop's groups (`[{route, destination, arrivals}]`). */
function destinationsOf(buses: unknown): string[] {
  const items = Array.isArray(buses) ? buses : [buses];
  return items.flatMap((b) => {
    const d = (b as { destination?: unknown } | null)?.destination;
    return typeof d === 'string' && d.trim() ? [d] : [];
  });
}

/** An object's semester with its year (`{year: 2027, semester: "Spring"}`): the season as written and the year; null without both. */
function termOf(obj: Record<string, unknown>): { name: string; year: string } | null {
  const key = Object.keys(obj).find((k) => SEASON_FIELD.test(k));
  const value = key ? obj[key] : undefined;
  const name = typeof value === 'string' ? /spring|summer|fall|autumn|winter/i.exec(value)?.[0] : undefined;
  if (!name || (typeof obj.year !== 'number' && typeof obj.year !== 'string')) return null;
  return { name, year: String(obj.year).trim() };
}

/** A schedule entry's term as a subject, named "spring 2027" or "the spring semester" (and "autumn 2026" as "fall 2026"). */
function termSubject({ name, year }: { name: string; year: string }): Subject {
  // Also without its year where a word says it is a term ("the spring semester", "fall term"); two terms
  // of one season in a turn share those names, so they name neither.
  const names = [name, season(name)].flatMap((n) => [`${n} ${year}`, `${n} semester`, `${n} term`, `${n} ${year} semester`]);
  return [semesterSubject(season(name), year), [...new Set(names.map(phrase))]];
}

/** The day names of a schedule's `days` ("Tuesday, Thursday"), or null when they are not days. */
function meetingDays(days: unknown): string | null {
  if (!Array.isArray(days) || days.length === 0) return null;
  const names = days.map((d) => (typeof d === 'number' ? DAY_WORDS[d] : typeof d === 'string' ? DAY_LETTERS[d.trim().toUpperCase()] : undefined));
  return names.every((n): n is string => n !== undefined) ? names.join(', ') : null;
}

/** Reads one tool result into `sink`; `catalog` resolves the buildings results name. */
export function readToolResult(text: string, sink: FactSink, catalog: Catalog): void {
  const body = text.trim();
  if (body.startsWith('{') || body.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      value = undefined; // Not JSON after all: read as text below.
    }
    if (value !== undefined) {
      sink.fetchedAt = fetchedMinutes(value);
      try {
        new JsonResult(sink, catalog).walk(value);
      } finally {
        sink.fetchedAt = null;
      }
      return;
    }
  }
  readMarkdown(text, sink);
}

/** A JSON result, walked field by field. */
class JsonResult {
  constructor(
    private readonly sink: FactSink,
    private readonly catalog: Catalog,
  ) {}

  walk(value: unknown): void {
    if (Array.isArray(value)) {
      for (const item of value) this.walk(item);
      return;
    }
    if (typeof value === 'string') return this.sink.readText(value);
    if (!value || typeof value !== 'object') return;
    const obj = value as Record<string, unknown>;
    // A course, a lecture or section, a stop's direction and a bus route own the facts of their object
    // (prerequisites, units, a section's room and hours, a direction's waits), each inside the one before.
    const subjects: Subject[] = [];
    const course = typeof obj.courseID === 'string' ? /^(\d{2})-?(\d{3})$/.exec(obj.courseID.trim()) : null;
    if (course) subjects.push([courseSubject(course[1]! + course[2]!), typeof obj.name === 'string' ? [phrase(obj.name)] : []]);
    // A schedule's term ({year, semester, lectures, sections}) owns its meetings: spring's times are not fall's.
    const term = !course && (Array.isArray(obj.lectures) || Array.isArray(obj.sections)) ? termOf(obj) : null;
    if (term) subjects.push(termSubject(term));
    // A room of a places result ({nameWithSpace: "GHC 6115", floor: {level: "6"}}) owns its floor.
    const space = typeof obj.nameWithSpace === 'string' && obj.floor && typeof obj.floor === 'object' ? ROOM_NAME.exec(obj.nameWithSpace.trim()) : null;
    if (space) subjects.push([spaceSubject(this.catalog.resolve(space[1]!)?.code ?? space[1]!, space[2]!), []]);
    if (!course && typeof obj.name === 'string' && obj.name.trim() && Array.isArray(obj.times)) subjects.push([sectionSubject(obj.name), sectionAliases(obj.name)]);
    // A match's own direction, or its stop's.
    const direction = directionOf(obj, undefined, obj) ?? directionOf(obj.stop, undefined, obj.match);
    if (direction) subjects.push(direction);
    // A route is named by its id too where no claim reads it as one ("the 67").
    if (typeof obj.route === 'string' && obj.route.trim()) subjects.push([routeSubject(obj.route), [phrase(obj.route)]]);
    // A guide section ({heading_path, snippet | content}) owns its facts, as its last heading's topic.
    const heading = Array.isArray(obj.heading_path) ? obj.heading_path.at(-1) : undefined;
    if (typeof heading === 'string' && heading.trim()) subjects.push(topicOf(heading, [obj.snippet, obj.content]));
    const read = subjects.reduceRight<() => void>((inner, [subject, names]) => () => this.sink.within(subject, names, inner), () => this.fields(obj));
    read();
  }

  private fields(obj: Record<string, unknown>): void {
    // A semester with its year: "Spring 2027".
    const term = termOf(obj);
    if (term) this.sink.addKey(fact.term(season(term.name), term.year));
    // A meeting of a schedule ({days: ["T", "R"], begin: "15:30", end: "16:50"}): its times are those days'.
    const days = meetingDays(obj.days);
    if (days && typeof obj.begin === 'string' && typeof obj.end === 'string') this.sink.readDayLine(`${days}: ${obj.begin} - ${obj.end}`);
    for (const [key, v] of Object.entries(obj)) {
      // {"Monday": "10:00 - 23:00"}: the value is that day's hours.
      if (DAY_KEY.test(key) && typeof v === 'string' && readDays(key, null).length > 0) this.sink.readDayLine(`${key}: ${v}`);
      // Predictions by stop id, beside the stops they are for: each stop's groups run its direction.
      if (key === 'predictions' && v && typeof v === 'object' && !Array.isArray(v) && obj.stops && typeof obj.stops === 'object') {
        this.byStop(v as Record<string, unknown>, obj.stops as Record<string, unknown>);
        continue;
      }
      this.field(key, v, obj);
    }
  }

  /** `{"4407": [group], ...}` read as each stop's direction's (`stops["4407"].direction`). */
  private byStop(predictions: Record<string, unknown>, stops: Record<string, unknown>): void {
    for (const [id, groups] of Object.entries(predictions)) {
      const direction = directionOf(stops[id], id, groups);
      if (direction) this.sink.within(direction[0], direction[1], () => this.walk(groups));
      else this.walk(groups);
    }
  }

  private field(key: string, value: unknown, parent: Record<string, unknown>): void {
    const { sink } = this;
    if (typeof value === 'number' && Number.isFinite(value)) {
      if (key === 'minutes') sink.addKey(fact.wait('wait-min', value));
      else if (key === 'seconds') sink.addKey(fact.wait('wait-sec', value));
      else if (key === 'units') sink.addKey(fact.units(value));
      else if (key === 'year') sink.addKey(fact.year(value));
      else if (key === 'level') sink.addKey(fact.floor(value));
      else if (/^(?:price|cost|amount)$/i.test(key)) sink.addKey(fact.price(Math.round(value * 100)));
      return;
    }
    // When the result was fetched: a moment, not a day's hours (an answer "as of Saturday 1:12 AM"
    // binds its times to Saturday, and the fetch time must not make Saturday a day the tool gave hours for).
    if (key === 'retrieved_at' && value && typeof value === 'object') {
      for (const v of Object.values(value)) if (typeof v === 'string') sink.readText(v, false);
      return;
    }
    if (typeof value !== 'string') return this.walk(value);
    // A guide page ({path, title, content}): each `##` section is its heading's topic.
    if (key === 'content' && typeof parent.path === 'string' && typeof parent.title === 'string') return readGuidePage(value, sink);
    const v = value.trim();
    if (key === 'units' && /^\d+(?:\.\d+)?$/.test(v)) sink.addKey(fact.units(Number(v)));
    else if (key === 'route' && v) sink.addKey(fact.route(v.replace(/[\s-]/g, '').toUpperCase()));
    else if (key === 'level' && /^\d{1,2}$/.test(v)) sink.addKey(fact.floor(Number(v)));
    else if (key === 'year' && /^\d{4}$/.test(v)) sink.addKey(fact.year(v));
    else if (key === 'room' && typeof parent.building === 'string' && v) {
      const building = this.catalog.resolve(parent.building)?.code ?? parent.building.trim();
      sink.addKey(fact.room(building.toUpperCase(), v.toUpperCase()));
    } else if (TIME_FIELD.test(key)) {
      const taken = new Uint8Array(v.length);
      for (const t of readClockTimes(v, taken)) for (const m of t.minutes) sink.addKey(fact.time(m));
      // "0930" or "2130": four digits of a 24-hour clock.
      const compact = /^([01]\d|2[0-3])([0-5]\d)$/.exec(v);
      if (compact) sink.addKey(fact.time(Number(compact[1]) * 60 + Number(compact[2])));
    }
    sink.readText(v);
  }
}

/** A guide section's topic subject, named from its heading and its text (subjects.ts `topicAliases`). */
function topicOf(heading: string, texts: readonly unknown[]): Subject {
  const text = texts.filter((t): t is string => typeof t === 'string').join('\n');
  return [topicSubject(heading), topicAliases(heading, text)];
}

/** A guide page's content: what comes before its first `##` heading is nobody's; each section its heading's topic. */
function readGuidePage(content: string, sink: FactSink): void {
  const parts = content.split(/\n(?=#{2,6}\s)/);
  for (const part of parts) {
    const heading = /^#{2,6}\s+(.+)$/m.exec(part)?.[1];
    if (heading && part.startsWith('#') && !part.startsWith('# ')) {
      const [subject, names] = topicOf(headingName(heading), [part]);
      sink.within(subject, names, () => sink.readText(part));
    } else sink.readText(part);
  }
}

/** A Markdown result: each place's block is its own (module note). */
function readMarkdown(text: string, sink: FactSink): void {
  const places = /^###\s/m.test(text) ? /^###\s+(.+)$/ : (text.match(/^#\s/gm)?.length ?? 0) === 1 ? /^#\s+(.+)$/ : null;
  if (!places) return sink.readText(text);
  let subject: string | null = null;
  let names: readonly string[] = [];
  let block: string[] = [];
  const flush = () => {
    if (block.length > 0) {
      const lines = block.join('\n');
      sink.within(subject, names, () => sink.readText(lines));
    }
    block = [];
  };
  for (const line of text.split('\n')) {
    const heading = places.exec(line);
    if (heading || /^#{1,2}\s/.test(line)) {
      flush();
      const name = heading ? headingName(heading[1]!) : '';
      subject = name ? placeSubject(name) : null;
      names = name ? placeAliases(name) : [];
    }
    block.push(line);
  }
  flush();
}
