/**
 * A turn's evidence (issue 45): what its tools returned (raw, every pass), the student's message, the
 * history sent, the service's own facts (the prompt's campus date and time and the user's recalled
 * facts, the configured phone numbers, the coming week's dates) as facts read by the one claim reader
 * (claims.ts). Tool results that are JSON are read field by field, so a number counts only as what its
 * field says it is (`"minutes": 4` is a wait, `"units": "12.0"` is units, `{"building": "GHC", "room":
 * "4401"}` a room); every string inside is read as text too.
 *
 * Facts of a subject (a dining place's block, a course, a bus route: subjects.ts) are also kept apart,
 * so a sentence that names its subject is checked against that subject's facts and the evidence no
 * subject owns (the student's message, the prompt, results without subjects), not against every other
 * place's hours.
 *
 * Reading is lazy: texts are queued and read the first time a claim is checked, so an answer that
 * states nothing checkable costs nothing here.
 */
import type { Catalog } from '../../campus/catalog.js';
import { readClaims, season, type Claim } from './claims.js';
import { readClockTimes } from './clock-times.js';
import { askedMoments, bindTimes, readDays } from './days.js';
import { courseSubject, headingName, phrase, placeAliases, placeSubject, routeSubject } from './subjects.js';

export interface Evidence {
  /** Text whose atoms count as evidence: a history item, the system prompt. */
  addText(text: string): void;
  /**
   * The student's message: evidence like any text, and a time it names for no day ("what's open before
   * 8am?") is the moment asked about, which an answer may echo for the day it answers about.
   */
  addQuestion(text: string): void;
  /** A tool's raw result: JSON read field by field, anything else as text. */
  addToolResult(text: string): void;
  /** Keys that hold as they are (the coming week's dates), computed only if a claim is ever checked. */
  addFacts(keys: () => Iterable<string>): void;
  /**
   * Does some evidence hold this claim? With `subjects` (those its sentence names), only their facts
   * and the evidence no subject owns count.
   */
  holds(claim: Claim, subjects?: readonly string[]): boolean;
  /**
   * `holds`, and why not: a claim bound to days (`claim.days`) is held only by the facts of those days
   * wherever a tool gave that day's hours ('misbound' when its value is true elsewhere: another day,
   * the unbound facts), and by the unbound rule for a day no tool spoke of.
   */
  check(claim: Claim, subjects?: readonly string[]): ClaimOutcome;
  /** The subjects of the evidence that `text` names (by alias, or by a course or route claim of `claims`). */
  subjectsOf(text: string, claims: readonly Claim[]): string[];
  /** Did a tool report a bus wait this turn (so "in 4 minutes" is a wait in any sentence)? */
  hasWaits(): boolean;
}

/** How a claim fared against the evidence. */
export type ClaimOutcome = 'held' | 'unverified' | 'misbound';

