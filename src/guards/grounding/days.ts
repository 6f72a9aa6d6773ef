/**
 * What day a stated time is about (issue 59): the weekdays a sentence, list item or table row names
 * ("Monday", "Mon–Fri", "Monday through Saturday", "weekdays", "weekends", "daily", "every day",
 * "today", "tonight", "tomorrow", "this Friday"), and which of them each time range of the text binds
 * to. One reader serves the answer and the evidence, so "open Friday until 9 PM" in an answer and
 * "- Friday: 7:30 AM - 9:00 PM" in a dining result reach the same time, 1260, on Friday.
 *
 * A range binds, in this order, to the days named right after it with "on", "every" or "each", or in
 * parentheses ("10:30 am to 8:30 pm on weekdays, until 9 pm on weekends", "7:30 AM to 2 PM (Mon-Fri)"), to the days named before it in the same clause
 * ("Monday: 9 AM - 5 PM", "Monday through Saturday from 5 PM to 10 PM", "Monday it opens at 9"), to days
 * right after it ("9-5 Monday to Friday", "until 11 tonight"), and otherwise to the nearest days named
 * before it. "Except Friday" takes Friday out of the days before it. Text that names no day binds
 * nothing, and neither does a day after a clause break: those times keep the unbound rule. Days are
 * numbered as Date#getUTCDay: 0 is Sunday.
 */
import { crossesSentence } from '../sentence-end.js';
import { fact, type Fact } from './facts.js';

const DAY_NAMES: ReadonlyArray<[RegExp, number]> = [
  [/^sun/i, 0],
  [/^mon/i, 1],
  [/^tue/i, 2],
  [/^wed/i, 3],
  [/^thu/i, 4],
  [/^fri/i, 5],
  [/^sat/i, 6],
];

const NAME = String.raw`(?:sun(?:day)?s?|mon(?:day)?s?|tue(?:s(?:day)?)?s?|wed(?:nesday)?s?|thu(?:r(?:s(?:day)?)?)?s?|fri(?:day)?s?|sat(?:urday)?s?)`;
/**
 * The one- and two-letter forms a schedule writes, read as both ends of a range ("M–Th", "M-F", "Sa–Su"),
 * or alone, capitalised, where a compact schedule puts a day: first in the text, a line, a list item or
 * after ",", ";", "|", "(" or ":", and right before its hours or "closed" ("…, F 8-7:30, Sa 11-7:30, Su closed").
 */
