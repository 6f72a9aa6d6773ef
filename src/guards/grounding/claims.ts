/**
 * The atoms a student acts on, read from text as typed, normalised keys (issue 45): clock times and
 * ranges, course numbers and units, rooms and floors, phone numbers, prices, dates, terms and years,
 * bus routes and waits. The same reader turns an answer into claims and evidence into facts, so a claim
 * holds exactly when some evidence was read to the same fact (facts.ts): "2 PM", "14:00" and "2:00pm" are
 * the time 840; "15213" and "15-213" the course 15213; "(412) 268-2922" and "412.268.2922" one phone.
 *
 * Each pattern takes its span, so a later, looser one never reads the same digits as something else:
 * the 12 of "15-122" is a course, never "12 units"; the minutes of a clock time are never a bus wait.
 * List numbers, headings and other Markdown are not claims; a number that is none of these kinds
 * ("3 dining halls", "24/7", "4.0") is not a claim either.
 */
import type { Catalog } from '../../campus/catalog.js';
import { MAYBE_QUARTER, MAYBE_WORD_HOUR, readClockTimes } from './clock-times.js';
import { ANY_BUILDING, classOf, fact, type Fact, type WaitUnit } from './facts.js';
import { NUMBER_WORDS, ORDINAL_WORDS } from './triggers.js';

export type ClaimClass = 'time' | 'course' | 'units' | 'room' | 'floor' | 'phone' | 'price' | 'date' | 'term' | 'year' | 'route' | 'wait';

export const CLAIM_CLASSES: readonly ClaimClass[] = ['time', 'course', 'units', 'room', 'floor', 'phone', 'price', 'date', 'term', 'year', 'route', 'wait'];

/** One atom: what it asserts as keys (any one of them in the evidence holds it) and where it is written. */
export interface Claim {
  cls: ClaimClass;
  /** Normalised values (facts.ts); the claim holds when the evidence has any of them. */
  keys: Fact[];
  /** A date with a year also holds when the evidence has its month and day and, anywhere, its year. */
  fallback?: Fact[];
  /** Span in the text read (what a replacement takes out). */
  start: number;
  end: number;
  /** Claims of one group (the two ends of a range) are replaced together. */
  group: number;
  /** The weekdays (0 Sunday) a time is bound to by its sentence (days.ts); absent: unbound. */
  days?: number[];
  /** Its days came only from a day named before it past a clause break (days.ts `TimeBinding.loose`). */
  loose?: boolean;
  /**
   * A date's: the weekdays (0 Sunday) its own words name beside it ("Saturday, December 5", "tomorrow
   * (11/30)"). The coming week's calendar holds a date only as the date of a day so named.
   */
  named?: number[];
}

export interface ReadOptions {
  catalog: Catalog;
  /**
   * 'answer': a wait ("in 4 minutes") is a claim only in a sentence about buses and never a walk;
   * 'evidence': every reading counts (a tool's "11 min" is a wait whatever surrounds it).
   */
  mode: 'answer' | 'evidence';
  /** A tool reported bus waits this turn: in an answer, "in 4 minutes" is a wait in any sentence that is not about walking. */
  busTurn?: boolean;
}

const MAY_CLAIM = /\d|noon|midday|midnight|units?\b|floor|level/i;
/** Where a number in words may be units or a floor. */
const WORDY = /unit|floor|level/i;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = String.raw`(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?`;
const ORD = '(?:st|nd|rd|th)?';
const month = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;