/** When a bus result's predictions were fetched, in local minutes after midnight (`retrieved_at.local`: "2026-11-25T16:04:00-05:00"). */
function fetchedMinutes(value: unknown): number | null {
  const local = (value as { retrieved_at?: { local?: unknown } } | null)?.retrieved_at?.local;
  const m = typeof local === 'string' ? /T(\d{2}):(\d{2})/.exec(local) : null;
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** Keys of the dates from `isoDate` (YYYY-MM-DD) to `days` days after it: "today", "tomorrow", "this Friday". */
export function datesFrom(isoDate: string, days: number): string[] {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  const keys: string[] = [];
  for (let i = 0; i <= days; i++) {
    const at = new Date(Date.UTC(y, m - 1, d + i));
    const [yy, mm, dd] = [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate()];
    keys.push(`date:${yy}-${mm}-${dd}`, `date:${mm}-${dd}`, `year:${yy}`);
  }
  return keys;
}

const TIME_FIELD = /^(?:begin|end|start|starts|start_time|end_time|open|opens|close|closes|time|from|to|until)$/i;
const SEASON_FIELD = /^(?:semester|season|term)$/i;

/** What the evidence was given, in order, until it is read. */
type Queued = { text: string; tool: boolean; question?: boolean } | (() => Iterable<string>);

/**
 * The evidence of one turn: every turn makes one (a class: cheap to make), and texts wait in its queue;
 * the reader, with its indexes, is made the first time a claim is checked.
 */
class TurnEvidence implements Evidence {
  private readonly queue: Queued[] = [];
  private reader: Reader | null = null;

  constructor(
    private readonly catalog: Catalog,
    private readonly today: () => number | null,
  ) {}

  addText(text: string): void {
    if (text) this.queue.push({ text, tool: false });
  }

  addToolResult(text: string): void {
    if (text) this.queue.push({ text, tool: true });
  }

  addQuestion(text: string): void {
    if (text) this.queue.push({ text, tool: false, question: true });
  }

  addFacts(keys: () => Iterable<string>): void {
    this.queue.push(keys);
  }

  holds(claim: Claim, subjects?: readonly string[]): boolean {
    return this.read().check(claim, subjects) === 'held';
  }

  check(claim: Claim, subjects?: readonly string[]): ClaimOutcome {
    return this.read().check(claim, subjects);
  }

  subjectsOf(text: string, claims: readonly Claim[]): string[] {
    return this.read().subjectsOf(text, claims);
  }

  hasWaits(): boolean {
    return this.read().hasWaits();
  }

  /** The reader, with everything queued so far read into it. */
  private read(): Reader {
    this.reader ??= createReader(this.catalog, this.today());
    while (this.queue.length > 0) this.reader.read(this.queue.shift()!);
    return this.reader;
  }
}

/**
 * Creates the evidence of one turn; `catalog` resolves buildings named in results, `today` is the
 * campus weekday (0 Sunday; null when unknown) that "today" and "tonight" name, asked only once read.
 */
export function createEvidence(catalog: Catalog, today: () => number | null = () => null): Evidence {
  return new TurnEvidence(catalog, today);
}

/** The facts read so far, and how to read more. */
interface Reader extends Pick<Evidence, 'check' | 'subjectsOf' | 'hasWaits'> {
  read(item: Queued): void;
}

/** A day name as a JSON key ("Monday", "mon"), whose value is that day's hours. */
const DAY_KEY = /^(?:sun|mon|tue|wed|thu|fri|sat)[a-z]*$/i;
const CLOSED = /\bclosed\b/i;

function createReader(catalog: Catalog, today: number | null): Reader {
  /** Every fact. */
  const facts = new Set<string>();
  /** Facts no subject owns. */
  const unscoped = new Set<string>();
  const scoped = new Map<string, Set<string>>();
  /** Alias phrase → the subjects it names (one, or it names none). */
  const aliases = new Map<string, Set<string>>();
  /** The subject whose block or object is being read, if any. */
  let scope: string | null = null;
  let waits = false;

  /** Reads what follows as `subject`'s (named by `names`) until the scope is set back. */
  const enter = (subject: string, names: readonly string[]): void => {
    scope = subject;
    if (!scoped.has(subject)) scoped.set(subject, new Set());
    for (const alias of names) aliases.set(alias, (aliases.get(alias) ?? new Set()).add(subject));
  };

  const add = (key: string) => {
    facts.add(key);
    (scope === null ? unscoped : scoped.get(scope)!).add(key);
  };

  /** Minutes after midnight when a bus result's predictions were fetched (`retrieved_at.local`), while it is read. */
  let fetchedAt: number | null = null;

  const addKey = (key: string) => {
    add(key);
    if (key.startsWith('wait-')) waits = true;
    // 11:59 PM is what a student calls midnight.
    if (key === 'time:1439') add('time:0');
    const [cls, a, b] = key.split(':') as [string, string, string?];
    if (cls === 'room' && b !== undefined) {
      // A room holds its number in any building's name for it, and its floor (the first digit at CMU-style numbering).
      add(`room:*:${b}`);
      const floor = /^(\d)\d{2,3}[A-Z]?$/.exec(b);
      if (floor) add(`floor:${floor[1]}`);
    } else if (cls === 'wait-sec') {
      // `minutes` is ceil(seconds / 60) at the tool server; a model may also round or floor.
      const s = Number(a);
      for (const m of new Set([Math.ceil(s / 60), Math.floor(s / 60), Math.round(s / 60)])) {
        add(`wait-min:${m}`);
        // "Around 4:15 PM": the clock time a wait comes to, from when the predictions were fetched.
        if (fetchedAt !== null) add(`time:${(fetchedAt + m) % 1440}`);
      }
    } else if (cls === 'wait-min' && fetchedAt !== null) add(`time:${(fetchedAt + Number(a)) % 1440}`);
    else if (cls === 'phone') add(`phone7:${a.slice(3)}`);
  };
  const addClaims = (claims: Claim[]) => {
    for (const c of claims) {
      for (const k of c.keys) addKey(k);
      for (const k of c.fallback ?? []) addKey(k);
    }
  };
  /** Read from a tool, not from words (the student's message, the history, the prompt): what qualifies a day. */
  let fromTool = false;
  /**
   * A tool's times of each line bound to the days the line names ("- Monday: 10:30 AM - 7:00 PM", "Monday -
   * Friday: 7:30 AM - 2:00 PM | Saturday - Sunday: 11:00 AM - 8:00 PM"): `time:…@<day>`, and `day:<day>`
   * for each day it gave hours (or "Closed") for, so a claim bound to that day needs that day's facts.
   */
  const readDayTimes = (text: string, claims?: readonly Claim[]) => {
    // Words (the student's, the history's) never qualify a day: where a tool spoke of a day, the tool is
    // what holds that day's times, and where none did the unbound rule reads the words as before.
    if (!fromTool) return;
    // The claims the text was read into (read here only for a text not read yet), line by line.
    const read = claims ?? readClaims(text, { catalog, mode: 'evidence' });
    let start = 0;
    for (const line of text.split('\n')) {
      const end = start + line.length;
      const days = readDays(line, today);
      if (days.length > 0) {
        const times = read.filter((c) => c.cls === 'time' && c.start >= start && c.end <= end).map((c) => ({ ...c, start: c.start - start, end: c.end - start }));
        bindTimes(line, times, today).forEach((bound, i) => {
          for (const d of bound ?? []) {
            for (const k of times[i]!.keys) add(`${k}@${d}`);
            add(`day:${d}`);
          }
        });
        if (CLOSED.test(line)) for (const d of days) for (const day of d.days) add(`day:${day}`);
      }
      start = end + 1;
    }
  };
  const readText = (text: string) => {
    const claims = readClaims(text, { catalog, mode: 'evidence' });
    addClaims(claims);
    readDayTimes(text, claims);
  };

  const readField = (key: string, value: unknown, parent: Record<string, unknown>) => {
    if (typeof value === 'number' && Number.isFinite(value)) {
      if (key === 'minutes') addKey(`wait-min:${value}`);
      else if (key === 'seconds') addKey(`wait-sec:${value}`);
      else if (key === 'units') addKey(`units:${value}`);
      else if (key === 'year') addKey(`year:${value}`);
      else if (key === 'level') addKey(`floor:${value}`);
      else if (/^(?:price|cost|amount)$/i.test(key)) addKey(`price:${Math.round(value * 100)}`);
      return;
    }
    if (typeof value !== 'string') return walk(value);
    const v = value.trim();
    if (key === 'units' && /^\d+(?:\.\d+)?$/.test(v)) addKey(`units:${Number(v)}`);
    else if (key === 'route' && v) addKey(`route:${v.replace(/[\s-]/g, '').toUpperCase()}`);
    else if (key === 'level' && /^\d{1,2}$/.test(v)) addKey(`floor:${Number(v)}`);
    else if (key === 'year' && /^\d{4}$/.test(v)) addKey(`year:${v}`);
    else if (key === 'room' && typeof parent.building === 'string' && v) {
      const building = catalog.resolve(parent.building)?.code ?? parent.building.trim();
      addKey(`room:${building.toUpperCase()}:${v.toUpperCase()}`);
    } else if (TIME_FIELD.test(key)) {
      const taken = new Uint8Array(v.length);
      for (const t of readClockTimes(v, taken)) for (const m of t.minutes) addKey(`time:${m}`);
      // "0930" or "2130": four digits of a 24-hour clock.
      const compact = /^([01]\d|2[0-3])([0-5]\d)$/.exec(v);
      if (compact) addKey(`time:${Number(compact[1]) * 60 + Number(compact[2])}`);
    }
    readText(v);
  };

  function walk(value: unknown): void {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    if (typeof value === 'string') return readText(value);
    if (!value || typeof value !== 'object') return;
    const obj = value as Record<string, unknown>;
    // A course or a bus route owns the facts of its object (its prerequisites, units, schedules, waits).
    const course = typeof obj.courseID === 'string' ? /^(\d{2})-?(\d{3})$/.exec(obj.courseID.trim()) : null;
    const route = typeof obj.route === 'string' && obj.route.trim() ? obj.route : null;
    const outer = scope;
    if (course) enter(courseSubject(course[1]! + course[2]!), typeof obj.name === 'string' ? [phrase(obj.name)] : []);
    else if (route) enter(routeSubject(route), []);
    // A semester with its year: "Spring 2027".
    const seasonKey = Object.keys(obj).find((k) => SEASON_FIELD.test(k));
    const seasonValue = seasonKey ? obj[seasonKey] : undefined;
    if (typeof seasonValue === 'string' && (typeof obj.year === 'number' || typeof obj.year === 'string')) {
      const name = /spring|summer|fall|autumn|winter/i.exec(seasonValue)?.[0];
      if (name) addKey(`term:${season(name)}:${obj.year}`);
    }
    for (const [key, v] of Object.entries(obj)) {
      // {"Monday": "10:00 - 23:00"}: the value is that day's hours.
      if (DAY_KEY.test(key) && typeof v === 'string' && readDays(key, null).length > 0) readDayTimes(`${key}: ${v}`);
      readField(key, v, obj);
    }
    scope = outer;
  }

  /**
   * Markdown: a dining list's `### <place>` blocks, or a detail's one `# <place>`, each owns its lines;
   * what comes before the first place, and any other text, is nobody's.
   */
  const readMarkdown = (text: string) => {
    const places = /^###\s/m.test(text) ? /^###\s+(.+)$/ : (text.match(/^#\s/gm)?.length ?? 0) === 1 ? /^#\s+(.+)$/ : null;
    if (!places) return readText(text);
    let block: string[] = [];
    const flush = () => {
      if (block.length > 0) readText(block.join('\n'));
      block = [];
    };
    for (const line of text.split('\n')) {
      const heading = places.exec(line);
      if (heading || /^#{1,2}\s/.test(line)) {
        flush();
        scope = null;
        const name = heading ? headingName(heading[1]!) : '';
        if (name) enter(placeSubject(name), placeAliases(name));
      }
      block.push(line);
    }
    flush();
    scope = null;
  };

  const readToolResult = (text: string) => {
    fromTool = true;
    try {
      readToolBody(text);
    } finally {
      fromTool = false;
    }
  };
  const readToolBody = (text: string) => {
    const body = text.trim();
    if (body.startsWith('{') || body.startsWith('[')) {
      let value: unknown;
      try {
        value = JSON.parse(body);
      } catch {
        value = undefined; // Not JSON after all: read as text below.
      }
      if (value !== undefined) {
        fetchedAt = fetchedMinutes(value);
        walk(value);
        fetchedAt = null;
        return;
      }
    }
    readMarkdown(text);
  };

  return {
    read(item) {
      if (typeof item === 'function') for (const k of item()) add(k);
      else if (item.tool) readToolResult(item.text);
      else {
        readText(item.text);
        if (item.question) {
          const times = readClaims(item.text, { catalog, mode: 'evidence' }).filter((c) => c.cls === 'time');
          for (const k of askedMoments(item.text, times)) add(`${k}@asked`);
        }
      }
    },
    check(claim, subjects) {
      const has =
        subjects && subjects.length > 0
          ? (k: string) => unscoped.has(k) || subjects.some((s) => scoped.get(s)?.has(k) === true)
          : (k: string) => facts.has(k);
      const unbound = claim.keys.some(has) || (claim.fallback !== undefined && claim.fallback.every(has));
      if (!claim.days || claim.days.length === 0) return unbound ? 'held' : 'unverified';
      // Each day it is bound to: that day's facts where a tool spoke of the day (or the moment the student
      // asked about for no day), else the unbound rule.
      const ok = claim.days.every((d) => (has(`day:${d}`) ? claim.keys.some((k) => has(`${k}@${d}`) || has(`${k}@asked`)) : unbound));
      if (ok) return 'held';
      const elsewhere = unbound || claim.keys.some((k) => [0, 1, 2, 3, 4, 5, 6].some((d) => has(`${k}@${d}`)));
      return elsewhere ? 'misbound' : 'unverified';
    },
    subjectsOf(text, claims) {
      const out = new Set<string>();
      for (const c of claims) {
        for (const key of c.keys) {
          const subject = c.cls === 'course' ? courseSubject(key.slice('course:'.length)) : c.cls === 'route' ? routeSubject(key.slice('route:'.length)) : null;
          if (subject && scoped.has(subject)) out.add(subject);
        }
      }
      if (aliases.size > 0) {
        const words = phrase(text);
        for (const [alias, named] of aliases) if (named.size === 1 && words.includes(alias)) out.add([...named][0]!);
      }
      return [...out];
    },
    hasWaits: () => waits,
  };
}