const SHORT = String.raw`(?:M|Tu|W|Th|R|F|Sa|Su)`;
const SHORT_DAY: Record<string, number> = { M: 1, Tu: 2, W: 3, Th: 4, R: 4, F: 5, Sa: 6, Su: 0 };
/** A short form's day, however it was cased ("th" of "m-th" is Thursday). */
const shortDay = (written: string): number => SHORT_DAY[written[0]!.toUpperCase() + written.slice(1).toLowerCase()]!;
/** One day expression: a named day or a range of them, a word for several, or a day relative to today. */
const DAY_EXPR = new RegExp(
  String.raw`\b(${NAME})\.?(?:\s*(?:-|–|—|to|through|thru|until|till)\s*(${NAME})\.?)?\b` +
    String.raw`|\b(${SHORT})\s?(?:-|–|—)\s?(${SHORT})\b` +
    String.raw`|\b(week\s?days?|weekends?|daily|every\s+day|each\s+day|all\s+week|seven\s+days\s+a\s+week|7\s+days\s+a\s+week|today|tonight|this\s+(?:evening|morning|afternoon)|tomorrow)\b` +
    String.raw`|\b(${SHORT})(?=[ \t]*:?[ \t]*(?:\d|closed\b))`,
  'gi',
);
/** Before a lone short day: the start of the text, a line or an item, or ",", ";", "|", "(" or ":". */
const SCHEDULE_SLOT = /(?:^|[\n,;|(:])[ \t]*(?:[-*•][ \t]*)?$/;
/** What takes days out of the ones before: "except Friday", "but not on Sunday", "other than Saturday". */
const EXCEPT = /\b(?:except(?:\s+for)?|but\s+not|excluding|other\s+than|apart\s+from)(?:\s+(?:on|for))?\s*$/i;
/** What joins day expressions into one list: "Monday, Wednesday and Friday", "Sat/Sun". */
const LIST_JOIN = /^\s*(?:,|and|&|\/|or)\s*(?:and\s+)?$/i;

/** A day expression found in text: its span and the weekdays it names. */
export interface DaySpan {
  start: number;
  end: number;
  days: number[];
}

const dayOf = (name: string): number => DAY_NAMES.find(([re]) => re.test(name))![1];

/** The weekdays from `a` to `b` inclusive, wrapping past Saturday ("Fri–Mon"). */
function span(a: number, b: number): number[] {
  const out = [a];
  for (let d = a; d !== b; ) {
    d = (d + 1) % 7;
    out.push(d);
  }
  return out;
}

/** The day expressions of `text`, neighbours of one list merged; `today` (0-6) resolves today, tonight and tomorrow. */
export function readDays(text: string, today: number | null): DaySpan[] {
  const found: DaySpan[] = [];
  // The days an "except" list takes out of ("every day except Friday and Saturday": both).
  const exceptFrom = new Map<DaySpan, DaySpan>();
  for (const m of text.matchAll(DAY_EXPR)) {
    let days: number[];
    if (m[3] && m[4]) days = span(shortDay(m[3]), shortDay(m[4]));
    else if (m[6]) {
      // Alone, only where a schedule puts it, capitalised ("…, F 8-5", not "f 8" or "the F 8").
      if (!/^[A-Z]/.test(m[6]) || !SCHEDULE_SLOT.test(text.slice(Math.max(0, m.index - 8), m.index))) continue;
      days = [shortDay(m[6])];
    }
    else if (m[1]) {
      // "Sat" or "sun" alone must not be a word of the sentence: "sat down", "the sun".
      if (!m[2] && /^(?:sat|sun|wed|mon)$/i.test(m[1]) && !/^[A-Z]/.test(m[1])) continue;
      days = m[2] ? span(dayOf(m[1]), dayOf(m[2])) : [dayOf(m[1])];
    } else {
      const word = (m[5] ?? "").toLowerCase().replace(/\s+/g, ' ');
      if (!word) continue;
      if (word.startsWith('week') && !word.startsWith('weekend')) days = [1, 2, 3, 4, 5];
      else if (word.startsWith('weekend')) days = [0, 6];
      else if (word === 'tomorrow') {
        if (today === null) continue;
        days = [(today + 1) % 7];
      } else if (/^(?:today|tonight|this )/.test(word)) {
        if (today === null) continue;
        days = [today];
      } else days = [0, 1, 2, 3, 4, 5, 6];
    }
    const last = found.at(-1);
    // "except Friday", "but not Sunday": out of the days named before.
    // It still frames what follows it ("except Friday, when it closes at 7:30 PM").
    if (last && EXCEPT.test(text.slice(Math.max(last.end, m.index - 24), m.index))) {
      last.days = last.days.filter((d) => !days.includes(d));
      const excepted = { start: m.index, end: m.index + m[0].length, days };
      exceptFrom.set(excepted, last);
      found.push(excepted);
      continue;
    }
    if (last && LIST_JOIN.test(text.slice(last.end, m.index))) {
      last.end = m.index + m[0].length;
      last.days = [...new Set([...last.days, ...days])];
      const from = exceptFrom.get(last);
      if (from) from.days = from.days.filter((d) => !days.includes(d));
    } else found.push({ start: m.index, end: m.index + m[0].length, days });
  }
  return found;
}

/** Between a range and the days after it with a preposition, no comma: " on weekdays", " every day", " from Monday to Friday" (", on Friday …" starts another clause). */
const TRAILS_ON = /^[\s*_)]*(?:on|every|each|from)\s+$/i;
/** Days alone in parentheses right after a range: "7:30 AM to 2 PM (Mon-Fri)" (not "(Fri 8am–5pm)", an exception with hours of its own). */
const PAREN_OPEN = /^[\s*_]*\(\s*$/;
const PAREN_CLOSE = /^\s*\)/;
/** Between the days and a range later in the same clause: "Monday: ", " through Saturday from ", " it opens at ". */
const LEADS = /^[^\d;.|!?]{0,40}$/;
/** Between a table row's day cell and its hours cell: "| Monday | 9–5 |". */
const CELL = /^[\s*_]*\|[\s*_]*$/;
/** Between a range and the days right after it: " ", ", ", " for ". */
const TRAILS = /^[\s*_]*,?\s*(?:for\s+)?$/i;