const PHONE = /(?<![\w$])(?:\+?1[\s.-]?)?(?:\((\d{3})\)\s?|(\d{3})[\s.-])(\d{3})[\s.-](\d{4})(?!\d)/g;
const PHONE7 = /(?<![\w$.-])(\d{3})-(\d{4})(?![\d-])/g;
const PRICE = /\$\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?(?![\d,]\d)/g;
const ISO_DATE = /(?<![\w.-])(\d{4})-(\d{2})-(\d{2})(?![\d-])/g;
const US_DATE = /(?<![\w./])(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})(?![\d/])/g;
const MONTH_DAY = new RegExp(String.raw`\b${MONTH}\s+(\d{1,2})${ORD}(?:\s*(?:-|–|—|to|through|and)\s*(?:${MONTH}\s+)?(\d{1,2})${ORD})?(?:,?\s+(\d{4}))?(?![\d:])`, 'g');
const DAY_MONTH = new RegExp(String.raw`(?<![\w$.:])(\d{1,2})${ORD}\s+(?:of\s+)?${MONTH}(?![a-z])(?:,?\s+(\d{4}))?`, 'g');
const TERM = /\b(Spring|Summer|Fall|Autumn|Winter|spring|summer|fall|autumn|winter)(?:\s+(?:semester|term|session))?\s+(\d{4})(?!\d)/g;
const COURSE = /(?<![\w$.,:-])(\d{2})(-?)(\d{3})(?![\d-]|[.,]\d)/g;
const UNITS = /(?<![\w.$:])(\d{1,2}(?:\.\d{1,2})?)(?:\s?-\s?|\s)units?\b/gi;
const UNITS_WORD = new RegExp(String.raw`\b(${NUMBER_WORDS.slice(1).join('|')})(?:\s?-\s?|\s)units?\b`, 'gi');
const FLOOR_WORD = new RegExp(String.raw`\b(${ORDINAL_WORDS.slice(1).join('|')})[\s-]+(?:floor|level)\b`, 'gi');
// A date without its year ("10/15", "1/20"): the campus year. Not a fraction ("1/2", "3/4": both at most 4).
const MONTH_SLASH_DAY = /(?<![\w./$])(\d{1,2})\/(\d{1,2})(?![\d/]|\.\d)/g;
// A campus extension: "x8-5555", "ext. 8-5555" or "8-5555" is 412-268-5555 (CMU's exchange).
const EXTENSION = /(?:\bx|\bext\.?\s*|\bextension\s+|(?<![\w$.:/-]))8-(\d{4})(?![\d-])/gi;
// A route whose id starts with a letter ("P3", "G2", "Y1"), read in a text about buses.
const ROUTE_LETTER_FIRST = /(?<![\w.$/-])([A-Z]\d{1,2}[A-Z]?)(?![\w-])/g;
const ROOM_WORD = /\b(?:room|rm\.?)\s+(\d{3,4}[A-Za-z]?)\b/gi;
const ROOM_IN = /^\s+(?:in|of|at)\s+(?:the\s+)?/i;
const FLOOR = /(?<![\w.])(\d{1,2})(?:st|nd|rd|th)[\s-]+(?:floor|level)\b|\b(?:floor|level)\s+(\d{1,2})\b(?![\d:-]|\.\d)/gi;
const WAIT = /(?<![\w.$:])(\d{1,3})(?:\s*(?:-|–|to)\s*(\d{1,3}))?\s*-?\s*(minutes?|mins?|seconds?|secs?)\b/gi;
/** "in 12" closing a clause, after a wait with its unit in the same text (claims.ts reads it only then). */
const ELLIPTIC_WAIT = /\bin\s+(\d{1,3})(?![\w:]|[.,]\d|\s*(?:-|–|to)\s*\d|\s+[a-z%])/gi;
const ROUTE_CODE = /(?<![\w.$/-])([1-9]\d[A-DX])(?![\w])/g;
const ROUTE_WORD = /\b(?:route|bus)\s+([1-9]\d?[A-DX]?)\b(?![\d:.,/-])|(?<![\w.$-])([1-9]\d[A-DX]?)\s+(?:bus|route)(?!s|\s*stops?)\b/gi;
const YEAR = /(?<![\w$.,:/-])(19\d{2}|20\d{2})(?!\d|[.,]\d|-\d)/g;
// A number shaped like a room ("4401", "136A"), not a piece of a phone number or a course number: the
// catalog is asked for buildings only when one is there.
const ROOM_NUMBER = /(?<![\d.,:/-])\d{3,4}[A-Za-z]?(?![\d.,:/-]\d|\d)|\b[A-Z]\d{2}[A-Za-z]?\b/;
const DISTANCE_AFTER = /^\s*(?:m|km|ft|feet|meters?|metres?|miles?|yards?|mi)\b/i;
/** A capitalised word and a room number after it ("Posner 125"). */
const SHARED_NAME_ROOM = /\b([A-Z][a-z]{2,})[ \t]+(\d{3,4}[A-Za-z]?|[A-Z]\d{2,4}[A-Za-z]?)\b(?![\d.,:/-]\d)/g;
const sharedCache = new WeakMap<Catalog, Map<string, string[]>>();
/** The first words of two or more buildings' names ("posner": PC and POS), with their codes; a catalog's, computed once. */
function sharedFirstWords(catalog: Catalog): Map<string, string[]> {
  let shared = sharedCache.get(catalog);
  if (!shared) {
    const byWord = new Map<string, string[]>();
    for (const b of catalog.list()) {
      const first = b.name.split(/\s+/)[0]!.toLowerCase();
      byWord.set(first, [...(byWord.get(first) ?? []), b.code.toUpperCase()]);
    }
    shared = new Map([...byWord].filter(([, codes]) => codes.length > 1));
    sharedCache.set(catalog, shared);
  }
  return shared;
}
const ZIP_BEFORE = /(?:\bPA|Pennsylvania)\s*$/;
// A sentence about buses (a route id in it counts too). Not "next" or "stop" alone: "Next, walk to Forbes
// (about 3 minutes)" is a walk, and a walk time is no claim.
const BUS_CUE = /\b(?:bus|buses|route|routes|PRT|shuttle|inbound|outbound|arriv(?:e|es|ing|al|als)|depart(?:s|ing|ure|ures)?)\b/i;
const WALK_AFTER = /^[\s-]*(?:walk|walking|drive|driving|bike|biking|ride|on foot|by foot)/i;
const WALKING = /\b(?:walk|walking|on foot|by foot)\b/i;

