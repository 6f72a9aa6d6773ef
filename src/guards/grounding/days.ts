/**
 * What day a stated time is about (issue 59): the weekdays a sentence, list item or table row names
 * ("Monday", "Mon–Fri", "Monday through Saturday", "weekdays", "weekends", "daily", "every day",
 * "today", "tonight", "tomorrow", "this Friday"), and which of them each time range of the text binds
 * to. One reader serves the answer and the evidence, so "open Friday until 9 PM" in an answer and
 * "- Friday: 7:30 AM - 9:00 PM" in a dining result reach the same `time:1260` on Friday.
 *
 * A range binds, in this order, to the days named right after it with "on", "every" or "each", or in
 * parentheses ("10:30 am to 8:30 pm on weekdays, until 9 pm on weekends", "7:30 AM to 2 PM (Mon-Fri)"), to the days named before it in the same clause
 * ("Monday: 9 AM - 5 PM", "Monday through Saturday from 5 PM to 10 PM", "Monday it opens at 9"), to days
 * right after it ("9-5 Monday to Friday", "until 11 tonight"), and otherwise to the nearest days named
 * before it. "Except Friday" takes Friday out of the days before it. Text that names no day binds
 * nothing, and neither does a day after a clause break: those times keep the unbound rule. Days are
 * numbered as Date#getUTCDay: 0 is Sunday.
 */

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
      found.push({ start: m.index, end: m.index + m[0].length, days });
      continue;
    }
    if (last && LIST_JOIN.test(text.slice(last.end, m.index))) {
      last.end = m.index + m[0].length;
      last.days = [...new Set([...last.days, ...days])];
    } else found.push({ start: m.index, end: m.index + m[0].length, days });
  }
  return found;
}

/** Between a range and the days after it with a preposition, no comma: " on weekdays", " every day" (", on Friday …" starts another clause). */
const TRAILS_ON = /^[\s*_)]*(?:on|every|each)\s+$/i;
/** Days alone in parentheses right after a range: "7:30 AM to 2 PM (Mon-Fri)" (not "(Fri 8am–5pm)", an exception with hours of its own). */
const PAREN_OPEN = /^[\s*_]*\(\s*$/;
const PAREN_CLOSE = /^\s*\)/;
/** Between the days and a range later in the same clause: "Monday: ", " through Saturday from ", " it opens at ". */
const LEADS = /^[^\d;.|!?]{0,40}$/;
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
}

function bindRange(text: string, days: readonly DaySpan[], r: Ranged): Binding | null {
  const prev = days.filter((d) => d.end <= r.start).at(-1);
  const next = days.find((d) => d.start >= r.end);
  if (next && TRAILS_ON.test(text.slice(r.end, next.start))) return { days: next.days, strength: 4 };
  if (next && PAREN_OPEN.test(text.slice(r.end, next.start)) && PAREN_CLOSE.test(text.slice(next.end, next.end + 4))) return { days: next.days, strength: 4 };
  if (prev && LEADS.test(text.slice(prev.end, r.start))) return { days: prev.days, strength: 3 };
  if (next && TRAILS.test(text.slice(r.end, next.start))) return { days: next.days, strength: 2 };
  // A day later in the text, after a clause break, is another clause's; one before still frames it.
  return prev ? { days: prev.days, strength: 1 } : null;
}

/** A time of the text: its span and its range (the ends of "9 AM - 5 PM" share one). */
export interface TimeSpan extends Ranged {
  group: number;
}

/**
 * The weekdays each time of `text` is bound to (null: none), by the rule of the module note. A time is
 * bound by itself or by its range, whichever is firmer ("2 PM" of "weekdays until 2 PM and 11 AM–8 PM on
 * weekends" by the weekdays before it, "11 AM" by its range's weekends).
 */
export function bindTimes(text: string, times: readonly TimeSpan[], today: number | null): Array<number[] | null> {
  if (times.length === 0) return [];
  const days = readDays(text, today);
  if (days.length === 0) return times.map(() => null);
  const byGroup = new Map<number, Binding | null>();
  for (const g of new Set(times.map((t) => t.group))) {
    const members = times.filter((t) => t.group === g);
    byGroup.set(g, bindRange(text, days, { start: Math.min(...members.map((t) => t.start)), end: Math.max(...members.map((t) => t.end)) }));
  }
  return times.map((t) => {
    const own = bindRange(text, days, t);
    const range = byGroup.get(t.group) ?? null;
    const best = [own, range].filter((b): b is Binding => b !== null).sort((a, b) => b.strength - a.strength)[0];
    return best?.days ?? null;
  });
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
export function askedMoments(text: string, times: readonly { start: number; keys: readonly string[] }[]): string[] {
  const keys: string[] = [];
  for (const t of times) if (ASKED_MOMENT.test(text.slice(Math.max(0, t.start - 12), t.start))) keys.push(...t.keys);
  for (const m of text.matchAll(ASKED_BARE_HOUR)) {
    const hour = Number(m[1]) % 12;
    const minute = Number(m[2] ?? 0);
    keys.push(`time:${hour * 60 + minute}`, `time:${(hour + 12) * 60 + minute}`);
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
export function statedHours(text: string, times: readonly { start: number; keys: readonly string[] }[]): string[] {
  return times.filter((t) => STATED_HOURS.test(text.slice(Math.max(0, t.start - 16), t.start))).flatMap((t) => t.keys);
}

/** Day names for a note ("Friday's", "Saturday and Sunday's"). */
export const DAY_WORDS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