/** A range of the text, by its span. */
export interface Ranged {
  start: number;
  end: number;
}

/** Days a range binds to, and how firmly: 4 named after it with "on", 3 in its clause before it, 2 right after it, 1 only before it. */
interface Binding {
  days: number[];
  strength: 1 | 2 | 3 | 4;
  /** The day expression, when it follows the range (the range's own days, as "9-5 Monday to Thursday" has them). */
  after?: DaySpan;
  /** Where the text between the days and the range begins, for a binding by the last days before it (strength 1). */
  from?: number;
}

/**
 * `taken`: day expressions an earlier range bound from before them ("9am–5pm Monday to Thursday, 11am–5pm
 * Friday"): a text that puts its hours before their days does so throughout, so such days frame no range
 * after them.
 */
function bindRange(text: string, days: readonly DaySpan[], r: Ranged, taken: ReadonlySet<DaySpan>): Binding | null {
  const before = days.filter((d) => d.end <= r.start).at(-1);
  const prev = before && !taken.has(before) ? before : undefined;
  const next = days.find((d) => d.start >= r.end);
  if (next && TRAILS_ON.test(text.slice(r.end, next.start))) return { days: next.days, strength: 4, after: next };
  if (next && PAREN_OPEN.test(text.slice(r.end, next.start)) && PAREN_CLOSE.test(text.slice(next.end, next.end + 4))) return { days: next.days, strength: 4, after: next };
  if (prev && (LEADS.test(text.slice(prev.end, r.start)) || CELL.test(text.slice(prev.end, r.start)))) return { days: prev.days, strength: 3 };
  if (next && TRAILS.test(text.slice(r.end, next.start))) return { days: next.days, strength: 2, after: next };
  // A day later in the text, after a clause break, is another clause's; one before still frames it.
  return prev ? { days: prev.days, strength: 1, from: prev.end } : null;
}

/** A time of the text: its span and its range (the ends of "9 AM - 5 PM" share one). */
export interface TimeSpan extends Ranged {
  group: number;
}

/** How far before and after a date a weekday is its own ("Saturday, December 5", "December 5 (Saturday)"). */
const DAY_BESIDE_BEFORE = 24;
const DAY_BESIDE_AFTER = 16;

/** The single weekdays written right beside the date at [start, end) of `text` ("Saturday, December 5", "12/5 (Sat)"). */
export function daysBeside(text: string, start: number, end: number, today: number | null): number[] {
  const near = text.slice(Math.max(0, start - DAY_BESIDE_BEFORE), Math.min(text.length, end + DAY_BESIDE_AFTER));
  return readDays(near, today).flatMap((d) => (d.days.length === 1 ? d.days : []));
}

/**
 * The weekdays each time of `text` is bound to (null: none), by the rule of the module note. A time is
 * bound by itself or by its range, whichever is firmer ("2 PM" of "weekdays until 2 PM and 11 AM–8 PM on
 * weekends" by the weekdays before it, "11 AM" by its range's weekends).
 */
export function bindTimes(text: string, times: readonly TimeSpan[], today: number | null): Array<number[] | null> {
  return readBindings(text, times, today).map((b) => b.days);
}

/** A time's days (null: none), and whether only a day named before it across a clause break bound it. */
export interface TimeBinding {
  days: number[] | null;
  /**
   * Bound only by days named in an earlier sentence or line ("… every day. Most days it closes at 5
   * PM."): a structure the reader does not understand, so a value its place holds on some day is kept
   * (issue 73). Days before it in its own sentence ("On Saturday it opens at 11 and closes at 3") frame
   * it firmly, however many clauses lie between.
   */
  loose: boolean;
}