/**
 * Reads the claims of `text`. `text` should be a sentence, list item, table row or whole tool result;
 * Markdown emphasis is read through ("**9 PM**").
 */
export function readClaims(raw: string, options: ReadOptions): Claim[] {
  // Every claim holds a digit, or is noon or midnight: most strings of a tool result hold neither.
  if (!MAY_CLAIM.test(raw) && !MAYBE_WORD_HOUR.test(raw) && !MAYBE_QUARTER.test(raw)) return [];
  const { text, origin } = withoutEmphasis(raw);
  const taken = new Uint8Array(text.length);
  const out: Claim[] = [];
  let group = 0;
  const free = (s: number, e: number) => {
    for (let i = s; i < e; i++) if (taken[i]) return false;
    return true;
  };
  const take = (s: number, e: number) => taken.fill(1, s, e);
  const add = (cls: ClaimClass, s: number, e: number, keys: Fact[], g = group++, fallback?: Fact[]) => {
    // Spans go back to the raw text (emphasis markers are not part of a claim, but stay around it).
    out.push({ cls, keys, start: origin ? origin[s]! : s, end: origin ? origin[e - 1]! + 1 : e, group: g, ...(fallback && { fallback }) });
  };
  const each = (re: RegExp, fn: (m: RegExpMatchArray, s: number, e: number) => boolean | void) => {
    for (const m of text.matchAll(re)) {
      const s = m.index!;
      const e = s + m[0].length;
      if (!free(s, e)) continue;
      if (fn(m, s, e) !== false) take(s, e);
    }
  };

  each(PHONE, (m, s, e) => {
    const digits = `${m[1] ?? m[2]}${m[3]}${m[4]}`;
    add('phone', s, e, [fact.phone(digits)]);
  });
  each(PHONE7, (m, s, e) => add('phone', s, e, [fact.phone7(`${m[1]}${m[2]}`)]));
  if (text.includes('8-')) each(EXTENSION, (m, s, e) => add('phone', s, e, [fact.phone7(`268${m[1]}`)]));
  each(PRICE, (m, s, e) => {
    const cents = Number(m[1]!.replace(/,/g, '')) * 100 + Number((m[2] ?? '0').padEnd(2, '0'));
    add('price', s, e, [fact.price(cents)]);
  });
  const dateClaim = (mo: number, d: number, year: number | null, s: number, e: number, g: number) => {
    if (year === null) add('date', s, e, [fact.date(mo, d)], g);
    else add('date', s, e, [fact.date(mo, d, year)], g, [fact.date(mo, d), fact.year(year)]);
  };
  each(ISO_DATE, (m, s, e) => {
    const mo = Number(m[2]);
    const d = Number(m[3]);
    if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
    dateClaim(mo, d, Number(m[1]), s, e, group++);
  });
  each(US_DATE, (m, s, e) => {
    const mo = Number(m[1]);
    const d = Number(m[2]);
    if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
    const year = m[3]!.length === 2 ? 2000 + Number(m[3]) : Number(m[3]);
    dateClaim(mo, d, year, s, e, group++);
  });
  if (text.includes('/')) each(MONTH_SLASH_DAY, (m, s, e) => {
    const mo = Number(m[1]);
    const d = Number(m[2]);
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || (mo <= 4 && d <= 4)) return false;
    dateClaim(mo, d, null, s, e, group++);
  });
  each(MONTH_DAY, (m, s, e) => {
    const mo = month(m[1]!);
    const d1 = Number(m[2]);
    if (d1 < 1 || d1 > 31) return false;
    const year = m[5] ? Number(m[5]) : null;
    const g = group++;
    if (!m[4]) return dateClaim(mo, d1, year, s, e, g);
    // "Oct 15–16, 2026": each end a claim, the year shared.
    const d2 = Number(m[4]);
    const mo2 = m[3] ? month(m[3]) : mo;
    const cut = s + m[0].search(/\s*(?:-|–|—|to|through|and)\s*/);
    dateClaim(mo, d1, year, s, cut, g);
    if (d2 >= 1 && d2 <= 31) dateClaim(mo2, d2, year, cut, e, g);
  });
  each(DAY_MONTH, (m, s, e) => {
    const d = Number(m[1]);
    if (d < 1 || d > 31) return false;
    dateClaim(month(m[2]!), d, m[3] ? Number(m[3]) : null, s, e, group++);
  });
  each(TERM, (m, s, e) => add('term', s, e, [fact.term(season(m[1]!), m[2]!)]));

  for (const t of readClockTimes(text, taken)) {
    const g = t.range + 1_000_000;
    add('time', t.start, t.end, t.minutes.map(fact.time), g);
    take(t.start, t.end);
  }

  each(COURSE, (m, s, e) => {
    if (!m[2] && ZIP_BEFORE.test(text.slice(Math.max(0, s - 16), s))) return false;
    add('course', s, e, [fact.course(`${m[1]}${m[3]}`)]);
  });
  each(UNITS, (m, s, e) => add('units', s, e, [fact.units(Number(m[1]))]));
  const wordy = WORDY.test(text);
  if (wordy) each(UNITS_WORD, (m, s, e) => add('units', s, e, [fact.units(NUMBER_WORDS.indexOf(m[1]!.toLowerCase()))]));
  each(FLOOR, (m, s, e) => add('floor', s, e, [fact.floor(Number(m[1] ?? m[2]))]));
  if (wordy) each(FLOOR_WORD, (m, s, e) => add('floor', s, e, [fact.floor(ORDINAL_WORDS.indexOf(m[1]!.toLowerCase()))]));
  // Rooms after a building of the catalog ("GHC 4401", "Wean 5403", "DH 2315"); the room number is the claim.
  // Evidence is read in capitals too: a student who typed "weh 5300" gave that room.
  if (ROOM_NUMBER.test(text)) {
    const mentions = options.catalog.mentions(text);
    if (options.mode === 'evidence' && /[a-z]/.test(text)) mentions.push(...options.catalog.mentions(text.toUpperCase()).filter((m) => m.end <= text.length));
    for (const mention of mentions) {
      if (!mention.room) continue;
      const s = mention.end - mention.room.length;
      // "GHC 4401" or "DH2315", never "(CYH, 118 m)": only spaces (or nothing, after a code) between the
      // building and its room, and no unit after it.
      const between = text.slice(mention.start, s);
      if (!(/[\p{L}\p{N}.][ \t]+$/u.test(between) || /^[A-Z]{2,4}$/.test(between)) || DISTANCE_AFTER.test(text.slice(mention.end, mention.end + 12))) continue;
      if (!free(s, mention.end)) continue;
      add('room', s, mention.end, [fact.room(mention.building.code.toUpperCase(), mention.room.toUpperCase())]);
      take(s, mention.end);
    }
  }
  // A room after a name two buildings begin with ("Posner 125": Posner Hall or Posner Center, issue 73):
  // a room of either (the catalog's alias index drops a name that points at two).
  if (ROOM_NUMBER.test(text)) {
    const shared = sharedFirstWords(options.catalog);
    for (const m of text.matchAll(SHARED_NAME_ROOM)) {
      const codes = shared.get(m[1]!.toLowerCase());
      const s = m.index! + m[0].length - m[2]!.length;
      const e = m.index! + m[0].length;
      if (!codes || !free(s, e) || DISTANCE_AFTER.test(text.slice(e, e + 12))) continue;
      add('room', s, e, codes.map((code) => fact.room(code, m[2]!.toUpperCase())));
      take(s, e);
    }
  }
  each(ROOM_WORD, (m, s, e) => {
    const ns = s + m[0].length - m[1]!.length;
    // "room 5403 in Wean Hall": the room of that building; "room 5403" alone: of any.
    const inWord = ROOM_IN.exec(text.slice(e, e + 12));
    const building = inWord ? options.catalog.mentions(text.slice(e + inWord[0].length, e + inWord[0].length + 48))[0] : undefined;
    const code = building && building.start === 0 ? building.building.code.toUpperCase() : ANY_BUILDING;
    add('room', ns, e, [fact.room(code, m[1]!.toUpperCase())]);
  });

  // Routes first (they are bus cues), then waits.
  let routes = 0;
  each(ROUTE_CODE, (m, s, e) => {
    routes++;
    add('route', s, e, [fact.route(m[1]!)]);
  });
  each(ROUTE_WORD, (m, s) => {
    const id = (m[1] ?? m[2])!;
    const at = s + m[0].indexOf(id);
    routes++;
    add('route', at, at + id.length, [fact.route(id.toUpperCase())]);
  });
  const aboutBuses =
    options.mode === 'evidence' || routes > 0 || BUS_CUE.test(text) || (options.busTurn === true && !WALKING.test(text));
  // "P3", "G2": only where the text is about buses (in evidence, a route field says so: tool-results.ts).
  if (options.mode === 'answer' && (routes > 0 || BUS_CUE.test(text))) each(ROUTE_LETTER_FIRST, (m, s, e) => add('route', s, e, [fact.route(m[1]!)]));
  if (aboutBuses) {
    each(WAIT, (m, s, e) => {
      if (options.mode === 'answer' && WALK_AFTER.test(text.slice(e, e + 16))) return false;
      const unit: WaitUnit = m[3]!.toLowerCase().startsWith('s') ? 'wait-sec' : 'wait-min';
      const g = group++;
      if (m[2]) {
        const cut = s + m[1]!.length;
        add('wait', s, cut, [fact.wait(unit, Number(m[1]))], g);
        add('wait', e - m[0].length + m[0].lastIndexOf(m[2]), e, [fact.wait(unit, Number(m[2]))], g);
      } else add('wait', s, e, [fact.wait(unit, Number(m[1]))], g);
    });
    // "the 61D in 4 minutes and the 67 in 12": after a wait, "in <n>" with no unit is a wait of its unit.
    const first = out.find((c) => c.cls === 'wait');
    if (options.mode === 'answer' && first) {
      const unit = classOf(first.keys[0]!) as WaitUnit;
      each(ELLIPTIC_WAIT, (m, s, e) => {
        if (s < first.end) return false;
        const at = s + m[0].length - m[1]!.length;
        add('wait', at, e, [fact.wait(unit, Number(m[1]))]);
      });
    }
  }
  each(YEAR, (m, s, e) => add('year', s, e, [fact.year(m[1]!)]));
  return out.sort((a, b) => a.start - b.start);
}

/** "Fall", "autumn" → `fall`; the four seasons a term is named by. */
export function season(name: string): string {
  const n = name.toLowerCase();
  return n === 'autumn' ? 'fall' : n.startsWith('sum') ? 'summer' : n;
}

/** The text with `*`, `_` and backticks taken out, and where each remaining character was (null: where it is). */
function withoutEmphasis(raw: string): { text: string; origin: number[] | null } {
  if (!/[*_`]/.test(raw)) return { text: raw, origin: null };
  let text = '';
  const origin: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '*' || c === '_' || c === '`') continue;
    text += c;
    origin.push(i);
  }
  origin.push(raw.length);
  return { text, origin };
}