/** `bindTimes`, with how firmly each time is bound. */
export function readBindings(text: string, times: readonly TimeSpan[], today: number | null): TimeBinding[] {
  if (times.length === 0) return [];
  const varying = varyingTimes(text, times);
  const days = readDays(text, today);
  if (days.length === 0) return times.map((_, i) => ({ days: varying.has(i) ? [] : null, loose: false }));
  const byGroup = new Map<number, Binding | null>();
  const taken = new Set<DaySpan>();
  const groups = [...new Set(times.map((t) => t.group))].map((g) => {
    const members = times.filter((t) => t.group === g);
    return { g, start: Math.min(...members.map((t) => t.start)), end: Math.max(...members.map((t) => t.end)) };
  });
  for (const { g, start, end } of groups.sort((a, b) => a.start - b.start)) {
    const binding = bindRange(text, days, { start, end }, taken);
    byGroup.set(g, binding);
    if (binding?.after) taken.add(binding.after);
  }
  const best = times.map((t) => {
    const own = bindRange(text, days, t, taken);
    const range = byGroup.get(t.group) ?? null;
    return [own, range].filter((b): b is Binding => b !== null).sort((a, b) => b.strength - a.strength)[0];
  });
  const loose = (i: number) => best[i]?.strength === 1 && crossesSentence(text.slice(best[i]!.from, times[i]!.start));
  return overridden(text, times, best.map((b) => b?.days ?? null)).map((d, i) => (varying.has(i) ? { days: [], loose: false } : { days: d, loose: loose(i) }));
}

/** Before a time that opens: "opens at", "from", "starting". */
const OPENS_BEFORE = /\b(?:opens?|opening|from|starting|starts?)\s*(?:at\s+)?$/i;
/** Before a time that closes: "until", "closes at", "till". */
const CLOSES_BEFORE = /\b(?:until|till|'?til|closes?|closing|to)\s*(?:at\s+)?$/i;

/**
 * A usual schedule and its exceptions, as a reader takes them (issue 73): of two statements over
 * overlapping days in one text, the narrower holds for its days and the broader for the rest ("open 8 AM
 * to 6 PM on weekdays, while on Thursdays it opens at noon": 8 AM is claimed for Monday-Wednesday and
 * Friday; "11–3 every day, with late hours until 1 AM on Fridays and Saturdays"). An opening time is
 * overridden only by an opening time, a closing one by a closing one; a time of neither kind by either.
 */
function overridden(text: string, times: readonly TimeSpan[], bound: ReadonlyArray<number[] | null>): Array<number[] | null> {
  const role = times.map((t, i) => {
    const members = times.filter((m) => m.group === t.group);
    if (members.length > 1) return members.indexOf(t) === 0 ? 'open' : 'close';
    const before = text.slice(Math.max(0, t.start - 16), t.start);
    return OPENS_BEFORE.test(before) ? 'open' : CLOSES_BEFORE.test(before) ? 'close' : bound[i] === null ? null : 'either';
  });
  return bound.map((days, i) => {
    if (!days || days.length < 2) return days;
    let left = days;
    bound.forEach((other, j) => {
      if (!other || times[j]!.group === times[i]!.group || other.length >= days.length) return;
      if (role[i] !== role[j] && role[i] !== 'either' && role[j] !== 'either') return;
      if (other.every((d) => days.includes(d))) left = left.filter((d) => !other.includes(d));
    });
    return left;
  });
}

/** A sentence that says its values vary: "depending on the day", "varies", "ranging from". */
const VARIES = /\b(?:depend(?:s|ing)?\s+on|var(?:y|ies|ying)|rang(?:e|es|ing)\s+from|differ(?:s|ent|ing)?)\b/i;
/** Between two times that are alternatives: "10 PM or midnight", "either 10 or 11". */
const OR_BETWEEN = /^[\s*_]*,?\s*or\s+(?:at\s+)?$/i;
/** Between two times a varying sentence bounds: "between 8 and 11 PM", "from 9 to 11". */
const SPAN_BETWEEN = /^[\s*_]*(?:and|to|-|–|—)\s*$/i;
const SPAN_BEFORE = /\b(?:between|from)\s*$/i;

/**
 * Times a text gives as the values a day's hours vary over (issue 73), not as any day's: "closing
 * between 8 and 11 PM depending on the day", "closes at either 10 PM or midnight", "open from 6 to 9 or
 * 10 PM". Each such value is claimed to occur on some day (the rule for a time of no day), not on the
 * days named beside it.
 */
function varyingTimes(text: string, times: readonly TimeSpan[]): Set<number> {
  const out = new Set<number>();
  const varies = VARIES.test(text);
  for (let i = 0; i + 1 < times.length; i++) {
    const a = times[i]!;
    const b = times[i + 1]!;
    const between = text.slice(a.end, b.start);
    if (OR_BETWEEN.test(between)) out.add(i).add(i + 1);
    else if (varies && SPAN_BETWEEN.test(between) && SPAN_BEFORE.test(text.slice(Math.max(0, a.start - 12), a.start)) && !(a.group !== b.group && times.filter((t) => t.group === a.group).length > 1)) {
      // "between 8 and 11 PM" in a sentence about varying: its two ends, not one day's hours.
      const after = text.slice(b.end, b.end + 60);
      const before = text.slice(Math.max(0, a.start - 60), a.start);
      if (VARIES.test(after) || VARIES.test(before)) out.add(i).add(i + 1);
    }
  }
  return out;
}

/** Words before a time that make it a moment asked about, not hours asserted. */
const ASKED_MOMENT = /\b(?:before|after|at|around|by)\s*$/i;
/** A bare hour after such a word ("coffee before 9 tomorrow"): either half of the day. */
const ASKED_BARE_HOUR = /\b(?:before|after|at|by|around)\s+(1[0-2]|0?[1-9])(?::([0-5]\d))?\b(?!\s*(?:[ap]\.?\s?m\b|o'clock|minutes?|mins?|hours?))/gi;

/**
 * The time keys of the moments a student's message asks about ("what's open before 8am?", "anything open
 * after 11 pm on friday", "coffee before 9 tomorrow"), which an answer may echo for the day it is about;
 * not a time the student asserts ("open until 11 tonight?"): that one the tools outrank. `times` are the
 * message's time claims.
 */
export function askedMoments(text: string, times: readonly { start: number; keys: readonly Fact[] }[]): Fact[] {
  const keys: Fact[] = [];
  for (const t of times) if (ASKED_MOMENT.test(text.slice(Math.max(0, t.start - 12), t.start))) keys.push(...t.keys);
  for (const m of text.matchAll(ASKED_BARE_HOUR)) {
    const hour = Number(m[1]) % 12;
    const minute = Number(m[2] ?? 0);
    keys.push(fact.time(hour * 60 + minute), fact.time((hour + 12) * 60 + minute));
  }
  return keys;
}

/** Words that state a time as hours ("open until 11", "closes at 9", "opens 7:30"): a claim about a place's hours. */
const STATED_HOURS = /\b(?:until|till|'?til|closes?|closing|opens?|opening)\s*(?:at\s+)?$/i;

/**
 * The time keys that words (the student's message, the history) state as hours ("is Tazza open until 11
 * tonight?", an earlier answer's "open until 11 PM"): where this turn's tools gave times, they outrank
 * these (issue 59). A moment asked about ("open at 8?") or a time of the student's own ("my class ends
 * at 4:30") is not one.
 */
export function statedHours(text: string, times: readonly { start: number; keys: readonly Fact[] }[]): Fact[] {
  return times.filter((t) => STATED_HOURS.test(text.slice(Math.max(0, t.start - 16), t.start))).flatMap((t) => t.keys);
}

/** Day names for a note ("Friday's", "Saturday and Sunday's"). */
export const DAY_WORDS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
